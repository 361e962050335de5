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
#: Each function taking strict=False, an expression, and its matrix by sympy (the truth).
NOT_STRICT = {
    "hessian": ("x^3*y + sin(x*y)", sp.hessian(X**3 * Y + sp.sin(X * Y), (X, Y))),
    "jacobian": ("x^2*y, exp(x) - y/3", sp.Matrix([X**2 * Y, sp.exp(X) - Y / 3]).jacobian([X, Y])),
}
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


@pytest.mark.parametrize("function", sorted(NOT_STRICT))
@settings(max_examples=25, deadline=None)
@given(case=POINTS_WITH_BAD)
def test_not_strict_answers_the_good_points_as_sympy_does(function: str, case) -> None:
    xs, ys, bad = case
    text, truth = NOT_STRICT[function]
    at = _given_with_bad(xs, ys, bad)
    with pytest.raises(InputError, match=r"at, variable [xy], point \d+: "):
        getattr(gradcalc, function)(text, at=at, check=False)
    result = getattr(gradcalc, function)(text, at=at, check=False, strict=False)
    assert result.undefined.tolist() == [k in bad for k in range(len(xs))]
    warnings = result.warnings if function == "hessian" else result.rows[0].warnings
    assert all(any(f"point {k + 1}:" in w for w in warnings) for k in bad)
    for k in (k for k in range(len(xs)) if k not in bad):
        exact = truth.subs({X: xs[k], Y: ys[k]})
        expected = np.array(exact.evalf(30), dtype=float)
        np.testing.assert_allclose(result.matrix[:, :, k], expected, rtol=1e-12, atol=1e-12)
        if function == "jacobian":
            determinant = float(exact.det().evalf(30))
            assert result.determinant[k] == pytest.approx(determinant, rel=1e-12, abs=1e-12)
    if function == "hessian":  # the second-derivative test: undefined exactly at the bad
        verdicts = [test.verdict == "undefined" for test in result.tests]
        assert verdicts == [k in bad for k in range(len(xs))]


def test_hessian_and_jacobian_of_one_bad_point_not_strict() -> None:
    """A single point given as a scalar: undefined, with the reason, never an answer."""
    hessian = gradcalc.hessian("x^2*y", at={"x": 1.0, "y": np.nan}, check=False, strict=False)
    assert bool(hessian.undefined) and hessian.tests[0].verdict == "undefined"
    assert hessian.warnings == [
        "at, variable y, point 1: nan is not a finite number: the point is undefined"
    ]
    jacobian = gradcalc.jacobian("x*y, x+y", at={"x": np.inf, "y": 1.0}, strict=False)
    assert bool(np.all(jacobian.undefined)) and "point 1: inf" in jacobian.rows[1].warnings[0]


@pytest.mark.parametrize("seed", range(6))
def test_jacobian_of_many_generated_targets_against_sympy(seed: int) -> None:
    """Each target differentiated over its own sub-tape (one reverse pass each): generated
    targets sharing subexpressions and variables, against sympy's derivatives in exact
    arithmetic."""
    import random

    from gradcalc.engine.run.api import jacobian

    rng = random.Random(seed)
    names = ["x", "y", "z"]
    pieces = ["sin(x)", "x*y", "exp(z/3)", "y^2", "cos(x*z)", "log(1 + y^2)", "z"]
    targets = [
        " + ".join(f"{rng.randint(-5, 5)}*{rng.choice(pieces)}" for _ in range(rng.randint(1, 4)))
        for _ in range(rng.randint(5, 40))
    ]
    point = {n: sp.Rational(rng.randint(-20, 20), 8) for n in names}
    result = jacobian(", ".join(targets), at={n: float(v) for n, v in point.items()}, check=False)
    symbols = {n: sp.Symbol(n, real=True) for n in names}
    for row, text in zip(result.matrix, targets):
        f = sp.sympify(text.replace("^", "**"), locals=symbols)
        at = {symbols[k]: v for k, v in point.items()}
        truth = [float(sp.diff(f, symbols[n]).subs(at)) for n in result.rows[0].gradient]
        got = np.asarray(row, dtype=float).reshape(-1)
        assert np.allclose(got, truth, rtol=1e-12, atol=1e-12), text


def test_a_result_holds_no_number_where_it_is_undefined() -> None:
    # the API's gradient at x = -1 of log(x)*y was -2 (the tape's, with the undefined log's
    # derivative 1/x), and 1/x at 0 gave -inf, though undefined was True and repr said nan
    from gradcalc import grad as api_grad

    result = api_grad("log(x)*y", at={"x": [-1.0, 2.0], "y": [2.0, 2.0]}, strict=False)
    assert result.undefined.tolist() == [True, False]
    assert np.isnan(result.gradient["x"][0]) and np.isnan(result.value[0])
    assert result.gradient["x"][1] == 1.0 and result.value[1] == 2 * np.log(2.0)
    pole = api_grad("1/x", at={"x": 0.0}, strict=False)
    assert np.isnan(pole.gradient["x"]) and np.isnan(pole.value)
