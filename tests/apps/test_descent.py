"""apps.optimize.descent: the update rules against their formulas written out, the descent loop
against
the closed form of gradient descent on a parabola, the judge's reasons, the thinned path."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from gradcalc.apps.optimize.descent import (
    PATH_ROWS,
    UPDATES,
    Judge,
    Objective,
    Recorder,
    check_options,
    descend,
    fixed,
)
from gradcalc.core.errors import InputError
from gradcalc.engine.run.api import compile_expression

GRADIENTS = [np.array([1.0, -2.0]), np.array([0.5, 4.0]), np.array([-3.0, 0.25])]


def test_momentum_is_the_heavy_ball() -> None:
    update, velocity = UPDATES["momentum"](0.1), np.zeros(2)
    for k, g in enumerate(GRADIENTS):
        velocity = 0.9 * velocity + g
        assert np.allclose(update(g, k), -0.1 * velocity, rtol=1e-15, atol=0)


def test_adam_is_kingma_and_ba_with_bias_correction() -> None:
    update, m, v = UPDATES["adam"](0.01), np.zeros(2), np.zeros(2)
    for k, g in enumerate(GRADIENTS):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g**2
        m_hat, v_hat = m / (1 - 0.9 ** (k + 1)), v / (1 - 0.999 ** (k + 1))
        assert np.allclose(update(g, k), -0.01 * m_hat / (np.sqrt(v_hat) + 1e-8), rtol=1e-13)


def test_gradient_descent_on_a_parabola_follows_its_closed_form() -> None:
    # f = (x - 2)^2, x0 = 0, x_{k+1} = x_k - lr * 2 (x_k - 2): x_k = 2 - 2 (1 - 2 lr)^k
    objective = Objective(compile_expression("(x - 2)**2"))
    judge = Judge(objective, steps=30, tol=0.0, start_norm=4.0, more="raise --steps")
    path = Recorder(["x"], 1)
    stop = descend(objective, np.array([0.0]), fixed(UPDATES["gd"](0.1)), judge, path, None)
    assert stop.step == 30 and not stop.converged
    for row in path.rows:
        assert row.point["x"] == pytest.approx(2 - 2 * 0.8**row.step, rel=1e-12)
    # the gradient norm there: 2 * 2 * 0.8^30 = 0.00495, two digits
    assert stop.reason == "reached 30 steps (gradient norm 0.005): raise --steps"


def test_the_judge_names_why_it_stops() -> None:
    objective = Objective(compile_expression("x**2"))
    judge = Judge(objective, steps=10, tol=1e-3, start_norm=1.0, more="raise --steps")
    g = np.array([1.0])
    assert judge(1.0, g, 1e-4, 3) == ("gradient norm 0.0001 ≤ tol 0.001", True)
    assert judge(1.0, g, 0.5, 3) is None
    assert judge(math.inf, g, 0.5, 4)[0].startswith("diverged: value became inf at step 4")
    growing = judge(1.0, g, 2.0, 10)[0]
    assert growing.startswith("reached 10 steps with the gradient norm growing (1 → 2)")


def test_the_default_path_keeps_evenly_spaced_rows_whatever_the_length() -> None:
    for length in (10, 2 * PATH_ROWS, 12_345):
        path = Recorder(["x"], None)
        for k in range(length):
            if path.wants(k):
                path.add(k, np.array([float(k)]), 0.0, 0.0)
        steps = [row.step for row in path.rows]
        assert min(length, PATH_ROWS) <= len(steps) < 2 * PATH_ROWS
        assert len({b - a for a, b in itertools.pairwise(steps)}) <= 1  # evenly spaced
        assert steps[0] == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ((0.0, 10, 0.0, None), "--lr must be a positive number"),
        ((None, 0, 0.0, None), "--steps must be a positive whole number"),
        ((None, 10, -1.0, None), "--tol must be a number ≥ 0"),
        ((None, 10, 0.0, True), "--every must be a positive whole number"),
    ],
)
def test_bad_options_are_input_errors(options, message) -> None:
    with pytest.raises(InputError, match=message):
        check_options(*options)
