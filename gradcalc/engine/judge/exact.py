"""Exact where exact is known: the numbers to show when sympy's check found the exact value.

The tape computes in floating point, so ``cos(pi/2)`` comes out as ``6.1e-17`` and ``cos(pi/3)``
as ``0.5000000000000001``. Where the symbolic check evaluated the derivative exactly at a point
(a point given exactly, e.g. ``--at x=pi/2``) and agreed with the tape, the number to show is
the exact value's nearest float -- ``0`` and ``0.5`` -- and its exact text where it is short.

>>> from gradcalc import grad
>>> result = grad("sin(x)", at=["x=pi/2"])
>>> float(result.gradient["x"]) != 0, float(settled(result.gradient["x"], result.check, "x"))
(True, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # (the symbolic check is imported where its values are used)
    from gradcalc.engine.evaluate.points import Points
    from gradcalc.symbolic.crosscheck.crosscheck import CheckInput, CheckReport

__all__ = [
    "agreed_exact",
    "below_float64",
    "exact_determinants",
    "exact_point",
    "exact_texts",
    "nearest_float",
    "settled",
    "settled_value",
]


def nearest_float(exact: Any) -> float | None:
    """The float nearest to an exact sympy number, or ``None`` when it is not a finite real.

    >>> import sympy as sp
    >>> nearest_float(sp.cos(sp.pi / 3)), nearest_float(sp.Integer(0)), nearest_float(sp.I)
    (0.5, 0.0, None)
    """
    from gradcalc.symbolic.crosscheck.crosscheck import real_value

    if exact is None:
        return None
    if exact.is_zero:
        return 0.0
    number = real_value(exact)
    return number if np.isfinite(number) else None


def exact_point(points: Points, k: int) -> dict[str, Any] | None:
    """Point ``k`` in exact sympy values: as typed (``pi``) when given so, else the float's
    shortest decimal; ``None`` when a value is not finite.

    >>> from gradcalc.engine.evaluate.points import parse_at
    >>> exact_point(parse_at(["x=pi/2,y=0.1"]), 0)
    {'x': pi/2, 'y': 1/10}
    """
    import sympy as sp

    from gradcalc.symbolic.crosscheck.crosscheck import exact_value

    texts = points.exact[k] if points.exact is not None else {}
    out = {}
    for name, values in points.arrays.items():
        text = texts.get(name)
        value = float(np.asarray(values).reshape(-1)[k] if np.ndim(values) else values)
        if not math.isfinite(value):
            return None
        out[name] = exact_value(text) if text else sp.Rational(repr(value))
    return out


def agreed_exact(check: CheckReport | None, label: str) -> list[Any]:
    """The exact values of ``label`` per point (flat), ``None`` where unknown or disputed.

    >>> from gradcalc import grad
    >>> agreed_exact(grad("x^3", at=["x=1/2", "x=2"]).check, "x")
    [3/4, 12]
    """
    partial = None if check is None else check.partials.get(label)
    if partial is None or not partial.exact_values:
        return []
    mismatch = partial.mismatch
    flat = np.zeros(len(partial.exact_values), bool) if mismatch is None else mismatch.reshape(-1)
    return [None if bad else exact for exact, bad in zip(partial.exact_values, flat)]


def settled(values: Any, check: CheckReport | None, label: str) -> np.ndarray:
    """``values`` (the tape's, over the points) with each point where the check knows the
    exact value, and agrees, replaced by that value's nearest float.

    >>> from gradcalc import jacobian
    >>> row = jacobian("r*cos(t), r*sin(t)", at=["r=1,t=pi/3"]).rows[0]
    >>> float(row.gradient["r"]), float(settled(row.gradient["r"], row.check, "r"))
    (0.5000000000000001, 0.5)
    """
    exacts = agreed_exact(check, label)
    if not exacts or check is None:  # nothing to settle: the values (10^6 points: no copy)
        return np.asarray(values, dtype=float)
    array = np.array(values, dtype=float)
    flat = array.reshape(-1)
    known = check.partials[label].values.reshape(-1)  # each exact value's float, or NaN
    for k, exact in enumerate(exacts[: flat.size]):
        if exact is not None and np.isfinite(known[k]):
            flat[k] = known[k]
    return array


def below_float64(check: CheckReport | None, label: str, count: int) -> np.ndarray:
    """Per point (flat, ``count`` of them): whether the exact value of ``label`` is known
    and not 0, but its nearest float is (``exp(-800)``): a gradient that is not 0 although
    float64 shows 0.

    >>> from gradcalc import grad
    >>> below_float64(grad("exp(x)", at=["x=-800", "x=0"]).check, "x", 2).tolist()
    [True, False]
    """
    return _where_exact(
        check, label, count, lambda exact, number: not exact.is_zero and number == 0
    )


def _where_exact(
    check: CheckReport | None, label: str, count: int, test: Callable[[Any, float], bool]
) -> np.ndarray:
    """Per point (flat, ``count``): whether ``label``'s exact value is known there and
    passes ``test`` (with its nearest float)."""
    out = np.zeros(count, bool)
    exacts = agreed_exact(check, label)
    if exacts and check is not None:
        floats = check.partials[label].values.reshape(-1)
        for k, exact in enumerate(exacts[:count]):
            out[k] = exact is not None and test(exact, float(floats[k]))
    return out


def exact_texts(check: CheckReport | None, label: str) -> list[str | None]:
    """The exact value of ``label`` as text per point (flat), where it is known, agreed and
    short (any length with ``--exact``); ``None`` elsewhere.

    >>> from gradcalc import grad
    >>> exact_texts(grad("sin(x)", at=["x=pi/3"]).check, "x")
    ['1/2']
    """
    partial = None if check is None else check.partials.get(label)
    exacts = agreed_exact(check, label)
    if partial is None or not exacts:
        return []
    return [text if exact is not None else None for text, exact in zip(partial.exact, exacts)]


def exact_determinants(
    rows: Sequence[Any], timeout: float, long_text: bool = False
) -> tuple[list[tuple[float, str] | None], str | None]:
    """The Jacobian determinant of gradient results ``rows`` (one per target) exactly:
    per point, its nearest float and text where every entry's exact value is known (else
    ``None``; the text is empty when long, unless ``long_text``); and, with ``long_text``
    (``--exact``), the texts simplified and sympy's simplified symbolic determinant. All
    within ``timeout`` seconds, else left out.

    >>> from gradcalc import grad
    >>> rows = grad("r*cos(t), r*sin(t)", at=["r=2,t=pi/3"])
    >>> exact_determinants(rows, 5.0, long_text=True)
    ([(2.0, '2')], 'r')
    """
    if all(row.check is None for row in rows):  # --no-check: nothing exact, and no sympy
        return [], None
    import sympy as sp

    from gradcalc.symbolic.crosscheck.crosscheck import SHORT_EXACT, CheckTimeout, time_limit

    labels = list(rows[0].gradient)
    columns = [[agreed_exact(row.check, label) for label in labels] for row in rows]
    count = min((len(entry) for row in columns for entry in row), default=0)
    exact: list[tuple[float, str] | None] = [None] * count
    symbolic = None
    try:
        with time_limit(timeout):
            for k in range(count):
                entries = [[entry[k] for entry in row] for row in columns]
                if all(e is not None for row in entries for e in row):
                    determinant = sp.Matrix(entries).det()
                    if long_text:  # simplify costs time: only when asked for (--exact)
                        determinant = sp.simplify(determinant)
                    value = nearest_float(determinant)
                    text = str(determinant)
                    if value is not None:
                        exact[k] = (value, text if long_text or len(text) <= SHORT_EXACT else "")
            if long_text and all(row.check is not None and row.check.partials for row in rows):
                matrix = [
                    [row.check.partials[label].derivative for label in labels] for row in rows
                ]
                symbolic = str(sp.simplify(sp.Matrix(matrix).det()))
    except CheckTimeout:
        pass
    return exact, symbolic


def settled_value(
    graph: Any, target: int, value: np.ndarray, where: CheckInput
) -> tuple[np.ndarray, list[Any]]:
    """The target's ``value`` over the points, exact where the points were given exactly (at
    most :data:`EXACT_POINT_LIMIT` of them) and sympy evaluates it within the time budget;
    and those exact values, per point (flat; ``None`` where not found).

    >>> from gradcalc.engine.run.api import compile_expression
    >>> from gradcalc.engine.evaluate.points import parse_at
    >>> from gradcalc.symbolic.crosscheck.crosscheck import CheckInput
    >>> points = parse_at(["t=pi/3"])
    >>> where = CheckInput(points.arrays, points.exact, np.zeros((), bool))
    >>> graph = compile_expression("t*cos(t)", ["t"])
    >>> shown, exact = settled_value(graph, 0, np.array(0.5236), where)
    >>> float(shown), exact
    (0.5235987755982989, [pi/6])
    """
    import sympy as sp

    from gradcalc.symbolic.crosscheck.crosscheck import (
        EXACT_POINT_LIMIT,
        CheckTimeout,
        exact_value,
        target_expression,
        time_limit,
    )
    from gradcalc.symbolic.translate.convert import exact_at
    from gradcalc.symbolic.translate.shapes import shared_value

    shown = np.array(value, dtype=float)
    if where.exact_point is None or len(where.exact_point) > EXACT_POINT_LIMIT:
        return shown, []
    flat = shown.reshape(-1)
    exacts: list[Any] = [None] * flat.size
    try:
        with time_limit(where.timeout):
            for k, point in enumerate(where.exact_point[: flat.size]):
                shared = shared_value(graph, target, None, point, exact_only=True)  # in a stream
                if isinstance(shared, float) or not np.isfinite(flat[k]):
                    continue  # no exact value (or the tape's is undefined): the tape's stands
                if shared is not None:
                    exact = sp.Rational(shared.numerator, shared.denominator)
                else:
                    subs = {sp.Symbol(n, real=True): exact_value(t) for n, t in point.items()}
                    exact = exact_at(target_expression(graph, target), subs)
                number = nearest_float(exact) if exact.is_number else None
                if number is not None:
                    flat[k], exacts[k] = number, exact
    except (CheckTimeout, ValueError, TypeError, ArithmeticError, AttributeError, MemoryError):
        pass  # e.g. exp(3e9^6e9) inside a finite value: mpmath cannot hold it; the tape's stands
    return shown, exacts


def value_texts(check: CheckReport | None, long_text: bool) -> list[str | None]:
    """The target's exact value as text per point (flat) where sympy found it and it is
    short (any length with ``--exact``); empty without exact values.

    >>> from gradcalc import grad
    >>> value_texts(grad("x^2", at=["x=pi/2"]).check, False)
    ['pi^2/4']
    """
    if check is None or not check.value_exact:  # (--no-check loads no sympy)
        return []
    from gradcalc.symbolic.crosscheck.crosscheck import short_text

    return [None if e is None else short_text(e, long_text) for e in check.value_exact]
