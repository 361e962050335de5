"""apps.critical.continua: critical points on a line, a curve or a region are one described entry,
and
isolated degenerate points are not joined into one."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from gradcalc.apps.critical.continua import describe
from gradcalc.apps.critical.critical import critical_points


def test_points_on_a_line_are_described_by_its_equation() -> None:
    t = np.array([-2.0, -0.5, 1.0, 3.0])
    x = np.array([t, 2 * t + 1])  # the line y = 2x + 1, that is 2x - y = -1
    text = describe(x, ("x", "y"), 1)
    assert text.startswith("a continuum of critical points along x - 1/2·y = -1/2 (")
    assert "4 points found on it" in text


def test_points_on_a_circle_are_a_curve() -> None:
    angles = np.linspace(0, 2 * np.pi, 9)[:-1]
    text = describe(np.array([np.cos(angles), np.sin(angles)]), ("x", "y"), 1)
    assert "a curve (not a line)" in text


@pytest.mark.parametrize(
    ("expression", "fragments"),
    [
        ("max(x, y) + x^2", ["along x = -1/2", "numeric"]),  # the half-line x = -1/2, y < -1/2
        ("relu(x) + 0", ["along x from -4.", "numeric"]),  # x < 0, one variable
        ("relu(x^2 + y^2 - 1)", ["a region where ∇f = 0"]),  # the open unit disc
        ("(x^2 + y^2 - 1)^2*(2 + sin(x/10))", ["a curve (not a line)"]),  # the unit circle
    ],
)
def test_a_numeric_continuum_is_one_entry_not_a_list_of_points(expression, fragments) -> None:
    result = critical_points(expression)
    assert result.method == "numeric"
    (continuum,) = result.continua
    assert all(fragment in continuum for fragment in fragments), continuum
    for p in result.points:  # what is left is isolated: not on the continuum
        assert not (expression.startswith("max") and abs(p.point["x"] + 0.5) < 1e-6)


def test_isolated_degenerate_points_on_a_line_are_no_continuum() -> None:
    # sin(x)^4 + y^4: critical at x = k pi/2 on y = 0, each Hessian singular; between
    # them grad f is not 0, so they stay points
    result = critical_points("sin(x)^4 + y^4", "x=-4..4,y=-2..2")
    assert result.continua == []
    xs = sorted(round(p.point["x"] / (math.pi / 2)) for p in result.points)
    assert xs and all(abs(p.point["y"]) < 1e-3 for p in result.points)


@pytest.mark.parametrize("expression", ["sin(x)^4 + y^2", "cos(x) + x^2/2"])
def test_flat_isolated_minima_are_no_continuum(expression: str) -> None:
    # sin(x)^4 + y^2: flat minima at x = k*pi (f = 0) with saddles at pi/2 + k*pi (f = 1)
    # between them: f is not constant from one to the next, as on a continuum it would be.
    # cos(x) + x^2/2 = 1 + x^4/24 + ...: one flat minimum at 0, where the search stops
    # anywhere within 1e-7; no continuum of critical points either way
    result = critical_points(expression)
    assert result.continua == []
    assert result.points and all(
        math.isclose(round(p.point["x"] / math.pi) * math.pi, p.point["x"], abs_tol=1e-3)
        or p.test.verdict == "saddle point"
        for p in result.points
    )


@pytest.mark.parametrize(
    ("expression", "where", "exact"),
    [
        ("cos(x) + x^2/2", {"x": 0.0}, {"x": "0"}),  # 1 + x^4/24 + ...
        ("cosh(x) - x^2/2 + cos(y) + y^2/2", {"x": 0.0, "y": 0.0}, {"x": "0", "y": "0"}),
        ("cos(x - sqrt(3)) + (x - sqrt(3))^2/2", {"x": math.sqrt(3)}, {"x": "sqrt(3)"}),
    ],
)
def test_a_flat_point_found_many_times_is_one_point(expression, where, exact) -> None:
    # the search stops anywhere within ~1e-7 of a flat minimum (rounding in -sin(x) + x);
    # its copies are one point (with a note), settled at 50 digits where the gradient
    # underflows, exact where the simplest number within their spread is proven a zero of
    # the gradient by sympy -- and then the lowest-order test decides
    result = critical_points(expression)
    assert result.continua == []
    (point,) = result.points
    assert point.point == pytest.approx(where, abs=1e-6)
    assert {v: str(e) for v, e in (point.exact or {}).items()} == exact
    assert point.test.verdict == "local minimum"
    notes = [n for n in result.notes if "one flat critical point, found" in n]
    assert all("sympy proves" in note for note in notes)


def test_exact_points_carry_exact_values_of_f() -> None:
    # sin(x)^4 + y^2 at x = k pi: f = 0 exactly; the tape at the float nearest pi gives 1e-58
    result = critical_points("sin(x)^4 + y^2")
    minima = [p for p in result.points if p.exact is not None and p.value < 0.5]
    multiples = sorted(round(p.point["x"] / math.pi) for p in minima)
    assert multiples == [-1, 0, 1]
    for p in minima:
        assert p.value == 0.0 and p.point["x"] == float(sp.sympify(p.exact["x"]))
