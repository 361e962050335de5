"""`gradcalc minimize`, `fit` and `plot` through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcalc.cli.app import app
from gradcalc.core.errors import ExitCode

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.mark.slow
def test_minimize_rosenbrock_with_bfgs_json() -> None:
    result = cli("minimize", "(1-x)^2 + 100(y-x^2)^2", "--from", "x=-1.2,y=1", "--method", "bfgs",
                 "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {
        "point",
        "value",
        "gradient_norm",
        "steps",
        "reason",
        "converged",
        "method",
        "path",
    }
    assert out["point"]["x"] == pytest.approx(1, abs=1e-6) and out["point"]["y"] == pytest.approx(
        1, abs=1e-6
    )


@pytest.mark.parametrize("method", ["gd", "momentum", "adam"])
def test_minimize_a_convex_quadratic_table_and_csv(method: str) -> None:
    args = (
        "minimize",
        "(x-3)^2 + 2(y+1)^2",
        "--from",
        "x=0,y=0",
        "--method",
        method,
        "--lr",
        "0.1",
    )
    table = cli(*args, "--digits", "6")
    assert table.exit_code == 0 and "stopped at x = 3, y = -1" in table.stdout
    rows = cli(*args, "--format", "csv").stdout.splitlines()
    assert rows[0] == "step,x,y,value,gradient_norm" and rows[1].startswith("0,0.0,0.0,11.0")


def test_minimize_that_does_not_converge_exits_1_with_the_reason() -> None:
    result = cli("minimize", "x^2", "--from", "x=1", "--lr", "10")
    assert result.exit_code == ExitCode.CHECK_FAILED and "diverged" in result.stdout


def test_minimize_plot_in_the_terminal() -> None:
    result = cli("minimize", "(x-3)^2", "--from", "x=0", "--lr", "0.1", "--plot")
    assert result.exit_code == 0 and "┤" in result.stdout


def test_fit_the_seed_line_table_and_json() -> None:
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
def test_fit_exponential_decay_with_init_and_plot_file(tmp_path) -> None:
    target = tmp_path / "fit.png"
    result = cli("fit", "A*exp(-k*t) + c", str(EXAMPLES / "decay.csv"), "--params", "A,k,c",
                 "--init", "A=1,k=1,c=0", "--plot", "--out", str(target),
                 "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    params = json.loads(result.stdout)["params"]
    assert params["A"] == pytest.approx(5, abs=0.1) and params["k"] == pytest.approx(0.7, abs=0.05)
    assert target.read_bytes()[:4] == b"\x89PNG"


def test_fit_errors_are_usage_errors(tmp_path) -> None:
    assert cli("fit", "a*q + b", str(EXAMPLES / "line.csv"), "--params", "a,b").exit_code == 2
    assert cli("fit", "a*x + b", str(tmp_path / "none.csv"), "--params", "a,b").exit_code == 2


@pytest.mark.slow
def test_plot_tangent_and_contour(tmp_path) -> None:
    text = cli("plot", "x^2", "--at", "x=2").stdout
    assert "slope 4" in text and "\x1b[" not in text
    target = tmp_path / "contour.svg"
    assert cli("plot", "x^2 + y^2", "--at", "x=1,y=2", "--out", str(target)).exit_code == 0
    assert "<svg" in target.read_text()
    assert cli("plot", "x^2 + y^2", "--at", "x=1,y=2").exit_code == ExitCode.USAGE
