"""The messages a newcomer met (issue 18): each mistake gets the fix in one line, exit 2."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gradcalc.cli.app import app


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def refused(result, message: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    first = result.stderr.splitlines()[0]
    assert first.startswith("gradcalc: ") and message in first, first
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("at", "message"),
    [
        ("x=1,5", "use a dot for decimals: x=1.5"),
        ("x=-1, 25,y=2", "use a dot for decimals: x=-1.25"),
        ("x=1 y=2", "separate pairs with commas: --at x=1,y=2"),
        ("x=1;y=2", "separate pairs with commas: --at x=1,y=2"),
        ("x=1;  y=2", "separate pairs with commas: --at x=1,y=2"),
    ],
)
def test_at_typos(at, message) -> None:
    refused(run("grad", "x*y", "--at", at), message)


def test_one_point_split_over_two_at_options() -> None:
    result = run("grad", "x*y", "--at", "x=1", "--at", "y=2")
    refused(result, "each --at is one point: write --at x=1,y=2")


def test_two_points_naming_different_variables_are_still_refused_as_such() -> None:
    refused(
        run("grad", "x*y", "--at", "x=1,y=2", "--at", "x=1,z=2"),
        "every --at must name the same variables",
    )


def test_case_hint() -> None:
    refused(run("grad", "x*y", "--at", "X=1,y=2"), "names are case-sensitive: you gave X, not x")


@pytest.mark.parametrize("module", ["math", "np", "numpy", "sympy"])
def test_drop_the_module_prefix(module) -> None:
    refused(run("grad", f"2*{module}.sin(x)", "--at", "x=1"), f"drop `{module}.`")


def test_an_undefined_value_is_bad_input_not_an_undefined_result() -> None:
    result = run("grad", "x^2", "--at", "x=pi/0")
    refused(result, "division by zero")
    # while a defined value where the function is undefined stays exit 3
    assert run("grad", "log(x)", "--at", "x=-1").exit_code == 3
