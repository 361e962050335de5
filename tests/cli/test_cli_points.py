"""Points files as a script feeds them: id and label columns, --id carried through, --columns,
constant cells, .npy, .npz, Parquet and Arrow (pyarrow: skipped, saying so, without it), and
--out FILE.csv|.parquet. Expected values are worked out by hand: d(x*y)/dx = y, d/dy = x."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.cli.compact import each_point, per_point

LABELLED = 'id,x,label,y,note\nA,1,first,2,\nB,pi/4,second,3,"a, quoted"\nC,-2,third,0.5,x\n'


def write(tmp_path, name: str, content: str) -> str:
    path = tmp_path / name
    path.write_text(content)
    return str(path)


def csv_out(result) -> list[list[str]]:
    assert result.exit_code == 0, result.stderr
    return list(csv.reader(io.StringIO(result.stdout)))


def test_id_and_label_columns_are_ignored_by_default(cli, tmp_path) -> None:
    path = write(tmp_path, "p.csv", LABELLED)
    rows = csv_out(cli("grad", "x*y", "--points", path, "--format", "csv", "--no-check"))
    assert rows[0] == ["x", "y", "value", "d/dx", "d/dy"]
    xs, ys = [1.0, math.pi / 4, -2.0], [2.0, 3.0, 0.5]
    for row, x, y in zip(rows[1:], xs, ys):
        assert [float(c) for c in row] == [x, y, x * y, y, x]


def test_id_round_trips_through_csv_and_json(cli, tmp_path) -> None:
    path = write(tmp_path, "p.csv", "key,x,y\nr1,1,2\nr 2,3,4\n")
    rows = csv_out(cli("grad", "x*y", "--points", path, "--id", "key", "--format", "csv"))
    assert rows == [
        ["key", "x", "y", "value", "d/dx", "d/dy"],
        ["r1", "1", "2", "2", "2", "1"],
        ["r 2", "3", "4", "12", "4", "3"],
    ]
    result = cli("grad", "x*y", "--points", path, "--id", "key", "--format", "json", "--no-tape")
    objects = per_point(json.loads(result.stdout))
    assert [(o["id"], o["gradient"]) for o in objects] == [
        ("r1", {"x": 2.0, "y": 1.0}),
        ("r 2", {"x": 4.0, "y": 3.0}),
    ]


def test_id_stays_with_its_row_when_bad_rows_are_skipped(cli, tmp_path) -> None:
    path = write(tmp_path, "p.csv", "id,x,y\na,1,2\nb,oops,2\nc,3,4\n")
    rows = csv_out(
        cli("grad", "x*y", "--points", path, "--id", "id", "--skip-bad-rows", "--format", "csv")
    )
    assert [row[0] for row in rows[1:]] == ["a", "c"]
    assert [row[4:] for row in rows[1:]] == [["2", "1"], ["4", "3"]]


def test_columns_chooses_the_variables(cli, tmp_path) -> None:
    path = write(tmp_path, "p.csv", "x,y,z,label\n1,2,3,a\n")
    result = cli(
        "grad", "x*y", "--points", path, "--columns", "x,y,z", "--format", "json", "--no-tape"
    )
    out = per_point(json.loads(result.stdout))[0]
    assert out["gradient"] == {"x": 2.0, "y": 1.0, "z": 0.0} and out["independent"] == ["z"]
    # without --columns, z (unused) is not read: it is not a variable
    result = cli("grad", "x*y", "--points", path, "--format", "json", "--no-tape")
    assert per_point(json.loads(result.stdout))[0]["gradient"] == {"x": 2.0, "y": 1.0}


def test_wrt_reads_the_column_it_names(cli, tmp_path) -> None:
    path = write(tmp_path, "p.csv", "x,y,z\n1,2,3\n")
    result = cli("grad", "x*y", "--points", path, "--wrt", "x,z", "--format", "csv")
    assert csv_out(result) == [
        ["x", "y", "z", "value", "d/dx", "d/dz"],
        ["1", "2", "3", "2", "2", "0"],
    ]
    assert "z is not used by f: it is independent" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--columns", "x,q"], "has no column q (its columns: id, x, y)"),
        (["--id", "key"], "has no column key"),
        (["--columns", "x"], "--columns x leaves out y, a variable of the expression"),
        (["--id", "x"], "--id x is a variable of the expression"),
    ],
)
def test_bad_column_choices(cli, tmp_path, args, message) -> None:
    path = write(tmp_path, "p.csv", "id,x,y\na,1,2\n")
    result = cli("grad", "x*y", "--points", path, *args)
    assert result.exit_code == 2 and message in result.stderr, result.stderr


def test_columns_and_id_need_a_points_file(cli) -> None:
    result = cli("grad", "x*y", "--at", "x=1,y=2", "--id", "key")
    assert result.exit_code == 2 and "use them with --points" in result.stderr


def test_npz_and_npy(cli, tmp_path) -> None:
    npz = str(tmp_path / "p.npz")
    np.savez(npz, x=np.array([1.0, 3.0]), y=np.array([2.0, 4.0]), name=np.array(["a", "b"]))
    rows = csv_out(cli("grad", "x*y", "--points", npz, "--id", "name", "--format", "csv"))
    assert rows[1:] == [["a", "1", "2", "2", "2", "1"], ["b", "3", "4", "12", "4", "3"]]
    npy = str(tmp_path / "p.npy")
    np.save(npy, np.array([[1.0, 2.0], [3.0, 4.0]]))
    rows = csv_out(cli("grad", "x*y", "--points", npy, "--columns", "x,y", "--format", "csv"))
    assert rows[1:] == [["1", "2", "2", "2", "1"], ["3", "4", "12", "4", "3"]]
    result = cli("grad", "x*y", "--points", npy)
    assert result.exit_code == 2 and "name its columns with --columns" in result.stderr


@pytest.fixture
def pyarrow():
    return pytest.importorskip(
        "pyarrow", reason="pyarrow is not installed: pip install 'gradcalc[parquet]'"
    )


def test_parquet_and_arrow_in_and_parquet_out(cli, pyarrow, tmp_path) -> None:
    import pyarrow.parquet as pq

    table = pyarrow.table({"id": ["a", "b"], "x": [1.0, 3.0], "y": [2, 4], "tag": ["u", "v"]})
    parquet = str(tmp_path / "p.parquet")
    pq.write_table(table, parquet)
    arrow = str(tmp_path / "p.arrow")
    with pyarrow.OSFile(arrow, "wb") as sink, pyarrow.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    for path in (parquet, arrow):
        rows = csv_out(cli("grad", "x*y", "--points", path, "--id", "id", "--format", "csv"))
        assert rows[1:] == [["a", "1", "2", "2", "2", "1"], ["b", "3", "4", "12", "4", "3"]]
    out = str(tmp_path / "out.parquet")
    result = cli("grad", "x*y", "--points", parquet, "--id", "id", "--out", out)
    assert result.exit_code == 0 and result.stdout == "", result.stderr
    assert pq.read_table(out).to_pylist() == [
        {"id": "a", "x": 1.0, "y": 2.0, "value": 2.0, "d/dx": 2.0, "d/dy": 1.0},
        {"id": "b", "x": 3.0, "y": 4.0, "value": 12.0, "d/dx": 4.0, "d/dy": 3.0},
    ]


def test_out_csv_and_refusals(cli, tmp_path) -> None:
    path = write(tmp_path, "p.csv", "x,y\n1,2\n")
    out = tmp_path / "out.csv"
    result = cli("grad", "x*y", "--points", path, "--out", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text() == "x,y,value,d/dx,d/dy\n1,2,2,2,1\n"
    result = cli("grad", "x*y", "--points", path, "--out", str(tmp_path / "o.txt"))
    assert result.exit_code == 2 and "a .csv or a .parquet file" in result.stderr
    result = cli("grad", "x*y", "--points", path, "--out", str(out), "--format", "json")
    assert result.exit_code == 2 and "drop --format json" in result.stderr


def test_fit_reads_the_columns_the_model_and_y_use(cli, tmp_path) -> None:
    path = write(tmp_path, "d.csv", "label,x,y,note\na,0,1,u\nb,1,3,v\nc,2,5,w\n")  # y = 2x + 1
    result = cli("fit", "a*x + b", path, "--params", "a,b", "--format", "json")
    assert result.exit_code == 0, result.stderr
    fitted = json.loads(result.stdout)
    assert fitted["n"] == 3
    assert fitted["params"]["a"] == pytest.approx(2.0, abs=1e-12)
    assert fitted["params"]["b"] == pytest.approx(1.0, abs=1e-12)
    npz = str(tmp_path / "d.npz")
    np.savez(npz, x=np.array([0.0, 1, 2]), y=np.array([1.0, 3, 5]), id=np.array(["a", "b", "c"]))
    result = cli("fit", "a*x + b", npz, "--params", "a,b", "--format", "json")
    assert json.loads(result.stdout)["params"]["a"] == pytest.approx(2.0, abs=1e-12)


@pytest.mark.parametrize(
    ("variable", "typo", "message", "good"),
    [
        ("GRADCALC_KERNELS", "nativ", "use one of auto, native, numpy, numexpr", " NumPy "),
        (
            "GRADCALC_THREADS",
            "four",
            "give a whole number from 1 (unset: one per CPU, at most 4)",
            "2",
        ),
    ],
)
def test_a_setting_with_a_typo_is_a_usage_error(
    cli, tmp_path, monkeypatch, variable, typo, message, good
) -> None:
    # a typo (GRADCALC_KERNELS=nativ) would otherwise pass unseen; a good value in any case works
    path = write(tmp_path, "p.csv", "x\n" + "\n".join(str(k / 100) for k in range(300)) + "\n")
    monkeypatch.setenv(variable, typo)
    result = cli("grad", "sin(x)", "--points", path, "--format", "csv", "--no-check")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"gradcalc: {variable} is {typo!r}: {message}"]
    monkeypatch.setenv(variable, good)
    rows = csv_out(cli("grad", "sin(x)", "--points", path, "--format", "csv", "--no-check"))
    assert float(rows[-1][2]) == math.cos(2.99)


# --- chunks cut by size: memory flat in points and targets, the output the same ------------

MANY = 2_500  # points, cut into parts of a few hundred when the cell budget is made small


@pytest.fixture
def small_chunks(monkeypatch, tmp_path):
    """A points file of MANY rows (an id column, one bad row) and a chunk budget so small that
    a three-target Jacobian is computed a few hundred points at a time."""
    from gradcalc.core import budget

    monkeypatch.setattr(budget, "CHUNK_CELLS", 4_000)
    rng = np.random.default_rng(7)
    x, y = rng.uniform(-3, 3, MANY), rng.uniform(0.5, 2, MANY)
    lines = [f"p{k},{a!r},{b!r}" for k, (a, b) in enumerate(zip(x.tolist(), y.tolist()))]
    lines.insert(1234, "bad,oops,1")
    return write(tmp_path, "many.csv", "id,x,y\n" + "\n".join(lines) + "\n"), x, y


TARGETS = "x*y, sin(x)*y, exp(y)/3"


def jacobian_truth(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """d(x*y), d(sin(x)*y), d(exp(y)/3) by hand: shape (points, 3 targets, 2 variables)."""
    zero = np.zeros_like(x)
    rows = [[y, x], [np.cos(x) * y, np.sin(x)], [zero, np.exp(y) / 3]]
    return np.moveaxis(np.array(rows), -1, 0)


def test_a_jacobian_cut_into_small_chunks_writes_every_row_in_order(cli, small_chunks) -> None:
    path, x, y = small_chunks
    args = ("jacobian", TARGETS, "--points", path, "--id", "id", "--skip-bad-rows")
    rows = csv_out(cli(*args, "--format", "csv"))
    assert len(rows) == MANY + 1 and [r[0] for r in rows[1:]] == [f"p{k}" for k in range(MANY)]
    got = np.array([[float(c) for c in r[1:]] for r in rows[1:]])
    assert np.array_equal(got[:, :2], np.c_[x, y])  # the points, exactly, in their order
    columns = got[:, 2:].reshape(MANY, 3, 3)[:, :, 1:]  # (value, d/dx, d/dy) per target
    np.testing.assert_allclose(columns, jacobian_truth(x, y), rtol=1e-14, atol=1e-300)
    obj = json.loads(cli(*args, "--format", "json").stdout)
    assert obj["targets"] == ["f1", "f2", "f3"] and obj["rows"] == MANY  # (said once)
    assert obj["symbolic"][1] == {"x": "y*cos(x)", "y": "sin(x)"}
    assert not {"expression", "symbolic", "targets"} & set(obj["per_point"][-1])  # (not again)
    objects = each_point(obj)
    assert [o["id"] for o in objects] == [f"p{k}" for k in range(MANY)]
    matrices = np.array([o["jacobian"] for o in objects])
    np.testing.assert_allclose(matrices, jacobian_truth(x, y), rtol=1e-14, atol=1e-300)
    assert {o["check"]["status"] for o in objects} == {"agree"}


def test_a_table_of_small_chunks_shows_its_first_rows_and_counts_all(cli, small_chunks) -> None:
    path, _, _ = small_chunks
    result = cli("jacobian", TARGETS, "--points", path, "--skip-bad-rows")
    assert result.exit_code == 0, result.stderr
    assert f"showing the first 1,000 of {MANY:,} rows" in result.stdout
    assert result.stderr.count("skipped 1 bad row of 2,501") == 1  # said once, not per chunk


def test_a_gradient_cut_into_small_chunks_merges_one_compact_json(
    cli, small_chunks, monkeypatch
) -> None:
    from gradcalc.core import budget

    monkeypatch.setattr(budget, "CHUNK_CELLS", 1_000)  # (a few points of a gradient a chunk)
    path, x, y = small_chunks
    result = cli("grad", "x*y", "--points", path, "--skip-bad-rows", "--format", "json")
    objects = per_point(json.loads(result.stdout))
    assert len(objects) == MANY and {o["check"]["status"] for o in objects} == {"agree"}
    got = np.array([[o["gradient"]["x"], o["gradient"]["y"]] for o in objects])
    assert np.array_equal(got, np.c_[y, x])
    assert {o["skipped_rows"] for o in objects} == {1}


def test_a_hessian_counts_its_matrix_in_the_chunk_size(cli, small_chunks) -> None:
    path, x, y = small_chunks
    result = cli("hessian", "x^2*y", "--points", path, "--skip-bad-rows", "--format", "csv")
    header, *rows = csv_out(result)
    names = [f"d2/d{a}d{b}" for a in "xy" for b in "xy"]
    hessian = np.array([[float(r[header.index(n)]) for n in names] for r in rows])
    truth = np.c_[2 * y, 2 * x, 2 * x, np.zeros(MANY)]  # d2(x^2 y): 2y, 2x; 2x, 0
    np.testing.assert_allclose(hessian, truth, rtol=1e-15)


@given(
    st.integers(1, 300),
    st.integers(1, 400),
    st.booleans(),
)
def test_points_cut_into_parts_keep_every_point_with_its_id_and_text(count, rows, one_value):
    from gradcalc.engine.evaluate.points import Points

    x = np.arange(float(count))
    y = np.asarray(2.0) if one_value else -x  # (one value for all points stays one)
    whole = Points(
        ("x", "y"),
        {"x": x, "y": y},
        [{"x": str(k)} for k in range(count)],
        first_row=2,
        ids=[f"i{k}" for k in range(count)],
        bad=x % 7 == 3,
    )
    parts = whole.parts(rows)
    assert all(p.count <= rows for p in parts) and len(parts) == -(-count // rows)
    assert np.array_equal(np.concatenate([p.arrays["x"] for p in parts]), x)
    for part in parts:
        assert np.array_equal(
            np.broadcast_to(part.arrays["y"], (part.count,)),
            np.broadcast_to(y, (count,))[part.first_row - 2 : part.first_row - 2 + part.count],
        )
    assert [i for p in parts for i in p.ids] == whole.ids
    assert [e for p in parts for e in p.exact] == whole.exact
    assert np.array_equal(np.concatenate([p.bad for p in parts]), whole.bad)


def test_a_point_in_a_message_is_written_as_the_csv_writes_it(cli, tmp_path) -> None:
    """x*y^2 overflows at x=1e300, y=1e10: the message names the point in the CSV's own
    shortest form (1e+300, not 1.0000000000000001e+300), and each value reads back exactly."""
    path = write(tmp_path, "p.csv", "x,y\n1e300,1e10\n")
    result = cli("grad", "x*y^2", "--points", path, "--format", "csv", "--no-check")
    assert result.exit_code == 3
    shown = list(csv.reader(io.StringIO(result.stdout)))[1][:2]
    assert shown == ["1e+300", "10000000000"]
    assert "overflows float64 at x=1e+300, y=10000000000 " in result.stderr
    assert [float(v) for v in shown] == [1e300, 1e10]
