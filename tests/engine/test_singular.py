"""Undefined points explained (gradcalc/engine/evaluate/singular.py): a 0 that is float64's
underflow (exp(-1000) is 5e-435, not 0) makes a point not computable, never "undefined";
mpmath at 50 digits is the truth that the function is defined there."""

from __future__ import annotations

import random

import mpmath
import numpy as np
import pytest

from gradcalc.core.errors import ExitCode
from gradcalc.engine.run.api import grad


@pytest.fixture(autouse=True)
def fifty_digits():
    """mpmath at 50 digits in these tests only (its precision is global to the process)."""
    with mpmath.workdps(50):
        yield


def _lse(x: float, y: float) -> mpmath.mpf:
    return mpmath.log(mpmath.exp(mpmath.mpf(x)) + mpmath.exp(mpmath.mpf(y)))


def _random_points(seed: int) -> list[tuple[float, float]]:
    rng = random.Random(seed)
    return [(-rng.uniform(746, 10**6), -rng.uniform(746, 10**6)) for _ in range(8)]


@pytest.mark.parametrize("seed", range(3))
def test_log_sum_exp_far_below_zero_is_not_undefined(seed: int) -> None:
    """At random points where both exps underflow: mpmath says f is finite there, and
    gradcalc says float64 cannot compute it, naming the exp -- never that f is undefined."""
    for x, y in _random_points(seed):
        assert mpmath.isfinite(_lse(x, y)) and np.exp(x) == 0.0 == np.exp(y)
        result = grad("log(exp(x) + exp(y))", at={"x": x, "y": y}, strict=False)
        (found,) = result.singularities
        line = found.describe(result.points, "f")
        assert "undefined" not in line and "cannot be computed in float64" in line, line
        assert "underflows float64 to 0" in line and found.underflow in ("exp(x)", "exp(y)")
        assert result.reason(0) is not None and "undefined" not in result.reason(0)


@pytest.mark.parametrize("seed", range(3))
def test_log_sum_exp_where_float64_reaches_is_mpmaths(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(8):
        x, y = -rng.uniform(0, 700), -rng.uniform(0, 700)
        result = grad("log(exp(x) + exp(y))", at={"x": x, "y": y}, strict=False)
        assert not result.singularities
        ex, ey = mpmath.exp(mpmath.mpf(x)), mpmath.exp(mpmath.mpf(y))
        dx = ex / (ex + ey)  # d/dx log(e^x + e^y), by hand
        assert float(result.value) == pytest.approx(float(_lse(x, y)), rel=1e-12)
        assert float(result.gradient["x"]) == pytest.approx(float(dx), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize(
    ("text", "at", "underflow"),
    [
        ("log(exp(x)*5)", {"x": -1000.0}, "exp(x)"),
        ("log(x^2)", {"x": 1e-200}, "x**2"),  # 1e-400: a product of nonzero factors
        ("log(sigmoid(x))", {"x": -1000.0}, "sigmoid(x)"),
        ("1/exp(x)", {"x": -1000.0}, "exp(x)"),
    ],
)
def test_a_zero_made_by_underflow_is_named(text: str, at: dict, underflow: str) -> None:
    (found,) = grad(text, at=at, strict=False).singularities
    assert found.underflow == underflow and "underflows float64 to 0" in found.reason


@pytest.mark.parametrize(
    ("text", "at"),
    [("log(x)", {"x": 0.0}), ("1/(x - x)", {"x": 3.0}), ("log(exp(x) - 1)", {"x": 0.0})],
)
def test_a_true_zero_is_still_undefined(text: str, at: dict) -> None:
    result = grad(text, at=at, strict=False, check=False)
    (found,) = result.singularities
    assert not found.underflow
    assert "is undefined at" in found.describe(result.points, "f")


def test_points_of_both_kinds_are_told_apart() -> None:
    """log(x*exp(y)): at (0, 0) x is 0 (undefined), at (1, -1000) exp(y) underflows: one
    problem, whose reason says which points are only not computable."""
    at = {"x": [0.0, 1.0, 2.0], "y": [0.0, -1000.0, 1.0]}
    (found,) = grad("log(x*exp(y))", at=at, strict=False).singularities
    assert list(found.points) == [0, 1] and not found.underflow
    assert "at 1 of these points only because exp(y) underflows float64" in found.reason


@pytest.mark.parametrize("seed", range(2))
def test_a_replayed_batch_tells_underflow_too(seed: int) -> None:
    """Many points (replayed; the flagged ones recorded again): each far-negative point is
    not computable, and every other point's value is mpmath's."""
    rng = random.Random(seed)
    xs = [rng.choice([-rng.uniform(746, 5000), -rng.uniform(0, 700)]) for _ in range(300)]
    ys = [-rng.uniform(746, 5000) if x < -745 else -rng.uniform(0, 700) for x in xs]
    result = grad("log(exp(x) + exp(y))", at={"x": xs, "y": ys}, strict=False)
    (found,) = result.singularities
    assert found.underflow and sorted(found.points) == [k for k, x in enumerate(xs) if x < -745]
    for k, (x, y) in enumerate(zip(xs, ys)):
        if x >= -745:
            assert result.value[k] == pytest.approx(float(_lse(x, y)), rel=1e-12)


def test_the_command_line_says_it_underflows(cli) -> None:
    args = ["grad", "log(exp(x)+exp(y))", "--at", "x=-1000,y=-1000", "--format", "plain"]
    result = cli(*args)
    assert result.exit_code == ExitCode.UNDEFINED
    assert "is undefined" not in result.stderr
    assert "cannot be computed in float64" in result.stderr and "exp(x) underflows" in result.stderr
