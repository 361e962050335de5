"""Compact JSON for many points, against calculus done by numpy: the columns hold each point's
value and derivatives in order, null exactly where undefined; what is the same for every point
is said once; the chunks of a file join into the same object."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from tests.cli.compact import per_point
from tests.symbolic.readback import read_back


@pytest.fixture
def points(tmp_path):
    rng = np.random.default_rng(35)
    x, y = rng.uniform(-3, 3, 3000), rng.uniform(-3, 3, 3000)
    x[::97] = -np.abs(x[::97])  # log(x) undefined there
    path = tmp_path / "p.csv"
    np.savetxt(path, np.c_[x, y], delimiter=",", header="x,y", comments="")
    return path, x, y


def test_columns_against_numpy_calculus(cli, points, monkeypatch) -> None:
    import gradcalc.io.files

    path, x, y = points
    monkeypatch.setattr(gradcalc.io.files, "CHUNK_ROWS", 1000)  # three chunks, joined
    result = cli("grad", "x^2*sin(y) + log(x)", "--points", str(path), "--format", "json")
    obj = json.loads(result.stdout)
    defined = x > 0
    assert obj["rows"] == 3000 and obj["points"]["x"] == pytest.approx(x.tolist())
    x_, y_ = sp.symbols("x y", real=True)
    f = x_**2 * sp.sin(y_) + sp.log(x_)
    assert sorted(obj["symbolic"]) == ["x", "y"]
    for name, text in obj["symbolic"].items():
        assert sp.simplify(read_back(text) - sp.diff(f, sp.Symbol(name, real=True))) == 0
    assert obj["expression"] == "x^2*sin(y) + log(x)"  # once, not per point
    dx = [float(v) if ok else None for v, ok in zip(2 * x * np.sin(y) + 1 / x, defined)]
    dy = [float(v) if ok else None for v, ok in zip(x**2 * np.cos(y), defined)]
    assert [v is None for v in obj["gradient"]["x"]] == [d is None for d in dx]
    got = np.array([v for v in obj["gradient"]["x"] if v is not None])
    assert got == pytest.approx([d for d in dx if d is not None], rel=1e-12)
    got = np.array([v for v in obj["gradient"]["y"] if v is not None])
    assert got == pytest.approx([d for d in dy if d is not None], rel=1e-12)
    assert [u is not None for u in obj["undefined"]] == (~defined).tolist()
    assert [a is None for a in obj["agree"]] == (~defined).tolist()
    assert obj["check"]["points"] == int(defined.sum())  # every chunk's, in one verdict
    assert result.exit_code == 3


def test_joined_chunks_equal_one_chunk_and_ids_stay(cli, tmp_path, monkeypatch) -> None:
    import gradcalc.io.files

    path = tmp_path / "p.csv"
    path.write_text("key,x\n" + "".join(f"r{k},{k / 3}\n" for k in range(1, 26)))
    args = ("grad", "x^3", "--points", str(path), "--id", "key", "--format", "json")
    whole = json.loads(cli(*args).stdout)
    monkeypatch.setattr(gradcalc.io.files, "CHUNK_ROWS", 4)
    assert json.loads(cli(*args).stdout) == whole
    rows = per_point(whole)
    assert [r["id"] for r in rows] == [f"r{k}" for k in range(1, 26)]
    assert [r["gradient"]["x"] for r in rows] == pytest.approx(
        [3 * (k / 3) ** 2 for k in range(1, 26)]
    )


@pytest.mark.parametrize(("count", "chunk"), [(10_000, 65_536), (5000, 1500), (800, 300)])
def test_table_of_many_points_says_what_it_shows(cli, tmp_path, monkeypatch, count, chunk) -> None:
    import gradcalc.io.files

    monkeypatch.setattr(gradcalc.io.files, "CHUNK_ROWS", chunk)
    path = tmp_path / "p.csv"
    path.write_text("x\n" + "".join(f"{k}\n" for k in range(count)))
    out = cli("grad", "2*x", "--points", str(path), "--no-check").stdout
    shown = [line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")]
    assert shown == [str(k) for k in range(len(shown))]  # a prefix, in order, no gap
    if count > 1000:
        line = f"showing the first {len(shown):,} of {count:,} rows"
        assert line in out and "--format csv or --out FILE for all" in out
        assert len(shown) >= 1000
    else:
        assert len(shown) == count and "showing the first" not in out
