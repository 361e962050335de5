"""Judge a number a student wrote against the derivative's value at a point.

A number written exactly (``4000000001``, ``sqrt(3)/6``, ``20e^100 + 1``: no decimal point,
no exponent) is decided exactly whenever sympy has the derivative's exact value: equal is
proved, different is proved by evaluating the difference to 60 digits, and anything else is
undecided -- never a pass within a tolerance, which would accept ``4000000001`` for
4000000000. A decimal (``0.3333333333``) is an approximation by its writer's own choice: it
is correct when exactly equal, or within ``rtol`` of the exact value (relative, however
small the value: ``9.36e-14`` is not ``-9.36e-14``), or within ``atol`` when the user gives
one. No absolute tolerance applies by default: relative to 0 nothing is close, so a decimal
other than 0 for a derivative that is exactly 0 is wrong unless ``--atol`` allows it. When
sympy has no exact value, the tape's float is the reference: within ``rtol`` of it is
correct, and within :data:`UNSURE` of it but not within ``rtol`` is undecided (the float
may be mostly rounding there). Exact values are judged and shown, never their float64
roundings (3.00001e-320 and 3e-320 are one subnormal float64). A wrong decimal that is the
exact value rounded or truncated to the significant digits it was written with is told so,
with the ``--rtol`` that accepts it (:func:`rounding_hint`).

>>> import sympy as sp
>>> compare_number("4000000001", 4000000001.0, 4e9, sp.Integer(4000000000), 1e-9)[0]
'wrong'
>>> compare_number("0.3333333333", 0.3333333333, 1 / 3, sp.Rational(1, 3), 1e-9)[:2]
('correct', 'within rtol 1e-09')
>>> compare_number("1e-16", 1e-16, 1e-17, sp.Rational(1, 10**17), 1e-9)[:2]
('wrong', 'yours is 1e-16, the derivative is 1e-17')
"""

from __future__ import annotations

import math
import re
import sys
from decimal import (
    ROUND_DOWN,
    ROUND_HALF_DOWN,
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    Decimal,
    localcontext,
)
from typing import Any

from gradcalc.core.cells import inexact_integer
from gradcalc.core.errors import GradcalcError, InputError
from gradcalc.engine.evaluate.points import constant_value
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, exact_value, time_limit
from gradcalc.symbolic.decide.decision import apart, apart_exact
from gradcalc.symbolic.decide.defined import finite_real
from gradcalc.symbolic.decide.precision import EVALF_MAX_DIGITS
from gradcalc.symbolic.translate.notation import user_text

DIGITS = 60  # digits to which a difference is evaluated
PROOF_SECONDS = 3.0
UNSURE = 1e-12  # from a value known only in float64, a difference this small decides nothing
#: An exactly written number is the tape's value (no exact one known) within this many units
#: in the float's last place.
ULPS = 4

#: A literal with a decimal point or an exponent: ``0.5``, ``.5``, ``1e-3``, ``2E6``.
_DECIMAL_LITERAL = re.compile(r"\d\.|\.\d|\d[eE][+-]?\d")
#: A number that is one decimal literal and nothing else: ``-0.3333``, ``2.50e-3``.
_ONE_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
#: How an answer of n significant digits can have been made from the exact value: the
#: ways to round a tie, then truncation; each with the rtol that accepts it, less than
#: 5*10^-n (rounding) or 10^(1-n) (truncation) relative to the value, whatever its digits.
_MADE = [
    (ROUND_HALF_UP, "rounded", "rounding", "5e-{n}"),
    (ROUND_HALF_DOWN, "rounded", "rounding", "5e-{n}"),
    (ROUND_DOWN, "truncated", "truncating", "1e-{m}"),
]


def written_exactly(text: str) -> bool:
    """The number is written with no decimal literal: an integer, a fraction, a constant.

    >>> written_exactly("sqrt(3)/6"), written_exactly("2e^3"), written_exactly("0.5")
    (True, True, False)
    """
    return _DECIMAL_LITERAL.search(text) is None


def answer_value(text: str) -> float:
    """The float64 value of a number answer, for the tolerance and for display; an integer
    float64 cannot hold exactly is rounded here, for it is judged exactly (a point's value
    so written is refused instead: it would be computed with, rounded), and so is a real
    number past float64's range, to infinity (``-867e^4913``: sympy judges it exactly).

    >>> answer_value("9007199254740993"), answer_value("pi/4"), answer_value("-867e^4913")
    (9007199254740992.0, 0.7853981633974483, -inf)

    Raises:
        InputError: anything that is not a finite real constant (a literal past float64,
            ``1e400``, too: written so, it is a float that overflowed).
    """
    if inexact_integer(text) is not None:
        return float(int(text))
    try:
        return constant_value(text)
    except InputError:
        past = _past_float64(text)
        if past is None:
            raise
        return past


def _past_float64(text: str) -> float | None:
    """The float64 rounding (infinite, or 0) of a constant that is a real number only sympy
    holds (``e^4913``, ``e^1000 / e^999``); None for anything else: not such a constant,
    a lone literal (``1e400`` keeps the literal's own limit), or not decided in time.

    >>> _past_float64("e^1000/e^999"), _past_float64("1e400"), _past_float64("log(-e^999)")
    (2.718281828459045, None, None)
    """
    if _ONE_DECIMAL.fullmatch(text.strip()):
        return None
    try:
        with time_limit(PROOF_SECONDS):
            exact = exact_value(text, beyond_float=True)
            if finite_real(exact) is not True:
                return None
            return float(exact.evalf(20, strict=True, maxn=EVALF_MAX_DIGITS))
    except (GradcalcError, CheckTimeout, TypeError, ValueError, ArithmeticError, RecursionError):
        return None


def is_zero(value: Any) -> bool | None:
    """True when ``value`` (a sympy number) is 0, False when it is not, None when neither
    can be shown: exact first, then 60-digit evaluation, then its exponential form
    expanded, then ``simplify``.

    >>> import sympy as sp
    >>> is_zero(sp.sin(sp.pi)), is_zero(20 * sp.E**100 + 1 - 20 * sp.E**100 - 1)
    (True, True)
    >>> is_zero(sp.sqrt(3) / 6 + sp.Rational(1, 10**11) - sp.sqrt(3) / 6 + 0 * sp.pi)
    False
    >>> is_zero(-sp.exp(-100)), is_zero(61 * sp.exp(-900) - 60 * sp.exp(-900) - sp.exp(-900))
    (False, True)
    """
    import sympy as sp

    if value == 0:
        return True
    if value.is_Rational or value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return False
    try:
        with time_limit(PROOF_SECONDS):
            try:  # (digits evalf vouches for: 1 - tanh(200)^2 cancels 174 of them; a
                number = value.evalf(DIGITS, strict=True, maxn=EVALF_MAX_DIGITS)  # number
            except sp.core.evalf.PrecisionExhausted:  # it cannot tell from 0 is refused)
                number = sp.Integer(0)  # below every digit evalf reaches: perhaps 0
            if any(part != 0 for part in number.as_real_imag()):
                return False  # (-e^-100 too: a strict evalf's digits are a proof)
            if sp.expand(value.rewrite(sp.exp)) == 0:  # (sinh(800) less its exponentials:
                return True  # at once, where simplify takes seconds)
            return True if sp.simplify(value) == 0 else None
    except (CheckTimeout, TypeError, ValueError, ArithmeticError, RecursionError, MemoryError):
        return None  # an attempt may ask mpmath for an absurd precision (sigmoid(pi^30))


def compare_number(
    text: str,
    yours: float,
    value: float,
    exact_correct: Any,
    rtol: float,
    atol: float | None = None,
) -> tuple[str, str, str]:
    """(verdict, why, evidence) for the number ``text`` (``yours`` in float64) against the
    derivative ``value`` (sympy's exact value ``exact_correct``, or None); ``atol`` is the
    absolute tolerance the user gave, None for none. ``why`` names the tolerance that
    decided a pass. Exact values decide, never their float64 roundings (3.00001e-320 and
    3e-320 are one float64).

    >>> import sympy as sp
    >>> compare_number("1/3", 1 / 3, 1 / 3, sp.Rational(1, 3), 1e-9)
    ('correct', 'exactly', 'exact')
    >>> compare_number("1e-13", 1e-13, 0.0, sp.Integer(0), 1e-9, atol=1e-12)[:2]
    ('correct', 'within atol 1e-12')
    >>> compare_number("3.00001e-320", 3e-320, 3e-320, sp.Rational(3, 10**320), 1e-9)[1]
    'yours is 3.00001e-320, the derivative is 3e-320'
    """
    try:
        mine = exact_value(text, beyond_float=True)  # (answer_value read it: within bounds)
        difference = None if exact_correct is None else mine - exact_correct
    except (TypeError, ValueError, ArithmeticError, RecursionError, MemoryError):
        mine = difference = None
    if exact_correct is None:
        return _against_tape(mine, yours, value, rtol, atol, written_exactly(text))
    zero = None if difference is None else is_zero(difference)
    if zero is True:
        return "correct", "exactly", "exact"
    gap, size = _gap_and_size(difference, exact_correct, yours, value, rtol)
    sides = (mine, exact_correct, yours, value)
    if written_exactly(text):
        if zero is False and atol is not None and gap <= atol:  # (the user's own tolerance)
            return "correct", f"within atol {atol:g}", "tolerance"
        if zero is False:
            return "wrong", _off_by(difference, *sides), "exact"
        near = _within(gap, size, rtol, UNSURE if atol is None else atol)
        if near:
            near = near if atol is not None or "rtol" in near else f"within {UNSURE:g}"
            why = (
                f"equal {near}, but sympy could neither prove nor disprove it exactly: "
                f"compare with {user_text(exact_correct)}"
            )
            return "could not decide", why, ""
    if size is None and math.isnan(gap):  # past float64, and sympy out of time
        why = "sympy could not compare the exact values in time: compare with "
        why += user_text(exact_correct)
        return "could not decide", why, ""
    within = _within(gap, size, rtol, atol)
    if within:
        return "correct", within, "tolerance"
    if size is None and gap <= UNSURE:  # float64 roundings, too coarse to tell
        why = _coarse_why(value, rtol, "sympy could not compare the exact values in time")
        return "could not decide", why, ""
    why = _apart(*sides, size == 0 and atol is None)
    hint = rounding_hint(text, exact_correct)
    return "wrong", f"{why}; {hint}" if hint else why, "tolerance"


def _against_tape(
    mine: Any, yours: float, value: float, rtol: float, atol: float | None, exactly: bool = False
) -> tuple[str, str, str]:
    """A number (``mine`` exactly, or None) judged against the tape's float alone (sympy
    gave no exact value). A float holding fewer digits than ``rtol`` asks (a subnormal)
    passes only within ``atol``. A number written ``exactly`` is not judged within a
    tolerance: it passes as the tape's own float64 value (to :data:`ULPS` units in its last
    place), and near it but not that is undecided.

    >>> _against_tape(None, 0.0, 1e-17, 1e-9, None)[0]
    'could not decide'
    >>> _against_tape(None, 3.00001e-320, 3e-320, 1e-9, None)[0]
    'could not decide'
    >>> _against_tape(None, 1000000001.0, 1e9, 1e-9, None, exactly=True)[0]
    'could not decide'
    """
    gap, size = abs(yours - value), (None if _coarse(value, rtol) else abs(value))
    within = _within(gap, size, rtol, atol)
    if exactly and within and gap > ULPS * math.ulp(value):
        why = (
            f"yours is within {within.removeprefix('within ')} of the tape's value "
            f"{short(value)}, but not that value, and sympy gave no exact value to judge a "
            "number written exactly by"
        )
        return "could not decide", why, ""
    if exactly and within:  # (the tape's own value, to its rounding)
        why = "the tape's float64 value, to rounding (sympy gave no exact value: not proven)"
        return "correct", why, "tolerance"
    if within:
        return "correct", f"{within} of the tape's value (sympy gave no exact value)", "tolerance"
    if size is None and atol is None and gap <= UNSURE:
        return "could not decide", _coarse_why(value, rtol, "sympy gave no exact value"), ""
    if atol is None and gap <= UNSURE:
        why = (
            f"yours is within {UNSURE:g} of the tape's value {short(value)} but not within "
            f"rtol {rtol:g} of it, and sympy gave no exact value: a float this small may be "
            "mostly rounding (give --atol to accept an absolute error)"
        )
        return "could not decide", why, ""
    return "wrong", _apart(mine, None, yours, value, False), "tolerance"


def _coarse(value: float, rtol: float) -> bool:
    """float64 holds ``value`` to fewer digits than ``rtol`` asks: a subnormal, whose last
    bit is a large part of it, or an rtol below float64's own precision.

    >>> _coarse(3e-320, 1e-9), _coarse(1e-300, 1e-9), _coarse(0.0, 1e-9)
    (True, False, False)
    """
    return value != 0 and math.ulp(value) > abs(value) * rtol


def _coarse_why(value: float, rtol: float, because: str) -> str:
    """Why a float64 comparison decides nothing: the float holds too few digits."""
    return (
        f"float64 holds {short(value)} to fewer digits than rtol {rtol:g} asks, and "
        f"{because} (give --atol to accept an absolute error)"
    )


def _within(gap: Any, size: Any, rtol: float, atol: float | None) -> str:
    """The tolerance a difference of ``gap`` from a value of magnitude ``size`` (None: no
    relative tolerance can be judged) is within (``rtol`` first, then ``atol`` when given),
    as the reason says it; "" for none.

    >>> _within(1e-20, 1e-10, 1e-9, None), _within(1e-13, 0.0, 1e-9, 1e-12)
    ('within rtol 1e-09', 'within atol 1e-12')
    """
    if size is not None and gap <= size * rtol:
        return f"within rtol {rtol:g}"
    if atol is not None and gap <= atol:
        return f"within atol {atol:g}"
    return ""


def _gap_and_size(
    difference: Any, exact_correct: Any, yours: float, value: float, rtol: float
) -> tuple:
    """|yours - correct| and |correct|, from the exact values to 20 digits evalf vouches for
    (sympy Floats, which neither underflow nor overflow; ``1 - tanh(200)^2`` cancels 174
    digits), or from the floats when sympy cannot evaluate them in time or to those
    digits -- then the size is None where the floats are too coarse for ``rtol``, and the
    gap NaN too where one is past float64 (infinite: nothing to compare)."""
    try:
        with time_limit(PROOF_SECONDS):
            size = abs(exact_correct).evalf(20, strict=True, maxn=EVALF_MAX_DIGITS)
            gap = (
                abs(difference).evalf(20, strict=True, maxn=EVALF_MAX_DIGITS)
                if difference is not None
                else None
            )
            if gap is None or not (gap.is_Number and size.is_Number):
                raise ValueError("not a number")
            return gap, size
    except (CheckTimeout, TypeError, ValueError, ArithmeticError, RecursionError, MemoryError):
        if not (math.isfinite(yours) and math.isfinite(value)):
            return math.nan, None  # (past float64: the floats compare nothing)
        coarse = _coarse(value, rtol) or _coarse(yours, rtol)
        unknown = coarse or (value == 0 and exact_correct is not None)  # (0 may be rounding)
        return abs(yours - value), None if unknown else abs(value)


def short(value: float) -> str:
    """Short (10 significant digits) for messages.

    >>> short(1 / 3)
    '0.3333333333'
    """
    from gradcalc.core.numbers import format_number

    return format_number(value, 10)


def exact_short(value: Any, digits: int = 10) -> str | None:
    """A sympy number to ``digits`` (at most 15) significant digits, rounded from its exact
    value, written as :func:`short` writes a float -- also where float64 would round it
    (a subnormal) or cannot hold it; None when it is not a real number sympy evaluates in
    time.

    >>> import sympy as sp
    >>> exact_short(sp.Rational(3, 10**320)), exact_short(sp.Rational(300001, 10**325))
    ('3e-320', '3.00001e-320')
    >>> exact_short(sp.sqrt(3) / 6), exact_short(sp.Integer(10) ** 400 / 3, 3)
    ('0.2886751346', '3.33e+399')
    """
    from gradcalc.core.numbers import format_number

    rounded = _rounded(value, digits, ROUND_HALF_EVEN)
    if rounded is None:
        return None
    with localcontext() as context:  # (exp(10^7) is 1e+4342944: beyond decimal's default)
        context.Emin, context.Emax = -(10**9), 10**9
        if rounded == 0 or sys.float_info.min <= abs(rounded) <= sys.float_info.max:
            return format_number(float(rounded), digits)  # (at most 15 digits: read alike)
        sign, figures, _ = rounded.normalize().as_tuple()
    text = "".join(map(str, figures))
    mantissa = text[0] + (f".{text[1:]}" if len(text) > 1 else "")
    return f"{'-' if sign else ''}{mantissa}e{rounded.adjusted():+03d}"


def _rounded(value: Any, digits: int, rounding: str) -> Decimal | None:
    """A sympy number rounded to ``digits`` significant digits by ``rounding`` (a mode of
    :mod:`decimal`): exactly for a rational, from 20 more digits otherwise; None when it is
    not a real number sympy evaluates in time.

    >>> import sympy as sp
    >>> _rounded(sp.Rational(2, 3), 4, ROUND_DOWN), _rounded(sp.pi, 3, ROUND_HALF_UP)
    (Decimal('0.6666'), Decimal('3.14'))
    """
    try:
        with time_limit(PROOF_SECONDS), localcontext() as context:
            context.prec, context.rounding = digits, rounding
            context.Emin, context.Emax = -(10**9), 10**9
            if value.is_Rational:
                return Decimal(int(value.p)) / Decimal(int(value.q))
            number = value.evalf(digits + 20, strict=True, maxn=EVALF_MAX_DIGITS)
            if not number.is_Float:
                return None
            return context.plus(Decimal(str(number)))
    except (CheckTimeout, TypeError, ValueError, ArithmeticError, RecursionError, MemoryError):
        return None


def rounding_hint(text: str, exact: Any) -> str:
    """When the decimal ``text`` is the exact value ``exact`` rounded (or truncated) to the
    significant digits it was written with: that, and the ``--rtol`` that accepts it; ""
    otherwise (and for fewer than 2 digits).

    >>> import sympy as sp
    >>> for part in rounding_hint("0.3333", sp.Rational(1, 3)).split(": "):
    ...     print(part)
    yours is the derivative rounded to 4 significant digits
    --rtol 5e-4 accepts rounding to 4 digits
    >>> rounding_hint("0.6666", sp.Rational(2, 3)).split(":")[1]
    ' --rtol 1e-3 accepts truncating to 4 digits'
    >>> rounding_hint("0.3334", sp.Rational(1, 3))
    ''
    """
    if not _ONE_DECIMAL.fullmatch(text.strip()):
        return ""
    typed = Decimal(text.strip())
    n = len(typed.as_tuple().digits)
    if n < 2 or typed == 0:
        return ""
    for rounding, done, doing, rtol in _MADE:
        if _rounded(exact, n, rounding) == typed:
            accepts = rtol.format(n=n, m=n - 1)
            return (
                f"yours is the derivative {done} to {n} significant digits: "
                f"--rtol {accepts} accepts {doing} to {n} digits"
            )
    return ""


def _text(exact: Any, fallback: float) -> str:
    """An exact value short (:func:`exact_short`), or ``fallback``'s float when it has none."""
    shown = None if exact is None else exact_short(exact)
    return short(fallback) if shown is None else shown


def correct_text(exact: Any, value: float) -> str:
    """The derivative as the verdict's "correct" column shows it: exactly when that is short,
    else 10 digits of its exact value (of the tape's float when sympy has none).

    >>> import sympy as sp
    >>> correct_text(sp.sqrt(3) / 6, 0.0), correct_text(sp.Rational(3, 10**320), 3e-320)
    ('sqrt(3)/6', '3e-320')
    """
    if exact is not None and len(user_text(exact)) <= 32:
        return user_text(exact)
    return _text(exact, value)


def _apart(mine: Any, correct: Any, yours: float, value: float, exactly_zero: bool) -> str:
    """Why a number is wrong: both values (exact ones when given: ``mine``, ``correct``),
    with digits enough to tell them apart; for a derivative that is exactly 0, that no
    relative tolerance comes near it.

    >>> _apart(None, None, 0.33333333334, 1 / 3, False)
    'yours is 0.33333333334, the derivative is 0.33333333333333'
    >>> _apart(None, None, 1e-17, 0.0, True).split(" (")[0]
    'yours is 1e-17, the derivative is exactly 0'
    """
    left, right = _text(mine, yours), _text(correct, value)
    if exactly_zero:
        return (
            f"yours is {left}, the derivative is exactly 0 "
            "(no rtol comes near 0: --atol sets an absolute tolerance)"
        )
    if left == right:
        left, right = _close(mine, correct, yours, value)
    return f"yours is {left}, the derivative is {right}"


def _close(mine: Any, correct: Any, yours: float, value: float) -> tuple[str, str]:
    """Two values alike to 10 digits, with digits enough to differ (:func:`apart`): from
    the exact values to 60 digits when given, else from the floats.

    >>> import sympy as sp
    >>> _close(sp.Rational(1, 10**320) + sp.Rational(1, 10**335), sp.Rational(1, 10**320), 0, 0)
    ('1.000000000000001e-320', '1.0e-320')
    """
    if mine is None or correct is None:
        return apart(yours, value, yours - value)
    return apart_exact(mine, correct)


def _off_by(difference: Any, mine: Any, correct: Any, yours: float, value: float) -> str:
    """How far off an exactly written number is: both values, or -- when 10 digits show
    them alike -- the exact difference (its magnitude to 3 digits when long), its side
    from the exact difference (never a float that may underflow to 0).

    >>> import sympy as sp
    >>> _off_by(sp.Integer(1), sp.Integer(2 * 10**12 + 1), sp.Integer(2 * 10**12), 0, 0)
    'yours is 1 too large, exactly'
    >>> _off_by(sp.Rational(1, 10**340), None, None, 3e-320, 3e-320)
    'yours is 1e-340 too large, exactly'
    """
    import sympy as sp

    left, right = _text(mine, yours), _text(correct, value)
    if left != right:
        return f"yours is {left}, the derivative is {right}"
    size = abs(difference)
    text = user_text(size)
    if len(text) > 24:
        text = exact_short(size, 3) or "a little"
    side = "large" if sp.re(difference.evalf(15)) > 0 else "small"
    return f"yours is {text} too {side}, exactly"
