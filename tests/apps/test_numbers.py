"""A number a student wrote, judged against the derivative: exactly when written exactly,
never a pass within a tolerance for an exact number that is off (independent truth: Python's
integers and fractions)."""

from __future__ import annotations

import random
import re
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


def _tiny_derivative(rng: random.Random) -> tuple[str, str, sp.Expr]:
    """A function, a point and its derivative there (sympy, exact), of size 1e-13..1e-300
    and either sign: c*x^n at x = 10^-m, or c*exp(-k*x) at a whole x."""
    c = rng.choice([-1, 1]) * rng.randint(1, 10**9)
    target = rng.randint(13, 300)  # the derivative's size is about 10^-target
    x = sp.Symbol("x")
    if rng.random() < 0.5:
        n = rng.randint(2, 6)
        m = max(1, round((target + len(str(abs(c * n)))) / (n - 1)))
        expr, point, at = c * x**n, sp.Rational(1, 10**m), f"x=1/10^{m}"
    else:
        k = rng.randint(1, 9)
        whole = max(1, round(target * 2.302585 / k))
        expr, point, at = c * sp.exp(-k * x), sp.Integer(whole), f"x={whole}"
    text = str(expr).replace("**", "^")
    return text, at, sp.diff(expr, x).subs(x, point)


@pytest.mark.parametrize("seed", range(10))
def test_a_tiny_derivative_is_judged_relative_to_its_exact_value(seed: int) -> None:
    rng = random.Random(seed)
    text, at, truth = _tiny_derivative(rng)
    assert 1e-301 < abs(float(truth)) < 1e-12  # (the cases are what they say)
    digits = sp.N(truth, 17)
    right = check_expect(text, [at], [str(digits)])[0]
    assert right.verdict == "correct", (text, at)
    assert right.detail in ("exactly", "within rtol 1e-09")  # (17 digits may be exact)
    rounded = check_expect(text, [at], [str(sp.N(truth, 12))])[0]
    assert rounded.verdict == "correct", (text, at)
    for wrong in (-digits, 10 * digits, digits / 10, sp.Integer(0)):
        decimal = f"{float(wrong)!r}" if wrong else "0.0"
        verdict = check_expect(text, [at], [decimal])[0]
        assert verdict.verdict == "wrong", (text, at, decimal, verdict.detail)
        if wrong:  # both values shown, and they differ
            assert "yours is" in verdict.detail and "the derivative is" in verdict.detail


def test_the_issues_small_derivatives_are_wrong_when_off() -> None:
    # by hand: d/dx exp(-x) at 30 is -exp(-30) = -9.3576e-14; d/dx x^10 at 1/100 is 10^-17;
    # d/dx x^2 at 10^-200 is 2*10^-200; d/dx exp(-x^2) at 6 is -12 exp(-36) = -2.78e-15
    cases = [
        ("exp(-x)", "x=30", "9.357622968840175e-14", "wrong"),
        ("exp(-x)", "x=30", "-9.357622968840175e-14", "correct"),
        ("x^10", "x=0.01", "1e-16", "wrong"),
        ("x^10", "x=1/100", "-1e-17", "wrong"),
        ("x^10", "x=1/100", "1e-17", "correct"),
        ("x^2", "x=1e-200", "3e-200", "wrong"),
        ("x^2", "x=1e-200", "2.0e-200", "correct"),
        ("exp(-x^2)", "x=6", "0.0", "wrong"),
        ("exp(-x^2)", "x=6", "0", "wrong"),
    ]
    for expression, at, answer, expected in cases:
        (verdict,) = check_expect(expression, [at], [answer])
        assert verdict.verdict == expected, (expression, at, answer, verdict.detail)


@pytest.mark.parametrize("zero", ["0", "0.0", "0e5", "-0.0"])
def test_0_and_0_point_0_agree_for_a_derivative_that_is_exactly_0(zero: str) -> None:
    # d/dx sin(x) at pi/2 is cos(pi/2) = 0 exactly (the tape's float is 6.1e-17)
    assert check_expect("sin(x)", ["x=pi/2"], [zero])[0].detail == "exactly"
    assert check_expect("x^2", ["x=0"], [zero])[0].detail == "exactly"


def test_near_an_exact_0_only_an_absolute_tolerance_the_user_gives_passes() -> None:
    (float_value,) = check_expect("sin(x)", ["x=pi/2"], ["6.123233995736766e-17"])
    assert float_value.verdict == "wrong" and "exactly 0" in float_value.detail
    assert "--atol" in float_value.detail
    (allowed,) = check_expect("sin(x)", ["x=pi/2"], ["6.123233995736766e-17"], atol=1e-12)
    assert (allowed.verdict, allowed.detail) == ("correct", "within atol 1e-12")
    (beyond,) = check_expect("sin(x)", ["x=pi/2"], ["1e-6"], atol=1e-12)
    assert beyond.verdict == "wrong"


def test_an_absolute_tolerance_names_itself_and_rtol_still_comes_first() -> None:
    # d/dx x^10 at 1/100 = 1e-17: 1e-16 is 10 times too large, within an atol of 1e-12
    (absolute,) = check_expect("x^10", ["x=1/100"], ["1e-16"], atol=1e-12)
    assert (absolute.verdict, absolute.detail) == ("correct", "within atol 1e-12")
    (relative,) = check_expect("x^10", ["x=1/100"], ["1.0000000001e-17"], atol=1e-30)
    assert relative.detail == "within rtol 1e-09"


@pytest.mark.parametrize(
    ("yours", "value", "atol", "verdict", "fragment"),
    [
        (0.0, 1e-17, None, "could not decide", "within 1e-12 of the tape's value"),
        (-1e-17, 1e-17, None, "could not decide", "give --atol"),
        (0.0, 1e-17, 1e-12, "correct", "within atol 1e-12 of the tape's value"),
        (1e-17 * (1 + 1e-12), 1e-17, None, "correct", "within rtol 1e-09 of the tape's value"),
        (1.0, 1e-17, None, "wrong", "yours is 1, the derivative is 1e-17"),
        (3e-12, 1e-17, None, "wrong", "yours is 3e-12"),
    ],
)
def test_without_an_exact_value_a_pass_through_the_absolute_band_is_undecided(
    yours, value, atol, verdict, fragment
) -> None:
    judged, why, _ = compare_number(repr(yours), yours, value, None, 1e-9, atol)
    assert judged == verdict and fragment in why, why


def test_a_wrong_decimal_close_to_the_value_is_shown_with_digits_that_differ() -> None:
    # d/dx x^3/9 at 1 is 1/3; 0.33333333334 is off by 6.7e-12, beyond rtol 1e-12
    (verdict,) = check_expect("x^3/9", ["x=1"], ["0.33333333334"], rtol=1e-12)
    yours, correct = re.findall(r"-?\d\.\d+(?:e-?\d+)?", verdict.detail)
    assert yours != correct
    assert float(yours) - float(correct) == pytest.approx(0.33333333334 - 1 / 3, rel=1e-2)
