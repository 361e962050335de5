"""Points files beyond plain CSV: chosen columns, id and label columns, constant cells,
.npy, .npz, Parquet and Arrow IPC (the last two skipped, saying so, without pyarrow)."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from gradcalc.core.errors import InputError
from gradcalc.io.arrays import array_columns, read_arrays
from gradcalc.io.files import Skipped, read_points

LABELLED = "id,x,label,y\nA,1,first,2\nB,pi/4,second,sqrt(2)\nC,-3,,0.5\n"


def csv_chunks(text: str, **kwargs) -> list:
    return list(read_points(io.StringIO(text), **kwargs))


def test_csv_id_and_label_columns_are_not_variables() -> None:
    (chunk,) = csv_chunks(LABELLED, columns=["x", "y"], id_column="id")
    assert chunk.names == ("x", "y")
    assert chunk.arrays["x"].tolist() == [1.0, math.pi / 4, -3.0]
    assert chunk.arrays["y"].tolist() == [2.0, math.sqrt(2), 0.5]
    assert chunk.ids == ["A", "B", "C"]


def test_csv_chosen_columns_in_the_order_given() -> None:
    (chunk,) = csv_chunks(LABELLED, columns=["y", "x"])
    assert chunk.names == ("y", "x") and chunk.ids is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"columns": ["x", "z"]}, "has no column z (its columns: id, x, label, y)"),
        ({"columns": ["x"], "id_column": "key"}, "has no column key"),
        ({"columns": ["x", "x"]}, "the column x is chosen twice"),
        ({"columns": ["label"]}, "row 2, column label: 'first' is not a number"),
        ({}, "row 2, column id: 'A' is not a number"),  # all columns, as before
    ],
)
def test_csv_bad_choices(kwargs, message) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        csv_chunks(LABELLED, **kwargs)


def test_csv_skipped_rows_keep_ids_aligned() -> None:
    skipped = Skipped()
    text = "id,x\nA,1\nB,oops\nC,3\n"
    (chunk,) = csv_chunks(text, columns=["x"], id_column="id", skipped=skipped)
    assert chunk.ids == ["A", "C"] and chunk.arrays["x"].tolist() == [1.0, 3.0]
    assert skipped.count == 1 and "row 3, column x: 'oops' is not a number" in skipped.reasons[0]


def test_csv_ids_across_chunks_and_quoted_cells() -> None:
    text = 'id,x\n"a,1",1\n"b ""2""",2\nc,3\n'
    chunks = csv_chunks(text, columns=["x"], id_column="id", chunk_rows=2)
    assert [c.ids for c in chunks] == [["a,1", 'b "2"'], ["c"]]
    assert [c.first_row for c in chunks] == [2, 4]


@pytest.mark.parametrize("cell", ["1-2", "2024-01-05", "1/3/2024", "1.2.3"])
def test_csv_date_like_cells_are_refused(cell) -> None:
    with pytest.raises(InputError, match="is not a number"):
        csv_chunks(f"x\n{cell}\n")


def test_csv_a_fraction_is_a_constant() -> None:
    (chunk,) = csv_chunks("x\n1/3\n2e-1\n")
    assert chunk.arrays["x"].tolist() == [1 / 3, 0.2]


# --- numpy files -------------------------------------------------------------------------


def test_a_constant_cell_that_could_be_meant_otherwise_is_warned_once_per_column() -> None:
    """1/2pi in a cell is (1/2)·pi, as in --at: the chunk says so, once per column and text,
    whatever the rows; plain numbers and unambiguous constants (pi/4) warn of nothing."""
    import random

    from gradcalc.lang.reading import value_warnings

    rng = random.Random(7)
    cells = ["1/2pi", "1/3e", "pi/4", "2", "0.5", "sqrt(2)"]
    rows = [(rng.choice(cells), rng.choice(cells)) for _ in range(200)]
    text = "x,y\n" + "".join(f"{a},{b}\n" for a, b in rows)
    (chunk,) = csv_chunks(text)
    expected = {
        f"points file, column {name}: {warning}"
        for k, name in enumerate("xy")
        for warning in value_warnings([row[k] for row in rows])
    }
    assert set(chunk.warnings) == expected and len(chunk.warnings) == len(expected)
    assert chunk.arrays["x"][[r[0] == "1/2pi" for r in rows]].tolist() == [math.pi / 2] * sum(
        r[0] == "1/2pi" for r in rows
    )
    (plain,) = csv_chunks("x,y\n1,pi/4\n2,3\n")
    assert plain.warnings == ()
    parts = csv_chunks(text)[0].parts(7)
    assert all(part.warnings == chunk.warnings for part in parts)
    (kept,) = csv_chunks("x,y\n1/2pi,nan\n2,3\n", skipped=Skipped())  # (row 2 left out)
    assert kept.warnings == ()


def test_npz_columns_with_an_id(tmp_path) -> None:
    path = str(tmp_path / "p.npz")
    np.savez(path, x=np.arange(5.0), y=np.arange(5) * 2, name=np.array(list("abcde")))
    assert array_columns(path) == ("x", "y", "name")
    chunks = list(read_arrays(path, ["x", "y"], "name", chunk_rows=2))
    assert [c.ids for c in chunks] == [["a", "b"], ["c", "d"], ["e"]]
    assert np.concatenate([c.arrays["y"] for c in chunks]).tolist() == [0, 2, 4, 6, 8]
    assert [c.first_row for c in chunks] == [1, 3, 5]


def test_npy_structured_and_plain(tmp_path) -> None:
    structured = np.zeros(3, dtype=[("x", "f8"), ("y", "i4"), ("label", "U5")])
    structured["x"], structured["y"], structured["label"] = [1, 2, 3], [4, 5, 6], "ok"
    path = str(tmp_path / "s.npy")
    np.save(path, structured)
    (chunk,) = read_arrays(path, ["x", "y"])
    assert chunk.arrays["y"].tolist() == [4.0, 5.0, 6.0]

    plain = str(tmp_path / "plain.npy")
    np.save(plain, np.array([[1.0, 10.0], [2.0, 20.0]]))
    assert array_columns(plain) is None
    (chunk,) = read_arrays(plain, ["t", "u"])
    assert chunk.arrays["u"].tolist() == [10.0, 20.0]
    with pytest.raises(InputError, match="has no column names: name its columns with --columns"):
        list(read_arrays(plain))
    with pytest.raises(InputError, match="has 2 columns and --columns names 1"):
        list(read_arrays(plain, ["t"]))


def test_numpy_bad_values(tmp_path) -> None:
    path = str(tmp_path / "p.npz")
    np.savez(path, x=np.array([1.0, np.nan, 3.0]))
    with pytest.raises(InputError, match="column x, row 2: nan is not a finite number"):
        list(read_arrays(path))
    skipped = Skipped()
    (chunk,) = read_arrays(path, skipped=skipped)
    assert chunk.arrays["x"].tolist() == [1.0, 3.0] and skipped.count == 1
    uneven = str(tmp_path / "u.npz")
    np.savez(uneven, x=np.zeros(2), y=np.zeros(3))
    with pytest.raises(InputError, match="different lengths"):
        list(read_arrays(uneven))
    with pytest.raises(InputError, match="cannot read points file"):
        list(read_arrays(str(tmp_path / "missing.npy")))


# --- Parquet and Arrow IPC ---------------------------------------------------------------


@pytest.fixture
def pa():
    return pytest.importorskip(
        "pyarrow", reason="pyarrow is not installed: pip install 'gradcalc[parquet]'"
    )


def test_parquet_chosen_columns_and_ids(pa, tmp_path) -> None:
    import pyarrow.parquet as pq

    from gradcalc.io.parquet import read_table_file, table_columns

    path = str(tmp_path / "p.parquet")
    table = pa.table(
        {
            "id": [10, 11, 12],
            "x": [1.0, 2.0, 3.0],
            "label": ["a", "b", "c"],
            "y": ["pi/4", "1", "2"],  # text is never read as numbers (nor as arithmetic)
        }
    )
    pq.write_table(table, path, row_group_size=2)
    assert table_columns(path) == ("id", "x", "label", "y")
    chunks = list(read_table_file(path, ["x"], "id", chunk_rows=2))
    assert [c.ids for c in chunks] == [["10", "11"], ["12"]]
    assert [c.arrays["x"].tolist() for c in chunks] == [[1.0, 2.0], [3.0]]
    with pytest.raises(InputError, match=r"p\.parquet, column y, row 1: text, not a real number"):
        list(read_table_file(path, ["x", "y"], "id", chunk_rows=2))


def test_parquet_nulls_name_the_row(pa, tmp_path) -> None:
    import pyarrow.parquet as pq

    from gradcalc.io.parquet import read_table_file

    path = str(tmp_path / "p.parquet")
    pq.write_table(pa.table({"x": [1.0, None, 3.0]}), path)
    with pytest.raises(InputError, match="column x, row 2: the value is missing"):
        list(read_table_file(path))
    skipped = Skipped()
    (chunk,) = read_table_file(path, skipped=skipped)
    assert chunk.arrays["x"].tolist() == [1.0, 3.0]


@pytest.mark.parametrize("kind", ["file", "stream"])
def test_arrow_ipc(pa, tmp_path, kind) -> None:
    from gradcalc.io.parquet import read_table_file

    path = str(tmp_path / "p.arrow")
    table = pa.table({"x": np.arange(7.0), "tag": list("abcdefg")})
    with pa.OSFile(path, "wb") as sink:
        opener = pa.ipc.new_file if kind == "file" else pa.ipc.new_stream
        with opener(sink, table.schema) as writer:
            writer.write_table(table, max_chunksize=4)
    for _ in range(2):  # a stream can be read twice too (checked, then used)
        chunks = list(read_table_file(path, ["x"], "tag", chunk_rows=3))
        assert [len(c.ids) for c in chunks] == [3, 1, 3]
        assert np.concatenate([c.arrays["x"] for c in chunks]).tolist() == list(range(7))


@pytest.mark.parametrize("suffix", [".feather", ".arrow"])
def test_a_feather_v1_file_is_said_to_be_unsupported(cli, pa, tmp_path, suffix) -> None:
    """pyarrow writes Feather V1 when asked (version=1); gradcalc reads Arrow IPC (Feather
    V2) and Parquet, and says so, in one line, exit 2."""
    import warnings

    import pyarrow.feather

    path = str(tmp_path / f"old{suffix}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (pyarrow's: V1 is deprecated)
        pyarrow.feather.write_feather(pa.table({"x": [1.0]}), path, version=1)
    result = cli("grad", "x^2", "--points", path, "--format", "csv")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == (
        f"gradcalc: cannot read points file {path}: it is a Feather V1 file, which gradcalc "
        "does not read; write it as Feather V2 (an Arrow IPC file, pyarrow's default: "
        "pyarrow.feather.write_feather(table, path)) or as Parquet"
    )


def test_parquet_out_round_trip(pa, tmp_path) -> None:
    import pyarrow.parquet as pq

    from gradcalc.io.parquet import ParquetOut

    path = str(tmp_path / "out.parquet")
    out = ParquetOut(path, ["id"])
    out.write(["id", "x", "d/dx"], [["a", "1", "2"], ["b", "3", ""]])
    out.write(["id", "x", "d/dx"], [["c", "0.5", "1e-3"]])
    out.close()
    rows = pq.read_table(path).to_pylist()
    assert rows == [
        {"id": "a", "x": 1.0, "d/dx": 2.0},
        {"id": "b", "x": 3.0, "d/dx": None},
        {"id": "c", "x": 0.5, "d/dx": 0.001},
    ]
