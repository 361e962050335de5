"""Partitioned Parquet datasets: a directory of Parquet files or a glob such as
``'data/*.parquet'``, read part by part through the single-file reader
(:func:`gradcalc.io.parquet.read_table_file`: the same checks of every cell, the same ``--id``
and ``--skip-bad-rows``), and results written as a dataset, one part per input part, each under
a hidden temporary name until the whole run is complete.

Nothing here imports dask: one process reads a dataset with pyarrow alone.

>>> import tempfile, os
>>> pa = parquet.pyarrow()
>>> folder = tempfile.mkdtemp()
>>> for k in range(2):
...     pa.parquet.write_table(pa.table({"x": [k + 0.5]}), os.path.join(folder, f"{k}.parquet"))
>>> with open_dataset(folder) as dataset:
...     [chunk.arrays["x"].tolist() for chunk in dataset.read(["x"])]
[[0.5], [1.5]]
"""

from __future__ import annotations

import glob
import os
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from gradcalc.core.errors import InputError, reason_of
from gradcalc.engine.evaluate.points import Points
from gradcalc.io import parquet
from gradcalc.io.files import Skipped

GLOB = "*?["  # a --points with one of these is a pattern of files


def is_dataset(path: str | None) -> bool:
    """Whether ``--points`` names a dataset: a directory, or a glob of files.

    >>> is_dataset("data/*.parquet"), is_dataset("points.csv"), is_dataset(None)
    (True, False, False)
    """
    return path is not None and (any(c in path for c in GLOB) or os.path.isdir(path))


def dataset_parts(path: str) -> list[str]:
    """The Parquet files of a dataset, in sorted order: a directory's (its subdirectories
    too, as in a Hive-partitioned lake; names starting with ``.`` or ``_`` are left out, as
    every Parquet reader does), or the files a glob matches.

    Raises:
        InputError: no Parquet file, or a file that is not Parquet (it would be left out
            silently otherwise).
    """
    if os.path.isdir(path):
        found = []
        for root, folders, names in os.walk(path):
            folders[:] = sorted(f for f in folders if not f.startswith((".", "_")))
            found += [os.path.join(root, n) for n in names if not n.startswith((".", "_"))]
    else:
        found = [p for p in glob.glob(path, recursive=True) if os.path.isfile(p)]
    others = [p for p in found if not p.lower().endswith(parquet.PARQUET)]
    if others:
        raise InputError(
            f"the dataset {path} holds {others[0]}, not a Parquet file: a dataset is read "
            "from .parquet (or .pq) files only; move it out or narrow the pattern"
        )
    if not found:
        raise InputError(f"the dataset {path} has no Parquet file (.parquet or .pq)")
    return sorted(found)


@dataclass
class Dataset:
    """An opened dataset: its parts, read one after the other like one file."""

    path: str
    parts: list[str]
    size: int = 0  # the parts' bytes (a progress bar shows for a large dataset)
    stream: None = None  # (no CSV text: the bar follows the points, part by part)

    def rows(self) -> int | None:
        """The points of every part (from their metadata)."""
        return sum(parquet.table_rows(part) for part in self.parts)

    def names(self) -> tuple[str, ...]:
        """The column names (of the first part: the others must have the columns read)."""
        return parquet.table_columns(self.parts[0])

    def read(
        self,
        columns: Sequence[str] | None = None,
        id_column: str | None = None,
        skipped: Skipped | None = None,
        lines: Callable[[Any], Any] | None = None,
    ) -> Iterator[Points]:
        """The points of every part in turn, a record batch at a time (``lines``, a CSV's
        progress bar, has nothing to wrap here); a row ``skipped`` is named with its part."""
        for part in self.parts:
            if skipped is not None:
                skipped.part = part
            yield from parquet.read_table_file(part, columns, id_column, skipped)


@contextmanager
def open_dataset(path: str) -> Iterator[Dataset]:
    """The dataset ``path`` (a directory or a glob), open while in the block."""
    parts = dataset_parts(path)
    yield Dataset(path, parts, sum(os.path.getsize(part) for part in parts))


def is_directory_out(out: str | None) -> bool:
    """Whether ``--out`` names a dataset to write: an existing directory, or a path ending
    in ``/``.

    >>> is_directory_out("results/"), is_directory_out("results.parquet")
    (True, False)
    """
    return out is not None and (out.endswith(("/", os.sep)) or os.path.isdir(out))


@dataclass
class DatasetOut:
    """Results written as a Parquet dataset in ``directory``: part ``k`` is first written to
    a hidden temporary file of this run (:meth:`temporary`), and all are renamed to
    ``part-<k>.parquet`` only when every part is complete (:meth:`finish`); a failed run
    leaves no part that looks finished (:meth:`abandon` removes this run's temporary files).

    >>> import tempfile
    >>> out = DatasetOut(tempfile.mkdtemp() + "/results/")
    >>> out.prepare()
    >>> writer = parquet.ParquetOut(out.temporary(0))
    >>> writer.write(["x", "d/dx"], [["1", "2"]])
    >>> writer.close()
    >>> out.finish({0: writer.path})
    ['part-00000.parquet']
    """

    directory: str
    run: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    created: bool = False  # (the run made the directory: a failed run removes it, empty)

    def prepare(self) -> None:
        """Make the directory; refuse one that holds parts already (they would mix)."""
        try:
            self.created = not os.path.exists(self.directory)
            os.makedirs(self.directory, exist_ok=True)
            held = sorted(n for n in os.listdir(self.directory) if not n.startswith((".", "_")))
        except OSError as error:
            raise InputError(f"cannot write {self.directory}: {reason_of(error)}") from None
        if held:
            raise InputError(
                f"--out {self.directory} holds {held[0]} already: write a dataset to an empty "
                "or a new directory"
            )

    def temporary(self, index: int) -> str:
        """A new hidden name for part ``index`` of this run (one per attempt: a part that
        Dask runs again after a lost worker never writes over another attempt's file)."""
        name = f".tmp-{self.run}-{uuid.uuid4().hex[:8]}.{self.name(index)}"
        return os.path.join(self.directory, name)

    @staticmethod
    def name(index: int) -> str:
        """The finished name of part ``index``."""
        return f"part-{index:05d}.parquet"

    def finish(self, written: Mapping[int, str]) -> list[str]:
        """Rename each complete part (``index: temporary file``) to its finished name, and
        remove the other attempts' files; the names written, in order."""
        names = []
        for index in sorted(written):
            os.replace(written[index], os.path.join(self.directory, self.name(index)))
            names.append(self.name(index))
        self.abandon()
        return names

    def abandon(self) -> None:
        """Remove every temporary file of this run (a failed run, or attempts left over; a
        part's writer's own, ``.`` + its name, too: :class:`gradcalc.io.written.Replacing`)."""
        for name in os.listdir(self.directory):
            if name.lstrip(".").startswith(f"tmp-{self.run}-"):
                os.remove(os.path.join(self.directory, name))

    def fail(self) -> None:
        """A failed run: its files removed, and the directory too if the run made it."""
        self.abandon()
        if self.created and not os.listdir(self.directory):
            os.rmdir(self.directory)
