"""symbolic.kinks: one-sided derivatives of the whole expression, against textbook values,
and where a part switches in exact arithmetic."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from gradcalc.symbolic.decide import kinks

x, y = sp.symbols("x y", real=True)


def test_one_sided_derivatives_by_hand() -> None:
    zero = {"x": sp.Integer(0)}
    assert kinks.one_sided(sp.Abs(x), zero, ["x"]) == {"x": (-1.0, 1.0)}
    assert kinks.one_sided(sp.Max(x, 0) ** 2, zero, ["x"]) == {"x": (0.0, 0.0)}
    assert kinks.one_sided(sp.Abs(x) ** sp.Rational(3, 2), zero, ["x"]) == {"x": (0.0, 0.0)}
    assert kinks.one_sided(sp.sqrt(sp.Abs(x)), zero, ["x"]) == {"x": (None, None)}
    assert kinks.one_sided(sp.Heaviside(x, 0) + x, zero, ["x"]) == {"x": (1.0, None)}


def test_several_variables_one_at_a_time() -> None:
    at = {"x": sp.Integer(1), "y": sp.Integer(1)}
    assert kinks.one_sided(sp.Max(x, y), at, ["x", "y"]) == {"x": (0.0, 1.0), "y": (0.0, 1.0)}


def test_switches_in_exact_arithmetic() -> None:
    assert kinks.at_switch(sp.Abs(sp.sin(x)), {"x": sp.pi})
    assert kinks.at_switch(sp.floor(x / 3), {"x": sp.Integer(6)})
    assert not kinks.at_switch(sp.floor(x / 3), {"x": sp.Integer(7)})
    assert not kinks.at_switch(sp.Abs(sp.sin(x)), {"x": sp.Rational(314, 100)})


def test_higher_orders_of_relu_powers() -> None:
    """relu(x)^n has n - 1 derivatives at 0; the n-th jumps from 0 to n!."""
    for n in (2, 3, 4):
        f, zero = sp.Max(x, 0) ** n, {"x": sp.Integer(0)}
        sides = [kinks.derivative_sides(f, zero, ["x"] * k, 0.0) for k in range(2, n + 1)]
        assert all(a == b == 0 for a, b in sides[:-1]) and sides[-1] == (
            0.0,
            float(sp.factorial(n)),
        )


def test_a_mixed_derivative_needs_the_lower_one_continuous_along_the_line() -> None:
    """x*abs(y) at (0, 0): ∂f/∂x = abs(y) is continuous along y but has a corner (∂²f/∂x∂y:
    -1, 1); x*sign(y): ∂f/∂x = sign(y) jumps at y = 0, so ∂²f/∂x∂y has no side at all although
    sympy's ∂²f/∂x∂y = 2 DiracDelta(y) is 0 on both sides. Along a line on which a part of f
    switches throughout, sympy's derivative is a convention: undecided (None)."""
    origin = {"x": sp.Integer(0), "y": sp.Integer(0)}
    assert kinks.derivative_sides(x * sp.Abs(y), origin, ["x", "y"], 0.0) == (-1.0, 1.0)
    assert kinks.derivative_sides(x * sp.sign(y), origin, ["x", "y"], 0.0) == (None, None)
    assert kinks.derivative_sides(sp.Abs(x) * y, origin, ["x", "y"], 0.0) is None


@pytest.mark.parametrize(("p", "q"), [(4, 3), (5, 4), (6, 5), (7, 4), (11, 10)])
def test_a_slowly_vanishing_quotient_is_taken_by_its_exact_limit(p: int, q: int) -> None:
    # (|h|^(p/q) - 0)/h = ±|h|^(p/q - 1) -> 0 for p > q: at h = 10^-20 it is still
    # 10^(-20(p - q)/q), too large to settle by the quotients alone (textbook: f'(0) = 0)
    x = sp.Symbol("x", real=True)
    assert kinks.one_sided(sp.Abs(x) ** sp.Rational(p, q), {"x": sp.Integer(0)}, ["x"]) == {
        "x": (0.0, 0.0)
    }


@pytest.mark.parametrize(("p", "q"), [(1, 2), (2, 3), (1, 1)])
def test_an_infinite_or_corner_slope_has_no_common_side(p: int, q: int) -> None:
    x = sp.Symbol("x", real=True)
    left, right = kinks.one_sided(sp.Abs(x) ** sp.Rational(p, q), {"x": sp.Integer(0)}, ["x"])["x"]
    assert left is None or right is None or left != right


@pytest.mark.parametrize(
    ("f", "point"),
    [
        (sp.acosh(sp.cos(x)), sp.Integer(0)),  # cos h < 1: acosh of it is imaginary
        (sp.acosh(sp.cos(sp.pi * x)), sp.Integer(2)),
        (sp.asin(1 + x**2), sp.Integer(0)),  # asin of a number above 1
    ],
)
def test_a_function_real_only_at_the_point_has_no_one_sided_derivative(f, point) -> None:
    # the truth: at 50 digits f(p ± h) has an imaginary part (mpmath, here)
    g = sp.lambdify(x, f, "mpmath")
    with mpmath.workdps(50):
        for h in (mpmath.mpf(10) ** -20, -(mpmath.mpf(10) ** -20)):
            assert mpmath.im(g(mpmath.mpf(int(point)) + h)) != 0
    assert kinks.one_sided(f, {"x": point}, ["x"]) == {"x": (None, None)}
