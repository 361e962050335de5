"""Judge a number a student wrote against the derivative's value at a point.

A number written exactly (``4000000001``, ``sqrt(3)/6``, ``20e^100 + 1``: no decimal point,
no exponent) is decided exactly whenever sympy has the derivative's exact value: equal is
proved, different is proved by evaluating the difference to 60 digits, and anything else is
undecided -- never a pass within a tolerance, which would accept ``4000000001`` for
4000000000. A decimal (``0.3333333333``) is an approximation by its writer's own choice, and
is correct when exactly equal or within the tolerance.

>>> import sympy as sp
>>> compare_number("4000000001", 4000000001.0, 4e9, sp.Integer(4000000000), 1e-9, 1e-12)[0]
'wrong'
>>> compare_number("0.3333333333", 0.3333333333, 1 / 3, sp.Rational(1, 3), 1e-9, 1e-12)[:2]
('correct', 'within rtol 1e-09')
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from gradcalc.core.cells import inexact_integer
from gradcalc.engine.evaluate.points import constant_value
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, exact_value, time_limit
from gradcalc.symbolic.translate.notation import user_text

DIGITS = 60  # digits to which a difference is evaluated
ZERO_DIGITS = 40  # a value below 10^-ZERO_DIGITS is not taken as nonzero
PROOF_SECONDS = 3.0

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
    text: str, yours: float, value: float, exact_correct: Any, rtol: float, atol: float
) -> tuple[str, str, str]:
    """(verdict, why, evidence) for the number ``text`` (``yours`` in float64) against the
    derivative ``value`` (sympy's exact value ``exact_correct``, or None).

    >>> import sympy as sp
    >>> compare_number("1/3", 1 / 3, 1 / 3, sp.Rational(1, 3), 1e-9, 1e-12)
    ('correct', 'exactly', 'exact')
    """
    if exact_correct is not None:
        try:
            difference = exact_value(text) - exact_correct
        except (TypeError, ValueError, ArithmeticError, RecursionError, MemoryError):
            difference = None
        zero = None if difference is None else is_zero(difference)
        if zero is True:
            return "correct", "exactly", "exact"
        if written_exactly(text):
            if zero is False:
                return "wrong", _off_by(difference, yours, value), "exact"
            if np.isclose(yours, value, rtol=rtol, atol=atol):
                why = (
                    f"equal within rtol {rtol:g}, but sympy could neither prove nor disprove "
                    f"it exactly: compare with {user_text(exact_correct)}"
                )
                return "could not decide", why, ""
    if np.isclose(yours, value, rtol=rtol, atol=atol):
        return "correct", f"within rtol {rtol:g}", "tolerance"
    return "wrong", f"yours is {short(yours)}, the derivative is {short(value)}", "tolerance"


def short(value: float) -> str:
    """Short (10 significant digits) for messages.

    >>> short(1 / 3)
    '0.3333333333'
    """
    from gradcalc.core.numbers import format_number

    return format_number(value, 10)


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
