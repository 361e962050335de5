"""Holes: single points where an expression as typed is undefined, though sympy's reading
of it (which cancels as it builds) is not -- checked against sympy evaluating the typed
operands at the points found."""

from __future__ import annotations

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from gradcalc.symbolic.decide.holes import MOST, holes

x = sp.Symbol("x", real=True)


def _holes(text: str) -> list[dict]:
    return holes(lower(parse_program(text)))


@settings(max_examples=25, deadline=None)
@given(
    st.integers(-(10**9), 10**9),
    st.integers(1, 10**6),
    st.integers(-(10**9), 10**9),
)
def test_a_cancelled_factor_leaves_its_zero_as_a_hole(p: int, q: int, c: int) -> None:
    a = sp.Rational(p, q)
    text = f"{c}*x*(x - ({p})/{q})/(x - ({p})/{q})"
    assert _holes(text) == [{"x": a}]


def test_every_hole_found_divides_by_zero_there() -> None:
    text = "3/(x^2 - 2) + 1/(x^3 - x) + 2/(x - 7/3)"
    found = _holes(text)
    denominators = [x**2 - 2, x**3 - x, x - sp.Rational(7, 3)]
    assert len(found) == MOST  # (7 zeros: the first MOST)
    for point in found:
        assert any(d.subs(x, point["x"]) == 0 for d in denominators)


def test_poles_of_tan_and_cot_are_their_cosines_and_sines_zeros() -> None:
    for text, zero in [("x + 0*tan(x)", sp.cos), ("x + 0*cot(2x)", lambda v: sp.sin(2 * v))]:
        found = _holes(text)
        assert found
        assert all(zero(point["x"]) == 0 for point in found)


def test_other_variables_are_fixed_at_plain_values() -> None:
    (first, *_) = _holes("2*x^2*y/x")
    assert first["x"] == 0 and first["y"] != 0


def test_an_expression_defined_everywhere_or_on_stretches_has_no_holes() -> None:
    for text in ["sqrt(x) + 1/(x^2 + 1)", "ln(x^2 + 1)", "2^x", "1/(cos(x) + 2)", "x^3"]:
        assert _holes(text) == [], text


def test_an_equation_sympy_cannot_solve_gives_no_hole_rather_than_a_guess() -> None:
    assert _holes("1/(x - cos(x))") == []  # a real zero exists, but not in closed form


def test_an_exponent_that_may_be_negative_makes_its_base_a_hole() -> None:
    assert _holes("x^(-1/2)") == [{"x": 0}]
    assert _holes("(x - 1)^(1/2)") == []  # (its negative side is a stretch, found by sampling)
