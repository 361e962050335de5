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
may be mostly rounding there).

>>> import sympy as sp
>>> compare_number("4000000001", 4000000001.0, 4e9, sp.Integer(4000000000), 1e-9)[0]
'wrong'
>>> compare_number("0.3333333333", 0.3333333333, 1 / 3, sp.Rational(1, 3), 1e-9)[:2]
('correct', 'within rtol 1e-09')
>>> compare_number("1e-16", 1e-16, 1e-17, sp.Rational(1, 10**17), 1e-9)[:2]
('wrong', 'yours is 1e-16, the derivative is 1e-17')
"""

from __future__ import annotations

import re
from typing import Any

from gradcalc.core.cells import inexact_integer
from gradcalc.engine.evaluate.points import constant_value
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, exact_value, time_limit
from gradcalc.symbolic.decide.decision import apart
from gradcalc.symbolic.translate.notation import user_text

DIGITS = 60  # digits to which a difference is evaluated
ZERO_DIGITS = 40  # a value below 10^-ZERO_DIGITS is not taken as nonzero
PROOF_SECONDS = 3.0
UNSURE = 1e-12  # from a value known only in float64, a difference this small decides nothing

#: A literal with a decimal point or an exponent: ``0.5``, ``.5``, ``1e-3``, ``2E6``.
_DECIMAL_LITERAL = re.compile(r"\d\.|\.\d|\d[eE][+-]?\d")


def written_exactly(text: str) -> bool:
    """The number is written with no decimal literal: an integer, a fraction, a constant.

    >>> written_exactly("sqrt(3)/6"), written_exactly("2e^3"), written_exactly("0.5")
    (True, True, False)
    """
    return _DECIMAL_LITERAL.search(text) is None


def answer_value(text: str) -> float:
    """The float64 value of a number answer, for the tolerance and for display; an integer
    float64 cannot hold exactly is rounded here, for it is judged exactly (a point's value
    so written is refused instead: it would be computed with, rounded).

    >>> answer_value("9007199254740993"), answer_value("pi/4")
    (9007199254740992.0, 0.7853981633974483)

    Raises:
        InputError: anything that is not a finite real constant.
    """
    if inexact_integer(text) is not None:
        return float(int(text))
    return constant_value(text)


def is_zero(value: Any) -> bool | None:
    """True when ``value`` (a sympy number) is 0, False when it is not, None when neither
    can be shown: exact first, then 60-digit evaluation, then ``simplify``.

    >>> import sympy as sp
    >>> is_zero(sp.sin(sp.pi)), is_zero(20 * sp.E**100 + 1 - 20 * sp.E**100 - 1)
    (True, True)
    >>> is_zero(sp.sqrt(3) / 6 + sp.Rational(1, 10**11) - sp.sqrt(3) / 6 + 0 * sp.pi)
    False
    """
    import sympy as sp

    if value == 0:
        return True
    if value.is_Rational or value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return False
    try:
        with time_limit(PROOF_SECONDS):
            number = complex(value.evalf(DIGITS))
            if abs(number) > 10.0**-ZERO_DIGITS:
                return False
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
    decided a pass.

    >>> import sympy as sp
    >>> compare_number("1/3", 1 / 3, 1 / 3, sp.Rational(1, 3), 1e-9)
    ('correct', 'exactly', 'exact')
    >>> compare_number("1e-13", 1e-13, 0.0, sp.Integer(0), 1e-9, atol=1e-12)[:2]
    ('correct', 'within atol 1e-12')
    """
    if exact_correct is None:
        return _against_tape(yours, value, rtol, atol)
    try:
        difference = exact_value(text) - exact_correct
    except (TypeError, ValueError, ArithmeticError, RecursionError, MemoryError):
        difference = None
    zero = None if difference is None else is_zero(difference)
    if zero is True:
        return "correct", "exactly", "exact"
    gap, size = _gap_and_size(difference, exact_correct, yours, value)
    if written_exactly(text):
        if zero is False:
            return "wrong", _off_by(difference, yours, value), "exact"
        near = _within(gap, size, rtol, UNSURE if atol is None else atol)
        if near:
            why = (
                f"equal {near}, but sympy could neither prove nor disprove it exactly: "
                f"compare with {user_text(exact_correct)}"
            )
            return "could not decide", why, ""
    within = _within(gap, size, rtol, atol)
    if within:
        return "correct", within, "tolerance"
    return "wrong", _apart(yours, value, size == 0 and atol is None), "tolerance"


def _against_tape(
    yours: float, value: float, rtol: float, atol: float | None
) -> tuple[str, str, str]:
    """A number judged against the tape's float alone (sympy gave no exact value).

    >>> _against_tape(0.0, 1e-17, 1e-9, None)[0]
    'could not decide'
    """
    gap, size = abs(yours - value), abs(value)
    within = _within(gap, size, rtol, atol)
    if within:
        return "correct", f"{within} of the tape's value (sympy gave no exact value)", "tolerance"
    if atol is None and gap <= UNSURE:
        why = (
            f"yours is within {UNSURE:g} of the tape's value {short(value)} but not within "
            f"rtol {rtol:g} of it, and sympy gave no exact value: a float this small may be "
            "mostly rounding (give --atol to accept an absolute error)"
        )
        return "could not decide", why, ""
    return "wrong", _apart(yours, value, False), "tolerance"


def _within(gap: Any, size: Any, rtol: float, atol: float | None) -> str:
    """The tolerance a difference of ``gap`` from a value of magnitude ``size`` is within
    (``rtol`` first, then ``atol`` when given), as the reason says it; "" for none.

    >>> _within(1e-20, 1e-10, 1e-9, None), _within(1e-13, 0.0, 1e-9, 1e-12)
    ('within rtol 1e-09', 'within atol 1e-12')
    """
    if gap <= size * rtol:
        return f"within rtol {rtol:g}"
    if atol is not None and gap <= atol:
        return f"within atol {atol:g}"
    return ""


def _gap_and_size(difference: Any, exact_correct: Any, yours: float, value: float) -> tuple:
    """|yours - correct| and |correct|, from the exact values to 20 digits (sympy Floats,
    which neither underflow nor overflow), or from the floats when sympy cannot evaluate
    them in time."""
    try:
        with time_limit(PROOF_SECONDS):
            size = abs(exact_correct).evalf(20)
            gap = abs(difference).evalf(20) if difference is not None else None
            if gap is None or not (gap.is_Number and size.is_Number):
                raise ValueError("not a number")
            return gap, size
    except (CheckTimeout, TypeError, ValueError, ArithmeticError, RecursionError, MemoryError):
        return abs(yours - value), abs(value)


def short(value: float) -> str:
    """Short (10 significant digits) for messages.

    >>> short(1 / 3)
    '0.3333333333'
    """
    from gradcalc.core.numbers import format_number

    return format_number(value, 10)


def _apart(yours: float, value: float, exactly_zero: bool) -> str:
    """Why a number is wrong: both values, with digits enough to tell them apart; for a
    derivative that is exactly 0, that no relative tolerance comes near it.

    >>> _apart(0.33333333334, 1 / 3, False)
    'yours is 0.33333333334, the derivative is 0.33333333333333'
    >>> _apart(1e-17, 0.0, True).split(" (")[0]
    'yours is 1e-17, the derivative is exactly 0'
    """
    if exactly_zero:
        return (
            f"yours is {short(yours)}, the derivative is exactly 0 "
            "(no rtol comes near 0: --atol sets an absolute tolerance)"
        )
    mine, theirs = short(yours), short(value)
    if mine == theirs:
        mine, theirs = apart(yours, value, yours - value)
    return f"yours is {mine}, the derivative is {theirs}"


def _off_by(difference: Any, yours: float, value: float) -> str:
    """How far off an exactly written number is: both values, or -- when float64 shows
    them alike -- the exact difference (its magnitude to 3 digits when long).

    >>> import sympy as sp
    >>> _off_by(sp.Integer(1), 2e12 + 1, 2e12)
    'yours is 1 too large, exactly'
    """
    if short(yours) != short(value):
        return f"yours is {short(yours)}, the derivative is {short(value)}"
    size = abs(difference)
    text = user_text(size)
    if len(text) > 24:
        text = f"{complex(size.evalf(15)).real:.3g}"
    side = "large" if complex(difference.evalf(15)).real > 0 else "small"
    return f"yours is {text} too {side}, exactly"
