"""A graph as sympy expressions (symbolic/convert.py); its size caps are tested in
tests/test_safety.py. Here: tensor programs, with variables expanded into object arrays of
scalar symbols, against the tape."""

from __future__ import annotations

import numpy as np
import sympy as sp

from gradcalc import Tape, Variable
from gradcalc.engine.evaluate import run_graph
from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from gradcalc.symbolic.convert import to_sympy


def symbols(name: str, shape: tuple[int, ...]) -> np.ndarray:
    flat = [sp.Symbol(f"{name}_{i}", real=True) for i in range(int(np.prod(shape)))]
    return np.array(flat, dtype=object).reshape(shape)


def test_a_layer_expanded_into_scalar_symbols_agrees_with_the_tape() -> None:
    text = "h = tanh(X @ W + b); loss = mean(softmax(h)[0]^2) + 0.5*sum(W^2)"
    graph = lower(parse_program(text))
    rng = np.random.default_rng(2)
    values = {"X": rng.normal(size=(3, 2)), "W": rng.normal(size=(2, 2)), "b": rng.normal(size=2)}
    expanded = {name: symbols(name, value.shape) for name, value in values.items()}
    cut = {graph.variable_node(name): array for name, array in expanded.items()}
    loss = to_sympy(graph, cut)[graph.targets[0]]
    subs = {s: sp.Float(v, 30) for n in values for s, v in zip(expanded[n].flat, values[n].flat)}

    leaves = {name: Variable(value) for name, value in values.items()}
    with Tape() as tape:
        target = run_graph(graph, leaves)[graph.targets[0]]
    grad_w = tape.gradient(target, leaves["W"]).value

    assert abs(float(loss.evalf(30, subs=subs)) - float(target)) <= 1e-15 * abs(float(target))
    exact = [float(sp.diff(loss, s).evalf(30, subs=subs)) for s in expanded["W"].flat]
    np.testing.assert_allclose(grad_w.ravel(), exact, rtol=1e-12)
