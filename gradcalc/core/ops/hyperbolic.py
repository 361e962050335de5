"""Hyperbolic functions and their inverses.

>>> from gradcalc.core.ops import REGISTRY
>>> REGISTRY["tanh"].saturates
True
"""

from __future__ import annotations

import numpy as np

from gradcalc.core.ops.domains import kink, undefined, unit_interval
from gradcalc.core.ops.record import UNIT, F, Interval, Op, through

OPS = [
    Op("sinh", 1, np.sinh, (lambda g, ans, x: g * F.cosh(x),), lambda sp, x: sp.sinh(x),
       names=("sinh",), propagates=through(0)),
    Op("cosh", 1, np.cosh, (lambda g, ans, x: g * F.sinh(x),), lambda sp, x: sp.cosh(x),
       names=("cosh",), propagates=through(0)),
    # sech**2 rather than 1 - tanh**2, which cancels to 0 for large |x|
    Op("tanh", 1, np.tanh, (lambda g, ans, x: g * F.sech(x) ** 2,), lambda sp, x: sp.tanh(x),
       names=("tanh",), saturates=True),
    Op("sech", 1, lambda x: 1 / np.cosh(x), (lambda g, ans, x: -g * ans * F.tanh(x),),
       lambda sp, x: sp.sech(x), names=("sech",)),
    # 1/cosh(asinh x) = 1/sqrt(x**2 + 1), whose x**2 overflows past |x| = 1.3e154
    Op("asinh", 1, np.arcsinh, (lambda g, ans, x: g * F.sech(ans),),
       lambda sp, x: sp.asinh(x), names=("asinh", "arcsinh")),
    # sqrt(x - 1)·sqrt(x + 1): x**2 - 1 overflows past 1.3e154 (and cancels near 1)
    Op("acosh", 1, np.arccosh, (lambda g, ans, x: g / (F.sqrt(x - 1) * F.sqrt(x + 1)),),
       lambda sp, x: sp.acosh(x),
       domain=lambda x: [undefined(x < 1, "acosh is undefined below 1"),
                         kink(x == 1, "acosh has an infinite slope at 1")],
       sample=((Interval(1.2, 4.0),),), names=("acosh", "arccosh")),
    Op("atanh", 1, np.arctanh, (lambda g, ans, x: g / (1 - x**2),), lambda sp, x: sp.atanh(x),
       domain=unit_interval("atanh", closed_ok=False), sample=(UNIT,),
       names=("atanh", "arctanh")),
]  # fmt: skip
