"""The tangent line or plane at a single point (:func:`tangent`): with sympy's exact slopes
where the check has them, or without sympy (:func:`tangent_text`), from the tape's value and
slopes and the point's exact rationals (:class:`fractions.Fraction`), for ``--no-check``,
which must not pay for sympy's import (a quarter of a second) to print one line.

Made once, with the result (:attr:`GradResult.tangent`), where it can be shown: the Python
API's results of one point (a notebook shows it) and the command line's table of one point;
JSON, CSV and a stream of ``--jobs`` answers do not ask for it
(:attr:`~gradcalc.engine.evaluate.results.Options.tangent`) and do not pay for it.

>>> print(tangent_text("y", 8.0, {"x": 12.0}, {"x": "2"}))
y = 8 + 12(x - 2)
>>> print(tangent_text("z", 5.0, {"x": 2.0, "y": -4.0}, {"x": "1", "y": "-2"}))
z = 5 + 2(x - 1) - 4(y + 2)
>>> print(tangent_text("y", 0.75, {"x": 0.25}, {"x": "3"}))
y = 0.75 + 0.25(x - 3)
>>> print(tangent_text("y", 0.5, {"x": 1.5e-9}, {"x": "1"}))  # (sympy's exponent: e-9)
y = 0.5 + 1.5e-9(x - 1)
>>> print(tangent_text("y", 1, {"x": 1}, {"x": "pi"}))  # (a centre sympy must write)
None
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from gradcalc.engine.evaluate.results import GradResult
from gradcalc.symbolic.translate.notation import join_terms

#: The longest tangent written with sympy's exact numbers; past it, with the shown floats.
LONG = 160


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
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    mantissa, e, exponent = repr(x).partition("e")  # 1e-9, not 1e-09: as sympy writes it
    return f"{mantissa}e{int(exponent)}" if e else mantissa


def _term(slope: float, name: str, centre: Fraction) -> str:
    """``slope·(name - centre)``, written ``12(x - 2)``, ``-(x + 1)``, ``3x``."""
    coefficient = _number(slope)
    if not coefficient:
        return ""
    sign = "-" if centre > 0 else "+"
    written = str(abs(centre))  # (1e100 as typed, not its 101 digits)
    written = written if len(written) <= 20 else _number(float(abs(centre)))
    shift = name if centre == 0 else f"({name} {sign} {written})"
    if coefficient in ("1", "-1"):
        return coefficient[:-1] + shift
    return coefficient + shift


def tangent(result: GradResult) -> str | None:
    """The tangent line (one variable) or plane (two) at a single point, from the value and
    gradient the table shows (sympy's exact ones where the check has them, written exactly
    where short); None otherwise (a
    point with warnings, such as a kink under ``--subgradient``, has none).

    >>> from gradcalc.engine.run.api import grad
    >>> print(tangent(grad("x^3", at=["x=2"])))
    tangent line: y = 8 + 12(x - 2)
    >>> print(tangent(grad("x^2 + y^2", at=["x=1,y=2"])))
    tangent plane: z = 5 + 2(x - 1) + 4(y - 2)
    """

    points, sources = result.points, result.sources
    exact = points.exact
    one = points.count == 1 and exact is not None and not result.undefined.any()
    one = one and not result.warnings  # at a kink (--subgradient) there is no tangent
    if not (one and len(sources) in (1, 2) and sorted(sources) == sorted(points.names)):
        return None
    assert exact is not None  # one point given exactly (checked above)
    kind, name = ("tangent line", "y") if len(sources) == 1 else ("tangent plane", "z")
    if result.target != "f" or name in sources:  # a program's statement, or f(y, z)
        name = result.target
    exactly = None if result.check is None else _exact_tangent(result, exact[0])
    if exactly is None or len(exactly) > LONG:  # no sympy, or past a line of exact digits:
        shown = result.shown or result.gradient  # the numbers shown, the point's rationals
        slopes = {v: 0.0 if g is None else float(g) for v, g in shown.items()}
        value = result.value if result.shown_value is None else result.shown_value
        line = tangent_text(name, float(value), slopes, exact[0])
        return None if line is None else f"{kind}: {line}"
    return f"{kind}: {name} = {exactly}"


def _exact_tangent(result: GradResult, point: dict[str, str]) -> str:
    """The tangent's right-hand side with sympy's exact slopes, where the check has them."""
    from gradcalc.symbolic.crosscheck.crosscheck import exact_value
    from gradcalc.symbolic.translate.notation import shifted_term

    centers = {v: exact_value(point[v]) for v in result.sources}
    check = result.check
    partials = check.partials if check is not None else {}
    value = check.value_exact[0] if check is not None and check.value_exact else None
    # the numbers the table shows (the exact value's nearest float where the check found it)
    shown_value = result.value if result.shown_value is None else result.shown_value
    terms = [shifted_term(_shown(shown_value, value), {}, {})]
    for v in result.sources:
        exact = partials[v].exact_values[0] if v in partials and partials[v].exact_values else None
        slope = result.shown.get(v, result.gradient[v])
        terms.append(shifted_term(_shown(slope, exact), {v: 1}, centers))
    return join_terms(terms)


def _shown(value: Any, exact: Any) -> Any:
    """A coefficient for the tangent: sympy's short exact value, else the tape's number."""
    import sympy as sp

    if exact is not None and len(str(exact)) <= 32:
        return exact
    x = 0.0 if value is None else float(value)
    return sp.Integer(int(x)) if x == int(x) and abs(x) < 1e15 else sp.Float(repr(x), "")
