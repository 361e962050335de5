"""Piecewise functions: absolute value, sign, maximum and minimum, rounding.

>>> from gradcalc.core.ops import FUNCTION_NAMES
>>> FUNCTION_NAMES["Max"].variadic
True
"""

from __future__ import annotations

import numpy as np

from gradcalc.core.ops.domains import corner, is_integer, jump
from gradcalc.core.ops.record import AWAY_FROM_INTEGERS, NONZERO, F, Interval, Op, through

_APART = ((Interval(-2, -0.2),), (Interval(0.2, 2),))

OPS = [
    Op("abs", 1, np.abs, (lambda g, ans, x: g * F.sign(x),), lambda sp, x: sp.Abs(x),
       dunders=("__abs__",), domain=corner("abs", "0", lambda x: x == 0),
       sample=(NONZERO,), names=("Abs", "abs"), propagates=through(0)),
    Op("sign", 1, np.sign, (lambda g, ans, x: 0 * g,), lambda sp, x: sp.sign(x),
       domain=jump("sign", "0", lambda x: x == 0), sample=(NONZERO,),
       names=("sign", "sgn")),
    Op("max", 2, np.maximum,
       (lambda g, ans, x, y: g * (1 + F.sign(x - y)) / 2,
        lambda g, ans, x, y: g * (1 - F.sign(x - y)) / 2),
       lambda sp, x, y: sp.Max(x, y), domain=corner("max", "a tie", lambda x, y: x == y),
       sample=_APART, names=("Max", "max"), variadic=True, reduction="amax"),
    Op("min", 2, np.minimum,
       (lambda g, ans, x, y: g * (1 - F.sign(x - y)) / 2,
        lambda g, ans, x, y: g * (1 + F.sign(x - y)) / 2),
       lambda sp, x, y: sp.Min(x, y), domain=corner("min", "a tie", lambda x, y: x == y),
       sample=_APART, names=("Min", "min"), variadic=True, reduction="amin"),
    Op("floor", 1, np.floor, (lambda g, ans, x: 0 * g,), lambda sp, x: sp.floor(x),
       domain=jump("floor", "integers", is_integer), sample=(AWAY_FROM_INTEGERS,),
       names=("floor",)),
    Op("ceiling", 1, np.ceil, (lambda g, ans, x: 0 * g,), lambda sp, x: sp.ceiling(x),
       domain=jump("ceiling", "integers", is_integer), sample=(AWAY_FROM_INTEGERS,),
       names=("ceiling", "ceil")),
]  # fmt: skip
