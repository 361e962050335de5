"""symbolic.crosscheck.values: the check's tolerance rule against hand-worked cases and
Python's exact fractions, and sympy's values at high precision against mpmath at 50 digits."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

from gradcalc.symbolic.crosscheck.values import (
    RTOL,
    SAMPLE,
    TINY,
    ZERO_ATOL,
    agrees,
    at_high_precision,
    at_nearest_floats,
    high_precision,
    precise_values,
    sample_points,
)

x = sp.Symbol("x", real=True)


def test_the_rule_is_relative_to_the_truth_with_slack_only_for_zero_and_subnormals() -> None:
    truth = np.array([-7.905694150420942e-24, 5e-17, 0.0, 0.0, 1e-310, 1.0])
    tape = np.array([-6.617444900424222e-24, 0.0, 6.1e-17, 2e-12, 0.0, 1.0 + 2e-7])
    assert agrees(tape, truth).tolist() == [False, False, True, False, True, False]
    constants = {"zero": ZERO_ATOL, "tiny": TINY, "rtol": RTOL}
    assert constants == {"zero": 1e-12, "tiny": np.finfo(float).tiny, "rtol": 1e-7}


def test_generated_values_agree_exactly_when_their_fraction_is_within_rtol() -> None:
    # truth and tape as exact fractions of floats: |tape - truth| - TINY <= rtol*|truth|
    # decided in rationals, on seeded values from 1e-300 to 1e300, relative errors near rtol
    rng = np.random.default_rng(5)
    for _ in range(200):
        truth = float(rng.choice([-1, 1]) * 10.0 ** rng.uniform(-300, 300))
        tape = truth * (1 + float(rng.choice([-1, 1])) * 10.0 ** rng.uniform(-9, -5))
        beyond = abs(Fraction(tape) - Fraction(truth)) - Fraction(TINY)  # (the subnormal slack)
        within = beyond <= Fraction(RTOL) * abs(Fraction(truth))
        assert bool(agrees(tape, truth)) == within, (tape, truth)


def test_high_precision_is_mpmaths_value() -> None:
    rng = np.random.default_rng(2)
    for _ in range(6):
        a = int(rng.integers(1, 10**9))
        k = int(rng.integers(5, 14))
        form = sp.diff((1 + a * x) ** (1 / x), x)
        point = sp.Rational(1, 10**k * a)
        with mpmath.workdps(50):
            exact = mpmath.diff(lambda t, a=a: (1 + a * t) ** (1 / t), mpmath.mpf(1) / (10**k * a))
        assert high_precision(form, {x: point}) == float(exact)


def test_precise_values_evaluate_where_float64_overflows() -> None:
    y = sp.Symbol("y", real=True)
    softmax0 = sp.exp(x) / (sp.exp(x) + sp.exp(y))
    values = precise_values([sp.diff(softmax0, x), sp.diff(softmax0, y)], [x, y], [1000.0, 999.0])
    with mpmath.workdps(50):
        s = 1 / (1 + mpmath.exp(-1))
        assert values == [float(s * (1 - s)), float(-s * (1 - s))]


def test_the_derivative_at_the_nearest_float_of_a_typed_point() -> None:
    for typed in ("0.1", "1.5707963267948966", "2.675"):
        with mpmath.workdps(50):
            truth = float(mpmath.cos(mpmath.mpf(float(typed))))
        got = at_nearest_floats(sp.cos(x), {x: sp.Rational(typed)}, {x: float(typed)})
        assert got == truth
    assert at_nearest_floats(sp.cos(x), {x: sp.Rational(1, 4)}, {x: 0.25}) is None


def test_the_sample_is_spread_over_the_candidates_most_telling_first() -> None:
    # seeded masks and scores; what the sample must be, checked independently: candidates
    # only, distinct, the first and the last, each score's largest finite size, no gap
    # between neighbours in the sample wider than an even spread allows, the same each time
    rng = np.random.default_rng(9)
    for _ in range(40):
        n = int(rng.integers(1, 5000))
        mask = rng.random(n) < rng.uniform(0.05, 1.0)
        value, gradient = rng.normal(size=n) * 10.0 ** rng.integers(-5, 5, n), rng.normal(size=n)
        value[rng.random(n) < 0.1] = np.inf
        chosen = sample_points(mask, [value, gradient])
        where = np.flatnonzero(mask).tolist()
        assert chosen == sample_points(mask, [value, gradient])
        assert len(chosen) == len(set(chosen)) == min(SAMPLE, len(where))
        assert set(chosen) <= set(where)
        if len(where) <= SAMPLE:
            continue
        assert chosen[:2] == [where[0], where[-1]]
        for score in (value, gradient):
            sizes = [abs(score[k]) if np.isfinite(score[k]) else -1.0 for k in where]
            assert where[max(range(len(where)), key=sizes.__getitem__)] in chosen
        ranks = sorted(where.index(k) for k in chosen)
        widest = max(b - a for a, b in itertools.pairwise(ranks))
        assert widest <= 2 * len(where) / (SAMPLE - 4) + 1


def test_at_high_precision_is_mpmaths_value_and_leaves_out_what_is_not_real() -> None:
    rng = np.random.default_rng(4)
    for _ in range(8):
        a, c = int(rng.integers(1, 10)), int(rng.integers(1, 10**9))
        form = sp.diff(c * (sp.sqrt(x + a) - sp.sqrt(x)), x)
        points = [float(10.0 ** rng.uniform(-3, 17)) for _ in range(3)] + [-float(a) - 1.5]
        found, cut = at_high_precision({"x": form}, [{x: sp.Rational(p)} for p in points], 5.0)
        assert not cut and found[-1] == {}  # (sqrt of a negative number: not real)
        for point, values in zip(points[:-1], found):
            with mpmath.workdps(50):
                t = mpmath.mpf(point)
                truth = c * (1 / (2 * mpmath.sqrt(t + a)) - 1 / (2 * mpmath.sqrt(t)))
            assert values == {"x": float(truth)}


def test_at_high_precision_stops_where_the_requests_symbolic_budget_is_spent() -> None:
    from gradcalc.core.budget import request

    with request(symbolic=1.0) as budget:
        budget.symbolic_spent = 1.0
        assert at_high_precision({"x": sp.sin(x)}, [{x: sp.Integer(1)}], 5.0) == ([], True)


TOO_SMALL = [
    ("x + tanh(cosh(x))", "x=16", lambda x: x + mpmath.tanh(mpmath.cosh(x))),
    ("x*tanh(cosh(x))", "x=16", lambda x: x * mpmath.tanh(mpmath.cosh(x))),
    ("x*tanh(exp(exp(x)))", "x=2", lambda x: x * mpmath.tanh(mpmath.exp(mpmath.exp(x)))),
    ("x + tanh(x^x)", "x=sqrt(17)", lambda x: x + mpmath.tanh(x**x)),
]


@pytest.mark.parametrize(("expression", "at", "f"), TOO_SMALL)
def test_a_part_too_small_for_evalf_does_not_make_the_derivative_undefined(cli, expression, at, f):
    # 1 - tanh(cosh(16))^2 is about 10^-3800000: evalf cannot tell it from 0, so the exact
    # value's float was NaN, and the point was called "undefined in exact arithmetic"
    # (exit 3). The truth: mpmath at 60 digits.
    mpmath.mp.dps = 60
    point = mpmath.sqrt(17) if "sqrt" in at else mpmath.mpf(at.split("=")[1])
    truth = float(mpmath.diff(f, point))
    mpmath.mp.dps = 15
    result = cli("grad", expression, "--at", at, "--format", "json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["check"]["status"] == "agree"
    assert math.isclose(answer["gradient"]["x"], truth, rel_tol=1e-12)


def test_a_tape_zero_against_a_nonzero_truth_names_underflow_too(cli) -> None:
    # x^2 at 1e-200 is 1e-400: float64 makes it 0, and ∂/∂x of x^3*y is 3e-200; the words
    # blamed cancellation alone
    result = cli("grad", "x^3*y", "--at", "x=1e-200,y=1e200", "--format", "plain")
    assert result.exit_code == 1
    assert "or underflow: a part below 1e-308 became 0" in result.stderr
