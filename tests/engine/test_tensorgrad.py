"""A tensor program at one point: gradients against central differences, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.engine.run.api import compile_expression
from gradcalc.engine.tensors.tensorgrad import Summary, tensor_gradient

PROGRAM = "h = tanh(X@W1 + b1); p = sigmoid(h@W2 + b2); loss = mean((p - y)^2) + 0.1*sum(W1*W1)"


def loss_at(values: dict) -> float:
    graph = compile_expression(PROGRAM, list(values))
    return float(tensor_gradient(graph, values).value)


def test_every_gradient_matches_central_differences_along_random_directions() -> None:
    rng = np.random.default_rng(11)
    values = {
        "X": rng.standard_normal((20, 3)),
        "y": rng.random((20, 1)),
        "W1": rng.standard_normal((3, 5)),
        "b1": rng.standard_normal(5),
        "W2": rng.standard_normal((5, 1)),
        "b2": rng.standard_normal(1),
    }
    graph = compile_expression(PROGRAM, list(values))
    result = tensor_gradient(graph, values, ["W1", "b1", "W2", "b2"])
    assert set(result.gradient) == {"W1", "b1", "W2", "b2"}
    for name, grad in result.gradient.items():
        assert grad is not None and grad.shape == values[name].shape
        for _ in range(3):
            direction = rng.standard_normal(grad.shape)
            step = 1e-5
            plus = {**values, name: values[name] + step * direction}
            minus = {**values, name: values[name] - step * direction}
            numeric = (loss_at(plus) - loss_at(minus)) / (2 * step)
            assert float(np.sum(grad * direction)) == pytest.approx(numeric, rel=1e-6, abs=1e-9)


def test_the_tape_shows_each_record_with_its_shape_and_adjoint() -> None:
    values = {"X": np.ones((4, 2)), "W": np.ones((2, 3)), "b": np.zeros(3)}
    result = tensor_gradient(compile_expression("z = X@W + b; loss = sum(z)", list(values)), values)
    shapes = [(row.formula, row.value.shape) for row in result.tape if row.node is not None]
    assert shapes == [("X @ W", (4, 3)), ("#1 + b", (4, 3)), ("sum(z)", ())]
    assert all(row.adjoint is not None for row in result.tape if row.node is not None)
    assert result.gradient["b"].tolist() == [4.0, 4.0, 4.0]  # summed over the broadcast rows


def test_summaries_are_the_five_numbers() -> None:
    s = Summary.of(np.array([[1.0, -2.0], [2.0, 3.0]]))
    assert (s.shape, s.mean, s.min, s.max, s.norm) == ((2, 2), 1.0, -2.0, 3.0, np.sqrt(18))


def test_a_target_that_is_not_one_number_is_refused() -> None:
    graph = compile_expression("W*2", ["W"])
    with pytest.raises(InputError, match=r"has shape \(2,\): a gradient needs one number"):
        tensor_gradient(graph, {"W": np.ones(2)})


def test_shapes_that_do_not_fit_are_an_input_error() -> None:
    graph = compile_expression("sum(X@W)", ["X", "W"])
    with pytest.raises(InputError, match="matmul"):
        tensor_gradient(graph, {"X": np.ones((3, 2)), "W": np.ones((3, 2))})


def test_an_undefined_element_makes_the_point_undefined_naming_how_many() -> None:
    graph = compile_expression("sum(log(W))", ["W"])
    with pytest.raises(
        UndefinedError, match=r"ln\(W\).*on 2 of 3 elements: undefined: ln is undefined"
    ):
        tensor_gradient(graph, {"W": np.array([1.0, -1.0, -2.0])})


def test_a_kink_is_a_warning_and_an_outer_broadcast_too() -> None:
    graph = compile_expression("sum(relu(W))", ["W"])
    result = tensor_gradient(graph, {"W": np.array([0.0, 1.0])})
    assert any("kink on 1 of 2 elements" in w for w in result.warnings)
    graph = compile_expression("mean((p - y)^2)", ["p", "y"])
    result = tensor_gradient(graph, {"p": np.ones((3, 1)), "y": np.ones(3)})
    assert any("combines shapes (3, 1) and (3,) into (3, 3)" in w for w in result.warnings)
    result = tensor_gradient(graph, {"p": np.ones((3, 1)), "y": np.ones((3, 1))})
    assert result.warnings == []


def test_a_source_the_target_does_not_use_has_no_gradient() -> None:
    graph = compile_expression("sum(W*W)", ["W", "V"])
    result = tensor_gradient(graph, {"W": np.ones(2), "V": np.ones(2)}, ["W", "V"])
    assert result.gradient["V"] is None and result.gradient["W"].tolist() == [2.0, 2.0]
