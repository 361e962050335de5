"""apps.critical.solved: ∇f = 0 solved exactly where the list can be known complete --
against sympy's own solve of the whole gradient, and numpy's roots of the numerators (every
real root, where sympy's solve wrote them with complex numbers or gave none)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from gradcalc.apps.critical.critical import critical_points


@pytest.mark.parametrize(
    "expression",
    [
        "x*y*exp(-x^2-y^2)",
        "(x - 1)*exp(-x^2 - y^2)",
        "x^2*exp(-x^2) + y^2",
        "exp(x)+y^2",
        "x*2^(-x^2-y^2)",
    ],
)
def test_a_gradient_that_is_rational_times_exp_is_solved_exactly_and_completely(expression):
    # exp is never 0, so ∇f = 0 where its rational factor is: the numeric search missed
    # the minimum (-√2/2, √2/2) of x*y*exp(-x^2-y^2) and the maximum of (x-1)*exp(...)
    x, y = sp.symbols("x y", real=True)
    f = sp.sympify(expression.replace("^", "**"), locals={"x": x, "y": y})
    truth = sp.solve([sp.diff(f, x), sp.diff(f, y)], [x, y], dict=True)
    result = critical_points(expression)
    assert result.method == "exact"
    found = sorted((p.point["x"], p.point["y"]) for p in result.points)
    expected = sorted((float(s[x]), float(s[y])) for s in truth)
    assert len(found) == len(expected)
    for point, true in zip(found, expected):
        assert point == pytest.approx(true, abs=1e-15)


@pytest.mark.parametrize(
    ("expression", "exponent"),
    [
        ("x^4/4 - 3x^2/2 + x", "0"),  # x^3 - 3x + 1: three real roots, radicals of complex ones
        ("6x^5/5 - x^4/4 - 4x^3/3 - 5x^2/2 - 3x", "0"),  # a quartic sympy would not solve
        ("(-3x - x^2 - 3x^3)*exp(x-x^2)", "x - x^2"),
        ("(-1 - x^2)/(-1 - x + 2x^2)*exp(-x^2)", "-x^2"),  # a quintic: solve gave no root
    ],
)
def test_an_exact_list_has_every_real_root(expression: str, exponent: str) -> None:
    # "exact ... the list is complete" left these out; the truth: numpy's roots of the
    # numerator of f' (its exp factor divided out), where f is defined
    from sympy.parsing.sympy_parser import (  # (the test's own literals)
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    x = sp.Symbol("x", real=True)
    steps = (*standard_transformations, implicit_multiplication_application)
    f = parse_expr(expression.replace("^", "**"), {"x": x}, transformations=steps)
    rest = sp.together(sp.simplify(sp.diff(f, x) / sp.exp(sp.sympify(exponent, {"x": x}))))
    coefficients = [float(c) for c in sp.Poly(sp.numer(rest), x).all_coeffs()]
    roots = [r.real for r in np.roots(coefficients) if abs(r.imag) < 1e-9]
    defined = sorted(r for r in roots if sp.denom(rest).subs(x, r) != 0)
    result = critical_points(expression, everywhere=True)
    assert result.method == "exact"
    assert sorted(p.point["x"] for p in result.points) == pytest.approx(defined, abs=1e-9)


def test_an_exact_list_of_two_variables_has_the_roots_of_its_cubic() -> None:
    # (x^2 - y^2 + x) exp(-(x^2 + y^2)): on y = 0, 2x^3 + 2x^2 - 2x - 1 = 0 (three real
    # roots sympy writes with complex numbers: kept as decimals, with a note), and
    # x = -1/4, y = ±sqrt(13)/4
    result = critical_points("(x^2 - y^2 + x)*exp(-(x^2+y^2))", everywhere=True)
    assert result.method == "exact"
    cubic = [(r.real, 0.0) for r in np.roots([2, 2, -2, -1])]
    expected = sorted([*cubic, (-0.25, -(13**0.5) / 4), (-0.25, 13**0.5 / 4)])
    found = sorted((p.point["x"], p.point["y"]) for p in result.points)
    assert len(found) == len(expected)
    for point, true in zip(found, expected):
        assert point == pytest.approx(true, abs=1e-9)
    assert sum("real to 50 digits, not proven" in note for note in result.notes) == 3


@pytest.mark.parametrize("seed", range(6))
def test_a_system_with_a_factor_without_radicals_is_never_called_complete(seed: int) -> None:
    # f = P(x) + (y - q(x))^2: ∇f = 0 exactly where P'(x) = 0 and y = q(x). With P' a
    # quintic, sympy's solve returned its radical roots only (none for x^5 - x - 1) and the
    # list was called complete. The truth: P''s real roots, every one (real_roots).
    import random

    rng = random.Random(seed)
    x, y = sp.symbols("x y", real=True)
    p_prime = x**5 + sum(rng.randint(-9, 9) * x**k for k in range(4)) + rng.choice([-1, 1])
    q = rng.randint(-3, 3) * x + rng.randint(-3, 3)
    f = sp.integrate(p_prime, x) + (y - q) ** 2
    roots = [float(r) for r in sp.Poly(p_prime, x).real_roots()]
    truth = sorted((r, float(q.subs(x, r))) for r in dict.fromkeys(roots))
    result = critical_points(str(f).replace("**", "^"), region="x=-20..20,y=-80..80")
    found = sorted((p.point["x"], p.point["y"]) for p in result.points)
    for point in found:  # every point listed is one
        assert any(np.allclose(point, t, rtol=1e-8, atol=1e-8) for t in truth), (f, found)
    if result.method == "exact":  # a list called complete is
        assert len(found) == len(truth), (f, found, truth)
