"""Derivatives past float64 at an exact point: the float64 problems told from the
function's, and sympy's exact values -- checked against sympy's own derivative, computed
here."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from gradcalc.apps.check.overflow import as_float, exact_values, float64_only
from gradcalc.core.errors import UndefinedError
from gradcalc.engine.run.api import compile_expression, grad

x = sp.Symbol("x", real=True)


def _truth(expression: sp.Expr, at: int) -> sp.Expr:
    """The textbook derivative, by sympy, at the point."""
    return sp.diff(expression, x).subs(x, at)


@pytest.mark.parametrize(
    ("text", "at", "expression"),
    [
        ("e^(-x^3)", -17, sp.exp(-(x**3))),
        ("e^(x^2)", 30, sp.exp(x**2)),
        ("x^400", 100, x**400),
        ("cosh(x)", 800, sp.cosh(x)),
        ("ln(e^(x^2))", 30, x**2),  # ln(inf) on the tape: the derivative is 60
    ],
)
def test_exact_values_past_float64(text: str, at: int, expression: sp.Expr) -> None:
    float64_only([grad(text, at=[f"x={at}"], strict=False)], UndefinedError("strict"))
    graph = compile_expression(text)
    mine = sp.diff(expression, x)
    (value,), why = exact_values(graph, {"x": str(at)}, lambda: [mine], "f")
    assert why == ""
    assert sp.simplify(value - _truth(expression, at)) == 0
    assert math.isinf(as_float(value)) or text.startswith("ln")


@pytest.mark.parametrize(
    ("text", "at"),
    [("ln(x)", "-1"), ("1/x", "0"), ("abs(x - 30)*e^(x^2)", "30")],
)
def test_the_functions_own_problems_are_raised(text: str, at: str) -> None:
    with pytest.raises(UndefinedError) as raised:
        float64_only([grad(text, at=[f"x={at}"], strict=False)], UndefinedError("strict"))
    assert "overflows" not in raised.value.message


def test_no_singularity_raises_the_strict_error() -> None:
    with pytest.raises(UndefinedError, match="strict"):
        float64_only([grad("x^2", at=["x=3"], strict=False)], UndefinedError("strict"))


def test_undefined_in_exact_arithmetic_is_raised() -> None:
    # e^(x^2) - 2e^(x^2) is -e^900 < 0: sqrt of it is undefined, though float64 sees NaN
    graph = compile_expression("sqrt(e^(x^2) - 2e^(x^2))")
    with pytest.raises(UndefinedError, match="undefined at x=30"):
        exact_values(graph, {"x": "30"}, lambda: [sp.Integer(0)], "f")


def test_a_piecewise_part_is_not_decided() -> None:
    # abs(e^(x^2) - e^900) switches exactly at x=30, where float64 sees inf - inf
    graph = compile_expression("abs(e^(x^2) - e^(x^2 - 1)) * e^x")
    values, why = exact_values(graph, {"x": "30"}, lambda: [sp.Integer(1)], "f")
    assert values == [] and "piecewise" in why


def test_a_value_that_is_not_real_is_unknown() -> None:
    graph = compile_expression("e^(x^2)")
    values, why = exact_values(graph, {"x": "30"}, lambda: [sp.zoo, sp.Integer(2)], "f")
    assert values == [None, 2] and "no finite real value" in why


def test_as_float() -> None:
    assert as_float(sp.exp(4913)) == math.inf
    assert as_float(-(10 ** sp.Integer(400))) == -math.inf
    assert as_float(sp.exp(-5000)) == 0.0
    assert as_float(sp.Rational(1, 3)) == 1 / 3
    assert math.isnan(as_float(None))
