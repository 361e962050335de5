"""The second-derivative test (gradcalc.engine.evaluate.classify): a point is critical when its
gradient
is exactly 0, judged on exact values where the symbolic check knows them -- against sympy's own
gradient at the same rational point -- and "zero to within rounding" is said, never implied."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc import hessian
from gradcalc.engine.evaluate.classify import classify

X, Y = sp.symbols("x y", real=True)


def test_a_tiny_exact_gradient_is_not_a_critical_point(cli) -> None:
    # gradients 1e-12 and 40*0.5^39 = 7.3e-11: small, exact, and not zero
    for text in ["x^2*1e-12", "x^40", "1e-12*(x - 0.5)^2 + 1e-15*x"]:
        result = cli("hessian", text, "--at", "x=0.5", "--format", "json")
        assert result.exit_code == 0, result.output
        assert '"critical_point": false' in result.stdout, (text, result.stdout)
        assert '"classification": "not a critical point"' in result.stdout
        table = cli("hessian", text, "--at", "x=0.5")
        assert "not zero, so not a critical point" in table.stdout


def test_an_exact_zero_is_critical_and_a_float_one_says_within_rounding(cli) -> None:
    exact = cli("hessian", "sin(x)", "--at", "x=pi/2")
    assert "— a critical point" in exact.stdout and "within rounding" not in exact.stdout
    assert "local maximum" in exact.stdout
    unchecked = cli("hessian", "sin(x)", "--at", "x=pi/2", "--no-check", "--format", "json")
    assert '"critical_within_rounding": true' in unchecked.stdout
    table = cli("hessian", "sin(x)", "--at", "x=pi/2", "--no-check").stdout
    assert "zero to within rounding (not known exactly)" in " ".join(table.split())


def test_the_tolerance_scales_with_the_hessian_not_with_one() -> None:
    # x^3 at 1e-8: gradient 3e-16, curvature 6e-8 -- not critical (the old floor of 1 said so)
    test = classify(np.array([[6e-8]]), np.array([3e-16]), scale=1e-8)
    assert not test.critical and test.verdict == "not a critical point"
    rounded = classify(np.array([[-1.0]]), np.array([6.123e-17]), scale=np.pi / 2)
    assert rounded.critical and rounded.within_rounding and rounded.verdict == "local maximum"


def test_an_exact_component_must_be_zero_while_a_float_one_may_round() -> None:
    hessian_matrix = np.eye(2)
    mixed = classify(hessian_matrix, np.array([0.0, 1e-17]), exact=np.array([True, False]))
    assert mixed.critical and mixed.within_rounding
    exact = classify(hessian_matrix, np.array([1e-17, 0.0]), exact=np.array([True, False]))
    assert not exact.critical


fractions = st.fractions(min_value=-5, max_value=5, max_denominator=8)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(-(10**9), 10**9).filter(bool),
    st.integers(-(10**9), 10**9).filter(bool),
    fractions,
    fractions,
    st.sampled_from([0, 1, 10**-12, 10**-6]),
    st.booleans(),
)
def test_critical_exactly_when_sympys_gradient_is_zero(a, b, p, q, tilt, at_centre) -> None:
    """f = a(x-p)^2 + b(y-q)^2 + tilt*x at the centre or elsewhere: critical exactly when
    sympy's gradient at that rational point is 0, whatever the coefficients' size."""
    exact_tilt = sp.Rational(Fraction(tilt).limit_denominator(10**12)) if tilt else 0
    f = a * (X - sp.Rational(p)) ** 2 + b * (Y - sp.Rational(q)) ** 2 + exact_tilt * X
    point = (p, q) if at_centre else (p + Fraction(1, 3), q)
    at = {"x": f"{point[0].numerator}/{point[0].denominator}", "y": f"{point[1]}"}
    text = f"{a}*(x - ({p}))^2 + {b}*(y - ({q}))^2 + {tilt!r}*x"
    subs = {X: sp.Rational(point[0]), Y: sp.Rational(point[1])}
    truth = all(sp.diff(f, v).subs(subs) == 0 for v in (X, Y))
    test = hessian(text, at=[",".join(f"{k}={v}" for k, v in at.items())]).tests[0]
    assert test.critical == truth, (text, at, test)
    assert not test.within_rounding  # every point here is exact, so is the check's gradient


def test_a_gradient_far_above_the_points_rounding_is_not_critical() -> None:
    """Found by fuzzing (seed 46): csc(2(2 + pi)x - z·x/1e-9) at x = 0.5, z = 3 has a
    gradient of 1.5e9 beside a Hessian of 1.5e19; the old tolerance (1e-9 of the Hessian
    times the point) called it "zero to within rounding, a critical point". Moving the point
    by its own rounding (2.2e-16 relative) moves that gradient by about 1e4, not 1e9."""
    hessian_matrix = np.array([[1.4265e19, 2.3775e18], [2.3775e18, 3.9626e17]])
    test = classify(hessian_matrix, np.array([1.546e9, 2.577e8]), scale=3.0)
    assert not test.critical and test.verdict == "not a critical point"


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10**6), st.integers(0, 20))
def test_a_float_critical_point_of_a_fast_wave_is_critical_within_rounding(k, m) -> None:
    """sin(kx) at x = (2m + 1)pi/(2k), given as a float (no exact values): the tape's
    gradient k·cos(kx) is not 0 but only rounding of it, and the test must still say
    critical (within rounding), a maximum or a minimum as m is even or odd."""
    x = (2 * m + 1) * np.pi / (2 * k)
    result = hessian(f"sin({k}*x)", at={"x": x}, check=False)
    test = result.tests[0]
    assert test.critical, (k, m, result.gradient, result.matrix)
    assert test.verdict == ("local maximum" if m % 2 == 0 else "local minimum")


@settings(max_examples=40, deadline=None)
@given(
    small=st.sampled_from([2e-10, 1e-9, 3e-11, 1e-8]),
    large=st.sampled_from([1.0, 2.0, 10.0]),
    sign=st.sampled_from([1, -1]),
)
def test_a_definite_hessian_with_a_spread_of_1e10_still_decides(small, large, sign) -> None:
    # diag(large, small) is exactly definite: eigvalsh is off by about 2.2e-16 * large, far
    # below small; sympy's eigenvalues of the same matrix are the truth
    matrix = sign * np.diag([large, small])
    truth = sp.Matrix(matrix.tolist()).eigenvals()
    assert all(sp.sign(e) == sign for e in truth)
    test = classify(matrix, np.zeros(2))
    assert test.verdict == ("local minimum" if sign > 0 else "local maximum")


def test_a_hessian_that_is_only_rounding_has_no_sign() -> None:
    # sin^2 + cos^2 is constant: its float Hessian is rounding noise, which the floor keeps
    # from deciding anything
    run = hessian("sin(x)^2 + cos(x)^2 + sin(y)^2 + cos(y)^2", at="x=0.7,y=1000")
    test = classify(np.asarray(run.matrix, dtype=float).reshape(2, 2), np.zeros(2))
    assert test.curvature == "zero" and test.verdict == "inconclusive"
