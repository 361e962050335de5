"""The typed results (gradcalc.engine.evaluate.results): what their derived fields say, against
sympy."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy as sp

from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.evaluate.results import Options
from gradcalc.engine.run.api import compile_expression, derivatives_at, jacobian


def test_a_derivative_result_is_its_highest_order() -> None:
    xs = np.array([0.3, 1.1, 2.5])
    graph = compile_expression("sin(x)*x", ["x"])
    result = derivatives_at(graph, Points(("x",), {"x": xs}, None), "x", 3, Options(check=False))
    x = sp.Symbol("x")
    for k in (1, 2, 3):
        truth = sp.lambdify(x, sp.diff(sp.sin(x) * x, x, k))(xs)
        np.testing.assert_allclose(result.orders[k - 1], truth, rtol=1e-13)
    assert result.derivative is result.orders[-1]


def test_a_jacobian_names_its_targets_in_order() -> None:
    result = jacobian("u = x*y; v = x + y", at={"x": 2, "y": 3}, of=["v", "u"], check=False)
    assert result.targets == ["v", "u"]
    assert result.matrix.tolist() == [[1.0, 1.0], [3.0, 2.0]]  # d(x+y), d(x*y)
    assert float(result.determinant) == 1 * 2 - 1 * 3


def test_options_are_fixed_once_made() -> None:
    options = Options(check=False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.check = True  # type: ignore[misc]
    assert dataclasses.replace(options, strict=False).check is False
