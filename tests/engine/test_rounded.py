"""engine.judge.rounded: where float64 rounded past a singularity, the point is undefined
(exit 3) and out of the check -- sympy's exact derivative there, computed in the test, is
the truth; the points beside it are still checked."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from gradcalc import grad
from gradcalc.core.errors import ExitCode, UndefinedError

x, y = sp.symbols("x y", real=True)

CASES = [
    ("1/(x - 0.1 - 0.2 + 0.3)", "x=0"),  # float64's 0.1 + 0.2 - 0.3 is 5.6e-17
    ("x/sin(pi*y)", "x=1,y=1"),  # sin(float pi) is 1.2e-16
    ("1/(x^2 - 2)", "x=sqrt(2)"),  # float sqrt(2)^2 is 2.0000000000000004
    ("tan(x)", "x=pi/2"),  # tan(float pi/2) is 1.6e16 (its domain rule knows this one)
    ("x^2/cos(3x)", "x=pi/6"),
]


def _exact_derivative_undefined(expression: str, at: str) -> bool:
    text = expression.replace("^", "**").replace("3x", "3*x")
    f = sp.sympify(text, locals={"x": x, "y": y}, rational=True)
    point = {
        sp.Symbol(n, real=True): sp.sympify(v) for n, v in (p.split("=") for p in at.split(","))
    }
    return any(sp.diff(f, s).subs(point).has(sp.zoo, sp.nan, sp.oo) for s in f.free_symbols)


@pytest.mark.parametrize(("expression", "at"), CASES)
def test_a_singularity_float64_rounded_past_is_undefined_not_a_failed_check(expression, at):
    assert _exact_derivative_undefined(expression, at)  # the truth, from sympy here
    result = grad(expression, at=[at], strict=False)
    assert bool(np.all(result.undefined))
    assert result.check is not None and result.check.status != "disagree"
    with pytest.raises(UndefinedError, match="is undefined at"):
        grad(expression, at=[at])


def test_the_points_beside_it_are_still_checked() -> None:
    result = grad("x/sin(pi*y)", at=["x=1,y=1", "x=1,y=1/2", "x=2,y=1/6"], strict=False)
    assert np.asarray(result.undefined).tolist() == [True, False, False]
    assert result.check.status == "agree" and result.check.points == 2


@pytest.mark.parametrize(("expression", "at"), CASES[:2])
def test_the_command_exits_3_and_says_why(cli, expression: str, at: str) -> None:
    out = cli("grad", expression, "--at", at)
    assert out.exit_code == ExitCode.UNDEFINED
    assert "undefined there in exact arithmetic" in out.stderr
    assert "sin(pi) is 1.2e-16" not in out.stderr  # (a reason of its own, not a canned one)
