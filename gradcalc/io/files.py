"""Files and streams of points: CSV files read in chunks.

A file is read in chunks, so any number of rows runs in bounded memory; every cell is
checked, and a bad one is a one-line error naming its row and column. Files are opened and
their lines read by :mod:`gradcalc.io.lines` (regular files only, every line bounded).
"""

from __future__ import annotations

import collections
import csv
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from gradcalc.core.cells import in_range, inexact_integer, out_of_range, table_in_range
from gradcalc.core.errors import InputError
from gradcalc.engine.evaluate.points import Points, constant_value
from gradcalc.io.headers import not_csv, refuse_separated, shown_columns
from gradcalc.io.lines import bounded_lines, not_utf8
from gradcalc.lang.literals import CUT_EXPONENT

#: A cell's number: ASCII digits only (``\d`` would take any script's digits, which the
#: expression language refuses), in a pattern that never backtracks.
NUMBER = re.compile(r"[ \t]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t]*\Z")
CHUNK_ROWS = 65_536
#: Cells that would read as arithmetic but are surely not meant so: ``1-2``, ``1/3/2024``.
DATE_LIKE = re.compile(r"[0-9]+-[0-9]+(-[0-9]+)?|[0-9]+([/.])[0-9]+\2[0-9]+")


@dataclass
class Skipped:
    """Rows left out by ``skip_bad_rows``: how many, and why the first few were bad (in a
    dataset, named with the ``part`` being read: its rows are counted per part).

    >>> skipped = Skipped(part="lake/001.parquet")
    >>> skipped.add("column x, row 2: nan is not a finite number")
    >>> skipped.reasons
    ['lake/001.parquet, column x, row 2: nan is not a finite number']
    """

    count: int = 0
    rows: int = 0  # rows read in all (blank lines not counted)
    reasons: list[str] = field(default_factory=list)
    part: str = ""  # the file of a dataset being read ("": a single file)

    def add(self, reason: str) -> None:
        self.count += 1
        if len(self.reasons) < 3:
            self.reasons.append(f"{self.part}, {reason}" if self.part else reason)

    def summary(self, what: str = "points file") -> str:
        """``skipped 2 bad rows of 10 in the points file (row 3, column x: ...; ...)``."""
        rows = "row" if self.count == 1 else "rows"
        more = "; ..." if self.count > len(self.reasons) else ""
        return (
            f"skipped {self.count:,} bad {rows} of {self.rows:,} in the {what} "
            f"({'; '.join(self.reasons)}{more})"
        )


def read_points(
    stream: Iterable[str],
    chunk_rows: int = CHUNK_ROWS,
    what: str = "points file",
    skipped: Skipped | None = None,
    columns: Sequence[str] | None = None,
    id_column: str | None = None,
) -> Iterator[Points]:
    """Read a CSV of points (header row = variable names) in chunks of ``chunk_rows``.

    Rows of plain decimal numbers are checked with one pattern per line and converted by
    numpy a chunk at a time; anything else (quoted cells, constants such as ``pi/4``,
    errors) takes the careful path that names the row and column. With ``skipped``
    (``--skip-bad-rows``), a bad row is counted there and left out instead; a file with no
    good row is still an error.

    ``columns`` chooses the columns that are read as variables (default: every column but
    ``id_column``); the others are ignored, whatever they hold. ``id_column`` is carried
    as text into each chunk's ``ids``.

    >>> import io
    >>> chunks = list(read_points(io.StringIO("x,y\\n1,2\\n3,4.5\\n")))
    >>> chunks[0].arrays["y"]
    array([2. , 4.5])
    >>> skipped = Skipped()
    >>> [c.arrays["x"] for c in read_points(io.StringIO("x\\n1\\nnan\\n2\\n"), skipped=skipped)]
    [array([1., 2.])]
    >>> skipped.summary()
    "skipped 1 bad row of 3 in the points file (row 3, column x: 'nan' is not a finite number)"
    >>> labelled = io.StringIO("id,x,label\\nA,pi/4,first\\nB,2,second\\n")
    >>> (chunk,) = read_points(labelled, columns=["x"], id_column="id")
    >>> chunk.names, chunk.arrays["x"], chunk.ids
    (('x',), array([0.78539816, 2.        ]), ['A', 'B'])

    Raises:
        InputError: for an empty file, a bad header, a row of the wrong length or a
            cell that is not a finite number (naming the row and column).
    """
    lines = bounded_lines(stream, what)
    pick = _Pick.of(_header(lines, what), columns, id_column, what)
    empty = f"the {what} has a header but no rows of points"
    yield from some_rows(_rows(lines, pick, chunk_rows, what, skipped), what, skipped, empty)


def _rows(
    lines: Iterator[str], pick: _Pick, chunk_rows: int, what: str, skipped: Skipped | None
) -> Iterator[Points]:
    """The chunks of the rows after the header (blank lines skipped, their rows counted)."""
    start = 2  # file row number of the next line
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
            chunk = _chunk(pick, block, numbers, what, skipped)
            if chunk is not None:
                yield chunk


def some_rows(
    chunks: Iterator[Points], what: str, skipped: Skipped | None, empty: str
) -> Iterator[Points]:
    """``chunks``, or an error when there is none: ``empty`` (the file has no rows), or that
    every row was bad (left out by ``skipped``)."""
    any_rows = False
    for chunk in chunks:
        any_rows = True
        yield chunk
    if not any_rows:
        if skipped is not None and skipped.count:
            raise InputError(f"every row of the {what} is bad: {skipped.summary(what)}")
        raise InputError(empty)


@dataclass(frozen=True)
class _Pick:
    """Which cells of a row are read: the variables' column indexes and the id's."""

    header: tuple[str, ...]
    names: tuple[str, ...]
    indexes: tuple[int, ...]
    id_index: int | None

    @classmethod
    def of(
        cls,
        header: tuple[str, ...],
        columns: Sequence[str] | None,
        id_column: str | None,
        what: str,
    ) -> _Pick:
        """Check the header cells that will be used (the others may be anything)."""
        wanted = [n for n in header if n != id_column] if columns is None else list(columns)
        counts = collections.Counter(header)
        for name in [*wanted, *([id_column] if id_column is not None else [])]:
            if name not in counts:  # (only a chosen column can be missing)
                raise InputError(f"the {what} has no column {name} ({shown_columns(header)})")
            if counts[name] > 1:
                raise InputError(f"{what} header: the column {name} is repeated")
        if len(set(wanted)) != len(wanted):
            raise InputError(f"the column {wanted[0]} is chosen twice")
        where = {name: k for k, name in reversed(list(enumerate(header)))}
        indexes = tuple(where[n] for n in wanted)
        check_headers([(header[column], column + 1) for column in indexes], what)
        id_index = None if id_column is None else where[id_column]
        return cls(header, tuple(wanted), indexes, id_index)

    @property
    def everything(self) -> bool:
        """Whether every cell is a variable's (the fast path reads whole lines)."""
        return self.id_index is None and self.indexes == tuple(range(len(self.header)))


def _header(lines: Iterator[str], what: str) -> tuple[str, ...]:
    """The names in the first line of a CSV (a byte-order mark and spaces stripped)."""
    try:
        header = next(csv.reader([next(lines, "")], strict=True), None)
    except csv.Error as error:
        raise InputError(f"{what} header: {not_csv(error)}") from None
    if not header or not any(cell.strip().lstrip("\ufeff") for cell in header):
        raise InputError(f"the {what} is empty: it needs a header row of variable names")
    names = tuple(cell.strip().lstrip("\ufeff") for cell in header)
    if len(names) == 1:  # one cell: ``x;y`` is no name, but names joined another way
        refuse_separated(names, what)
    return names


def check_header(name: str, column: int, what: str) -> None:
    """A header cell must be a variable name by the expression parser's own rules."""
    from gradcalc.lang.lexer import checked_variables

    if not name:
        raise InputError(f"{what} header: column {column} has no name")
    try:
        checked_variables([name])
    except InputError as error:
        raise InputError(f"{what} header, column {column}: {error.message}") from None


def check_headers(cells: Sequence[tuple[str, int]], what: str) -> None:
    """:func:`check_header` of each (name, column), in order; one check for all of them where
    all are names (the usual case: a file of 10,000 columns is read twice).

    >>> check_headers([("x", 1), ("y", 2)], "points file")
    >>> check_headers([("x", 1), ("2y", 2)], "points file")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: points file header, column 2: invalid variable name '2y': ...
    """
    from gradcalc.lang.lexer import checked_variables

    names = [name for name, _ in cells]
    if all(names):
        try:
            checked_variables(names)
            return
        except InputError:
            pass  # (which column: the first bad one, as one by one)
    for name, column in cells:
        check_header(name, column, what)


_NUMERIC = str.maketrans("", "", "0123456789.eE+-, \n")


def _cells(line: str, row: int, pick: _Pick, what: str) -> list[str]:
    """The cells of a row by full CSV rules, checked for their count."""
    try:
        cells = next(csv.reader([line], strict=True), [])
    except csv.Error as error:
        raise InputError(f"{what} row {row}: {not_csv(error)}") from None
    names = pick.header
    if len(cells) != len(names):
        missing = (
            f"no value for column {names[len(cells)]}"
            if len(cells) < len(names)
            else (f"{len(cells) - len(names)} extra")
        )
        values = f"{len(cells)} {'value' if len(cells) == 1 else 'values'}"
        columns = f"{len(names)} {'column' if len(names) == 1 else 'columns'}"
        raise InputError(f"{what} row {row}: {values} for {columns} ({missing})")
    return cells


def _careful_row(
    cells: list[str], row: int, pick: _Pick, what: str, constants: dict[tuple[str, str], None]
) -> str:
    """Validate a row's variables cell by cell, and its id; return the variables as plain
    comma-separated numbers. A row that passes adds its constant cells (``pi/4``) to
    ``constants`` as (column, text)."""
    if pick.id_index is not None:
        _utf8(cells[pick.id_index], f"{what} row {row}, column {pick.header[pick.id_index]}")
    values = [repr(cell_value(cells[i], row, n, what)) for i, n in zip(pick.indexes, pick.names)]
    for i, name in zip(pick.indexes, pick.names):
        if not NUMBER.match(cells[i]):
            constants[name, cells[i].strip()] = None
    return ",".join(values)


def _warnings(constants: dict[tuple[str, str], None], what: str) -> tuple[str, ...]:
    """How constant cells were read where they could be meant otherwise, once per column and
    text, each text parsed once: ``points file, column x: 1/2pi is read as (1/2)·pi; ...``."""
    if not constants:
        return ()
    from gradcalc.lang.reading import value_warnings

    return tuple(
        f"{what}, column {_short(name)}: {warning}"
        for name, text in constants
        for warning in value_warnings([text])
    )


def cell_value(text: str, row: int, column: str, what: str = "points file") -> float:
    """A cell's value: a decimal number, or a constant expression as in ``--at`` (``pi/4``),
    through the same parser."""
    where = f"{what} row {row}, column {_short(column)}"
    _utf8(text, where)
    if not text.strip():
        raise InputError(f"{where}: the cell is empty")
    if not NUMBER.match(text):
        if text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise InputError(f"{where}: {_short(text.strip())!r} is not a finite number")
        if DATE_LIKE.fullmatch(text.strip()):  # 2024-01-05 is not 2018, nor 1-2 minus one
            raise InputError(f"{where}: {_short(text)!r} is not a number (a date or a range?)")
        if CUT_EXPONENT.fullmatch(text.strip()):  # 2.5e: no data file means 2.5·e
            raise InputError(
                f"{where}: {_short(text.strip())!r} is a number with its exponent cut off "
                "(write it, as in 2.5e3)"
            )
        try:
            return constant_value(text.strip())
        except InputError:
            raise InputError(f"{where}: {_short(text)!r} is not a number") from None
    if (inexact := inexact_integer(text)) is not None:
        raise InputError(f"{where}: {inexact}")
    value = float(text)
    if not in_range(value, text):
        raise InputError(f"{where}: {out_of_range(_short(text.strip()))}")
    return value


def _utf8(cell: str, where: str) -> None:
    r"""Refuse a cell read with a byte that is not UTF-8 in it (kept by the reader as a lone
    surrogate: :func:`gradcalc.io.lines.not_utf8`), naming ``where`` it is.

    >>> _utf8(b"\xe9t\xe9".decode("utf-8", "surrogateescape"), "points file row 2, column id")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: points file row 2, column id: the cell is not UTF-8 text ...
    """
    byte = not_utf8(cell)
    if byte is not None:
        raise InputError(
            f"{where}: the cell is not UTF-8 text (byte {byte:#04x}: save the file as UTF-8)"
        )


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _chunk(
    pick: _Pick,
    block: list[str],
    numbers: Sequence[int],
    what: str = "points file",
    skipped: Skipped | None = None,
) -> Points | None:
    """Convert a block of rows: plain numeric text goes straight to numpy's C parser; any
    other block is checked row by row, which names the first bad row and column (or, with
    ``skipped``, leaves bad rows out: ``None`` if none is left)."""
    rows: list[list[str]] = []
    if pick.everything:
        text = "\n".join(block)
    else:  # the chosen cells of every row (csv's C reader), when every row has its cells
        rows = list(csv.reader(block))
        width = len(pick.header)
        if len(rows) == len(block) and all(len(cells) == width for cells in rows):
            text = "\n".join(",".join(cells[i] for i in pick.indexes) for cells in rows)
        else:
            text = ""
    table = _fast_table(text, len(block), len(pick.names)) if text else None
    if table is not None and not table_in_range(table, text):
        table = None  # 1e999, 1e-999: the careful path names the cell
    index = pick.id_index
    if table is not None and index is not None and any(not_utf8(c[index]) for c in rows):
        table = None  # an id that is not UTF-8: the careful path names it
    constants: dict[tuple[str, str], None] = {}
    if table is None:
        good, kept, rows = [], [], []
        for line, n in zip(block, numbers):
            try:
                cells = _cells(line, n, pick, what)
                good.append(_careful_row(cells, n, pick, what, constants))
            except InputError as error:
                if skipped is None:
                    raise
                skipped.add(error.message.removeprefix(f"{what} "))
                continue
            kept.append(n)
            rows.append(cells)
        if not good:
            return None
        numbers = kept
        table = _fast_table("\n".join(good), len(good), len(pick.names))
        assert table is not None  # the careful path wrote plain numbers
    ids = None
    if pick.id_index is not None:  # (the id's text exact: its spaces and TABs too)
        ids = [cells[pick.id_index] for cells in rows]
    arrays = {n: table[:, i] for i, n in enumerate(pick.names)}
    return Points(pick.names, arrays, None, numbers[0], ids, warnings=_warnings(constants, what))


def _fast_table(text: str, rows: int, columns: int) -> np.ndarray | None:
    """Parse rows of comma-separated decimals, or return ``None`` if the text is not exactly
    that (other characters, a wrong count of cells, a cell that is not a number).

    >>> _fast_table("1,2\\n3,4.5", 2, 2)
    array([[1. , 2. ],
           [3. , 4.5]])
    >>> _fast_table("1, ", 1, 2) is None  # an empty cell is not a number (nor -1, nor 0)
    True
    >>> _fast_table("1,2,3\\n4", 2, 2) is None  # ragged rows, although 2 commas for 2 rows
    True
    """
    if columns == 0:  # no column is used: nothing to parse (the caller names what is missing)
        return np.empty((rows, 0))
    if text.translate(_NUMERIC) or text.count(",") != rows * (columns - 1):
        return None
    commas = columns - 1  # every row's own count: 1,2,3 then 4 would re-flow into 2 rows of 2
    if rows > 1 and any(line.count(",") != commas for line in text.split("\n")):
        return None
    cells = text.replace("\n", ",").split(",")
    try:  # with only these characters, numpy's string-to-float accepts exactly our decimals
        flat = np.array(cells, dtype=np.float64)
    except ValueError:
        return None
    return flat.reshape(rows, columns) if flat.size == rows * columns else None
