"""Exponentials, logarithms and roots.

>>> from gradcalc.core.ops import FUNCTION_NAMES
>>> FUNCTION_NAMES["ln"].takes_base
True
"""

from __future__ import annotations

import math

import numpy as np

from gradcalc.core.ops.domains import log_like, root_like
from gradcalc.core.ops.record import NONZERO, POSITIVE, Op, through

OPS = [
    Op("exp", 1, np.exp, (lambda g, ans, x: g * ans,), lambda sp, x: sp.exp(x), names=("exp",),
       array_grads=(lambda g, ans, x: np.multiply(g, ans),)),
    Op("log", 1, np.log, (lambda g, ans, x: g / x,), lambda sp, x: sp.log(x),
       domain=log_like("log"), sample=(POSITIVE,), names=("log", "ln"), takes_base=True,
       propagates=through(0), array_grads=(lambda g, ans, x: np.divide(g, x),)),
    Op("log10", 1, np.log10, (lambda g, ans, x: g / (x * math.log(10)),),
       lambda sp, x: sp.log(x, 10), domain=log_like("log10"), sample=(POSITIVE,),
       names=("log10",)),
    Op("sqrt", 1, np.sqrt, (lambda g, ans, x: g / (2 * ans),), lambda sp, x: sp.sqrt(x),
       domain=root_like("sqrt", negative_ok=False), sample=(POSITIVE,), names=("sqrt",),
       propagates=through(0), array_grads=(lambda g, ans, x: np.divide(g, np.multiply(2.0, ans)),)),
    Op("cbrt", 1, np.cbrt, (lambda g, ans, x: g / (3 * ans**2),),
       lambda sp, x: sp.real_root(x, 3),
       domain=root_like("cbrt", negative_ok=True), sample=(NONZERO,), names=("cbrt",)),
]  # fmt: skip
