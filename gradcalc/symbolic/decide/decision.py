"""A verdict on two expressions and how it is written: the :class:`Decision` record, and the
texts of a witness -- the point where the two sides differ, and their values, short.

>>> import sympy as sp
>>> witness({"x": sp.Rational(1, 2)}, "1.5", "1.25", "exact").detail
'differs at x=0.5: yours 1.5, correct 1.25 (exact)'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "EQUIVALENT",
    "HOW",
    "NOT_EQUIVALENT",
    "UNDECIDED",
    "Decision",
    "apart",
    "apart_exact",
    "exact_witness",
    "number_text",
    "point_text",
    "witness",
]

EQUIVALENT = "equivalent"
NOT_EQUIVALENT = "not equivalent"
UNDECIDED = "could not decide"
HOW = "high-precision evaluation"
SHORT = 24  # characters of a number's exact text shown as it is


@dataclass(frozen=True)
class Decision:
    """One verdict: ``verdict`` (EQUIVALENT, NOT_EQUIVALENT or UNDECIDED), the
    ``evidence`` it rests on (``"proof"``, ``"exact points"``, ``"exact"``,
    ``"high precision"``; empty when undecided) and a one-line ``detail`` for people.

    >>> Decision(UNDECIDED, "", "no test point").ok is None
    True
    """

    verdict: str
    evidence: str
    detail: str

    @property
    def ok(self) -> bool | None:
        """True when equivalent, False when not, None when undecided."""
        return {EQUIVALENT: True, NOT_EQUIVALENT: False}.get(self.verdict)


def witness(point: Mapping[str, Any], yours: str, correct: str, how: str) -> Decision:
    """NOT_EQUIVALENT, with the point and both values; ``how`` says how they were found."""
    where = ", ".join(f"{name}={point_text(v)}" for name, v in point.items())
    detail = f"differs at {where or 'every point'}: yours {yours}, correct {correct} ({how})"
    return Decision(NOT_EQUIVALENT, "exact" if how == "exact" else "high precision", detail)


def exact_witness(point: Mapping[str, Any], yours: Any, correct: Any) -> Decision:
    """NOT_EQUIVALENT at ``point``, where the two sides are the different exact rationals
    ``yours`` and ``correct``: written exactly when both are short (``1.25``, ``1/3``), else
    with digits enough to show how they differ (and the difference itself, when even 20
    digits show them alike) -- never two roundings that look the same.

    >>> import sympy as sp
    >>> exact_witness({"x": sp.Rational(1, 2)}, sp.Rational(3, 2), sp.Rational(5, 4)).detail
    'differs at x=0.5: yours 1.5, correct 1.25 (exact)'
    >>> third = sp.Rational(1, 3)
    >>> exact_witness({"x": sp.Integer(1)}, third + sp.Rational(1, 10**14), third).detail
    'differs at x=1: yours 0.33333333333334333, correct 0.33333333333333333 (exact)'
    """

    shown = point_text(yours), point_text(correct)
    if max(len(text) for text in shown) > SHORT:
        shown = apart_exact(yours, correct)
    return witness(point, *shown, "exact")


def point_text(value: Any) -> str:
    """An exact rational as people write it: a decimal when it has a short one, else p/q.

    >>> import sympy as sp
    >>> [point_text(sp.Rational(n, d)) for n, d in [(2111, 1000), (-1, 20), (1, 3), (7, 1)]]
    ['2.111', '-0.05', '1/3', '7']
    """
    p, q = int(value.p), int(value.q)
    places = next((k for k in range(1, 41) if 10**k % q == 0), None)
    if q == 1 or places is None:
        return str(value)
    digits = str(abs(p) * (10**places // q)).rjust(places + 1, "0")
    return f"{'-' if p < 0 else ''}{digits[:-places]}.{digits[-places:]}"


def number_text(value: Any) -> str:
    """An exact rational, short: as :func:`point_text` when that is short, else 12
    significant digits.

    >>> import sympy as sp
    >>> number_text(sp.Rational(-67, 20)), number_text(sp.Rational(1, 10**40))
    ('-3.35', '1.0e-40')
    """
    import mpmath

    text = point_text(value)
    if len(text) <= SHORT:
        return text
    with mpmath.workdps(30):
        return mpmath.nstr(mpmath.mpf(int(value.p)) / int(value.q), 12)


def apart_exact(yours: Any, correct: Any) -> tuple[str, str]:
    """:func:`apart` of two exact sympy numbers, each and their difference taken to 60
    digits (so two values below float64's range, or alike in all its digits, still part).

    >>> import sympy as sp
    >>> apart_exact(sp.Rational(1, 3) + sp.Rational(1, 10**14), sp.Rational(1, 3))
    ('0.33333333333334333', '0.33333333333333333')
    """
    import mpmath

    with mpmath.workdps(60):
        return apart(*(mpmath.mpf(v.evalf(60)) for v in (yours, correct, yours - correct)))


def apart(yours: Any, correct: Any, gap: Any) -> tuple[str, str]:
    """Two different numbers with enough digits (10 to 20) to show their difference to
    about 3 digits; when 20 are not enough, the second text also gives the difference.
    The numbers are taken at 60 digits (mpmath values keep theirs). A ``gap`` of 0 (two
    roundings alike, though the numbers they round are not) divides nothing: both are
    shown to 20 digits.

    >>> apart(1.00000000001, 1.0, 1e-11)
    ('1.00000000001', '1.0')
    >>> apart(1, 1, 1e-30)
    ('1.0', '1.0, yours − correct = 1.0e-30')
    >>> apart(0.1, 0.1, 0.0)
    ('0.10000000000000000555', '0.10000000000000000555')
    """
    import mpmath

    with mpmath.workdps(60):
        a, c, d = (mpmath.mpf(v) for v in (yours, correct, gap))
    if not d:
        return mpmath.nstr(a, 20), mpmath.nstr(c, 20)
    scale = max(abs(a), abs(c))
    digits = max(10, int(mpmath.ceil(mpmath.log10(scale / abs(d)))) + 3)
    if digits > 20:
        return mpmath.nstr(a, 10), f"{mpmath.nstr(c, 10)}, yours − correct = {mpmath.nstr(d, 10)}"
    return mpmath.nstr(a, digits), mpmath.nstr(c, digits)
