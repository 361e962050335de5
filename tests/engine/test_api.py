"""The Python API's ``at``: every documented form gives the same points, and anything else is a
one-line InputError naming what is wrong (never a TypeError from deep inside numpy)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gradcalc
from gradcalc.core.errors import InputError

X, Y = sp.symbols("x y")
EXPR = "x**3*y - sin(x*y)"
TRUTH = X**3 * Y - sp.sin(X * Y)
POINTS = [(1.5, -2.0), (0.25, 3.0), (-4.0, 0.5)]


def _sympy_gradient(x: float, y: float) -> list[float]:
    subs = {X: sp.Rational(str(x)), Y: sp.Rational(str(y))}
    return [float(sp.diff(TRUTH, s).evalf(30, subs=subs)) for s in (X, Y)]


@pytest.mark.parametrize(
    "at",
    [
        [{"x": x, "y": y} for x, y in POINTS],
        {"x": np.array([p[0] for p in POINTS]), "y": np.array([p[1] for p in POINTS])},
        [f"x={x},y={y}" for x, y in POINTS],
    ],
    ids=["list of mappings", "mapping of arrays", "--at texts"],
)
def test_every_form_of_at_gives_sympys_gradient(at) -> None:
    result = gradcalc.grad(EXPR, at=at, check=False)
    expected = np.array([_sympy_gradient(x, y) for x, y in POINTS])
    got = np.column_stack([result.gradient["x"], result.gradient["y"]])
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("at", "message"),
    [
        ([{"x": 1, "y": 2}, {"x": 1}], "every point in the list must name the same variables"),
        ({"x": "one", "y": 2}, "at, variable x, point 1: text, not a real number"),
        ([{"x": [1, [2]], "y": 2}], "at, variable x, point 2: a list, not a real number"),
        ([1, 2], "give one mapping of values, a list of mappings, or --at style texts"),
    ],
)
def test_a_malformed_at_is_a_one_line_input_error(at, message: str) -> None:
    with pytest.raises(InputError) as caught:
        gradcalc.grad(EXPR, at=at, check=False)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unchecked_calls_compile_a_text_once(monkeypatch) -> None:
    """``grad(..., check=False)`` in a loop parses and records once; checked calls compile
    afresh (the check keeps a timeout on its graph)."""
    from gradcalc.engine.run import api

    compiled = []
    compile_expression = api.compile_expression
    monkeypatch.setattr(
        api, "compile_expression", lambda *a: compiled.append(a) or compile_expression(*a)
    )
    text = "x**3*y - sin(x*y) + 0.125"  # a text no other test compiles
    at = {"x": np.linspace(-1.0, 1.0, 500), "y": np.linspace(2.0, 3.0, 500)}
    first = gradcalc.grad(text, at=at, check=False)
    second = gradcalc.grad(text, at={"x": at["y"], "y": at["x"]}, check=False)
    assert len(compiled) == 1
    x, y = at["x"], at["y"]
    np.testing.assert_allclose(first.gradient["x"], 3 * x**2 * y - y * np.cos(x * y), rtol=1e-13)
    np.testing.assert_allclose(second.gradient["y"], y**3 - y * np.cos(x * y), rtol=1e-13)
    gradcalc.grad(text, at={"x": 0.5, "y": 2.0})
    gradcalc.grad(text, at={"x": 0.5, "y": 2.0})
    assert len(compiled) == 3


@pytest.mark.parametrize("size", [1e-300, 1e-160, 1.0, 1e150])
def test_a_tiny_or_huge_direction_is_a_direction(size: float) -> None:
    """(1e-300, 1e-300) was refused as 'not a non-zero vector': its norm underflowed."""
    from gradcalc.engine.evaluate.points import parse_at
    from gradcalc.engine.run.api import compile_expression, directional_at

    graph = compile_expression("x^2 + y^2")
    result = directional_at(graph, parse_at(["x=1,y=2"]), [size, size])
    assert abs(float(result.directional) - 6 / 2**0.5) < 1e-12


# --- strict=False in hessian and jacobian: a bad value's point is undefined, the rest answered

X, Y = sp.symbols("x y")
HESSIAN_OF = X**3 * Y + sp.sin(X * Y)
JACOBIAN_OF = [X**2 * Y, sp.exp(X) - Y / 3]
BAD = st.sampled_from([np.nan, np.inf, -np.inf, None, np.ma.masked])
COORDINATE = st.floats(-3.0, 3.0, allow_nan=False)


def _given_with_bad(xs: list[float], ys: list[float], bad: dict[int, Any]) -> dict[str, Any]:
    """``at`` of the points (x, y), the values ``bad`` gives (point: value) put in x or y."""
    columns = {"x": list(xs), "y": list(ys)}
    for k, value in bad.items():
        columns["x" if k % 2 else "y"][k] = value
    return {name: _masked(values) for name, values in columns.items()}


def _masked(values: list[Any]) -> Any:
    """``values`` as a masked array where any is masked (a None there: NaN), else as is."""
    masked = [v is np.ma.masked for v in values]
    if not any(masked):
        return values
    numbers = [np.nan if v is None or m else v for v, m in zip(values, masked)]
    return np.ma.MaskedArray(numbers, mask=masked)


POINTS_WITH_BAD = st.integers(2, 8).flatmap(
    lambda n: st.tuples(
        st.lists(COORDINATE, min_size=n, max_size=n),
        st.lists(COORDINATE, min_size=n, max_size=n),
        st.dictionaries(st.integers(0, n - 1), BAD, min_size=1, max_size=n - 1),
    )
)


@settings(max_examples=25, deadline=None)
@given(POINTS_WITH_BAD)
def test_hessian_not_strict_answers_the_good_points_as_sympy_does(case) -> None:
    xs, ys, bad = case
    at = _given_with_bad(xs, ys, bad)
    with pytest.raises(InputError, match=r"at, variable [xy], point \d+: "):
        gradcalc.hessian("x^3*y + sin(x*y)", at=at, check=False)
    result = gradcalc.hessian("x^3*y + sin(x*y)", at=at, check=False, strict=False)
    assert result.undefined.tolist() == [k in bad for k in range(len(xs))]
    assert all(any(f"point {k + 1}:" in w for w in result.warnings) for k in bad)
    truth = sp.hessian(HESSIAN_OF, (X, Y))
    for k in (k for k in range(len(xs)) if k not in bad):
        expected = np.array(truth.subs({X: xs[k], Y: ys[k]}).evalf(30), dtype=float)
        np.testing.assert_allclose(result.matrix[:, :, k], expected, rtol=1e-12, atol=1e-12)
        assert result.tests[k].verdict != "undefined"
    assert all(result.tests[k].verdict == "undefined" for k in bad)


@settings(max_examples=25, deadline=None)
@given(POINTS_WITH_BAD)
def test_jacobian_not_strict_answers_the_good_points_as_sympy_does(case) -> None:
    xs, ys, bad = case
    at = _given_with_bad(xs, ys, bad)
    with pytest.raises(InputError, match=r"at, variable [xy], point \d+: "):
        gradcalc.jacobian("x^2*y, exp(x) - y/3", at=at, check=False)
    result = gradcalc.jacobian("x^2*y, exp(x) - y/3", at=at, check=False, strict=False)
    assert result.undefined.tolist() == [k in bad for k in range(len(xs))]
    assert all(any(f"point {k + 1}:" in w for w in result.rows[0].warnings) for k in bad)
    truth = sp.Matrix(JACOBIAN_OF).jacobian([X, Y])
    for k in (k for k in range(len(xs)) if k not in bad):
        expected = np.array(truth.subs({X: xs[k], Y: ys[k]}).evalf(30), dtype=float)
        np.testing.assert_allclose(result.matrix[:, :, k], expected, rtol=1e-12, atol=1e-12)
        determinant = float(truth.det().subs({X: xs[k], Y: ys[k]}).evalf(30))
        assert result.determinant is not None
        assert result.determinant[k] == pytest.approx(determinant, rel=1e-12, abs=1e-12)


def test_hessian_and_jacobian_of_one_bad_point_not_strict() -> None:
    """A single point given as a scalar: undefined, with the reason, never an answer."""
    hessian = gradcalc.hessian("x^2*y", at={"x": 1.0, "y": np.nan}, check=False, strict=False)
    assert bool(hessian.undefined) and hessian.tests[0].verdict == "undefined"
    assert hessian.warnings == [
        "at, variable y, point 1: nan is not a finite number: the point is undefined"
    ]
    jacobian = gradcalc.jacobian("x*y, x+y", at={"x": np.inf, "y": 1.0}, strict=False)
    assert jacobian.undefined.tolist() is True or jacobian.undefined.tolist() == [True]
