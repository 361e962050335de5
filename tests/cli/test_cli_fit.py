"""`gradcalc fit` through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"


def test_fit_the_seed_line_table_and_json(cli) -> None:
    table = cli("fit", "a*x + b", str(EXAMPLES / "line.csv"), "--params", "a,b")
    assert table.exit_code == 0 and "R²" in table.stdout
    out = json.loads(
        cli(
            "fit", "a*x + b", str(EXAMPLES / "line.csv"), "--params", "a,b", "--format", "json"
        ).stdout
    )
    assert set(out) >= {"params", "stderr", "rss", "r2"}
    assert abs(out["params"]["a"] - 0.5) < 3 * out["stderr"]["a"]
    assert abs(out["params"]["b"] - 2.0) < 3 * out["stderr"]["b"]


@pytest.mark.slow
def test_fit_exponential_decay_with_init_and_plot_file(cli, tmp_path) -> None:
    target = tmp_path / "fit.png"
    result = cli("fit", "A*exp(-k*t) + c", str(EXAMPLES / "decay.csv"), "--params", "A,k,c",
                 "--init", "A=1,k=1,c=0", "--plot", "--out", str(target),
                 "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    params = json.loads(result.stdout)["params"]
    assert params["A"] == pytest.approx(5, abs=0.1) and params["k"] == pytest.approx(0.7, abs=0.05)
    assert target.read_bytes()[:4] == b"\x89PNG"


def test_fit_errors_are_usage_errors(cli, tmp_path) -> None:
    assert cli("fit", "a*q + b", str(EXAMPLES / "line.csv"), "--params", "a,b").exit_code == 2
    assert cli("fit", "a*x + b", str(tmp_path / "none.csv"), "--params", "a,b").exit_code == 2
