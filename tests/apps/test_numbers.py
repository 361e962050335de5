"""A number a student wrote, judged against the derivative: exactly when written exactly,
never a pass within a tolerance for an exact number that is off (independent truth: Python's
integers and fractions)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import sympy as sp

from gradcalc.apps.check.check import check_expect
from gradcalc.apps.check.numbers import compare_number, is_zero, written_exactly


def _polynomial(rng: random.Random) -> tuple[str, list[tuple[int, int]]]:
    terms = [(rng.choice([-1, 1]) * rng.randint(1, 10**9), rng.randint(0, 4)) for _ in range(3)]
    return " + ".join(f"({c})*x^{p}" for c, p in terms), terms


@pytest.mark.parametrize("seed", range(8))
def test_exact_answers_off_by_a_little_are_wrong_however_large_the_value(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(6):
        text, terms = _polynomial(rng)
        x = rng.choice([1000, -999, 10**4, 7])
        truth = sum(c * p * x ** (p - 1) for c, p in terms if p)  # Python integers: exact
        right = check_expect(text, [f"x={x}"], [str(truth)])
        assert right[0].verdict == "correct" and right[0].detail == "exactly"
        off = rng.choice([1, -1, 2, -3])
        wrong = check_expect(text, [f"x={x}"], [str(truth + off)])[0]
        assert wrong.verdict == "wrong" and wrong.evidence == "exact", (text, x, off)


def test_a_fraction_and_a_constant_off_by_10_to_the_minus_11_are_wrong() -> None:
    # d/dx x^3/9 = x^2/3; at x = 1: 1/3
    assert check_expect("x^3/9", ["x=1"], ["1/3"])[0].verdict == "correct"
    assert check_expect("x^3/9", ["x=1"], ["1/3 + 10^-11"])[0].verdict == "wrong"
    # d/dx 20 e^x at 100 is 20 e^100: 1 more is wrong, though within any rtol
    (verdict,) = check_expect("20 e^x", ["x=100"], ["20e^100 + 1"])
    assert verdict.verdict == "wrong" and verdict.detail == "yours is 1 too large, exactly"


def test_a_decimal_is_an_approximation_judged_within_the_tolerance() -> None:
    third = f"{float(Fraction(1, 3)):.12f}"
    assert check_expect("x^3/9", ["x=1"], [third])[0].verdict == "correct"
    assert check_expect("x^3/9", ["x=1"], ["0.333"])[0].verdict == "wrong"
    assert check_expect("x^4", ["x=1000"], ["4.000000001e9"])[0].verdict == "correct"


def test_an_exact_answer_sympy_cannot_separate_from_the_truth_is_undecided() -> None:
    # e^-200 is not 0, but differs from it by less than 60 digits resolve and sympy cannot
    # simplify it to 0 either: not a pass within the tolerance, not a guess
    verdict, why, _ = compare_number("e^-200", 0.0, 0.0, sp.Integer(0), 1e-9, 1e-12)
    assert verdict == "could not decide" and "compare with 0" in why


def test_is_zero_proves_and_disproves() -> None:
    assert is_zero(sp.sin(sp.pi / 6) - sp.Rational(1, 2)) is True
    assert is_zero(sp.sqrt(2) - sp.Rational(141421356237, 10**11)) is False
    assert is_zero(sp.exp(-200)) is None


@pytest.mark.parametrize(
    "text, exact",
    [
        ("4000000001", True),
        ("sqrt(3)/6", True),
        ("2e^3", True),
        ("pi/2", True),
        ("0.5", False),
        (".5", False),
        ("1e-3", False),
        ("2E6", False),
        ("3.", False),
    ],
)
def test_written_exactly(text: str, exact: bool) -> None:
    assert written_exactly(text) is exact
