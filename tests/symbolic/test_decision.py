"""symbolic.decide.decision: a witness's texts say the exact point and values, short."""

from __future__ import annotations

import random
import re
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from gradcalc.symbolic.decide.decision import (
    NOT_EQUIVALENT,
    apart,
    exact_witness,
    number_text,
    point_text,
    witness,
)


@pytest.mark.parametrize(("p", "q"), [(2111, 1000), (-1, 20), (7, 1), (3, 8), (-123456789, 2**20)])
def test_a_point_with_a_short_decimal_is_written_as_that_decimal_exactly(p: int, q: int) -> None:
    text = point_text(sp.Rational(p, q))
    assert "/" not in text
    assert Fraction(text) == Fraction(p, q)  # read back exactly, not rounded


def test_a_point_without_a_short_decimal_is_a_fraction() -> None:
    assert point_text(sp.Rational(-2, 3)) == "-2/3"


def test_a_long_exact_value_is_shortened_to_12_digits() -> None:
    value = sp.Rational(10**30 + 1, 3)
    assert len(point_text(value)) > 24
    assert float(number_text(value)) == pytest.approx(float(value), rel=1e-11)


def test_two_close_values_are_shown_with_enough_digits_to_differ() -> None:
    yours, correct = apart(1 + 1e-12, 1.0, 1e-12)
    assert yours != correct and float(yours) - float(correct) == pytest.approx(1e-12, rel=1e-3)


def test_a_witness_names_the_point_and_the_evidence() -> None:
    decision = witness({"x": sp.Rational(1, 4), "y": sp.Integer(2)}, "3", "2", "exact")
    assert decision.verdict == NOT_EQUIVALENT and decision.evidence == "exact"
    assert decision.detail == "differs at x=0.25, y=2: yours 3, correct 2 (exact)"
    assert witness({}, "3", "2", "high-precision evaluation").evidence == "high precision"


@pytest.mark.parametrize("seed", range(8))
def test_an_exact_witness_never_shows_two_values_alike(seed: int) -> None:
    rng = random.Random(seed)
    correct = sp.Rational(rng.randint(-(10**9), 10**9), rng.randint(1, 10**6))
    gap = sp.Rational(rng.choice([-1, 1]), 10 ** rng.randint(1, 40))
    detail = exact_witness({"x": sp.Integer(1)}, correct + gap, correct).detail
    found = re.fullmatch(r"differs at x=1: yours (\S+), correct (.+) \(exact\)", detail)
    assert found is not None, detail
    yours, theirs = found[1], found[2].split(", yours − correct = ")
    truth = Fraction(gap.p, gap.q)  # Python fractions: the true difference
    if len(theirs) == 2:  # alike to 10 digits: the difference itself is shown
        assert float(Fraction(theirs[1])) == pytest.approx(float(truth), rel=1e-9)
    else:
        assert yours != theirs[0]
        shown = Fraction(yours) - Fraction(theirs[0])
        assert float(shown) == pytest.approx(float(truth), rel=0.05), detail


def test_a_gap_of_0_is_shown_without_dividing_by_it() -> None:
    # two roundings alike (3.00001e-320 and 3e-320 are one float64): no ZeroDivisionError,
    # both shown to 20 digits -- the float's exact binary value, by Python's Decimal
    yours, correct = apart(3e-320, 3e-320, 0.0)
    assert yours == correct == f"{Decimal.from_float(3e-320):.20g}"


@pytest.mark.parametrize("seed", range(6))
def test_values_below_float64_are_told_apart_at_their_own_precision(seed: int) -> None:
    # exact subnormal-sized values, 60-digit mpmath numbers made outside any workdps: the
    # texts differ by the true difference (Python fractions), not by float64's rounding
    rng = random.Random(seed)
    correct = Fraction(rng.randint(1, 10**9), 10 ** rng.randint(310, 330))
    truth = correct * Fraction(1, 10 ** rng.randint(10, 16))
    with mpmath.workdps(60):
        sides = [mpmath.mpf(v.numerator) / v.denominator for v in (correct + truth, correct, truth)]
    yours, theirs = apart(*sides)
    assert ", yours − correct = " not in theirs
    shown = Fraction(yours) - Fraction(theirs)
    assert float(shown / truth) == pytest.approx(1.0, rel=0.05), (yours, theirs)
