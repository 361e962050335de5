"""Tensor files (``--at W=@w.npy``, ``.csv``) and data sets (``--data``)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from gradcalc.core.errors import InputError
from gradcalc.engine.tensors.tensorpoints import MAX_ELEMENTS
from gradcalc.io.tensors import load_tensor, read_data


def test_npy_and_csv_tensors_read_back_exactly(tmp_path: Path) -> None:
    array = np.random.default_rng(1).standard_normal((3, 4))
    np.save(tmp_path / "w.npy", array)
    assert np.array_equal(load_tensor(str(tmp_path / "w.npy")), array)
    np.save(tmp_path / "i.npy", np.arange(6, dtype=np.int32).reshape(2, 3))
    assert load_tensor(str(tmp_path / "i.npy")).dtype == np.float64
    np.savetxt(tmp_path / "w.csv", array, delimiter=",", fmt="%.17g")
    assert np.array_equal(load_tensor(str(tmp_path / "w.csv")), array)
    (tmp_path / "v.csv").write_text("1, 2, pi\n")
    assert load_tensor(str(tmp_path / "v.csv")).tolist() == [1.0, 2.0, np.pi]


def test_pickles_and_non_numbers_are_refused(tmp_path: Path) -> None:
    np.save(tmp_path / "o.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match=r"row 1, column 1: .*, not a real number"):
        load_tensor(str(tmp_path / "o.npy"))
    np.save(tmp_path / "c.npy", np.array([1 + 2j]))
    with pytest.raises(InputError, match=r"row 1, column 1: .*, not a real number"):
        load_tensor(str(tmp_path / "c.npy"))
    np.save(tmp_path / "n.npy", np.array([1.0, np.nan]))
    with pytest.raises(InputError, match=r"n\.npy, row 1, column 2: nan is not a finite number"):
        load_tensor(str(tmp_path / "n.npy"))
    (tmp_path / "r.csv").write_text("1,2\n3\n")
    with pytest.raises(InputError, match="row 2: 1 values, row 1 has 2"):
        load_tensor(str(tmp_path / "r.csv"))
    (tmp_path / "t.csv").write_text("1,abc\n")
    with pytest.raises(InputError, match="'abc' is not a number"):
        load_tensor(str(tmp_path / "t.csv"))
    (tmp_path / "q.csv").write_text('1,"2\n3",4\n')
    with pytest.raises(InputError, match=r"q\.csv row 1: a quoted cell spans lines"):
        load_tensor(str(tmp_path / "q.csv"))
    (tmp_path / "junk.npy").write_bytes(b"not numpy")
    with pytest.raises(InputError, match="cannot read tensor file"):
        load_tensor(str(tmp_path / "junk.npy"))
    with pytest.raises(InputError, match=r"\.npy or \.csv"):
        load_tensor(str(tmp_path / "w.pkl"))


def test_an_oversized_npy_is_refused_from_its_header(tmp_path: Path) -> None:
    path = tmp_path / "big.npy"
    big = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(MAX_ELEMENTS + 1,))
    del big
    with pytest.raises(InputError, match="limit"):
        load_tensor(str(path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "w.npy"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        load_tensor(str(fifo))


def test_a_data_set_binds_features_as_a_matrix_and_the_target_as_a_column(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("a,b,c,t\n1,2,3,0\n4,5,6,1\n7,8,9,1\n")
    data = read_data(str(path))
    assert data.X.tolist() == [[1, 2, 3], [4, 5, 6], [7, 8, 9]] and data.y.shape == (3, 1)
    assert (data.features, data.target, data.rows) == (("a", "b", "c"), "t", 3)
    chosen = read_data(str(path), ["c", "a"], "b")
    assert chosen.X.tolist() == [[3, 1], [6, 4], [9, 7]] and chosen.y[:, 0].tolist() == [2, 5, 8]


def test_bad_data_sets_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("a,t\n1,0\n2,x\n")
    with pytest.raises(InputError, match="row 3, column t"):
        read_data(str(path))
    with pytest.raises(InputError, match="no column q"):
        read_data(str(path), ["q"], "t")
    with pytest.raises(InputError, match="one of the --features"):
        read_data(str(path), ["a", "t"], "t")
    (tmp_path / "one.csv").write_text("t\n1\n")
    with pytest.raises(InputError, match="no feature column"):
        read_data(str(tmp_path / "one.csv"))
