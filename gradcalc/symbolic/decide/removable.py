"""A derivative whose sympy form is 0/0 at a point, valued as its limit there.

sympy writes the derivative of ``(x - 1/2)^e`` as ``e*(x - 1/2)^e/(x - 1/2)``: at x = 1/2
that is 0/0, although the derivative, ``e*(x - 1/2)^(e - 1)``, is 0 there. Such a form says
nothing about the tape's number, so before the check calls it a disagreement, the form is
followed to the point along lines through it (every variable moved by ``t``, and by ``±t``
alternately), from both sides, at two distances :data:`STEPS`, with mpmath at both of
:data:`DIGITS` (:func:`~gradcalc.symbolic.decide.precision.precise_at`: a value counts where the
two share its digits; ``1 - cos(t)`` at t = 10^-45 needs 90 digits before any are
right). A line *settles* where its two values agree to :data:`SETTLED` (relative); the
limit is taken when every line that is real near the point settles, and to the same value.
A line on which the form is not real (the other side of a domain's edge) is left out, and
the limit is then one-sided, as the result says.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> form = sp.E * (x - sp.Rational(1, 2)) ** sp.E / (x - sp.Rational(1, 2))
>>> limit = limit_at(form, {"x": sp.Rational(1, 2)})
>>> limit
Limit(value=0.0, one_sided=True)
>>> limit_at(sp.sin(x) / x, {"x": sp.Integer(0)})
Limit(value=1.0, one_sided=False)
>>> limit_at(sp.Abs(x) / x, {"x": sp.Integer(0)}) is None  # -1 from the left, 1 from the right
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gradcalc.symbolic.decide.precision import mp_function, precise_at

__all__ = ["DIGITS", "FLOOR", "SETTLED", "STEPS", "Limit", "limit_at"]

#: The distances from the point (in every variable) at which the form is evaluated.
STEPS = (10**-30, 10**-45)
#: How closely (relative, with the absolute FLOOR) the values at the two distances must
#: agree for a line to have settled; a limit below FLOOR is 0.
SETTLED = 1e-9
FLOOR = 1e-30
#: The working precisions (decimal digits) of the evaluation near the point.
DIGITS = (200, 300)


@dataclass(frozen=True)
class Limit:
    """The value a 0/0 form tends to at a point, and whether only one side was real."""

    value: float
    one_sided: bool


def limit_at(form: Any, point: Mapping[str, Any]) -> Limit | None:
    """The limit of ``form`` (a sympy expression) at ``point`` (name -> exact Rational), or
    None when some line does not settle, or lines settle to different values, or the form is
    real on no line near the point."""
    import sympy as sp

    names = sorted(point)
    function = mp_function([sp.Symbol(n, real=True) for n in names], [form])
    directions = {tuple(1 for _ in names), tuple((-1) ** k for k in range(len(names)))}
    settled: list[float] = []
    lines = 0
    for direction in sorted(directions):
        for side in (1, -1):
            lines += 1
            values = []
            for step in STEPS:
                t = side * sp.Rational(step)
                moved = {n: point[n] + t * d for n, d in zip(names, direction, strict=True)}
                values.append(_value(function, names, moved))
            near, nearer = values
            if near is None or nearer is None:
                if near is not None or nearer is not None:
                    return None  # real at one distance only: no pattern to trust
                continue  # not real on this line
            if not _close(near, nearer):
                return None
            settled.append(nearer)
    if not settled or any(not _close(v, settled[0]) for v in settled):
        return None
    value = settled[-1] if abs(settled[-1]) > FLOOR else 0.0  # (0 to within the floor)
    return Limit(value, one_sided=len(settled) < lines)


def _value(function: Any, names: list[str], point: Mapping[str, Any]) -> float | None:
    """The form at ``point`` at :data:`DIGITS` digits, as a float; None where it is not real,
    the two precisions disagree, or mpmath meets 0/0 there too."""
    try:
        return precise_at(function, names, point, DIGITS)
    except (ZeroDivisionError, ValueError, TypeError, OverflowError):
        return None


def _close(u: float, v: float) -> bool:
    return abs(u - v) <= SETTLED * max(abs(u), abs(v)) + FLOOR
