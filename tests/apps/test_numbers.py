"""A number a student wrote, judged against the derivative: exactly when written exactly,
never a pass within a tolerance for an exact number that is off (independent truth: Python's
integers and fractions)."""

from __future__ import annotations

import json
import random
import re
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import Any

import mpmath
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


def test_an_exact_answer_tinier_than_float64_can_tell_is_still_judged_exactly() -> None:
    # e^-200 is 1.38e-87: a strict 60-digit evaluation proves it is not 0, so written
    # exactly it is wrong for a derivative of 0, not undecided -- unless the user's own
    # --atol allows it (rtol, always on, never does)
    verdict, why, evidence = compare_number("e^-200", 0.0, 0.0, sp.Integer(0), 1e-9)
    assert (verdict, evidence) == ("wrong", "exact")
    assert float(why.split("yours is ")[1].split(",")[0]) == pytest.approx(float(sp.exp(-200)))
    allowed = compare_number("e^-200", 0.0, 0.0, sp.Integer(0), 1e-9, 1e-12)
    assert allowed[:2] == ("correct", "within atol 1e-12")
    assert compare_number("e^-20", 0.0, 0.0, sp.Integer(0), 1e-9, 1e-12)[0] == "wrong"


def test_a_near_miss_of_a_tiny_derivative_says_no_tolerance_the_user_did_not_give() -> None:
    # -e^-100 against 0: proven apart (it used to be 'equal within atol 1e-12', no --atol)
    (verdict,) = check_expect("exp(-x)", ["x=100"], ["0"])
    assert verdict.verdict == "wrong" and "atol" not in verdict.detail


def test_is_zero_proves_and_disproves() -> None:
    assert is_zero(sp.sin(sp.pi / 6) - sp.Rational(1, 2)) is True
    assert is_zero(sp.sqrt(2) - sp.Rational(141421356237, 10**11)) is False
    assert is_zero(sp.exp(-200)) is False  # 1.38e-87, to 60 digits evalf vouches for
    tiny = 61 * sp.exp(-900) - 60 * sp.exp(-900) - sp.exp(-900)
    assert is_zero(tiny) is True


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


# --- subnormal values: judged and shown from the exact values, never float64's -------------


def _ten_digits(text: str, truth: Fraction) -> bool:
    """``text`` is ``truth`` to 10 significant digits (half a unit in the 10th digit)."""
    return abs(Fraction(text) - truth) <= abs(truth) * Fraction(5, 10**10)


@pytest.mark.parametrize(
    "answer", ["3.00001e-320", "3.0001e-320", "3.00000001e-320", "2.999966602e-320"]
)
def test_answers_float64_rounds_like_a_subnormal_derivative_are_judged_exactly(
    answer: str,
) -> None:
    # d/dx x^3 at 10^-160 is 3*10^-320 exactly; each answer is one float64 with it
    truth, yours = Fraction(3, 10**320), Fraction(answer)
    assert float(yours) == float(truth) and yours != truth  # (the case is what it says)
    (verdict,) = check_expect("x^3", ["x=1e-160"], [answer])
    assert verdict.verdict == "wrong" and verdict.evidence == "tolerance"
    assert verdict.correct == "3e-320"
    assert verdict.detail == f"yours is {answer}, the derivative is 3e-320"


@pytest.mark.parametrize(
    ("expression", "at", "answer", "detail"),
    [
        ("x^3", "x=1e-160", "0", "yours is 0, the derivative is 3e-320"),
        ("x^3", "x=1e-160", "4e-320", "yours is 4e-320, the derivative is 3e-320"),
        ("x", "x=1", "1.00001e-320", "yours is 1.00001e-320, the derivative is 1"),
        # 3*10^-320 + 10^-340 is 10^-340 too large (a float difference underflows to 0)
        ("x^3", "x=1e-160", "3*(10^-160)^2+(10^-170)^2", "yours is 1e-340 too large, exactly"),
    ],
)
def test_subnormal_values_are_shown_as_their_exact_values(
    expression: str, at: str, answer: str, detail: str
) -> None:
    (verdict,) = check_expect(expression, [at], [answer])
    assert (verdict.verdict, verdict.detail) == ("wrong", detail)


def _subnormal_case(rng: random.Random) -> tuple[str, str, int, Fraction, int]:
    """c*x^k + d*y at x = 10^-m, y = 2, its x-partial c*k*10^(-m(k-1)) between 1e-323 and
    1e-308 (Python fractions): the expression, the point, c*k, the partial, m(k-1)."""
    while True:
        c, d = (rng.choice([-1, 1]) * rng.randint(1, 10**9) for _ in range(2))
        k, m = rng.randint(3, 7), rng.randint(45, 165)
        truth = Fraction(c * k, 10 ** (m * (k - 1)))
        if Fraction(1, 10**323) < abs(truth) < Fraction(1, 10**308):
            return f"({c})*x^{k} + ({d})*y", f"x=1e-{m},y=2", c * k, truth, m * (k - 1)


@pytest.mark.parametrize("seed", range(8))
def test_generated_subnormal_derivatives_are_judged_by_fractions(seed: int) -> None:
    rng = random.Random(seed)
    expression, at, numerator, truth, places = _subnormal_case(rng)
    d = int(expression.split("(")[-1].split(")")[0])
    answers = {
        "exact": f"{numerator}e-{places}",
        "off by 1e-5": f"{numerator * 100001}e-{places + 5}",
        "off by 1e-12": f"{numerator * (10**12 + 1)}e-{places + 12}",
        "zero": "0",
    }
    for name, answer in answers.items():
        yours = Fraction(answer)
        expected = "correct" if abs(yours - truth) <= abs(truth) * Fraction(1, 10**9) else "wrong"
        x, y = check_expect(expression, [at], [answer, str(d)])
        assert y.verdict == "correct" and y.detail == "exactly"
        assert x.verdict == expected, (name, expression, at, answer, x.detail)
        assert _ten_digits(x.correct, truth), x.correct
        if expected == "wrong":
            found = re.fullmatch(r"yours is (\S+), the derivative is (\S+)", x.detail)
            assert found is not None, x.detail
            assert _ten_digits(found[1], yours) and _ten_digits(found[2], truth), x.detail


def test_a_subnormal_float_without_an_exact_value_passes_only_within_atol() -> None:
    # 3.00001e-320 and 3e-320 are one float64: a float that coarse cannot judge rtol 1e-9
    judged, why, _ = compare_number("3.00001e-320", 3e-320, 3e-320, None, 1e-9)
    assert judged == "could not decide" and "fewer digits than rtol" in why
    assert compare_number("3.00001e-320", 3e-320, 3e-320, None, 1e-9, 1e-300)[0] == "correct"
    assert compare_number("1e-3", 1e-3, 3e-320, None, 1e-9)[0] == "wrong"


# --- a decimal that is the derivative rounded to the digits it has ------------------------


@pytest.mark.parametrize(
    ("expression", "at", "answer", "hint"),
    [  # by hand: 1/3, 2/3, sqrt(3)/6 = 0.28867513459..., -1/3
        ("x^3/9", "x=1", "0.3333", "rounded to 4 significant digits: --rtol 5e-4"),
        ("x^3/9", "x=2", "1.333", "rounded to 4 significant digits: --rtol 5e-4"),
        ("x^2/3", "x=1", "0.6666", "truncated to 4 significant digits: --rtol 1e-3"),
        ("sqrt(x)", "x=3", "0.28867513", "rounded to 8 significant digits: --rtol 5e-8"),
        ("-x^3/9", "x=1", "-0.33333", "rounded to 5 significant digits: --rtol 5e-5"),
    ],
)
def test_a_rounded_answer_is_wrong_and_says_how_to_accept_it(
    expression: str, at: str, answer: str, hint: str
) -> None:
    (verdict,) = check_expect(expression, [at], [answer])
    assert verdict.verdict == "wrong" and hint in verdict.detail, verdict.detail
    assert verdict.detail.startswith(f"yours is {answer}, the derivative is ")
    rtol = float(hint.split("--rtol ")[1])
    assert check_expect(expression, [at], [answer], rtol=rtol)[0].verdict == "correct"


@pytest.mark.parametrize("answer", ["0.3334", "0.3332", "0.3", "1/3 + 1/10^4", "3333e-3"])
def test_an_answer_that_is_no_rounding_gets_no_hint(answer: str) -> None:
    # 1/3 to 4 digits is 0.3333; 0.3 has 1 digit (no hint below 2); an exact answer is
    # judged exactly; 3333e-3 is 10 times too large
    (verdict,) = check_expect("x^3/9", ["x=1"], [answer])
    assert verdict.verdict == "wrong" and "significant digits" not in verdict.detail


def _derivative_at_a_rational_point(rng: random.Random) -> tuple[str, str, Any]:
    """A function, a rational point and its derivative there, worked by hand: (a x^3 + b) /
    (c x + d) by the quotient rule in Python fractions, or sqrt(a x + b), a / (2 sqrt(a x
    + b)), to 60 digits by mpmath; with a term free of x."""
    a, b, c, d, free = (rng.choice([-1, 1]) * rng.randint(1, 10**9) for _ in range(5))
    x = Fraction(rng.randint(-50, 50), rng.randint(1, 20))
    at = f"x={x.numerator}/{x.denominator}"
    if rng.random() < 0.5 and c * x + d != 0:
        top, bottom = a * x**3 + b, c * x + d
        truth = (3 * a * x**2 * bottom - c * top) / bottom**2
        return f"(({a})*x^3 + ({b}))/(({c})*x + ({d})) + ({free})", at, truth
    a, b = abs(a), abs(b)  # a x + b > 0 for x >= 0
    x = abs(x)
    with mpmath.workdps(60):
        inside = mpmath.mpf(a * x.numerator + b * x.denominator) / x.denominator
        truth = Decimal(mpmath.nstr(a / (2 * mpmath.sqrt(inside)), 60))
    return f"sqrt(({a})*x + ({b})) + ({free})", f"x={x.numerator}/{x.denominator}", truth


def _rounded_decimal(truth: Any, digits: int, rounding: str = ROUND_HALF_EVEN) -> Decimal:
    with localcontext() as context:
        context.prec, context.rounding = digits, rounding
        if isinstance(truth, Fraction):
            return Decimal(truth.numerator) / Decimal(truth.denominator)
        return context.plus(truth)


@pytest.mark.parametrize("seed", range(10))
def test_generated_roundings_are_hinted_and_pass_with_the_hinted_rtol(seed: int) -> None:
    rng = random.Random(seed)
    expression, at, truth = _derivative_at_a_rational_point(rng)
    exact = Fraction(truth) if isinstance(truth, Fraction) else Fraction(str(truth))
    for digits in range(3, 9):
        answer = _rounded_decimal(truth, digits)
        gap = abs(Fraction(answer) - exact)
        text = f"{answer:e}"  # a decimal literal: 337 would be an integer, judged exactly
        (verdict,) = check_expect(expression, [at], [text])
        if gap <= abs(exact) * Fraction(1, 10**9):  # (a rounding that happens to be close)
            assert verdict.verdict == "correct", (expression, at, answer)
            continue
        assert verdict.verdict == "wrong", (expression, at, answer)
        hint = f"rounded to {digits} significant digits: --rtol 5e-{digits} accepts"
        assert hint in verdict.detail, (expression, at, answer, verdict.detail)
        assert gap <= abs(exact) * 5 * Fraction(1, 10**digits)  # (the rtol is enough)
        again = check_expect(expression, [at], [text], rtol=5 * 10.0**-digits)
        assert again[0].verdict == "correct", (expression, at, answer, again[0].detail)
        cut = _rounded_decimal(truth, digits, ROUND_DOWN)
        if cut != answer:  # truncated, not rounded: hinted with its own rtol, 10^(1-n)
            (truncated,) = check_expect(expression, [at], [f"{cut:e}"])
            assert f"truncated to {digits} significant digits" in truncated.detail
            rtol = 10.0 ** (1 - digits)
            assert check_expect(expression, [at], [f"{cut:e}"], rtol=rtol)[0].ok is True
        # off by one in the last digit, away from the value: neither rounding nor truncation
        unit = Decimal((0, (1,), answer.as_tuple().exponent))
        off = answer + unit if answer > exact else answer - unit
        (wrong,) = check_expect(expression, [at], [f"{off:e}"])
        assert wrong.verdict == "wrong" and "significant digits" not in wrong.detail, (
            expression,
            at,
            off,
            wrong.detail,
        )


@pytest.mark.parametrize("output", ["table", "plain", "csv", "json"])
def test_the_command_exits_1_and_every_format_carries_the_values_and_the_hint(
    cli, output: str
) -> None:
    subnormal = cli(
        "check", "x^3", "--at", "x=1e-160", "--expect", "3.00001e-320", "--format", output
    )
    assert subnormal.exit_code == 1, subnormal.stderr  # (was 70: ZeroDivisionError)
    assert "3.00001e-320" in subnormal.stdout and "3e-320" in subnormal.stdout
    rounded = cli("check", "x^3/9", "--at", "x=1", "--expect", "0.3333", "--format", output)
    assert rounded.exit_code == 1
    text = " ".join(rounded.stdout.replace("│", " ").split())  # (a table's wrapped cells)
    if output == "json":
        text = json.loads(rounded.stdout)["verdicts"][0]["detail"]
    assert "--rtol 5e-4" in text and "4 significant" in text, rounded.stdout


def test_numbers_past_float64(monkeypatch: pytest.MonkeyPatch) -> None:
    """A real number past float64 is read (infinite as a float) and judged exactly; when
    sympy cannot compare, the verdict is never a guess from infinite floats."""
    import math

    import sympy as sp

    from gradcalc.apps.check import numbers
    from gradcalc.apps.check.numbers import answer_value, compare_number
    from gradcalc.core.errors import InputError

    assert answer_value("-867*e^4913") == -math.inf
    assert answer_value("e^1000/e^999") == float(sp.E)
    for bad in ("1e400", "log(-e^999)", "e^1000*x"):
        with pytest.raises(InputError):
            answer_value(bad)
    truth = -867 * sp.exp(4913)  # d/dx e^(-x^3) at -17, by hand
    assert compare_number("-3*289*e^4913", -math.inf, -math.inf, truth, 1e-9)[0] == "correct"
    assert compare_number("-3*288*e^4913", -math.inf, -math.inf, truth, 1e-9)[0] == "wrong"
    assert compare_number("-8.67e2", -867.0, -math.inf, truth, 1e-9)[0] == "wrong"
    monkeypatch.setattr(numbers, "is_zero", lambda value: None)  # sympy out of time
    monkeypatch.setattr(numbers, "_gap_and_size", lambda *args: (math.nan, None))
    assert compare_number("1e300", 1e300, -math.inf, truth, 1e-9)[0] == "could not decide"


@pytest.mark.parametrize(
    ("expect", "verdict"),
    [
        ("1000000000", "correct"),  # the tape's own value (sympy has none at the kink)
        ("1000000001", "could not decide"),  # within rtol 1e-9, but written exactly
        ("5000000001/5", "could not decide"),  # 1000000000.2
        ("1000000000.5", "correct"),  # a decimal: judged within the tolerance
        ("1000002000", "wrong"),
    ],
)
def test_an_exact_number_with_no_exact_truth_passes_only_as_the_tapes_value(expect, verdict):
    # d/dx (|x|^3 + 10^9 x) at 0 is 10^9 (|x|^3 is flat there); sympy's check gives no exact
    # value at abs's kink, so the tape's float decides what it can
    (result,) = check_expect("abs(x)^3 + 1000000000x", ["x=0"], [expect])
    assert result.verdict == verdict, result.detail


@pytest.mark.parametrize("exponent", [10**7, -(10**7), 10**8 + 1])
def test_a_value_beyond_decimals_default_exponents_is_written_not_a_crash(exponent: int) -> None:
    # exp(10^7) is 6.6e+4342944: decimal's default context overflowed (exit 70), and
    # exp(-10^7) was written -0e-4342945; the truth here: mpmath at 30 digits
    from gradcalc.apps.check.numbers import exact_short

    mpmath.mp.dps = 30
    truth = mpmath.nstr(mpmath.exp(exponent), 10, min_fixed=1, max_fixed=0)
    mpmath.mp.dps = 15
    mantissa, _, power = truth.partition("e")
    written = exact_short(sp.exp(sp.Integer(exponent)))
    assert written == f"{mantissa}e{int(power):+03d}", (written, truth)


def test_check_against_a_derivative_beyond_decimals_default_exponents(cli) -> None:
    result = cli("check", "exp(x)", "--at", "x=10000000", "--expect", "1", "--format", "plain")
    assert result.exit_code == 1, result.output
    assert "the derivative is 6.592232535e+4342944" in result.stdout
