"""The recorded program (gradcalc.engine.compile.sweep): simplified without changing a bit, and
planned so that the replay checks only what could go wrong."""

from __future__ import annotations

import numpy as np

from gradcalc.engine.compile.replay import run_sweep
from tests.engine.test_replay import recorded


def test_a_domain_rule_that_cannot_fire_is_not_checked() -> None:
    """``x**2`` is defined everywhere: its pow domain rule is skipped; ``x**0.5`` is not."""
    _, square = recorded("x**2")
    _, root = recorded("x**0.5")
    assert [s.check_domain for s in square.steps if s.guard] == [False]
    assert [s.check_domain for s in root.steps if s.guard] == [True]
    assert run_sweep(square, {"x": np.array([-2.0, 3.0])}).gradients[0]["x"].tolist() == [-4, 6]
    assert run_sweep(root, {"x": np.array([-2.0, 3.0])}).flagged.tolist() == [True, False]


def test_only_values_that_could_lose_a_nan_are_checked_for_one() -> None:
    """``x*x + 1`` carries any NaN or infinity to the value (checked on store); the product
    inside ``1/(x*x)`` is checked itself, since 1/inf = 0 would hide it."""
    _, plain = recorded("x*x + 1")
    _, hiding = recorded("1/(x*x)")
    assert [s.check_finite for s in plain.steps if s.guard] == [False, False]
    assert [(s.op.name, s.check_finite) for s in hiding.steps if s.guard] == [
        ("mul", True),
        ("div", False),
    ]


def test_the_backward_pass_is_deduplicated() -> None:
    """The sigmoid's slope is computed once for the saturation check and the gradient."""
    _, sweep = recorded("sigmoid(x)")
    names = [s.op.name for s in sweep.steps]
    assert names.count("sigmoid") == 2  # sigmoid(x) and sigmoid(-x), once each
    assert len(names) == len({(s.op.name, s.inputs) for s in sweep.steps})


def test_buffers_are_reused_but_never_under_a_checked_input() -> None:
    """``sqrt(x*x + 1) * exp(x)``: few buffers for many steps; the sqrt, whose input is
    checked after it runs, writes elsewhere than that input; outputs get none."""
    _, sweep = recorded("sqrt(x*x + 1) * exp(x)")
    steps = {step.out: step for step in sweep.steps}
    assert 0 < sweep.buffers < len(sweep.steps) / 2
    outputs = set(sweep.values) | set(sweep.gradients[0].values())
    assert all(steps[slot].buffer is None for slot in outputs if slot in steps)
    (root,) = [s for s in sweep.steps if s.op.name == "sqrt"]
    assert root.check_domain and root.buffer is not None
    assert steps[root.inputs[0]].buffer != root.buffer
    assert {s.ufunc for s in sweep.steps if s.op.name == "mul"} == {np.multiply}
