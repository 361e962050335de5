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


def test_a_results_repr_is_a_few_lines_of_what_it_says_not_its_fields() -> None:
    """repr(grad(...)) was the dataclass's: every field, the tape's rows and the points in full
    (kilobytes in a terminal IPython). Now a few lines, the numbers by hand: x^2·y at (2, 3)
    is 12, ∂/∂x = 2xy = 12, ∂/∂y = x^2 = 4; at (2, 4): 16, 16, 4."""
    from IPython.lib.pretty import pretty

    import gradcalc

    one = gradcalc.grad("x^2*y", at=["x=2,y=3"])
    assert (
        repr(one)
        == pretty(one)
        == (
            "GradResult: f(x, y) = x^2·y at x=2, y=3\n  f = 12\n  ∂f/∂x = 12, ∂f/∂y = 4\n"
            "  check: agree"
        )
    )
    many = gradcalc.grad("x^2*y", at={"x": 2, "y": np.arange(3.0, 1003.0)}, check=False)
    text = repr(many)
    assert len(text.splitlines()) == 4 and len(text) < 300, text
    assert text.startswith("GradResult: f(x, y) = x^2·y at 1000 points, the first x=2, y=3\n")
    assert "  f = [12, 16, 20, ..., 4000, 4004, 4008]\n" in text  # 4·y
    assert text.endswith("∂f/∂y = [4, 4, 4, ..., 4, 4, 4]\n  check: not made")
    assert one == one and one != gradcalc.grad("x^2*y", at=["x=2,y=3"])  # (eq=False, as before)


def test_a_repr_marks_undefined_values_and_says_why() -> None:
    import gradcalc

    result = gradcalc.grad("log(x)*y", at={"x": [1, -1], "y": 2}, strict=False, check=False)
    assert repr(result).splitlines()[1:] == [  # 2·ln(1) = 0, ∂/∂x = y/x = 2, ∂/∂y = ln(1) = 0
        "  f = [0, nan]",
        "  ∂f/∂x = [2, nan], ∂f/∂y = [0, nan]",
        "  undefined at x=-1, y=2: ln(x): undefined: ln is undefined for negative numbers",
        "  check: not made",
    ]
