"""Trigonometric functions and their inverses.

>>> from gradcalc.core.ops import REGISTRY
>>> REGISTRY["atan2"].args
('y', 'x')
"""

from __future__ import annotations

import numpy as np

from gradcalc.core.ops.domains import kink, poles, undefined, unit_interval
from gradcalc.core.ops.record import NONZERO, POSITIVE, UNIT, F, Interval, Op, through

_AWAY_FROM_POLES = ((Interval(0.2, 2.9),),)

OPS = [
    Op("sin", 1, np.sin, (lambda g, ans, x: g * F.cos(x),), lambda sp, x: sp.sin(x),
       names=("sin",), propagates=through(0),
       array_grads=(lambda g, ans, x: np.multiply(g, np.cos(x)),)),
    Op("cos", 1, np.cos, (lambda g, ans, x: -g * F.sin(x),), lambda sp, x: sp.cos(x),
       names=("cos",), propagates=through(0),
       array_grads=(lambda g, ans, x: np.multiply(np.negative(g), np.sin(x)),)),
    Op("tan", 1, np.tan, (lambda g, ans, x: g * (1 + ans**2),), lambda sp, x: sp.tan(x),
       domain=poles(np.pi / 2, "tan", "its cosine is 0"), names=("tan",),
       propagates=through(0)),
    Op("sec", 1, lambda x: 1 / np.cos(x), (lambda g, ans, x: g * ans * F.tan(x),),
       lambda sp, x: sp.sec(x),
       domain=poles(np.pi / 2, "sec", "its cosine is 0"), names=("sec",)),
    Op("csc", 1, lambda x: 1 / np.sin(x), (lambda g, ans, x: -g * ans * F.cot(x),),
       lambda sp, x: sp.csc(x),
       domain=poles(0.0, "csc", "its sine is 0"), sample=_AWAY_FROM_POLES, names=("csc",)),
    Op("cot", 1, lambda x: 1 / np.tan(x), (lambda g, ans, x: -g * (1 + ans**2),),
       lambda sp, x: sp.cot(x),
       domain=poles(0.0, "cot", "its sine is 0"), sample=_AWAY_FROM_POLES, names=("cot",)),
    Op("asin", 1, np.arcsin, (lambda g, ans, x: g / F.sqrt(1 - x**2),),
       lambda sp, x: sp.asin(x), domain=unit_interval("asin", closed_ok=True),
       sample=(UNIT,), names=("asin", "arcsin")),
    Op("acos", 1, np.arccos, (lambda g, ans, x: -g / F.sqrt(1 - x**2),),
       lambda sp, x: sp.acos(x), domain=unit_interval("acos", closed_ok=True),
       sample=(UNIT,), names=("acos", "arccos")),
    Op("atan", 1, np.arctan, (lambda g, ans, x: g / (1 + x**2),), lambda sp, x: sp.atan(x),
       names=("atan", "arctan")),
    Op("atan2", 2, np.arctan2,
       (lambda g, ans, y, x: g * x / (x**2 + y**2), lambda g, ans, y, x: -g * y / (x**2 + y**2)),
       lambda sp, y, x: sp.atan2(y, x),
       domain=lambda y, x: [undefined((x == 0) & (y == 0), "atan2(0, 0) is undefined"),
                            kink((x < 0) & (y == 0), "atan2(y, x) jumps where y = 0 and x < 0")],
       sample=(NONZERO, POSITIVE), names=("atan2", "arctan2"), args=("y", "x")),
]  # fmt: skip
