"""apps.critical.steady: a numeric critical point whose Hessian is below the test's floor is
classified by the signs that hold around it -- against f'' at 50 digits (mpmath) -- and a
point where the signs change (an inflection point, a point the search stopped short of) is
left to the other rules."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from gradcalc.apps.critical.critical import critical_points
from gradcalc.apps.critical.critical_search import gradient_and_hessian
from gradcalc.apps.critical.steady import steady_inertia
from gradcalc.engine.run.api import compile_expression


def test_far_out_points_of_a_damped_sine_are_classified_as_f_twice_differentiated_says():
    # f' = exp(-x^2)(cos x - 2x sin x) is 0 where tan x = 1/(2x); f'' there, at 50 digits,
    # says maximum (f'' < 0) or minimum: the test's 1e-12 floor said "inconclusive"
    mpmath.mp.dps = 50
    f = lambda x: mpmath.exp(-(x**2)) * mpmath.sin(x)  # noqa: E731
    result = critical_points("exp(-x^2)*sin(x)", region="x=-12..12")
    far = [p for p in result.points if abs(p.point["x"]) > 6]
    assert len(far) == 4
    for point in far:
        root = mpmath.findroot(lambda x: mpmath.diff(f, x), point.point["x"])
        second = mpmath.diff(f, root, 2)
        assert abs(second) < 1e-12  # below the floor: the case at hand
        truth = "local maximum" if second < 0 else "local minimum"
        assert point.test.verdict == truth, (point.coordinates, second)
    assert sum("keep their signs" in note for note in result.notes) == 4
    mpmath.mp.dps = 15


@pytest.mark.parametrize(
    ("expression", "x"),
    [("x^3", 1e-7), ("x^3", 0.0), ("x^5", 3e-4), ("sin(x) - x", 1e-5), ("x^4", 0.0)],
)
def test_a_sign_that_changes_near_the_point_decides_nothing(expression: str, x: float) -> None:
    # x^3's Hessian 6x changes sign within the box its own Newton step (x/2) sets; at an
    # exact 0 the Hessian is 0
    assert _steady(compile_expression(expression), ("x",), np.array([x])) is None


def test_two_variables_a_saddle_below_the_floor() -> None:
    # 1e-20·(x^2 - y^2) at the origin: eigenvalues ±2e-20, the same signs everywhere
    graph = compile_expression("1e-20*(x^2 - y^2)")
    assert _steady(graph, ("x", "y"), np.array([0.0, 0.0])) == (1, 1)


def _steady(graph, variables, point):
    """:func:`steady_inertia` with the tape's gradient and Hessian at ``point``."""
    g, h, _ = gradient_and_hessian(graph, variables, point.reshape(len(variables), 1))
    return steady_inertia(graph, variables, point, g[:, 0], h[:, :, 0])
