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
        ("log(x^2)", {"x": 1e-200}, "x^2"),  # 1e-400: a product of nonzero factors
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


@pytest.mark.parametrize("seed", range(6))
def test_a_kink_made_by_underflow_is_no_kink(cli, seed: int) -> None:
    """sqrt(x^2 + y^2) at (3k, 4k)·10^-200 is smooth (gradient (0.6, 0.8), by hand), but
    x^2 underflows float64 to 0 and sqrt has an infinite slope there: exit 3, "cannot be
    differentiated in float64", naming the underflow -- never "not differentiable", and
    no one-sided slopes of a kink f does not have. At exactly 0 it is a kink."""
    rng = random.Random(seed)
    k, scale = rng.uniform(0.5, 9), 10.0 ** -rng.randint(170, 300)
    x, y = 3 * k * scale, 4 * k * scale
    done = cli("grad", "sqrt(x^2+y^2)", "--at", f"x={x!r},y={y!r}", "--format", "plain")
    assert done.exit_code == ExitCode.UNDEFINED, done.output
    assert "cannot be differentiated in float64" in done.stderr and "underflows" in done.stderr
    assert "not differentiable" not in done.stderr and "one-sided" not in done.stderr
    done = cli("grad", "sqrt(x^2+y^2)", "--at", "x=0,y=0", "--format", "plain")
    assert done.exit_code == ExitCode.UNDEFINED and "is not differentiable" in done.stderr


@pytest.mark.parametrize("x", ["190", "200", "400", "1000", "1e10", "1e300"])
def test_tanh_far_out_agrees_with_its_exact_slope(cli, x: str) -> None:
    """1 - tanh(x)^2 cancels about 0.87x digits: the check's exact value is sech(x)^2 to
    its own digits (mpmath at 50 digits, sech needs no cancellation) -- 0 in float64 past
    x = 373 -- so the tape's value passes (it failed against a value evalf made up), and
    --expect of that value is correct, a rounding of it wrong with the right derivative."""
    with mpmath.workdps(50):
        truth = float(mpmath.sech(mpmath.mpf(x)) ** 2)
    done = cli("grad", "tanh(x)", "--at", f"x={x}", "--format", "plain")
    assert done.exit_code == 0 and float(done.stdout) == pytest.approx(truth, rel=1e-12)

    def expect(*given: str) -> tuple[int, str]:
        done = cli("check", "tanh(x)", "--at", f"x={x}", "--expect", *given, "--format", "plain")
        return done.exit_code, done.stdout.split("\t")[1]

    if truth:  # its float, then a rounding of it
        assert expect(repr(truth)) == (0, "correct")
        rounded = cli(
            "check", "tanh(x)", "--at", f"x={x}", "--expect", f"{truth:.3g}", "--format", "plain"
        )
        assert rounded.exit_code == 1 and f"the derivative is {truth:.10g}" in rounded.stdout
    else:  # 0 is the float nearest a positive derivative: no tolerance makes it "correct"
        # unless sympy can bound the exact value, nor is it called wrong within an atol
        assert expect("0")[1] != "correct"
        assert expect("0", "--atol", "1e-300")[1] != "wrong"


def test_the_undefined_value_is_named_before_the_nan_adjoints_it_causes(cli) -> None:
    # at x = -1.7, ln(x) is undefined (record 2); the backward pass then carries NaN through
    # x - x (record 1), which was named first
    result = cli("grad", "(x-x)/(3*log(x))", "--at", "x=-1.7", "--format", "plain")
    assert result.exit_code == 3
    first = result.stderr.splitlines()[0]
    assert "ln(x) is undefined at x=-1.7: ln is undefined for negative numbers" in first
