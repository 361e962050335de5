"""Every way a number enters gradcalc x every hostile kind of cell: each must be refused with
exit code 2 and one line naming the file (or job, or argument), the column and the row -- or
read exactly. The readers of points files come from the registry
(:data:`gradcalc.io.sources.READERS`): a test fails until every suffix a reader registers has
a writer here, so a new reader is tried on every kind by being registered.

The truth for "read exactly" is the value written, converted by Python (``float()``, or
``Fraction`` for exactness); for "refused", the message must name the place."""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradcalc
from gradcalc.core.errors import InputError
from gradcalc.io.sources import READERS, reader_of
from tests.cli.compact import answers

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
feather = pytest.importorskip("pyarrow.feather")


@dataclass(frozen=True)
class Kind:
    """A hostile middle cell (the column is [1, cell, 3]) in each form it can take: ``numpy``
    an array, ``arrow`` an Arrow array, ``text`` a CSV cell (or a whole CSV file's text:
    ``file``), ``json`` a JSON value's text, ``python`` the API's value; ``None`` where the
    form cannot hold it. ``exact``: the values when read exactly (else refused)."""

    name: str
    numpy: Callable[[], Any] | None = None
    arrow: Callable[[], Any] | None = None
    text: str | None = None
    json: str | None = None
    python: Callable[[], Any] | None = None
    exact: tuple[float, float, float] | None = None
    value_row: bool = True  # the message names row 2 (a type refusal may name row 1)


def _objects(middle: Any) -> Callable[[], Any]:
    return lambda: np.array([1, middle, 3], dtype=object)


def _tiny() -> Any:
    """[1, 1e-400, 3] as long doubles, where they can hold 1e-400 (``None`` elsewhere)."""
    if np.finfo(np.longdouble).minexp > -1400:
        return None
    return np.array(["1", "1e-400", "3"], dtype=np.longdouble)


HUGE = 2**53 + 1
KINDS = [
    Kind(
        "string",
        lambda: np.array(["1", "pi", "3"]),
        lambda: pa.array(["1", "pi", "3"]),
        "abc",
        '"abc"',
        lambda: ["1", "pi", "3"],
        value_row=False,
    ),
    Kind(
        "date",
        lambda: np.array(["2020-01-01", "2020-01-02", "2020-01-03"], dtype="datetime64[D]"),
        lambda: pa.array(np.array(["2020-01-01"] * 3, dtype="datetime64[D]")),
        "2020-01-02",
        '"2020-01-02"',
        lambda: [np.datetime64("2020-01-01")] * 3,
        value_row=False,
    ),
    Kind(
        "timestamp",
        lambda: np.array(["2020-01-01T00:00"] * 3, dtype="datetime64[ns]"),
        lambda: pa.array(np.array(["2020-01-01T00:00"] * 3, dtype="datetime64[ns]")),
        "2020-01-02T10:00:00",
        '"2020-01-02T10:00:00"',
        value_row=False,
    ),
    Kind(
        "time span",
        lambda: np.array([1, 2, 3], dtype="timedelta64[s]"),
        lambda: pa.array(np.array([1, 2, 3], dtype="timedelta64[s]")),
        value_row=False,
    ),
    Kind(
        "decimal",
        _objects(Decimal("2.5")),
        lambda: pa.array([Decimal("1"), Decimal("2.5"), Decimal("3")]),
        python=lambda: [1, Decimal("2.5"), 3],
        value_row=False,
    ),
    Kind(
        "object",
        _objects({"a": 1}),
        lambda: pa.array([{"a": 1.0}] * 3),
        json='{"a": 1}',
        python=lambda: [1, object(), 3],
        value_row=False,
    ),
    Kind(
        "complex",
        lambda: np.array([1, 2 + 1j, 3]),
        None,
        "2+1j",
        None,
        lambda: [1, 2 + 1j, 3],
        value_row=False,
    ),
    Kind("masked", None, None, python=lambda: np.ma.masked_array([1.0, 2.0, 3.0], [0, 1, 0])),
    Kind(
        "unicode digits",
        lambda: np.array(["1", "\u0662", "3"]),
        lambda: pa.array(["1", "\u0662", "3"]),
        "\u0662",
        '"\u0662"',
        value_row=False,
    ),
    Kind("BOM", lambda: np.array(["1", "\ufeff2", "3"]), None, "\ufeff2", value_row=False),
    Kind("BOM file", text="file:\ufeffx\n1\n2\n3\n", exact=(1.0, 2.0, 3.0)),
    Kind("CRLF file", text="file:x\r\n1\r\n2\r\n3\r\n", exact=(1.0, 2.0, 3.0)),
    Kind(
        "NUL",
        lambda: np.array([b"1", b"2\x00", b"3"]),
        lambda: pa.array([b"1", b"2\x00", b"3"]),
        "2\x00",
        '"2\\u0000"',
        value_row=False,
    ),
    Kind(
        "bool",
        lambda: np.array([True, False, True]),
        lambda: pa.array([True, False, True]),
        "true",
        "true",
        lambda: [1, True, 3],
        value_row=False,
    ),
    Kind(
        "float16",
        lambda: np.array([1, 0.1, 3], dtype=np.float16),
        lambda: pa.array(np.array([1, 0.1, 3], dtype=np.float16)),
        python=lambda: np.array([1, 0.1, 3], dtype=np.float16),
        exact=(1.0, float(np.float16(0.1)), 3.0),
    ),
    Kind(
        "longdouble",
        lambda: np.array([1, 1, 3], dtype=np.longdouble) / np.array([1, 3, 1], np.longdouble),
        python=lambda: (
            np.array([1, 1, 3], dtype=np.longdouble) / np.array([1, 3, 1], np.longdouble)
        ),
    ),
    Kind(
        "list",
        _objects([2]),
        lambda: pa.array([[1.0], [2.0], [3.0]]),
        "[2]",
        "[2]",
        lambda: [1, [2], 3],
        value_row=False,
    ),
    Kind(
        "dictionary-encoded numbers",
        arrow=lambda: pa.array([1.0, 2.5, 3.0]).dictionary_encode(),
        exact=(1.0, 2.5, 3.0),
    ),
    Kind(
        "dictionary-encoded text",
        arrow=lambda: pa.array(["1", "2", "3"]).dictionary_encode(),
        value_row=False,
    ),
    Kind("null", None, lambda: pa.array([1.0, None, 3.0]), "", "null", lambda: [1, None, 3]),
    Kind("Python None", _objects(None), value_row=False),
    Kind(
        "NaN",
        lambda: np.array([1, np.nan, 3]),
        lambda: pa.array([1, np.nan, 3]),
        "nan",
        "NaN",
        lambda: [1, math.nan, 3],
    ),
    Kind(
        "inf",
        lambda: np.array([1, -np.inf, 3]),
        lambda: pa.array([1, -np.inf, 3]),
        "-inf",
        "-Infinity",
        lambda: np.array([1, -np.inf, 3]),
    ),
    Kind(
        "huge int",
        lambda: np.array([1, HUGE, 3], dtype=np.int64),
        lambda: pa.array([1, HUGE, 3], pa.int64()),
        str(HUGE),
        str(HUGE),
        lambda: [1, HUGE, 3],
    ),
    Kind(
        "huge exact int",
        lambda: np.array([1, 2**60, 3], dtype=np.uint64),
        lambda: pa.array([1, 2**60, 3], pa.uint64()),
        str(2**60),
        str(2**60),
        lambda: [1, 2**60, 3],
        exact=(1.0, float(2**60), 3.0),
    ),
    Kind(
        "too large",
        lambda: np.array([1, 1e301, 3]),
        lambda: pa.array([1, 1e301, 3]),
        "1e400",
        "1e400",
        lambda: [1, 10**400, 3],
    ),
    Kind(
        "too small",
        lambda: (
            np.array(["1", "1e-400", "3"], dtype=np.longdouble)
            if np.finfo(np.longdouble).minexp < -1400
            else None
        ),
        None,
        "1e-400",
        "1e-400",
        lambda: (
            np.array(["1", "1e-400", "3"], dtype=np.longdouble)
            if np.finfo(np.longdouble).minexp < -1400
            else [1, 10**-400, 3][:0] or pytest.skip("no long double here")
        ),
    ),
]


# --- the ways in ---------------------------------------------------------------------------


def _numpy_column(kind: Kind) -> Any:
    return None if kind.numpy is None else kind.numpy()


def _write_npz(kind: Kind, path: Path) -> bool:
    column = _numpy_column(kind)
    if column is None:
        return False
    np.savez(path, x=column, y=np.arange(3.0))
    return True


def _write_npy(kind: Kind, path: Path) -> bool:
    column = _numpy_column(kind)
    if column is None:
        return False
    table = np.zeros(3, dtype=[("x", column.dtype), ("y", float)])
    table["x"], table["y"] = column, np.arange(3.0)
    np.save(path, table, allow_pickle=True)
    return True


def _arrow_table(kind: Kind) -> Any:
    return None if kind.arrow is None else pa.table({"x": kind.arrow(), "y": [0.0, 1.0, 2.0]})


def _write_parquet(kind: Kind, path: Path) -> bool:
    table = _arrow_table(kind)
    if table is None:
        return False
    try:
        pq.write_table(table, path)
    except pa.ArrowNotImplementedError:
        return False  # (a type Parquet cannot store here: float16 in older pyarrow)
    return True


def _write_arrow(kind: Kind, path: Path) -> bool:
    table = _arrow_table(kind)
    if table is None:
        return False
    feather.write_feather(table, path)
    return True


def _write_arrow_stream(kind: Kind, path: Path) -> bool:
    table = _arrow_table(kind)
    if table is None:
        return False
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return True


def _write_csv(kind: Kind, path: Path) -> bool:
    if kind.text is None:
        return False
    if kind.text.startswith("file:"):
        path.write_bytes(kind.text.removeprefix("file:").encode())
        return True
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([["x", "y"], [1, 0], [kind.text, 1], [3, 2]])
    return True


#: Each suffix of a points file, and how the tests write one. Every suffix the registry's
#: readers claim must be here (test_every_registered_reader_is_tried).
WRITERS: dict[str, Callable[[Kind, Path], bool]] = {
    ".csv": _write_csv,
    ".npz": _write_npz,
    ".npy": _write_npy,
    ".parquet": _write_parquet,
    ".pq": _write_parquet,
    ".arrow": _write_arrow,
    ".feather": _write_arrow,
    ".ipc": _write_arrow_stream,
}


def test_every_registered_reader_is_tried() -> None:
    claimed = {suffix for reader in READERS for suffix in reader.suffixes}
    assert claimed | {".csv"} <= set(WRITERS)
    assert all(reader_of(f"p{suffix}") is not None for suffix in claimed)


def _one_line_naming(result: Any, *places: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for place in places:
        assert re.search(place, lines[0]), (place, lines[0])


def _read_exactly(result: Any, exact: tuple[float, ...]) -> None:
    assert result.exit_code == 0, result.stderr
    points = [answer["point"]["x"] for answer in answers(result.stdout)]
    assert [Fraction(v) for v in points] == [Fraction(v) for v in exact]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
@pytest.mark.parametrize("suffix", sorted(WRITERS))
def test_a_points_file_refuses_or_reads_exactly(cli, tmp_path: Path, suffix, kind) -> None:
    path = tmp_path / f"p{suffix}"
    if not WRITERS[suffix](kind, path):
        pytest.skip(f"a {suffix} file cannot hold {kind.name}")
    args = ["grad", "x", "--points", str(path), "--no-check", "--format", "json"]
    result = cli(*args, "--no-tape")
    if kind.exact is not None:
        _read_exactly(result, kind.exact)
        return
    # (a CSV's rows are its lines, the header row 1; other files count their points)
    row = "row 3" if suffix == ".csv" else "row 2" if kind.value_row else r"row [12]"
    where = "points file" if suffix == ".csv" else re.escape(str(path))
    _one_line_naming(result, where, "column x", row)
    if kind.value_row or suffix == ".csv":  # a bad value (not a type) is left out on request
        skipped = cli(*args, "--skip-bad-rows")
        assert skipped.exit_code == 0 and "skipped 1 bad row of 3" in skipped.stderr


NESTED = {  # a column that holds an array (or a record of one) in each row
    "p.npy": lambda path: np.save(path, np.zeros(2, dtype=[("x", float, (2,)), ("y", float)])),
    "p.npz": lambda path: np.savez(path, x=np.zeros(2, dtype=[("a", float, (2,))]), y=[1, 2]),
    "q.npz": lambda path: np.savez(path, x=np.zeros((2, 2)), y=[1.0, 2.0]),
}


@pytest.mark.parametrize("fmt", ["csv", "json"])
@pytest.mark.parametrize("name", sorted(NESTED))
def test_a_column_of_arrays_is_refused_in_one_line(cli, tmp_path: Path, name, fmt) -> None:
    """Not a real number in each row: exit 2, one line naming the file and the column, and
    JSON's one document (never an internal error after the CSV header)."""
    path = tmp_path / name
    NESTED[name](path)
    result = cli("grad", "x*y^2", "--points", str(path), "--no-check", "--format", fmt)
    _one_line_naming(result, re.escape(str(path)), "x")
    if fmt == "json":
        assert json.loads(result.stdout)["error"]["exit_code"] == 2
    else:
        assert result.stdout == ""
    if name == "p.npy":
        assert result.stderr.strip().endswith(
            "column x, row 1: an array of shape (2,), not a real number"
        )


# --- the ways in that are not points files -------------------------------------------------


@pytest.mark.parametrize("kind", [k for k in KINDS if k.numpy is not None], ids=lambda k: k.name)
def test_a_tensor_npy_file_refuses_or_reads_exactly(cli, tmp_path: Path, kind) -> None:
    column = kind.numpy()
    if column is None:
        pytest.skip("no such value here")
    np.save(tmp_path / "w.npy", column, allow_pickle=True)
    result = cli("--file", "grad", "sum(W)", "--at", f"W=@{tmp_path / 'w.npy'}", "--no-check")
    if kind.exact is not None:
        assert result.exit_code == 0, result.stderr
        return
    _one_line_naming(result, re.escape(str(tmp_path / "w.npy")), "row 1", "column [12]")


@pytest.mark.parametrize(
    "kind", [k for k in KINDS if k.text and not k.text.startswith("file:")], ids=lambda k: k.name
)
def test_a_tensor_csv_file_and_at_refuse_or_read_exactly(cli, tmp_path: Path, kind) -> None:
    path = tmp_path / "w.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerow([1, kind.text, 3])
    result = cli("--file", "grad", "sum(W)", "--at", f"W=@{path}", "--no-check")
    if kind.exact is not None:
        assert result.exit_code == 0, result.stderr
    else:
        _one_line_naming(result, re.escape(str(path)), "row 1", "column 2")
    at = cli("grad", "x", "--at", f"x={kind.text}", "--no-check", "--format", "json")
    if kind.exact is not None:
        assert json.loads(at.stdout)["point"]["x"] == kind.exact[1]
    else:
        assert at.exit_code == 2 and "Traceback" not in at.stderr, at.stderr


@pytest.mark.parametrize("kind", [k for k in KINDS if k.json is not None], ids=lambda k: k.name)
def test_a_jobs_json_value_refuses_or_reads_exactly(cli, kind) -> None:
    line = f'{{"expr": "x", "at": {{"x": {kind.json}}}}}\n'
    result = cli("grad", "--jobs", "-", "--no-check", stdin=line)
    answer = json.loads(result.stdout)
    if kind.exact is not None:
        assert answer["point"]["x"] == kind.exact[1]
        return
    assert answer["exit_code"] == 2 and answer["job"] == 1, answer
    assert '"at"' in answer["error"] and "\n" not in answer["error"], answer


@pytest.mark.parametrize("kind", [k for k in KINDS if k.python is not None], ids=lambda k: k.name)
@pytest.mark.parametrize("strict", [True, False])
def test_the_apis_values_refuse_or_read_exactly(kind, strict: bool) -> None:
    value = kind.python()
    if kind.exact is not None:
        result = gradcalc.grad("x", at={"x": value}, check=False, strict=strict)
        assert [Fraction(v) for v in result.points.arrays["x"]] == [Fraction(v) for v in kind.exact]
        return
    if kind.value_row and not strict:  # the bad point is undefined, the others answered
        result = gradcalc.grad("x^2", at={"x": value}, check=False, strict=False)
        assert result.undefined.tolist() == [False, True, False]
        assert result.gradient["x"][[0, 2]].tolist() == [2.0, 6.0]
        return
    with pytest.raises(InputError) as caught:
        gradcalc.grad("x", at={"x": value}, check=False, strict=strict)
    assert re.match(r"at, variable x, point [12]: ", caught.value.message), caught.value.message


# --- any numeric file reads as the same numbers in CSV would --------------------------------

#: The values of each numeric type, all of them (within the policy's range for float64).
VALUES = {
    "float64": st.floats(-1e300, 1e300),
    "float32": st.floats(width=32, allow_nan=False, allow_infinity=False),
    "int64": st.integers(-(2**53), 2**53),
}
TABLES = st.sampled_from(sorted(VALUES)).flatmap(
    lambda dtype: st.tuples(
        st.just(dtype), st.lists(st.tuples(VALUES[dtype], VALUES[dtype]), min_size=1, max_size=40)
    )
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(TABLES)
def test_any_numeric_file_gives_the_answers_csv_gives(tmp_path_factory, table_rows) -> None:
    from gradcalc.io.sources import open_points

    dtype, rows = table_rows
    folder = tmp_path_factory.mktemp("round")
    x, y = (np.array(column, dtype=dtype) for column in zip(*rows))
    (folder / "p.csv").write_text(
        "x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(x, y))
    )
    np.savez(folder / "p.npz", x=x, y=y)
    table = np.zeros(len(x), dtype=[("x", x.dtype), ("y", y.dtype)])
    table["x"], table["y"] = x, y
    np.save(folder / "p.npy", table)
    arrow = pa.table({"x": x, "y": y})
    pq.write_table(arrow, folder / "p.parquet")
    feather.write_feather(arrow, folder / "p.arrow")
    answers = {}
    for name in ["p.csv", "p.npz", "p.npy", "p.parquet", "p.arrow"]:
        with open_points(str(folder / name)) as source:
            (chunk,) = source.read(["x", "y"])
        result = gradcalc.grad("x*y + x^2", at=chunk, check=False, strict=False)
        answers[name] = (chunk.arrays["x"], chunk.arrays["y"], result.gradient["x"])
    truth = answers.pop("p.csv")
    assert truth[0].tolist() == [float(v) for v in x]  # Python's own float() of each
    for name, answer in answers.items():
        for got, expected in zip(answer, truth):
            assert got.tobytes() == expected.tobytes(), name
