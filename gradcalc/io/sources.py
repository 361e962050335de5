"""A points file of any kind, by its name: CSV (or ``-``, standard input), ``.npy`` /
``.npz`` (numpy), Parquet and Arrow IPC (pyarrow). Its column names first, then its points
in chunks, of the columns chosen.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "p.csv")
>>> with open(path, "w") as f:
...     _ = f.write("id,x\\nA,1\\nB,2\\n")
>>> with open_points(path) as source:
...     names = source.names()
...     (chunk,) = source.read(["x"], "id")
>>> names, chunk.arrays["x"].tolist(), chunk.ids
(('id', 'x'), [1.0, 2.0], ['A', 'B'])
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import TextIO

from gradcalc.core.errors import InputError
from gradcalc.engine.evaluate.points import Points
from gradcalc.io import arrays, parquet
from gradcalc.io.files import Skipped, read_points, some_rows
from gradcalc.io.lines import open_stdin, open_text, spooled_copy


@dataclass(frozen=True)
class Reader:
    """How the points files whose names end with one of ``suffixes`` are read: ``columns``
    gives a file's column names (``None``: a plain array, named by ``--columns``), ``read``
    its points in chunks (``path, columns, id_column, skipped``), each cell through the one
    cell policy (:mod:`gradcalc.core.cells`)."""

    name: str
    suffixes: tuple[str, ...]
    columns: Callable[[str], tuple[str, ...] | None]
    read: Callable[..., Iterator[Points]]
    rows: Callable[[str], int | None]  # how many points, from the headers (None: unknown)


#: Every reader of a points file but CSV's (the default, read as a stream of lines). A
#: reader registered here is tried by the tests on every kind of hostile cell.
READERS = (
    Reader("numpy", arrays.SUFFIXES, arrays.array_columns, arrays.read_arrays, arrays.array_rows),
    Reader(
        "arrow",
        parquet.SUFFIXES,
        parquet.table_columns,
        parquet.read_table_file,
        parquet.table_rows,
    ),
)


def reader_of(path: str) -> Reader | None:
    """The reader of ``path`` by its suffix (``None``: CSV).

    >>> reader_of("p.feather").name, reader_of("p.csv")
    ('arrow', None)
    """
    lowered = path.lower()
    return next((r for r in READERS if lowered.endswith(r.suffixes)), None)


@dataclass
class Source:
    """An opened points file: ``stream`` is a CSV's text (a file, or stdin spooled to a
    temporary file so that it can be read twice), ``None`` for the other kinds."""

    path: str
    stream: TextIO | None = None
    size: int = 0  # the file's size in bytes (0: unknown), for a progress bar
    what: str = "points file"  # its name in messages ("data file" for fit)

    def names(self) -> tuple[str, ...] | None:
        """The column names (``None``: a plain ``.npy`` array, named by ``--columns``)."""
        if self.stream is None:
            return _reader(self.path).columns(self.path)
        self.stream.seek(0)
        try:
            header = next(csv.reader([self.stream.readline(1_000_000)]), [])
        except csv.Error:
            header = []  # read_points names the problem
        self.stream.seek(0)
        return tuple(cell.strip().lstrip("\ufeff") for cell in header)

    def rows(self) -> int | None:
        """How many points a file of another kind than CSV holds, from its metadata (an
        Arrow stream's too, from its messages), for a progress bar's total (``None``: a CSV,
        whose bar follows its bytes)."""
        return None if self.stream is not None else _reader(self.path).rows(self.path)

    def read(
        self,
        columns: Sequence[str] | None = None,
        id_column: str | None = None,
        skipped: Skipped | None = None,
        lines: Callable[[TextIO], Iterable[str]] = lambda stream: stream,
    ) -> Iterator[Points]:
        """The points, chunk by chunk, from the start (so it may be read again); ``lines``
        may wrap a CSV's stream (with a progress bar)."""
        if self.stream is None:
            chunks = _reader(self.path).read(self.path, columns, id_column, skipped)
            empty = f"the {self.what} {self.path} has no rows of points"
            return some_rows(chunks, self.what, skipped, empty)
        self.stream.seek(0)
        return read_points(
            lines(self.stream),
            what=self.what,
            skipped=skipped,
            columns=columns,
            id_column=id_column,
        )


#: How a CSV's bytes that are not UTF-8 are read: kept (as lone surrogates), so that a cell
#: the command reads is refused naming its row and column (or left out by --skip-bad-rows),
#: and one it does not read is ignored, as any other of its cells.
KEEP_BYTES = "surrogateescape"


@contextmanager
def open_points(path: str, what: str = "points file") -> Iterator[Source]:
    """The points file ``path`` (``-``: standard input, CSV), open while in the block;
    ``what`` names it in messages.

    Raises:
        InputError: a file that cannot be read, or standard input that is not UTF-8.
    """
    if reader_of(path) is not None:
        if not os.path.isfile(path):
            raise InputError(f"cannot read {what} {path}: no such file")
        yield Source(path, size=os.path.getsize(path), what=what)
        return
    with ExitStack() as stack:
        if path == "-":
            with open_stdin(f"the {what}", KEEP_BYTES) as stdin:
                stream = stack.enter_context(spooled_copy(stdin))
            size = 0
        else:
            stream = stack.enter_context(open_text(path, what, KEEP_BYTES))
            size = os.fstat(stream.fileno()).st_size
        yield Source(path, stream, size, what)


def _reader(path: str) -> Reader:
    reader = reader_of(path)
    assert reader is not None  # (a Source without a stream has one)
    return reader
