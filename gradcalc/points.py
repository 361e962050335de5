"""Points to evaluate at: ``--at`` specs and CSV files of points.

Every value goes through the same validated parser as expressions
(:func:`gradcalc.parse.parse_constant`), so ``pi/4``, ``1/3`` and ``sqrt(2)`` work
and nothing else gets in. A file is read in chunks, so any number of rows runs
in bounded memory.

>>> points = parse_at(["w1=5,w2=3"])
>>> points.names, float(points.arrays["w1"]), points.exact
(('w1', 'w2'), 5.0, [{'w1': '5', 'w2': '3'}])
"""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from gradcalc.errors import InputError, reason_of

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*\Z")
CHUNK_ROWS = 65_536


@dataclass
class Points:
    """Values for some variables at one or many points.

    ``arrays`` maps each name to a 0-d array (one ``--at``) or a 1-d array (several
    points); ``exact`` holds, per point, each value's text when it was given exactly
    (``--at``), or is ``None`` (values read from a file). ``first_row`` is the file
    row number of the first point (for messages), 0 for ``--at``.
    """

    names: tuple[str, ...]
    arrays: dict[str, np.ndarray]
    exact: list[dict[str, str]] | None
    first_row: int = 0

    @property
    def count(self) -> int:
        """How many points."""
        first = next(iter(self.arrays.values()), np.zeros(()))
        return 1 if first.ndim == 0 else len(first)

    def label(self, k: int) -> str:
        """Point ``k`` written as ``x=1, y=2`` (exact text where known)."""
        if self.exact is not None:
            return ", ".join(f"{n}={v}" for n, v in self.exact[k].items())
        values = {
            n: self.arrays[n] if self.arrays[n].ndim == 0 else self.arrays[n][k] for n in self.names
        }
        return ", ".join(f"{n}={float(v):.17g}" for n, v in values.items())


def split_top_level(text: str, separator: str = ",") -> list[str]:
    """Split at separators outside parentheses.

    >>> split_top_level("x=atan2(1, 2),y=3")
    ['x=atan2(1, 2)', 'y=3']
    """
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def constant_value(text: str) -> float:
    """The float value of a constant expression, validated like any expression.

    >>> constant_value("pi/4") == 0.7853981633974483, constant_value("1/3")
    (True, 0.3333333333333333)

    Raises:
        InputError: for anything that is not a finite real constant.
    """
    from gradcalc.evaluate import evaluate
    from gradcalc.lower import lower
    from gradcalc.parse import Program, Statement, parse_constant

    node = parse_constant(text)
    graph = lower(Program(text, (Statement(None, node, 0),)))
    value = float(evaluate(graph, {}).values[0])
    if not np.isfinite(value):
        raise InputError(f"the value {text!r} is not a finite real number", text=text)
    return value


def parse_at(specs: Sequence[str]) -> Points:
    """Parse one or more ``--at`` specs (``"x=1,y=pi/4"``); every spec names the same variables.

    Raises:
        InputError: for a malformed pair, a bad name, a repeated name, a bad value,
            or specs that name different variables.
    """
    rows: list[dict[str, str]] = []
    for spec in specs:
        row: dict[str, str] = {}
        for pair in split_top_level(spec):
            name, equals, value = pair.partition("=")
            name, value = name.strip(), value.strip()
            if not equals or not value:
                raise InputError(f"--at expects name=value pairs like x=1,y=2, got {pair!r}")
            if not NAME.match(name):
                raise InputError(f"--at: {name!r} is not a valid variable name")
            if name in row:
                raise InputError(f"--at: {name} is given twice in {spec!r}")
            row[name] = value
        if rows and set(row) != set(rows[0]):
            raise InputError(
                f"every --at must name the same variables: {', '.join(rows[0])} vs {', '.join(row)}"
            )
        rows.append(row)
    names = tuple(rows[0]) if rows else ()
    values = {n: [constant_value(r[n]) for r in rows] for n in names}
    shaped = {n: np.array(v[0] if len(rows) == 1 else v, dtype=float) for n, v in values.items()}
    return Points(names, shaped, [{n: r[n] for n in names} for r in rows])


@contextmanager
def open_text(path: str, what: str) -> Iterator[TextIO]:
    """Open a UTF-8 text file (a BOM is allowed) for reading; any failure while it is open
    becomes a one-line :class:`InputError` naming ``what`` it is.

    >>> with open_text("no/such/file.csv", "points file") as stream:
    ...     stream.read()
    Traceback (most recent call last):
    gradcalc.errors.InputError: cannot read points file no/such/file.csv: No such file or directory
    """
    try:
        with Path(path).open(newline="", encoding="utf-8-sig") as stream:
            yield stream
    except UnicodeDecodeError:  # before ValueError: it is one
        raise InputError(f"{what} {path} is not UTF-8 text") from None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        raise InputError(f"cannot read {what} {path}: {reason_of(error)}") from None


def read_points(stream: Iterable[str], chunk_rows: int = CHUNK_ROWS) -> Iterator[Points]:
    """Read a CSV of points (header row = variable names) in chunks of ``chunk_rows``.

    Rows of plain decimal numbers are checked with one pattern per line and converted by
    numpy a chunk at a time; anything else (quoted cells, errors) takes the careful path
    that names the row and column.

    >>> import io
    >>> chunks = list(read_points(io.StringIO("x,y\\n1,2\\n3,4.5\\n")))
    >>> chunks[0].arrays["y"]
    array([2. , 4.5])

    Raises:
        InputError: for an empty file, a bad header, a row of the wrong length or a
            cell that is not a finite decimal number (naming the row and column).
    """
    lines = iter(stream)
    header = next(csv.reader([next(lines, "")]), None)
    if not header:
        raise InputError("the points file is empty: it needs a header row of variable names")
    names = tuple(cell.strip().lstrip("\ufeff") for cell in header)
    for name in names:
        if not NAME.match(name):
            raise InputError(f"points file header: {name!r} is not a valid variable name")
    if len(set(names)) != len(names):
        raise InputError("points file header: a variable name is repeated")
    start = 2  # file row number of the next line
    any_rows = False
    while raw := list(itertools.islice(lines, chunk_rows)):
        block = [line.rstrip("\r\n") for line in raw]
        numbers: Sequence[int] = range(start, start + len(block))
        if not all(block):  # blank lines are skipped but keep the row numbers right
            kept = [(n, line) for n, line in zip(numbers, block) if line.strip()]
            numbers, block = [n for n, _ in kept], [line for _, line in kept]
        start += len(raw)
        if block:
            any_rows = True
            yield _chunk(names, block, numbers)
    if not any_rows:
        raise InputError("the points file has a header but no rows of points")


_NUMERIC = str.maketrans("", "", "0123456789.eE+-, \n")


def _careful_row(line: str, row: int, names: tuple[str, ...]) -> str:
    """Validate a row cell by cell (full CSV rules); return it as plain comma-separated numbers."""
    cells = next(csv.reader([line]), [])
    if len(cells) != len(names):
        raise InputError(f"points file row {row}: {len(cells)} values for {len(names)} columns")
    return ",".join(repr(_cell(cell, row, name)) for cell, name in zip(cells, names))


def _cell(text: str, row: int, column: str) -> float:
    if not NUMBER.match(text):
        raise InputError(f"points file row {row}, column {column}: {text!r} is not a number")
    value = float(text)
    if not np.isfinite(value):
        raise InputError(f"points file row {row}, column {column}: {text!r} is out of range")
    return value


def _chunk(names: tuple[str, ...], block: list[str], numbers: Sequence[int]) -> Points:
    """Convert a block of rows: plain numeric text goes straight to numpy's C parser; any
    other block is checked row by row, which names the first bad row and column."""
    text = "\n".join(block)
    table = _fast_table(text, len(block), len(names))
    if table is None:
        text = "\n".join(_careful_row(line, n, names) for line, n in zip(block, numbers))
        table = _fast_table(text, len(block), len(names))
    bad = np.argwhere(~np.isfinite(table))
    if bad.size:
        row, column = bad[0]
        cell = block[row].split(",")[column].strip()
        raise InputError(
            f"points file row {numbers[row]}, column {names[column]}: {cell!r} is out of range"
        )
    return Points(names, {n: table[:, i] for i, n in enumerate(names)}, None, numbers[0])


def _fast_table(text: str, rows: int, columns: int) -> np.ndarray | None:
    """Parse rows of comma-separated decimals, or return ``None`` if the text is not exactly
    that (other characters, a wrong count of cells, a cell that is not a number).

    >>> _fast_table("1,2\\n3,4.5", 2, 2)
    array([[1. , 2. ],
           [3. , 4.5]])
    >>> _fast_table("1, ", 1, 2) is None  # an empty cell is not a number (nor -1, nor 0)
    True
    """
    if text.translate(_NUMERIC) or text.count(",") != rows * (columns - 1):
        return None
    cells = text.replace("\n", ",").split(",")
    try:  # with only these characters, numpy's string-to-float accepts exactly our decimals
        flat = np.array(cells, dtype=np.float64)
    except ValueError:
        return None
    return flat.reshape(rows, columns) if flat.size == rows * columns else None
