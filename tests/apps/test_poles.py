"""apps.plot.poles: a curve is broken at each pole between samples -- against the poles of
tan, sec and 1/(x - c) known in closed form -- and never at a continuous crossing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradcalc.apps.plot.figures import Curve
from gradcalc.apps.plot.poles import broken_at_poles

SAMPLES = np.linspace(-10.0, 10.0, 401)


def _breaks(f) -> np.ndarray:
    with np.errstate(all="ignore"):
        curve = broken_at_poles(Curve(SAMPLES, f(SAMPLES)), f)
    return curve.x[np.isinf(curve.y)]


@pytest.mark.parametrize(
    ("f", "poles"),
    [
        (np.tan, [(k + 0.5) * math.pi for k in range(-4, 4)]),
        (lambda x: 1 / np.cos(x), [(k + 0.5) * math.pi for k in range(-4, 4)]),
        (lambda x: 1 / (x - 1 / 3), [1 / 3]),
        (lambda x: -3 / (x + math.e) ** 3, [-math.e]),
    ],
)
def test_each_pole_between_samples_breaks_the_curve(f, poles) -> None:
    poles = [p for p in poles if -10 < p < 10]
    found = _breaks(f)
    assert len(found) == len(poles)
    step = SAMPLES[1] - SAMPLES[0]
    assert all(abs(x - p) <= step for x, p in zip(sorted(found), sorted(poles)))


@pytest.mark.parametrize(
    "f",
    [lambda x: 1000 * x, lambda x: x**3 - x, np.sin, lambda x: np.sin(50 * x), np.sign],
)
def test_a_continuous_crossing_or_a_jump_is_no_pole(f) -> None:
    assert _breaks(f).size == 0
