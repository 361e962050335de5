"""Datasets of Parquet files: which files are parts (sorted; hidden and ``_`` names left out as
every Parquet reader does; anything else refused), read as one file would be (checked against
the numbers written with pyarrow), and parts written under temporary names until the run
finishes."""

from __future__ import annotations

import os

import numpy as np
import pytest

from gradcalc.core.errors import InputError
from gradcalc.io.datasets import (
    DatasetOut,
    dataset_parts,
    is_dataset,
    is_directory_out,
    open_dataset,
)
from gradcalc.io.files import Skipped

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def write_parts(folder, columns: list[dict], row_group_size: int = 64) -> list[str]:
    os.makedirs(folder, exist_ok=True)
    paths = []
    for k, data in enumerate(columns):
        path = os.path.join(folder, f"p{k:02d}.parquet")
        pq.write_table(pa.table(data), path, row_group_size=row_group_size)
        paths.append(path)
    return paths


def test_a_directory_is_its_parquet_files_sorted_hidden_ones_left_out(tmp_path) -> None:
    paths = write_parts(tmp_path / "lake", [{"x": [1.0]}] * 3)
    nested = write_parts(tmp_path / "lake" / "year=2026", [{"x": [2.0]}])
    (tmp_path / "lake" / "_SUCCESS").write_text("")
    (tmp_path / "lake" / ".p00.parquet.crc").write_text("")
    write_parts(tmp_path / "lake" / "_temporary", [{"x": [3.0]}])
    assert dataset_parts(str(tmp_path / "lake")) == sorted(paths + nested)
    assert dataset_parts(str(tmp_path / "lake" / "p0[02].parquet")) == [paths[0], paths[2]]
    assert is_dataset(str(tmp_path / "lake")) and not is_dataset(paths[0])


def test_a_file_that_is_not_parquet_or_no_file_at_all_is_refused(tmp_path) -> None:
    write_parts(tmp_path, [{"x": [1.0]}])
    (tmp_path / "notes.csv").write_text("x\n1\n")
    with pytest.raises(InputError, match=r"notes.csv, not a Parquet file"):
        dataset_parts(str(tmp_path))
    with pytest.raises(InputError, match="has no Parquet file"):
        dataset_parts(str(tmp_path / "*.pq"))


def test_a_dataset_reads_as_its_parts_one_after_the_other(tmp_path) -> None:
    rng = np.random.default_rng(4)
    data = [
        {
            "id": [f"{k}-{i}" for i in range(n)],
            "x": rng.normal(size=n) * 1e299,
            "y": rng.normal(size=n),
        }
        for k, n in enumerate([150, 1, 77])
    ]
    write_parts(tmp_path, data, row_group_size=50)
    with open_dataset(str(tmp_path)) as dataset:
        assert dataset.names() == ("id", "x", "y")
        chunks = list(dataset.read(["x"], "id"))
    assert np.array_equal(
        np.concatenate([c.arrays["x"] for c in chunks]), np.concatenate([d["x"] for d in data])
    )
    assert [i for c in chunks for i in c.ids] == [i for d in data for i in d["id"]]


def test_a_bad_cell_in_a_later_part_names_its_file_and_row(tmp_path) -> None:
    paths = write_parts(tmp_path, [{"x": [1.0, 2.0]}, {"x": [3.0, float("nan"), 5.0]}])
    with open_dataset(str(tmp_path)) as dataset, pytest.raises(InputError) as error:
        list(dataset.read(["x"]))
    assert paths[1] in error.value.message and "row 2" in error.value.message
    skipped = Skipped()
    with open_dataset(str(tmp_path)) as dataset:
        kept = [v for c in dataset.read(["x"], None, skipped) for v in c.arrays["x"].tolist()]
    assert kept == [1.0, 2.0, 3.0, 5.0] and (skipped.count, skipped.rows) == (1, 5)


def test_parts_look_finished_only_after_the_run_finishes(tmp_path) -> None:
    out = DatasetOut(str(tmp_path / "results") + "/")
    out.prepare()
    temporaries = {k: out.temporary(k) for k in range(2)}
    for path in temporaries.values():
        pq.write_table(pa.table({"x": [1.0]}), path)
    stray = out.temporary(0)  # an attempt lost with its worker
    open(stray, "w").close()
    with pytest.raises(InputError, match="has no Parquet file"):
        dataset_parts(out.directory)  # (a reader sees no part before the run finishes)
    assert out.finish(temporaries) == ["part-00000.parquet", "part-00001.parquet"]
    assert sorted(os.listdir(out.directory)) == ["part-00000.parquet", "part-00001.parquet"]
    with pytest.raises(InputError, match=r"holds part-00000\.parquet already"):
        DatasetOut(out.directory).prepare()


def test_a_failed_run_leaves_no_file_of_its_own(tmp_path) -> None:
    other = DatasetOut(str(tmp_path))
    mine = DatasetOut(str(tmp_path))
    mine.prepare()
    kept = other.temporary(0)
    open(kept, "w").close()
    for k in range(3):
        open(mine.temporary(k), "w").close()
    mine.abandon()
    assert os.listdir(tmp_path) == [os.path.basename(kept)]  # (another run's: not mine)
    assert is_directory_out(str(tmp_path)) and is_directory_out("new/")
    assert not is_directory_out(str(tmp_path / "new.parquet"))
