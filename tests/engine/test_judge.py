"""Judging a computation (gradcalc.engine.judge.judge): which points are undefined and why, the
conventional value at kinks with ``subgradient``, unused variables, and the check's words."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from gradcalc.core.errors import UndefinedError
from gradcalc.engine.evaluate.evaluate import evaluate
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.evaluate.results import Options
from gradcalc.engine.judge.disagreement import disagreement
from gradcalc.engine.judge.judge import gradient_results
from gradcalc.engine.run.api import compile_expression, grad
from gradcalc.symbolic.crosscheck.crosscheck import CheckReport, Partial


def _judged(text: str, xs: list[float], **options: object):
    graph = compile_expression(text, ["x"])
    points = Points(("x",), {"x": np.array(xs)}, None)
    (result,) = gradient_results(evaluate(graph, points.arrays), points, Options(**options))
    return result


def test_strict_raises_at_the_first_undefined_point() -> None:
    with pytest.raises(UndefinedError, match="ln"):
        _judged("log(x) + sqrt(x + 5)", [1.0, -1.0, -6.0], check=False)


def test_without_strict_each_point_names_its_first_reason() -> None:
    """log(x) is undefined for x <= 0, sqrt(x + 5) for x < -5: sympy's real domain says the
    same, point by point."""
    result = _judged("log(x) + sqrt(x + 5)", [1.0, -1.0, -6.0, 2.0], check=False, strict=False)
    x = sp.Symbol("x", real=True)
    f = sp.log(x) + sp.sqrt(x + 5)
    truth = [not sp.im(f.subs(x, v)).equals(0) for v in (1, -1, -6, 2)]
    assert result.undefined.tolist() == truth == [False, True, True, False]
    assert result.reason(0) is None and result.reason(3) is None
    assert "ln" in result.reason(1) and "ln" in result.reason(2)  # ln's comes first
    assert result.value_undefined.tolist() == [False, True, True, False]


def test_subgradient_takes_the_conventional_value_at_a_kink_with_a_warning() -> None:
    strict = _judged("abs(x)", [0.0, 2.0], check=False, strict=False)
    assert strict.undefined.tolist() == [True, False]
    lenient = _judged("abs(x)", [0.0, 2.0], check=False, subgradient=True)
    assert lenient.undefined.tolist() == [False, False] and not lenient.singularities
    assert lenient.gradient["x"].tolist() == [0.0, 1.0]  # PyTorch's convention, and sign(2)
    assert any("--subgradient: using the conventional value" in w for w in lenient.warnings)


def test_an_unused_variable_is_independent() -> None:
    graph = compile_expression("x**2", ["x", "y"])
    points = Points(("x", "y"), {"x": np.array(3.0), "y": np.array(1.0)}, None)
    (result,) = gradient_results(evaluate(graph, points.arrays), points, Options(check=False))
    assert float(result.gradient["x"]) == 6.0 and result.gradient["y"] is None
    assert result.warnings == ["y is not used by f: it is independent (gradient 0)"]


def test_the_check_agrees_with_sympy_and_shows_exact_values() -> None:
    """cos(pi/2) is 6.1e-17 in float64; the check knows it is exactly 0 and shows that."""
    graph = compile_expression("sin(x)", ["x"])
    points = Points(("x",), {"x": np.array(math.pi / 2)}, [{"x": "pi/2"}])
    (result,) = gradient_results(evaluate(graph, points.arrays), points, Options())
    assert result.check is not None and result.check.status == "agree"
    assert float(result.gradient["x"]) != 0.0 and float(result.shown["x"]) == 0.0


def test_a_disagreement_without_a_worst_point_gives_the_largest_difference() -> None:
    number = Partial("x", None, np.array([2.0]), mismatch=np.array([True]))
    assert "largest difference 0.5" in disagreement(
        CheckReport("disagree", {"x": number}, max_difference=0.5)
    )


@pytest.mark.parametrize(
    ("expression", "at", "source"),
    [("exp(-x^2)", "x=30", "x"), ("exp(x)", "x=-800", "x"), ("x^2*y", "x=1e-200,y=2", "y")],
)
def test_a_derivative_float64_rounds_to_0_is_vanishing(expression, at, source) -> None:
    # only an exact 0 is no vanishing gradient: sympy's derivative here is not 0
    symbols = {n: sp.Symbol(n, real=True) for n in ("x", "y")}
    f = sp.sympify(expression.replace("^", "**"), locals=symbols)
    point = {symbols[n]: sp.Rational(v) for n, v in (p.split("=") for p in at.split(","))}
    assert sp.diff(f, symbols[source]).subs(point) != 0
    result = grad(expression, at=[at])
    assert float(result.gradient[source]) == 0.0
    (finding,) = [d for d in result.diagnostics if d.kind == "vanishing" and d.source == source]
    assert "underflows" in finding.message
    assert not [d for d in grad("x^2", at=["x=0"]).diagnostics if d.kind == "vanishing"]
