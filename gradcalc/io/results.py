"""Results written to a file a chunk at a time (``--out FILE.csv|FILE.parquet``), for
results too many to read on a terminal.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "out.csv")
>>> out = open_results(path)
>>> out.write(["x", "d/dx"], [["1", "2"]])
>>> out.write(["x", "d/dx"], [["3", "6"]])
>>> out.close()
>>> print(open(path).read(), end="")
x,d/dx
1,2
3,6
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from typing import Any

from gradcalc.core.errors import InputError, reason_of
from gradcalc.io.carried import csv_cell, csv_rows

SUFFIXES = (".csv", ".parquet", ".pq")


class CsvOut:
    """CSV rows into a file: the header once, then every chunk's rows (each cell through
    :func:`gradcalc.io.carried.csv_cell`: no formula, no control character)."""

    def __init__(self, path: str):
        self.path = path
        try:
            self.file = open(path, "w", newline="", encoding="utf-8")  # noqa: SIM115 (closed in close)
        except OSError as error:
            raise InputError(f"cannot write {path}: {reason_of(error)}") from None
        self.writer = csv.writer(self.file, lineterminator="\n")
        self.started = False

    def write(self, header: list[str], rows: Iterable[Sequence[str]]) -> None:
        """Append rows (the header before the first)."""
        if not self.started:
            self.writer.writerow(csv_cell(name) for name in header)
            self.started = True
        self.writer.writerows(csv_rows(rows))

    def close(self) -> None:
        """Finish the file."""
        self.file.close()


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
