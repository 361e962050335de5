"""engine.judge.classified: where hessian's second-derivative test is inconclusive at an exact
critical point, the terms of lowest order decide -- checked against f sampled at 50 digits
on a small circle around the point (a minimum is above f(p) all round, a saddle above and
below). (What each format says: tests/render/test_formats.py.)"""

from __future__ import annotations

import random

import mpmath
import pytest
import sympy as sp

from gradcalc import hessian

x, y = sp.symbols("x y", real=True)


def _signs_around(f, point: dict, radius: float = 1e-6, n: int = 64) -> set[int]:
    """The signs of f - f(p) on a circle around p (two variables), at 50 digits."""
    g = sp.lambdify([x, y], f - f.subs(point), "mpmath")
    signs = set()
    with mpmath.workdps(50):
        for k in range(n):
            angle = 2 * mpmath.pi * k / n
            px, py = (mpmath.mpf(sp.Rational(point[s]).p) / sp.Rational(point[s]).q for s in (x, y))
            signs.add(
                int(
                    mpmath.sign(g(px + radius * mpmath.cos(angle), py + radius * mpmath.sin(angle)))
                )
            )
    return signs


@pytest.mark.parametrize("seed", range(16))
def test_generated_degenerate_points_are_decided_as_f_around_them_says(seed: int) -> None:
    rng = random.Random(seed)
    # (points exact in binary: at x = -1/3 the tape's gradient is float64's, not 0)
    a, b = sp.Rational(rng.randint(-9, 9), rng.choice([1, 2, 4])), sp.Integer(rng.randint(-3, 3))
    u, v = x - a, y - b
    c = [rng.choice([-3, -1, 1, 2, 5]) * 10 ** rng.randint(0, 9) for _ in range(3)]
    degree = rng.choice([3, 4, 6])
    f = c[0] * u**degree + c[1] * u ** (degree // 2) * v ** (degree - degree // 2)
    f += c[2] * v**degree + rng.randint(-5, 5)
    text = str(sp.expand(f)).replace("**", "^")
    result = hessian(text, at=[f"x={a},y={b}"])
    assert result.tests[0].verdict == "inconclusive"  # the Hessian is 0 there
    decided = result.lowest_order[0]
    if decided is None:
        assert result.verdict(0) == "inconclusive"
        return
    signs = _signs_around(f, {x: a, y: b})
    expected = {
        "local minimum": {1},
        "local maximum": {-1},
        "saddle point": {1, -1},
    }[decided.verdict]
    assert signs - {0} == expected, (text, decided)
    assert result.verdict(0) == decided.verdict


@pytest.mark.parametrize(
    ("expression", "at", "verdict"),
    [
        ("x^4", ["x=0"], "local minimum"),
        ("cos(x) + x^2/2", ["x=0"], "local minimum"),  # 1 + x^4/24 + ...
        ("-(x - 1/3)^6 + 7", ["x=1/3"], "local maximum"),
        ("x^3", ["x=0"], "inflection point"),
        ("sin(x - pi)^3", ["x=pi"], "inflection point"),
        ("x^2 - y^4", ["x=0,y=0"], "saddle point"),
        ("x^4 + y^2", ["x=0,y=0"], "inconclusive"),  # a minimum no line can prove
        ("x^2*y^2", ["x=0,y=0"], "inconclusive"),  # a continuum of critical points
        ("x^4", ["x=0.5"], "not a critical point"),
    ],
)
def test_textbook_points(expression: str, at: list[str], verdict: str) -> None:
    assert hessian(expression, at=at).verdict(0) == verdict


def test_variables_left_out_are_held_at_their_values() -> None:
    # in x alone, at y = 0: y*x^2 + x^4 is x^4 (a minimum); at y = 1 the test decides itself
    assert hessian("y*x^2 + x^4", at=["x=0,y=0"], wrt=["x"]).verdict(0) == "local minimum"
    assert hessian("y*x^2 + x^4", at=["x=0,y=1"], wrt=["x"]).lowest_order == [None]


def test_without_the_check_nothing_symbolic_is_claimed() -> None:
    result = hessian("x^4", at=["x=0"], check=False)
    assert result.verdict(0) == "inconclusive" and not any(result.lowest_order)


@pytest.mark.parametrize(
    ("expression", "at"),
    [("exp(x) + y^2", "x=-800,y=0"), ("exp(-x^2) + y^2", "x=30,y=0"), ("1e-200*x*1e-200", "x=0")],
)
def test_a_gradient_float64_rounds_to_0_is_not_0(expression: str, at: str) -> None:
    # d/dx exp(x) at -800 is exp(-800) (sympy: not 0); its nearest float is 0
    x = sp.Symbol("x", real=True)
    point = dict(pair.split("=") for pair in at.split(","))
    truth = sp.diff(sp.sympify(expression.replace("^", "**"), locals={"x": x}), x)
    assert truth.subs(x, sp.Rational(point["x"])) != 0
    result = hessian(expression, at=[at])
    assert not result.tests[0].critical and result.verdict(0) == "not a critical point"


@pytest.mark.parametrize("seed", range(20))
def test_quadratic_forms_with_awkward_scales_are_classified_exactly(seed: int) -> None:
    # a x^2 + b xy + c y^2 at 0, coefficients from 1e-20 to 1e20: the exact Hessian's
    # determinant and trace (sympy, here) decide -- no float tolerance (diag(2e-13, 2) was
    # "inconclusive")
    rng = random.Random(seed)
    a, b, c = (rng.choice([-1, 1, 3]) * sp.Rational(10) ** rng.randint(-20, 20) for _ in range(3))
    if rng.random() < 0.3:
        b = 0
    text = " + ".join(f"({sp.sstr(v)})*{m}" for v, m in ((a, "x^2"), (b, "x*y"), (c, "y^2")))
    det, trace = 4 * a * c - b * b, 2 * a + 2 * c
    expected = (
        "saddle point"
        if det < 0
        else "local minimum"
        if det > 0 and trace > 0
        else "local maximum"
        if det > 0
        else None
    )
    result = hessian(text, at=["x=0,y=0"])
    if expected is None:  # (a singular form: the terms of lowest order, tested above)
        assert result.tests[0].verdict == "inconclusive"
        return
    assert result.tests[0].verdict == expected, text


def test_a_gradient_the_check_disputes_is_taken_from_sympy() -> None:
    # at the decimal 0.5773502691896257 (not 1/sqrt(3)) ∂f/∂x = 3x^2 - 1 is -2.2e-16 exactly
    # (sympy, here); the tape's is 0, the check disputes it, and the test once used the
    # tape's 0: "a critical point, local minimum"
    x = sp.Rational("0.5773502691896257")
    assert 3 * x**2 - 1 != 0
    typed = hessian("x^3 - x + y^2", at=["x=0.5773502691896257,y=0"], strict=False)
    assert typed.tests[0].verdict == "not a critical point"
    exact = hessian("x^3 - x + y^2", at=["x=1/sqrt(3),y=0"])
    assert exact.tests[0].verdict == "local minimum"
