"""The test of the lowest-order terms at a critical point the Hessian leaves undecided,
checked against textbook cases and against f itself sampled at high precision around the
point (a claimed minimum is above f(p) all round; a saddle is above and below)."""

from __future__ import annotations

import random

import mpmath
import pytest
import sympy as sp

from gradcalc.symbolic.decide.extremum import higher_order

x, y, z = sp.symbols("x y z", real=True)


@pytest.mark.parametrize(
    ("f", "symbols", "verdict"),
    [
        (x**4, [x], "local minimum"),
        (-(x**6), [x], "local maximum"),
        (x**3, [x], "inflection point"),
        (x**5, [x], "inflection point"),
        (sp.cosh(x) + sp.cos(x), [x], "local minimum"),  # 2 + x^4/12 + ...
        (sp.exp(x**4 + y**4), [x, y], "local minimum"),
        (x**4 + y**4, [x, y], "local minimum"),
        (-(x**4) - 2 * x**2 * y**2 - y**4, [x, y], "local maximum"),
        (x**4 - y**4, [x, y], "saddle point"),
        (x**3 - 3 * x * y**2, [x, y], "saddle point"),  # the monkey saddle
        (x**2 - y**4, [x, y], "saddle point"),  # semidefinite: -y^4 along the kernel
        (x**4 + y**4 + z**4, [x, y, z], "local minimum"),
        (x**4 + x**2 * y**2 - 2 * x * y**3 + y**4, [x, y], "local minimum"),  # no even-powers sum
    ],
)
def test_textbook_cases(f, symbols, verdict) -> None:
    result = higher_order(f, symbols, dict.fromkeys(symbols, 0))
    assert result is not None and result.verdict == verdict


@pytest.mark.parametrize(
    "f",
    [
        (y - x**2) * (y - 2 * x**2),  # Peano: a minimum on every line, and not a minimum
        x**2 + y**4,  # a minimum, which this test cannot prove
        x**2 * y**2,  # a continuum of critical points
    ],
)
def test_what_the_lowest_terms_cannot_decide_stays_undecided(f) -> None:
    assert higher_order(f, [x, y], {x: 0, y: 0}) is None


def _around(f, symbols, point, radius: float, n: int = 64) -> set[int]:
    """The signs of f - f(p) at n points on a circle (or the two sides) around p, at 50
    digits: the independent truth."""
    g = sp.lambdify(symbols, f - f.subs(point), "mpmath")
    signs = set()
    with mpmath.workdps(50):
        for k in range(n):
            angle = 2 * mpmath.pi * k / n
            offsets = [mpmath.cos(angle), mpmath.sin(angle)][: len(symbols)]
            value = g(*(mpmath.mpf(str(point[s])) + radius * o for s, o in zip(symbols, offsets)))
            signs.add(int(mpmath.sign(value)))
    return signs


@pytest.mark.parametrize("seed", range(12))
def test_generated_forms_at_exact_points_agree_with_f_around_them(seed: int) -> None:
    rng = random.Random(seed)
    a, b = sp.Rational(rng.randint(-9, 9), rng.randint(1, 5)), sp.Integer(rng.randint(-3, 3))
    u, v = x - a, y - b
    c = [rng.choice([-3, -2, -1, 1, 2, 3]) * 10 ** rng.randint(0, 9) for _ in range(3)]
    degree = rng.choice([3, 4, 6])
    form = c[0] * u**degree + c[1] * u ** (degree // 2) * v ** (degree - degree // 2)
    form += c[2] * v**degree
    f = sp.expand(form + rng.randint(-5, 5) * (u**2 * v**2) ** 2 + 11)
    result = higher_order(f, [x, y], {x: a, y: b})
    if result is None:
        return  # (undecided: nothing claimed)
    signs = _around(f, [x, y], {x: a, y: b}, radius=1e-6)
    expected = {"local minimum": {1}, "local maximum": {-1}}.get(result.verdict, {1, -1})
    assert signs == expected, (f, result)
