"""Files and streams of points: CSV files read in chunks, standard input, spooling.

A file is read in chunks, so any number of rows runs in bounded memory; every cell is
checked, and a bad one is a one-line error naming its row and column.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np

from gradcalc.core.errors import InputError, reason_of
from gradcalc.engine.points import Points

NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*\Z")
CHUNK_ROWS = 65_536


@contextmanager
def open_text(path: str, what: str) -> Iterator[TextIO]:
    """Open a UTF-8 text file (a BOM is allowed) for reading; any failure while it is open
    becomes a one-line :class:`InputError` naming ``what`` it is.

    >>> with open_text("no/such/file.csv", "points file") as stream:
    ...     stream.read()
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: cannot read points file no/such/file.csv: No such file or d...
    """
    try:
        with Path(path).open(newline="", encoding="utf-8-sig") as stream:
            yield stream
    except UnicodeDecodeError:  # before ValueError: it is one
        raise InputError(f"{what} {path} is not UTF-8 text") from None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        raise InputError(f"cannot read {what} {path}: {reason_of(error)}") from None


@dataclass
class Skipped:
    """Rows left out by ``skip_bad_rows``: how many, and why the first few were bad."""

    count: int = 0
    rows: int = 0  # rows read in all (blank lines not counted)
    reasons: list[str] = field(default_factory=list)

    def add(self, reason: str) -> None:
        self.count += 1
        if len(self.reasons) < 3:
            self.reasons.append(reason)

    def summary(self, what: str = "points file") -> str:
        """``skipped 2 bad rows of 10 in the points file (row 3, column x: ...; ...)``."""
        rows = "row" if self.count == 1 else "rows"
        more = "; ..." if self.count > len(self.reasons) else ""
        return (
            f"skipped {self.count:,} bad {rows} of {self.rows:,} in the {what} "
            f"({'; '.join(self.reasons)}{more})"
        )


@contextmanager
def open_stdin(what: str) -> Iterator[TextIO]:
    """Standard input as UTF-8 text (a BOM is allowed, line endings are kept for the CSV
    reader); bytes that are not UTF-8 become a one-line :class:`InputError`."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # already text (a test's StringIO)
        yield sys.stdin
        return
    stream = io.TextIOWrapper(buffer, encoding="utf-8-sig", newline="")
    try:
        yield stream
    except UnicodeDecodeError:
        raise InputError(f"{what} on stdin is not UTF-8 text") from None
    finally:
        stream.detach()


def spooled_copy(stream: Iterable[str]) -> TextIO:
    """The lines of ``stream`` saved to an anonymous temporary file (so that a file from stdin
    can be read twice: checked whole, then used), rewound for reading."""
    copy = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")  # noqa: SIM115 (returned)
    copy.writelines(stream)
    copy.seek(0)
    return copy


def read_points(
    stream: Iterable[str],
    chunk_rows: int = CHUNK_ROWS,
    what: str = "points file",
    skipped: Skipped | None = None,
) -> Iterator[Points]:
    """Read a CSV of points (header row = variable names) in chunks of ``chunk_rows``.

    Rows of plain decimal numbers are checked with one pattern per line and converted by
    numpy a chunk at a time; anything else (quoted cells, errors) takes the careful path
    that names the row and column. With ``skipped`` (``--skip-bad-rows``), a bad row is
    counted there and left out instead; a file with no good row is still an error.

    >>> import io
    >>> chunks = list(read_points(io.StringIO("x,y\\n1,2\\n3,4.5\\n")))
    >>> chunks[0].arrays["y"]
    array([2. , 4.5])
    >>> skipped = Skipped()
    >>> [c.arrays["x"] for c in read_points(io.StringIO("x\\n1\\nnan\\n2\\n"), skipped=skipped)]
    [array([1., 2.])]
    >>> skipped.summary()
    "skipped 1 bad row of 3 in the points file (row 3, column x: 'nan' is not a finite number)"

    Raises:
        InputError: for an empty file, a bad header, a row of the wrong length or a
            cell that is not a finite decimal number (naming the row and column).
    """
    lines = iter(stream)
    header = next(csv.reader([next(lines, "")]), None)
    if not header or not any(cell.strip().lstrip("\ufeff") for cell in header):
        raise InputError(f"the {what} is empty: it needs a header row of variable names")
    names = tuple(cell.strip().lstrip("\ufeff") for cell in header)
    for column, name in enumerate(names, 1):
        _check_header(name, column, what)
    if len(set(names)) != len(names):
        repeated = next(n for n in names if names.count(n) > 1)
        raise InputError(f"{what} header: the column {repeated} is repeated")
    start = 2  # file row number of the next line
    any_rows = False
    while raw := list(itertools.islice(lines, chunk_rows)):
        block = [line.rstrip("\r\n") for line in raw]
        numbers: Sequence[int] = range(start, start + len(block))
        if not all(line.strip() for line in block):  # blank lines are skipped, rows still count
            kept = [(n, line) for n, line in zip(numbers, block) if line.strip()]
            numbers, block = [n for n, _ in kept], [line for _, line in kept]
        start += len(raw)
        if skipped is not None:
            skipped.rows += len(block)
        if block:
            chunk = _chunk(names, block, numbers, what, skipped)
            if chunk is not None:
                any_rows = True
                yield chunk
    if not any_rows:
        if skipped is not None and skipped.count:
            raise InputError(f"every row of the {what} is bad: {skipped.summary(what)}")
        raise InputError(f"the {what} has a header but no rows of points")


def _check_header(name: str, column: int, what: str) -> None:
    """A header cell must be a variable name by the expression parser's own rules."""
    from gradcalc.lang.parser import _checked_variables

    if not name:
        raise InputError(f"{what} header: column {column} has no name")
    try:
        _checked_variables([name])
    except InputError as error:
        raise InputError(f"{what} header, column {column}: {error.message}") from None


_NUMERIC = str.maketrans("", "", "0123456789.eE+-, \n")


def _careful_row(line: str, row: int, names: tuple[str, ...], what: str) -> str:
    """Validate a row cell by cell (full CSV rules); return it as plain comma-separated numbers."""
    try:
        cells = next(csv.reader([line], strict=True), [])
    except csv.Error as error:
        raise InputError(f"{what} row {row}: not valid CSV ({error})") from None
    if len(cells) != len(names):
        missing = (
            f"no value for column {names[len(cells)]}"
            if len(cells) < len(names)
            else (f"{len(cells) - len(names)} extra")
        )
        raise InputError(
            f"{what} row {row}: {len(cells)} values for {len(names)} columns ({missing})"
        )
    return ",".join(repr(_cell(cell, row, name, what)) for cell, name in zip(cells, names))


def _cell(text: str, row: int, column: str, what: str = "points file") -> float:
    where = f"{what} row {row}, column {column}"
    if not text.strip():
        raise InputError(f"{where}: the cell is empty")
    if not NUMBER.match(text):
        if text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise InputError(f"{where}: {text.strip()!r} is not a finite number")
        raise InputError(f"{where}: {_short(text)!r} is not a number")
    value = float(text)
    if not np.isfinite(value):
        raise InputError(f"{where}: {_short(text)!r} is out of range")
    return value


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _chunk(
    names: tuple[str, ...],
    block: list[str],
    numbers: Sequence[int],
    what: str = "points file",
    skipped: Skipped | None = None,
) -> Points | None:
    """Convert a block of rows: plain numeric text goes straight to numpy's C parser; any
    other block is checked row by row, which names the first bad row and column (or, with
    ``skipped``, leaves bad rows out: ``None`` if none is left)."""
    text = "\n".join(block)
    table = _fast_table(text, len(block), len(names))
    if table is not None and not np.all(np.isfinite(table)):
        table = None  # 1e999: the careful path names the cell
    if table is None:
        good, kept = [], []
        for line, n in zip(block, numbers):
            try:
                good.append(_careful_row(line, n, names, what))
                kept.append(n)
            except InputError as error:
                if skipped is None:
                    raise
                skipped.add(error.message.removeprefix(f"{what} "))
        if not good:
            return None
        numbers = kept
        table = _fast_table("\n".join(good), len(good), len(names))
        assert table is not None  # the careful path wrote plain numbers
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
