"""`gradcalc minimize` through the command line."""

from __future__ import annotations

import json

import pytest

from gradcalc.core.errors import ExitCode
from tests.apps.test_minimize import TOP_KEYS


@pytest.mark.slow
def test_minimize_rosenbrock_with_bfgs_json(cli) -> None:
    result = cli("minimize", "(1-x)^2 + 100(y-x^2)^2", "--from", "x=-1.2,y=1", "--method", "bfgs",
                 "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == TOP_KEYS | {"read_as", "warnings"}  # (the reading, as every command)
    assert out["point"]["x"] == pytest.approx(1, abs=1e-6) and out["point"]["y"] == pytest.approx(
        1, abs=1e-6
    )


@pytest.mark.parametrize("method", ["gd", "momentum", "adam"])
def test_minimize_a_convex_quadratic_table_and_csv(cli, method: str) -> None:
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


def test_minimize_that_does_not_converge_exits_1_with_the_reason(cli) -> None:
    result = cli("minimize", "x^2", "--from", "x=1", "--lr", "10")
    assert result.exit_code == ExitCode.CHECK_FAILED and "diverged" in result.stdout


def test_minimize_plot_in_the_terminal(cli) -> None:
    result = cli("minimize", "(x-3)^2", "--from", "x=0", "--lr", "0.1", "--plot")
    assert result.exit_code == 0 and "┤" in result.stdout
