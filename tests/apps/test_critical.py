"""Critical points (gradcalc.apps.critical.critical) against textbook answers and sympy: the points
and
verdicts printed in calculus textbooks, and sympy's gradient vanishing at every numeric point."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc.apps.critical.critical import critical_points, parse_region
from gradcalc.core.errors import InputError

x, y = sp.symbols("x y", real=True)
R = sp.Rational

# (expression, region, {exact point: verdict}) -- Stewart 14.7 and the like
TEXTBOOK = [
    ("x^3 - 3x + y^2", None, {(1, 0): "local minimum", (-1, 0): "saddle point"}),
    (
        "x^4 + y^4 - 4x y",
        None,
        {(0, 0): "saddle point", (1, 1): "local minimum", (-1, -1): "local minimum"},
    ),
    (
        "x y (1 - x - y)",
        None,
        {
            (0, 0): "saddle point",
            (1, 0): "saddle point",
            (0, 1): "saddle point",
            (R(1, 3), R(1, 3)): "local maximum",
        },
    ),
    ("x^2 + x y + y^2 + y", None, {(R(1, 3), R(-2, 3)): "local minimum"}),
    ("x^3 + y^3 - 3x y", None, {(0, 0): "saddle point", (1, 1): "local minimum"}),
    ("x^3", None, {(0,): "inflection point"}),  # (by the terms of lowest order)
    ("x + 1/x", None, {(1,): "local minimum", (-1,): "local maximum"}),
    ("x^2 - 2x + 5", "x=-1..0", {}),  # the minimum x = 1 is outside the region
]


@pytest.mark.parametrize(("expression", "region", "expected"), TEXTBOOK)
def test_textbook_critical_points_are_exact_and_classified(expression, region, expected):
    result = critical_points(expression, region)
    assert result.method == "exact"
    found = {tuple(p.exact.values()): p.test.verdict for p in result.points}
    assert found == expected


def test_the_discriminant_is_fxx_fyy_minus_fxy_squared() -> None:
    points = {tuple(p.exact.values()): p for p in critical_points("x^4 + y^4 - 4x y").points}
    assert points[(0, 0)].discriminant == -16.0  # 0*0 - (-4)^2
    assert points[(1, 1)].discriminant == 128.0  # 12*12 - 16


def test_a_continuum_of_critical_points_is_said_not_listed() -> None:
    result = critical_points("(x - y)^2")
    assert result.points == []
    assert result.continua == ["a continuum of critical points where x = y (exact)"]


def _numeric_answer(expression: str, region: str, f):
    result = critical_points(expression, region)
    assert result.method == "numeric"
    assert any("numeric search" in note for note in result.notes)
    for p in result.points:  # sympy's own gradient vanishes there
        subs = {sp.Symbol(n, real=True): v for n, v in p.point.items()}
        for v in (x, y):
            assert abs(float(sp.diff(f, v).evalf(subs=subs))) < 1e-8
    return {(round(p.point["x"], 6), round(p.point["y"], 6)): p.test.verdict for p in result.points}


def test_transcendental_gradients_are_searched_numerically() -> None:
    found = _numeric_answer("sin(x) + cos(y)", "x=-4..4,y=-4..4", sp.sin(x) + sp.cos(y))
    h, p = round(math.pi / 2, 6), round(math.pi, 6)
    assert found == {
        (-h, -p): "local minimum",
        (-h, 0): "saddle point",
        (-h, p): "local minimum",
        (h, -p): "saddle point",
        (h, 0): "local maximum",
        (h, p): "saddle point",
    }


def test_numeric_search_ignores_the_flat_far_field() -> None:
    """x e^(-x²-y²)(2 + tanh(y)): its gradient is tiny far out, but only two points are
    critical (x = ±1/√2, where the rational factor 1 - 2x² is 0; y where
    -2y(2 + tanh y) + sech² y is)."""
    f = x * sp.exp(-(x**2) - y**2) * (2 + sp.tanh(y))
    found = _numeric_answer("x exp(-x^2 - y^2)(2 + tanh(y))", None, f)
    s = round(1 / math.sqrt(2), 6)
    assert sorted(found.values()) == ["local maximum", "local minimum"]
    assert sorted(abs(px) for px, _ in found) == [s, s]


def test_regions_are_parsed_and_checked() -> None:
    assert parse_region("x=-pi..pi", ["x", "y"]) == {"x": (-math.pi, math.pi), "y": (-5.0, 5.0)}
    for bad, message in [
        ("x=1..0", "low end"),
        ("z=0..1", "not a variable"),
        ("x=0", "name=low..high"),
    ]:
        with pytest.raises(InputError, match=message):
            parse_region(bad, ["x", "y"])


def test_several_targets_are_refused() -> None:
    with pytest.raises(InputError, match="one function"):
        critical_points("x, y")


def test_a_function_with_corners_says_such_points_are_not_listed() -> None:
    """|x| + y^2 has its minimum at a corner, where ∇f does not exist: not a root of ∇f."""
    result = critical_points("abs(x) + y^2")
    assert result.points == []
    assert any("may not be differentiable everywhere (abs)" in note for note in result.notes)
    assert not any("not differentiable" in n for n in critical_points("x^2 + y^2").notes)


def test_numeric_points_at_multiples_of_pi_are_proved_exact() -> None:
    result = critical_points("sin(x) + cos(y)", "x=-2..2,y=-2..2")
    assert result.method == "numeric"
    assert [p.coordinates for p in result.points] == ["x = -pi/2, y = 0", "x = pi/2, y = 0"]
    for p in result.points:  # the recognised values make sympy's gradient exactly 0
        assert sp.cos(p.exact["x"]) == 0 and sp.sin(p.exact["y"]) == 0


def test_a_variable_given_two_ranges_is_refused() -> None:
    """It silently used the last range."""
    with pytest.raises(InputError, match="--in gives x twice"):
        parse_region("x=1..2,x=3..4", ["x"])


@pytest.mark.parametrize(
    ("expression", "noted"),
    [
        ("x^(2/3)", True),  # a cusp at 0: (2/3)x^(-1/3) has no value there
        ("x^(5/3) - x", True),  # 0 is the edge of its domain (a negative base: no power)
        ("sqrt(x) + x^2", True),
        ("x^2 - 3x", False),
        ("2^x - x", False),
        ("x^3 + x^(-2)", False),  # integer powers: differentiable wherever defined
        ("(x - sqrt(3))^2 + abs(-2)", False),  # corners of constants are no corners of f
    ],
)
def test_a_fractional_power_is_named_where_grad_f_may_not_exist(expression, noted) -> None:
    """Only ∇f = 0 is solved: where f has a point without a derivative -- a corner, a
    cusp, the edge of its domain (a positive non-integer power of a variable at 0) -- the
    result says such a point may be critical too."""
    notes = " ".join(critical_points(expression).notes)
    assert ("may not be differentiable everywhere" in notes) is noted, notes


@pytest.mark.parametrize(
    ("expression", "verdict"),
    [
        ("x^4", "local minimum"),
        ("x^3", "inflection point"),
        ("(x - 1)^4 + (y + 2)^4 + 3", "local minimum"),
        ("-(x^4 + y^4)", "local maximum"),
        ("x^4 - y^4", "saddle point"),
        ("x^3 - 3x y^2", "saddle point"),
    ],
)
def test_a_singular_hessian_is_settled_by_the_lowest_order_terms(expression, verdict) -> None:
    result = critical_points(expression)
    (point,) = result.points
    assert point.test.verdict == verdict
    assert point.test.curvature in ("zero", "positive semidefinite", "negative semidefinite")
    assert any(
        note.startswith(f"{point.coordinates}: {verdict}, by the terms of lowest order")
        for note in result.notes
    )


def test_what_the_lowest_order_terms_cannot_settle_stays_inconclusive(cli) -> None:
    out = json.loads(cli("critical", "x^2 + y^4", "--format", "json").stdout)
    (point,) = out["points"]
    assert point["verdict"] == "inconclusive" and not out["notes"]


@settings(max_examples=300, deadline=None)
@given(
    st.fractions(min_value=-(10**9), max_value=10**9),
    st.fractions(min_value=0, max_value=1, max_denominator=10**12),
)
def test_the_simplest_rational_between_two_numbers(lo: Fraction, width: Fraction) -> None:
    # a flat point located to within a spread is named by the simplest rational there:
    # inside the interval, and no rational with a smaller denominator is
    from gradcalc.apps.critical.critical import _simplest_between

    hi = lo + width
    q = _simplest_between(lo, hi)
    assert lo <= q <= hi
    for denominator in range(1, min(q.denominator, 2000)):
        assert math.ceil(lo * denominator) > math.floor(hi * denominator)  # no k/d inside


def test_a_root_without_radicals_is_shown_with_its_value() -> None:
    # x^5 - x - 1 has one real root and no radicals: sympy writes CRootOf(..., 0)
    x = sp.Symbol("x")
    root = float(sp.CRootOf(x**5 - x - 1, 0).evalf(30))
    (point,) = critical_points("x^6/6 - x^2/2 - x").points
    written, _, value = point.coordinates.partition(" ≈ ")
    assert written == "x = CRootOf(x^5 - x - 1, 0)"
    assert abs(float(value) - root) < 1e-9
