"""The check of a tensor gradient: sympy for small tensors, random directions beyond; a
wrong gradient is caught by both, and a kink is never judged."""

from __future__ import annotations

import numpy as np

from gradcalc.engine.run.api import compile_expression
from gradcalc.engine.tensors.tensorcheck import SYMBOLIC_RTOL, check_tensor
from gradcalc.engine.tensors.tensorgrad import tensor_gradient

NETWORK = "h = tanh(X@W1 + b1); p = sigmoid(h@W2 + b2); loss = mean((p - y)^2)"


def network(rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    values = {
        "X": rng.standard_normal((rows, 3)),
        "y": rng.random((rows, 1)),
        "W1": rng.standard_normal((3, 4)),
        "b1": rng.standard_normal(4),
        "W2": rng.standard_normal((4, 1)),
        "b2": rng.standard_normal(1),
    }
    graph = compile_expression(NETWORK, list(values))
    return tensor_gradient(graph, values, ["W1", "b1", "W2", "b2"])


def spoil(result, name: str, relative: float) -> None:
    result.gradient = {**result.gradient, name: result.gradient[name] * (1 + relative)}


def test_small_tensors_are_checked_element_by_element_with_sympy() -> None:
    result = network(rows=2)
    check = check_tensor(result, seconds=60)
    assert (check.method, check.status) == ("symbolic", "agree")
    assert check.error <= SYMBOLIC_RTOL and "21 source elements" in check.detail
    spoil(result, "b1", 1e-7)
    assert check_tensor(result, seconds=60).status == "disagree"


def test_larger_ones_along_random_directions_labelled_as_such() -> None:
    result = network(rows=200)
    check = check_tensor(result)
    assert (check.method, check.status) == ("directional", "agree")
    assert "central differences along 5 random directions" in str(check)
    assert "not symbolic: the tape holds" in str(check)
    spoil(result, "W2", 1e-3)
    assert check_tensor(result).status == "disagree"


def test_a_point_on_a_kink_is_not_judged() -> None:
    graph = compile_expression("sum(relu(X@W))", ["X", "W"])
    result = tensor_gradient(graph, {"X": np.array([[1.0, -1.0]]), "W": np.ones((2, 2))})
    assert result.at_kink
    assert check_tensor(result).status == "skipped"


def test_a_relu_network_near_its_kinks_is_never_called_wrong() -> None:
    rng = np.random.default_rng(4)
    for _ in range(5):
        values = {
            "X": rng.standard_normal((300, 3)),
            "W": rng.standard_normal((3, 6)),
            "v": rng.standard_normal((6, 1)),
        }
        graph = compile_expression("loss = mean((relu(X@W)@v)^2)", list(values))
        assert check_tensor(tensor_gradient(graph, values)).status in ("agree", "skipped")
