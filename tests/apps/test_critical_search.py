"""apps.critical.critical_search: the tape's gradient and Hessian at many points against derivatives
written out by hand, and the search's points against the known zeros of the gradient."""

from __future__ import annotations

import math
from time import process_time

import numpy as np
import pytest

from gradcalc.apps.critical.critical_search import descend, gradient_and_hessian, numeric_search
from gradcalc.engine.run.api import compile_expression


def test_the_gradient_and_hessian_at_many_points_are_the_hand_derivatives() -> None:
    graph = compile_expression("x^2*y + sin(y)")
    x = np.array([[0.5, -1.0, 2.0], [0.25, 3.0, -1.5]])
    g, h, values = gradient_and_hessian(graph, ("x", "y"), x)
    a, b = x
    assert np.allclose(values, a**2 * b + np.sin(b), rtol=1e-15)
    assert np.allclose(g, [2 * a * b, a**2 + np.cos(b)], rtol=1e-15)
    assert np.allclose(h, [[2 * b, 2 * a], [2 * a, -np.sin(b)]], rtol=1e-15)


def test_where_the_function_is_undefined_the_gradient_is_nan() -> None:
    g, _, values = gradient_and_hessian(
        compile_expression("log(x)"), ("x",), np.array([[-1.0, 2.0]])
    )
    assert math.isnan(values[0]) and math.isnan(g[0, 0])
    assert g[0, 1] == pytest.approx(0.5) and values[1] == pytest.approx(math.log(2))


def test_the_search_finds_each_zero_of_the_gradient_once() -> None:
    # (x^2 - 2)^2 + (y - 1/3)^2: grad = (4x(x^2 - 2), 2(y - 1/3)), zero at x = 0, ±sqrt(2)
    graph = compile_expression("(x^2 - 2)^2 + (y - 1/3)^2")
    bounds = {"x": (-3.0, 3.0), "y": (-3.0, 3.0)}
    notes: list[str] = []
    found = numeric_search(graph, ("x", "y"), bounds, process_time() + 30, notes)
    assert [p["x"] for p in found] == pytest.approx([-math.sqrt(2), 0.0, math.sqrt(2)], abs=1e-9)
    assert all(p["y"] == pytest.approx(1 / 3, abs=1e-9) for p in found)
    assert notes == []


def test_points_outside_the_region_are_not_reported() -> None:
    graph = compile_expression("(x^2 - 2)^2")
    found = numeric_search(graph, ("x",), {"x": (0.5, 3.0)}, process_time() + 30, [])
    assert [p["x"] for p in found] == pytest.approx([math.sqrt(2)], abs=1e-9)


@pytest.mark.parametrize("stiff", ["y^2", "1000000000*y^2"])
def test_a_flat_direction_beside_a_stiff_one_is_searched_to_its_zero(stiff: str) -> None:
    # sin(x)^4 has a flat minimum at pi (f'' = 12 sin^2 cos^2 -> 0); next to a stiff y term
    # the damping, once floored at 1e-14 of trace(H^2), stopped the search 4e-5 short of pi
    graph = compile_expression(f"sin(x)^4 + {stiff}")
    starts = np.array([[2.5, 3.0, 3.3, 3.7], [0.5, -0.2, 0.1, -1.0]])
    width = np.array([[10.0], [10.0]])
    x, _, _, converged = descend(graph, ("x", "y"), starts, width, process_time() + 30, [])
    assert converged.all()
    assert np.abs(x[0] - math.pi).max() < 1e-7 and np.abs(x[1]).max() < 1e-12
