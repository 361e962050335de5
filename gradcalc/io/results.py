"""Results written to a file a chunk at a time (``--out FILE.csv|FILE.parquet``), for
results too many to read on a terminal: under a temporary name beside the file, put in its
place by :meth:`close` only when every row is written (:class:`gradcalc.io.written.Replacing`);
:meth:`discard` (a failed run) leaves a file that was there untouched.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "out.csv")
>>> out = open_results(path)
>>> out.write(["x", "d/dx"], [["1", "2"]])
>>> out.write(["x", "d/dx"], [["3", "6"]])
>>> os.path.exists(path)
False
>>> out.close()
>>> print(open(path).read(), end="")
x,d/dx
1,2
3,6
"""

from __future__ import annotations

import contextlib
import csv
from collections.abc import Iterable, Sequence
from typing import Any

from gradcalc.core.errors import InputError
from gradcalc.core.naming import unique_header
from gradcalc.io.carried import csv_rows
from gradcalc.io.written import Replacing

SUFFIXES = (".csv", ".parquet", ".pq")


class CsvOut:
    """CSV rows into a file: the header once, then every chunk's rows (text from the data
    through :func:`gradcalc.io.carried.csv_rows`: no formula, no control character)."""

    def __init__(self, path: str):
        self.path = path
        self.replacing = Replacing(path)
        self.file = self.replacing.open_text()
        self.writer = csv.writer(self.file, lineterminator="\n")
        self.started = False

    def write(self, header: list[str], rows: Iterable[Sequence[str]]) -> None:
        """Append rows (the header before the first)."""
        if not self.started:
            self.writer.writerows(csv_rows([unique_header(header)]))
            self.started = True
        self.writer.writerows(csv_rows(rows))

    def close(self) -> None:
        """Finish the file, and put it in place."""
        try:
            self.file.close()
        except BaseException:  # (its last rows could not be written: a full disk)
            self.replacing.discard()
            raise
        self.replacing.commit()

    def discard(self) -> None:
        """Abandon the file (a failed run): nothing is put in place."""
        with contextlib.suppress(OSError):  # (a full disk fails the last flush again)
            self.file.close()
        self.replacing.discard()


def open_results(path: str, text_columns: Sequence[str] = ()) -> Any:
    """A writer of result rows for ``path``, by its suffix: ``.csv`` or ``.parquet``
    (``text_columns``: columns kept as text in Parquet, such as an id).

    Raises:
        InputError: for another suffix, or a file that cannot be written.
    """
    lowered = path.lower()
    if lowered.endswith(".csv"):
        return CsvOut(path)
    if lowered.endswith((".parquet", ".pq")):
        from gradcalc.io.parquet import ParquetOut

        return ParquetOut(path, text_columns)
    raise InputError(f"--out {path}: write the results to a .csv or a .parquet file")
