"""apps.critical.underflow: points where float64 underflows are settled at 50 digits or left
out -- against the critical points of exp(-x^2)*sin(x), the roots of tan(x) = 1/(2x)
found by mpmath, and functions with no critical point at all."""

from __future__ import annotations

import itertools

import mpmath
import pytest

from gradcalc.apps.critical.critical import critical_points


def _roots(low: float, high: float) -> list[float]:
    """The critical points of exp(-x^2)*sin(x) in [low, high]: where cos(x) = 2x sin(x),
    each sign change of the difference on a grid of 0.01 refined by mpmath at 40 digits."""

    def q(t):
        return mpmath.cos(t) - 2 * t * mpmath.sin(t)

    roots = []
    with mpmath.workdps(40):
        grid = [mpmath.mpf(low) + k * mpmath.mpf("0.01") for k in range(int((high - low) * 100))]
        for a, b in itertools.pairwise(grid):
            if q(a) * q(b) < 0:
                roots.append(float(mpmath.findroot(q, (a, b), solver="anderson")))
    return roots


def test_far_out_points_are_exact_or_left_out_and_no_continuum_is_made_up() -> None:
    result = critical_points("exp(-x^2)*sin(x)", "x=-40..40")
    assert result.continua == []  # f is constant nowhere: its gradient only underflows
    assert any("underflows" in note for note in result.notes)
    truth = _roots(-40, 40)
    for p in result.points:  # each point listed is a true one, to float64's precision
        assert min(abs(p.point["x"] - r) for r in truth) <= 1e-12 * abs(p.point["x"])


@pytest.mark.parametrize(
    ("expression", "region"),
    [
        ("exp(x)*(1 + y^2) + exp(-y^2)*0", "x=-1000..0,y=-1..1"),  # exp(x) > 0: no point at all
        ("exp(-x^2)*(2 + sin(x))", "x=25..60"),  # decreasing there: none in the region
    ],
)
def test_no_critical_point_is_made_of_underflow(expression: str, region: str) -> None:
    result = critical_points(expression, region)
    assert result.points == [] and result.continua == []


def test_a_flat_region_that_is_really_flat_stays_a_continuum() -> None:
    # relu(x) is 0 for x < 0: its gradient there is 0 at every precision
    result = critical_points("relu(x) + 0", "x=-40..40")
    (continuum,) = result.continua
    assert "along x from -" in continuum
