"""The decisions of the domain rules (:mod:`gradcalc.core.ops`) that a native kernel's last
bits could change: for each op, the lanes where its rule's boundary -- a kink, a tie, a
pole, an integer, the edge of its domain -- lies within reach of a value that may differ
from numpy's (see :mod:`gradcalc.engine.compile.native_bounds`). Those points go to the tape.

>>> sorted(BOUNDARIES)[:6]
['abs', 'acos', 'acosh', 'asin', 'atan2', 'atanh']
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gradcalc.core.ops.domains import POLE_TOLERANCE
from gradcalc.engine.compile.native_bounds import MARGIN, Rules

if TYPE_CHECKING:
    from gradcalc.engine.compile.native_bounds import Bounds


def _at_zero(position: int) -> Callable[..., Any]:
    """A rule deciding on its input ``position`` at 0 (abs, sign, log, sqrt, a divisor)."""
    return lambda bounds, args, errors: bounds.near(args[position], errors[position])


def _at_unit(bounds: Bounds, args: list[Any], errors: list[Any]) -> Any:
    """asin, acos, atanh: undefined past ±1, a kink or a pole at it."""
    return bounds.near(bounds.magnitude(args[0]), errors[0], 1.0)


def _at_one(bounds: Bounds, args: list[Any], errors: list[Any]) -> Any:
    """acosh: undefined below 1, an infinite slope at 1."""
    return bounds.near(args[0], errors[0], 1.0)


def _at_tie(bounds: Bounds, args: list[Any], errors: list[Any]) -> Any:
    """max, min: a corner where the inputs tie."""
    gap = bounds.sub(args[0], args[1])
    return bounds.near(gap, bounds.total(errors))


def _at_integer(bounds: Bounds, args: list[Any], errors: list[Any]) -> Any:
    """floor, ceiling: a jump at each integer."""
    return bounds.near_integer(args[0], errors[0])


def _at_power(bounds: Bounds, args: list[Any], errors: list[Any]) -> Any:
    """x^y: decided at x = 0 (its sign); for a varying y, at its integers (a negative base),
    and at 0 and 1 (a zero base)."""
    (x, y), (ex, ey) = args, errors
    near = bounds.near(x, ex)
    if ey is None:
        return near
    b = bounds.emit.builder
    base = bounds.or_zero(ex)
    reach = bounds.times(MARGIN, base)
    zero_base = b.fcmp_unordered("<=", bounds.magnitude(x), reach)
    negative_base = b.fcmp_unordered("<=", x, reach)
    small = bounds.any_of(bounds.near(y, ey), bounds.near(y, ey, 1.0))
    whole = bounds.near_integer(y, ey)
    return bounds.any_of(near, b.or_(b.and_(zero_base, small), b.and_(negative_base, whole)))


def _at_pole(offset: float) -> Callable[..., Any]:
    """tan, sec (offset pi/2), csc, cot (offset 0): undefined at offset + k pi, to within
    the rule's own tolerance (:func:`gradcalc.core.ops.domains.multiple_of_pi`)."""

    def near(bounds: Bounds, args: list[Any], errors: list[Any]) -> Any:
        (x,), (e,) = args, errors
        if e is None:
            return None
        splat = bounds.emit.splat
        quotient = bounds.div(bounds.sub(x, splat(offset)), splat(math.pi))
        turns = bounds.emit.call_intrinsic("llvm.roundeven", [quotient])
        pole = bounds.add(bounds.mul(turns, splat(math.pi)), splat(offset))
        distance = bounds.magnitude(bounds.sub(x, pole))
        allowed = bounds.add(
            bounds.times(POLE_TOLERANCE, bounds.magnitude(pole)), bounds.times(MARGIN, e)
        )
        return bounds.emit.builder.fcmp_unordered("<=", distance, allowed)

    return near


def _at_origin(bounds: Bounds, args: list[Any], errors: list[Any]) -> Any:
    """atan2(y, x): undefined at (0, 0), a jump where y = 0 and x < 0: decided at y = 0
    (and, where y is exactly numpy's, at x = 0 when y is 0)."""
    (y, x), (ey, ex) = args, errors
    if ey is not None:
        return bounds.near(y, ey)
    b = bounds.emit.builder
    on_axis = b.fcmp_unordered("==", y, bounds.emit.splat(0.0))
    return b.and_(on_axis, bounds.near(x, ex))


#: Each op whose domain rule the loop may meet (by its name in the registry): the lanes
#: where the rule could decide otherwise at numpy's values, given ``(bounds, args, errors)``
#: (``None`` for an input that is numpy's exactly).
BOUNDARIES: Rules = {
    "abs": _at_zero(0),
    "sign": _at_zero(0),
    "log": _at_zero(0),
    "log10": _at_zero(0),
    "sqrt": _at_zero(0),
    "cbrt": _at_zero(0),
    "div": _at_zero(1),
    "pow": _at_power,
    "max": _at_tie,
    "min": _at_tie,
    "floor": _at_integer,
    "ceiling": _at_integer,
    "asin": _at_unit,
    "acos": _at_unit,
    "atanh": _at_unit,
    "acosh": _at_one,
    "tan": _at_pole(math.pi / 2),
    "sec": _at_pole(math.pi / 2),
    "csc": _at_pole(0.0),
    "cot": _at_pole(0.0),
    "atan2": _at_origin,
}
