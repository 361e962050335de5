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
