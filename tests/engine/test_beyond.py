"""The results beyond the gradient: the classes the API returns, their derived fields against
hand-worked derivatives, and their public names (``gradcalc.HessianResult``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradcalc.engine.evaluate import beyond
from gradcalc.engine.run import api


@pytest.mark.parametrize(
    "name", ["DerivativeResult", "DirectionalResult", "HessianResult", "JacobianResult"]
)
def test_the_package_names_each_class_beyond_the_gradient(name: str) -> None:
    import gradcalc

    assert getattr(gradcalc, name) is getattr(beyond, name)
    assert name in dir(gradcalc)
    assert issubclass(getattr(beyond, name), api.GradResult) != (name == "JacobianResult")


def test_a_derivative_of_order_three_is_the_last_of_its_orders() -> None:
    graph = api.compile_expression("x^4", ["x"])
    points = api.as_points({"x": np.array([1.0, -2.0, 0.5])})
    result = api.derivatives_at(graph, points, "x", 3, api.Options(check=False))
    assert isinstance(result, beyond.DerivativeResult)
    x = np.array([1.0, -2.0, 0.5])
    assert np.allclose(result.derivative, 24 * x)  # d³/dx³ x⁴ = 24x
    assert all(np.allclose(d, f) for d, f in zip(result.orders, [4 * x**3, 12 * x**2, 24 * x]))


def test_a_jacobian_is_undefined_where_any_target_is() -> None:
    result = api.jacobian("log(x), x*y", at={"x": np.array([1.0, -1.0]), "y": 2.0}, strict=False)
    assert result.undefined.tolist() == [False, True]  # log at -1
    assert result.matrix[1, 1, 0] == 1.0  # d(x*y)/dy at x = 1
    assert math.isclose(result.matrix[0, 0, 0], 1.0)  # d log(x)/dx at 1


def test_each_result_beyond_the_gradient_has_a_short_repr_with_its_own_line() -> None:
    """Their repr was the dataclass's (every field, the tape too: kilobytes). By hand, for
    x^3·y at (2, 1): f = 8, f_x = 3x²y = 12, f_y = x³ = 8, f_xxx = 6y = 6, along (3, 4)/5:
    12·0.6 + 8·0.8 = 13.6; the Hessian of x²y at (1, 2) is [[2y, 2x], [2x, 0]] =
    [[4, 2], [2, 0]] (indefinite, and ∇f ≠ 0); the Jacobian of (xy, x + y) is
    [[y, x], [1, 1]], its determinant y - x: 1 at (1, 2), -1 at (3, 2)."""
    import dataclasses

    graph = api.compile_expression("x^3*y", ["x", "y"])
    point = api.as_points({"x": 2, "y": 1})
    derivative = api.derivatives_at(graph, point, "x", 3)
    assert repr(derivative).splitlines()[1:] == [
        "  f = 8", "  ∂f/∂x = 12", "  ∂³f/∂x³ = 6", "  check: agree"
    ]  # fmt: skip
    directional = api.directional_at(graph, point, [3, 4], ["x", "y"], True)
    assert repr(directional).splitlines()[3] == "  derivative along x=0.6, y=0.8 = 13.6"
    hessian = api.hessian("x^2*y", at={"x": [1, 3], "y": 2})
    assert repr(hessian).splitlines()[3] == (
        "  Hessian at the first point = [[4, 2], [2, 0]]: not a critical point (indefinite)"
    )
    jacobian = api.jacobian("u = x*y; v = x + y", at={"x": [1, 3], "y": 2}, of=["u", "v"])
    assert repr(jacobian) == (
        "JacobianResult: u = x·y; v = x + y at 2 points, the first x=1, y=2\n"
        "  ∂(u, v)/∂(x, y) at the first point = [[2, 1], [1, 1]]\n"
        "  determinant = [1, -1]"
    )
    for result in (derivative, directional, hessian, jacobian):
        assert repr(result).startswith(type(result).__name__ + ": ")
        assert len(repr(result)) < 400 and "TapeRow" not in repr(result)
        assert type(result).__eq__ is not object.__eq__  # still the dataclass's equality
    assert dataclasses.replace(jacobian) == jacobian


def test_a_short_repr_shows_no_matrix_where_it_is_undefined() -> None:
    """strict=False: at a kink the gradient read nan, but the Hessian of abs(x)*y^2 at
    x = 0 read [[0, 0], [0, 0]] 'inconclusive (zero)', and the Jacobian of (|x|, y)
    [[0, 0], [0, 1]] -- a derivative of |x| at 0 that does not exist, written 0; of
    (x/y, y) at y = 0, [[inf, -inf], [0, 1]]. The row of a target defined there is kept."""
    hessian = api.hessian("abs(x)*y^2", at={"x": 0, "y": 3}, strict=False)
    assert repr(hessian).splitlines()[4] == "  Hessian = [[nan, nan], [nan, nan]]: undefined"
    kinked = api.jacobian("abs(x), y", at={"x": 0, "y": 1}, strict=False)
    assert repr(kinked).splitlines()[1] == "  ∂(f1, f2)/∂(x, y) = [[nan, nan], [0, 1]]"
    several = api.jacobian("x/y, y", at={"x": 1, "y": [0, 2]}, strict=False)
    assert repr(several).splitlines()[1:] == [
        "  ∂(f1, f2)/∂(x, y) at the first point = [[nan, nan], [0, 1]]",
        "  determinant = [nan, 0.5]",
    ]
