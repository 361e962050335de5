"""The layer report against a direct numpy computation of each layer's pre-activations."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.engine.run.api import compile_expression
from gradcalc.engine.tensors.layers import Thresholds
from gradcalc.engine.tensors.tensorgrad import tensor_gradient

NETWORK = "h = {a1}(X@W1 + b1); p = {a2}(h@W2 + b2); loss = mean((p - y)^2)"
ACTIVATIONS = {
    "relu": lambda z: np.maximum(z, 0),
    "sigmoid": lambda z: 1 / (1 + np.exp(-z)),
    "tanh": np.tanh,
}
SLOPES = {
    "sigmoid": lambda z: np.exp(-np.abs(z)) / (1 + np.exp(-np.abs(z))) ** 2,  # no cancellation
    "tanh": lambda z: 1 / np.cosh(z) ** 2,
}


def run(values: dict, a1: str = "relu", a2: str = "sigmoid", **thresholds: float):
    graph = compile_expression(NETWORK.format(a1=a1, a2=a2), list(values))
    return tensor_gradient(graph, values, ["W1", "b1", "W2", "b2"], Thresholds(**thresholds))


def expected_units(values: dict, a1: str, a2: str, t: Thresholds) -> set[tuple]:
    """(layer, unit, kind, share) of every flagged unit, computed directly with numpy."""
    z1 = values["X"] @ values["W1"] + values["b1"]
    z2 = ACTIVATIONS[a1](z1) @ values["W2"] + values["b2"]
    found = set()
    for layer, (z, activation) in enumerate([(z1, a1), (z2, a2)], 1):
        if activation == "relu":
            shares, needed = (z <= 0).mean(axis=0), t.dead_share
        else:
            shares, needed = (SLOPES[activation](z) < t.saturation).mean(axis=0), t.saturated_share
        kind = "dead" if activation == "relu" else "saturated"
        for unit in np.flatnonzero(shares >= needed):
            found.add((layer, int(unit), kind, float(shares[unit])))
    return found


def test_a_known_dead_unit_and_a_known_saturated_unit_are_named_and_nothing_else() -> None:
    rng = np.random.default_rng(3)
    b1 = np.zeros(8)
    b1[3] = -50.0  # forced dead: |X @ W1[:, 3]| stays far below 50
    values = {
        "X": rng.standard_normal((300, 4)),
        "y": rng.integers(0, 2, (300, 1)).astype(float),
        "W1": 0.5 * rng.standard_normal((4, 8)),
        "b1": b1,
        "W2": 0.3 * rng.standard_normal((8, 2)),
        "b2": np.array([0.0, 30.0]),  # forced saturated: sigmoid'(30 ± small) < 1e-4
    }
    report = run(values).layers
    assert {(u.layer, u.unit, u.kind) for u in report.units} == {
        (1, 3, "dead"),
        (2, 1, "saturated"),
    }
    assert expected_units(values, "relu", "sigmoid", Thresholds()) == {
        (u.layer, u.unit, u.kind, u.share) for u in report.units
    }
    dead = next(u for u in report.units if u.kind == "dead")
    z = values["X"] @ values["W1"][:, 3] - 50
    assert dead.share == 1.0 and dead.rows == 300 and dead.bias == -50.0
    assert dead.high == pytest.approx(z.max(), rel=1e-12)
    assert dead.sentence.startswith("unit 3 of layer 1 (relu) is dead on 100% of 300 rows")
    assert "its bias b1[3] is -50" in dead.sentence
    saturated = next(u for u in report.units if u.kind == "saturated")
    assert saturated.sentence.startswith("unit 1 of layer 2 (sigmoid) is saturated on 100%")
    assert [(layer.dead, layer.saturated) for layer in report.layers] == [(1, 0), (0, 1)]


@pytest.mark.parametrize("seed", range(8))
def test_random_networks_agree_with_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows, n_in, hidden, out = rng.integers(5, 60), rng.integers(1, 6), rng.integers(1, 9), 2
    a1, a2 = rng.choice(["relu", "tanh", "sigmoid"]), rng.choice(["sigmoid", "tanh"])
    scale = rng.choice([0.1, 1.0, 8.0])
    values = {
        "X": rng.standard_normal((rows, n_in)),
        "y": rng.standard_normal((rows, out)),
        "W1": scale * rng.standard_normal((n_in, hidden)),
        "b1": rng.choice([0.0, -20.0, 20.0], hidden) + rng.standard_normal(hidden),
        "W2": scale * rng.standard_normal((hidden, out)),
        "b2": rng.choice([0.0, -12.0, 12.0], out),
    }
    thresholds = Thresholds(dead_share=rng.choice([1.0, 0.7]), saturation=1e-3)
    result = run(values, a1, a2, **vars(thresholds))
    report = result.layers
    found = {(u.layer, u.unit, u.kind, u.share) for u in report.units}
    assert found == expected_units(values, a1, a2, thresholds)
    # the layer gradient norms, from a backward pass written out in numpy
    z1 = values["X"] @ values["W1"] + values["b1"]
    h = ACTIVATIONS[a1](z1)
    z2 = h @ values["W2"] + values["b2"]
    p = ACTIVATIONS[a2](z2)
    dz2 = 2 * (p - values["y"]) / p.size * SLOPES[a2](z2)
    slope1 = (z1 > 0).astype(float) if a1 == "relu" else SLOPES[a1](z1)
    dz1 = dz2 @ values["W2"].T * slope1
    norm2 = np.sqrt(np.sum((h.T @ dz2) ** 2) + np.sum(dz2.sum(axis=0) ** 2))
    norm1 = np.sqrt(np.sum((values["X"].T @ dz1) ** 2) + np.sum(dz1.sum(axis=0) ** 2))
    layer1, layer2 = report.layers
    assert layer2.gradient_norm == pytest.approx(norm2, rel=1e-9, abs=1e-300)
    assert layer1.gradient_norm == pytest.approx(norm1, rel=1e-9, abs=1e-300)
    direct = values["X"].T @ dz1
    assert np.allclose(result.gradient["W1"], direct, rtol=1e-9, atol=1e-12 * np.abs(direct).max())
    if norm2 > 0:
        assert layer1.ratio == pytest.approx(norm1 / norm2, rel=1e-9, abs=1e-300)


def test_a_vanishing_gradient_is_named_with_its_ratio() -> None:
    rng = np.random.default_rng(0)
    values = {
        "X": rng.standard_normal((50, 3)),
        "y": rng.standard_normal((50, 1)),
        "W1": rng.standard_normal((3, 4)),
        "b1": np.full(4, 12.0),  # every tanh unit saturated: little gradient gets through
        "W2": rng.standard_normal((4, 1)),
        "b2": np.zeros(1),
    }
    report = run(values, "tanh", "sigmoid").layers
    first, second = report.layers
    assert first.verdict == "vanishing" and second.verdict == "ok"
    assert first.ratio == pytest.approx(first.gradient_norm / second.gradient_norm)
    assert first.ratio < 1e-2
    assert any(line.startswith("layer 1 (W1, b1): vanishing") for line in report.lines())
    assert {u.unit for u in report.units if u.layer == 1} == {0, 1, 2, 3}


def test_a_share_below_one_reports_units_dead_on_most_rows() -> None:
    X = np.linspace(-1, 1, 100).reshape(-1, 1)
    values = {"X": X, "W": np.array([[1.0, 1.0]]), "b": np.array([-0.9, 0.0]), "y": X[:, 0]}
    graph = compile_expression("loss = mean((sum(relu(X@W + b), axis=1) - y)^2)", list(values))
    strict = tensor_gradient(graph, values, ["W", "b"]).layers
    assert strict.units == []  # unit 0 is alive on the rows with x > 0.9
    lenient = tensor_gradient(graph, values, ["W", "b"], Thresholds(dead_share=0.9)).layers
    (unit,) = lenient.units
    assert (unit.unit, unit.share) == (0, np.mean(X[:, 0] - 0.9 <= 0))
    assert "is dead on 95% of 100 rows" in unit.sentence


def test_a_program_without_layers_has_an_empty_report() -> None:
    graph = compile_expression("sum(W*W) + sum(W@W)", ["W"])
    report = tensor_gradient(graph, {"W": np.eye(2)}).layers
    assert report.layers == [] and report.units == [] and report.healthy


def test_a_bias_that_is_not_one_per_unit_is_left_out_of_the_sentence() -> None:
    values = {"X": np.ones((3, 1)), "W": np.array([[1.0, 1.0]]), "B": np.full((3, 2), -5.0)}
    graph = compile_expression("sum(relu(X@W + B))", list(values))
    units = tensor_gradient(graph, values).layers.units
    assert [(u.unit, u.bias) for u in units] == [(0, None), (1, None)]
    assert "its bias" not in units[0].sentence and "pre-activation max is -4" in units[0].sentence


def layers_of(expression: str, values: dict) -> list[tuple]:
    graph = compile_expression(expression, list(values))
    report = tensor_gradient(graph, {k: np.asarray(v, float) for k, v in values.items()}).layers
    return [(layer.weight, layer.rows, layer.units, layer.gradient_norm) for layer in report.layers]


def test_a_matrix_vector_product_is_one_unit_with_a_row_per_row_of_the_matrix() -> None:
    """``W@v`` was reported as 1 row of 2 units of the weight v, though a vector holds one
    unit's weights. The right operand is the weight, so Z = W@v = [3, 7] is 2 rows (W's) of
    1 unit; ∂sum(W@v)/∂v = W^T·1 = [4, 6], norm √52 (by hand)."""
    W, v = [[1, 2], [3, 4]], [1, 1]
    assert layers_of("sum(W@v)", {"W": W, "v": v}) == [("v", 2, 1, pytest.approx(52**0.5))]
    X = np.arange(15.0).reshape(5, 3)  # (n, k) @ (k,): n rows, one unit
    assert layers_of("sum(X@w)", {"X": X, "w": [1, 1, 1]})[0][1:3] == (5, 1)
    # unchanged: (n, k) @ (k, m) is n rows of m units; (k,) @ (k, m) one row of m units
    assert layers_of("sum(X@W)", {"X": X, "W": np.ones((3, 4))})[0][1:3] == (5, 4)
    assert layers_of("sum(x@W)", {"x": [1, 2, 3], "W": np.ones((3, 4))})[0][1:3] == (1, 4)


def test_a_dead_unit_of_a_vector_weight_names_the_vector_and_a_scalar_bias() -> None:
    values = {"X": [[1, 2], [3, 4], [5, 6]], "w": [1, 1], "b": -100}  # X@w + b = [-97, -93, -89]
    graph = compile_expression("sum(relu(X@w + b))", list(values))
    report = tensor_gradient(graph, {k: np.asarray(v, float) for k, v in values.items()}).layers
    (unit,) = report.units
    assert (unit.unit, unit.rows, unit.high) == (0, 3, -89.0)
    assert unit.sentence == (
        "unit 0 of layer 1 (relu) is dead on 100% of 3 rows: its bias b is -100, "
        "its pre-activation max is -89, so no gradient reaches w or b"
    )
