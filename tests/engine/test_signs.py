"""Folded negations (gradcalc.engine.compile.signs): fewer steps, and every bit of every value the
same as the tape's -- signed zeros included, where ``-(a + b)`` and ``(-a) + (-b)`` differ."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.core.ops import REGISTRY
from gradcalc.engine.compile.program import Step
from gradcalc.engine.compile.replay import run_sweep
from gradcalc.engine.compile.signs import fold_signs
from gradcalc.engine.compile.sweep import record_sweep
from gradcalc.engine.evaluate.evaluate import evaluate
from gradcalc.engine.run.api import compile_expression

#: Special values: both zeros, where a sign folded the wrong way would show.
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0]


def _bits(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float64).view(np.int64)


@pytest.mark.parametrize(
    "text",
    [
        "cos(x)*y - y",  # -sin(x) times the adjoint
        "x - y*y",  # the adjoint of a subtraction
        "-x*y + exp(-x)",  # negations in the forward pass stay
        "sin(2*x + y)*cos(x - 2*y)",  # the 50-term sum's term
        "1/(x*y + 1) - x",  # -1/u^2
        "sqrt(x**2 + y**2) + 1/(1 + exp(-(x*y - 1)))",
    ],
)
def test_folded_programs_compute_the_tapes_bits(text: str) -> None:
    graph = compile_expression(text, ["x", "y"])
    sweep = record_sweep(graph, ("x", "y"))
    x, y = (np.array(v, dtype=float) for v in zip(*[(a, b) for a in EDGES for b in EDGES]))
    out = run_sweep(sweep, {"x": x, "y": y})
    taped = evaluate(graph, {"x": x, "y": y}, ("x", "y"))
    clean = ~out.flagged if out.flagged is not None else np.ones(len(x), dtype=bool)
    assert clean.sum() > len(x) // 2
    value = np.broadcast_to(taped.values[0], x.shape)
    assert np.array_equal(_bits(out.values[0])[clean], _bits(value)[clean])
    for name in ("x", "y"):
        tape = np.broadcast_to(taped.gradients[0][name], x.shape)
        assert np.array_equal(_bits(out.gradients[0][name])[clean], _bits(tape)[clean])


def test_the_backward_pass_of_a_sum_of_products_runs_no_negation() -> None:
    """``sin(2x + y)*cos(x - 2y)``: the tape negates -sin and the adjoint of ``x - 2y``;
    folded, not one ``neg`` step is left."""
    graph = compile_expression("sin(2*x + y)*cos(x - 2*y)", ["x", "y"])
    names = [step.op.name for step in record_sweep(graph, ("x", "y")).steps]
    assert "neg" not in names and names.count("sub") >= 2


def _run(steps: list[Step], slots: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    for step in steps:
        slots[step.out] = step.op.forward(*(slots[i] for i in step.inputs))
    return slots


def _backward(name: str, inputs: tuple[int, ...], out: int) -> Step:
    return Step(REGISTRY[name], inputs, out, {}, False, (False,) * len(inputs))


def test_a_sum_of_two_negations_keeps_its_zeros_sign() -> None:
    """``(-a) + (-b)`` at a = -0, b = 0 is +0; ``-(a + b)`` would be -0 (and 1/it -inf)."""
    program = [_backward("neg", (0,), 2), _backward("neg", (1,), 3), _backward("add", (2, 3), 4)]
    folded, alias, _ = fold_signs(program, {}, 5, {4})
    slots = {0: np.array([-0.0, 2.0]), 1: np.array([0.0, 3.0])}
    expected = _run(program, dict(slots))[4]
    got = _run(folded, dict(slots))[alias.get(4, 4)]
    assert np.array_equal(_bits(got), _bits(expected)) and np.signbit(got[0]) == np.False_


def test_an_output_that_ends_negated_is_computed() -> None:
    """``-(a*b)`` as an output: the product is computed once, then negated into the output."""
    program = [_backward("neg", (0,), 2), _backward("mul", (2, 1), 3)]
    folded, alias, size = fold_signs(program, {}, 4, {3})
    assert [(s.op.name, s.out) for s in folded] == [("mul", 4), ("neg", 3)]
    assert alias == {} and size == 5
    slots = {0: np.array([1.5, -0.0]), 1: np.array([2.0, 3.0])}
    assert np.array_equal(_bits(_run(folded, dict(slots))[3]), _bits(np.array([-3.0, 0.0])))
