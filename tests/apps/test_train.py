"""Training a tensor program: the loop against numpy, least squares, and a dead unit."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.apps.optimize.train import train
from gradcalc.core.errors import InputError
from gradcalc.engine.run.api import compile_expression

NETWORK = "h = relu(X@W1 + b1); p = sigmoid(h@W2 + b2); loss = mean((p - y)^2)"


def network(seed: int = 0) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((40, 3))
    data = {"X": X, "y": (X[:, :1] > 0).astype(float)}
    b1 = np.zeros(5)
    b1[2] = -40.0
    params = {"W1": rng.standard_normal((3, 5)), "b1": b1, "W2": rng.standard_normal((5, 1)),
              "b2": np.zeros(1)}  # fmt: skip
    return data, params


def numpy_gd(data: dict, params: dict, lr: float, steps: int) -> dict:
    """The same training loop written out in numpy."""
    X, y = data["X"], data["y"]
    W1, b1, W2, b2 = (params[n].copy() for n in ("W1", "b1", "W2", "b2"))
    for _ in range(steps):
        z1 = X @ W1 + b1
        h = np.maximum(z1, 0)
        p = 1 / (1 + np.exp(-(h @ W2 + b2)))
        dz2 = 2 * (p - y) / p.size * p * (1 - p)
        dz1 = dz2 @ W2.T * (z1 > 0)
        W1, b1 = W1 - lr * X.T @ dz1, b1 - lr * dz1.sum(axis=0)
        W2, b2 = W2 - lr * h.T @ dz2, b2 - lr * dz2.sum(axis=0)
    return {"W1": W1, "b1": b1, "W2": W2, "b2": b2}


def test_gradient_descent_follows_the_numpy_loop_step_by_step() -> None:
    data, params = network()
    graph = compile_expression(NETWORK, [*data, *params])
    run = train(graph, data, params, "gd", 0.5, 25, tol=0.0)
    expected = numpy_gd(data, params, 0.5, 25)
    assert run.steps == 25 and not run.converged and not run.diverged
    for name, value in expected.items():
        assert np.allclose(run.parameters[name], value, rtol=1e-10, atol=1e-13)
    assert float(run.after.value) < float(run.before.value)
    assert run.path[0].step == 0 and run.path[-1].step == 25


def test_a_dead_unit_gets_no_gradient_and_stays_dead() -> None:
    data, params = network()
    graph = compile_expression(NETWORK, [*data, *params])
    run = train(graph, data, params, "adam", 0.05, 50)
    before = {(u.layer, u.unit, u.kind) for u in run.before.layers.units}
    after = {(u.layer, u.unit, u.kind) for u in run.after.layers.units}
    assert (1, 2, "dead") in before and (1, 2, "dead") in after
    assert run.parameters["b1"][2] == -40.0
    assert np.array_equal(run.parameters["W1"][:, 2], params["W1"][:, 2])
    assert not np.array_equal(run.parameters["W1"][:, 0], params["W1"][:, 0])


def test_least_squares_converges_to_numpys_solution() -> None:
    rng = np.random.default_rng(2)
    X = rng.standard_normal((50, 3))
    y = X @ [[1.0], [-2.0], [0.5]] + 0.1 * rng.standard_normal((50, 1))
    graph = compile_expression("loss = mean((X@w + c - y)^2)", ["X", "y", "w", "c"])
    run = train(graph, {"X": X, "y": y}, {"w": np.zeros((3, 1)), "c": np.zeros(1)}, "momentum",
                0.05, 5000, tol=1e-12)  # fmt: skip
    design = np.column_stack([X, np.ones(50)])
    solution = np.linalg.lstsq(design, y, rcond=None)[0]
    assert run.converged
    assert np.allclose(run.parameters["w"], solution[:3], atol=1e-9)
    assert np.allclose(run.parameters["c"], solution[3], atol=1e-9)


def test_a_learning_rate_too_large_diverges_and_says_so() -> None:
    graph = compile_expression("loss = sum(exp(w*w))", ["w"])
    run = train(graph, {}, {"w": np.array([1.0, 2.0])}, "gd", 100.0, 50)
    assert run.diverged and not run.converged and "diverged" in run.reason


@pytest.mark.parametrize(
    ("method", "params", "says"),
    [("bfgs", {"w": np.ones(2)}, "trains with"), ("gd", {}, "nothing")],
)
def test_refusals(method: str, params: dict, says: str) -> None:
    graph = compile_expression("loss = sum(w*w)", ["w"])
    with pytest.raises(InputError, match=says):
        train(graph, {}, params, method, 0.1, 10)
