"""The tangent line or plane without sympy: from the tape's value and slopes and the point's
exact rationals (:class:`fractions.Fraction`), for ``--no-check``, which must not pay for
sympy's import (a quarter of a second) to print one line.

>>> print(tangent_text("y", 8.0, {"x": 12.0}, {"x": "2"}))
y = 8 + 12(x - 2)
>>> print(tangent_text("z", 5.0, {"x": 2.0, "y": -4.0}, {"x": "1", "y": "-2"}))
z = 5 + 2(x - 1) - 4(y + 2)
>>> print(tangent_text("y", 0.75, {"x": 0.25}, {"x": "3"}))
y = 0.75 + 0.25(x - 3)
>>> print(tangent_text("y", 1, {"x": 1}, {"x": "pi"}))  # (a centre sympy must write)
None
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from gradcalc.symbolic.translate.notation import join_terms


def tangent_text(
    name: str, value: float, slopes: Mapping[str, float], centers: Mapping[str, str]
) -> str | None:
    """``name = value + slope·(v - centre) + ...``; ``None`` where a centre is not a plain
    number (``pi/4`` needs sympy to write exactly)."""
    try:
        exact = {v: Fraction(centers[v]) for v in slopes}
    except (ValueError, ZeroDivisionError):
        return None
    terms = [_number(value)] + [_term(slope, v, exact[v]) for v, slope in slopes.items()]
    return f"{name} = {join_terms(terms)}"


def _number(x: float) -> str:
    """A coefficient as typed: an integer without a decimal point, else the shortest float
    (empty for 0: a term that is left out)."""
    x = float(x) + 0.0
    if x == 0:
        return ""
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def _term(slope: float, name: str, centre: Fraction) -> str:
    """``slope·(name - centre)``, written ``12(x - 2)``, ``-(x + 1)``, ``3x``."""
    coefficient = _number(slope)
    if not coefficient:
        return ""
    sign = "-" if centre > 0 else "+"
    shift = name if centre == 0 else f"({name} {sign} {abs(centre)})"
    if coefficient in ("1", "-1"):
        return coefficient[:-1] + shift
    return coefficient + shift
