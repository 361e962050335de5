"""Smooth and piecewise squashing functions: erf and the neural-network activations.

>>> from gradcalc.core.ops import F
>>> from gradcalc import constant
>>> F.relu(constant([-1.0, 2.0])).value
array([0., 2.])
"""

from __future__ import annotations

import math

import numpy as np

from gradcalc.core.ops.domains import corner, jump
from gradcalc.core.ops.record import NONZERO, F, Op

_erf = np.frompyfunc(math.erf, 1, 1)


def _erf_forward(x: np.ndarray) -> np.ndarray:
    """numpy has no erf; math.erf is exact to double precision, applied elementwise."""
    result: np.ndarray = np.asarray(_erf(x), dtype=np.float64)
    return result


def _elu_forward(x: np.ndarray) -> np.ndarray:
    """x above 0, exp(x) - 1 at and below it (expm1: exact near 0; no overflow above)."""
    result: np.ndarray = np.where(x > 0, x, np.expm1(np.minimum(x, 0.0)))
    return result


def _sigmoid_forward(x: np.ndarray) -> np.ndarray:
    result: np.ndarray = np.exp(-np.logaddexp(0.0, -x))
    return result


OPS = [
    Op("erf", 1, _erf_forward, (lambda g, ans, x: g * (2 / math.sqrt(math.pi)) * F.exp(-(x**2)),),
       lambda sp, x: sp.erf(x), names=("erf",), saturates=True),
    Op("relu", 1, lambda x: np.maximum(x, 0.0), (lambda g, ans, x: g * F.step(x),),
       lambda sp, x: sp.Max(0, x), domain=corner("relu", "0", lambda x: x == 0),
       sample=(NONZERO,), names=("relu",), saturates=True),
    Op("step", 1, lambda x: (x > 0).astype(np.float64), (lambda g, ans, x: 0 * g,),
       lambda sp, x: sp.Heaviside(x, 0), domain=jump("step", "0", lambda x: x == 0),
       sample=(NONZERO,), names=("step", "Heaviside")),
    # 1 - sigmoid(x) is sigmoid(-x), which does not cancel for large x
    Op("sigmoid", 1, _sigmoid_forward, (lambda g, ans, x: g * ans * F.sigmoid(-x),),
       lambda sp, x: 1 / (1 + sp.exp(-x)), names=("sigmoid",), saturates=True),
    # elu'(x) = exp(min(x, 0)): 1 above 0, exp(x) below, 1 at 0 from both sides
    Op("elu", 1, _elu_forward, (lambda g, ans, x: g * F.exp(F.min(x, 0.0)),),
       lambda sp, x: sp.Piecewise((x, x > 0), (sp.exp(x) - 1, True)),
       sample=(NONZERO,), names=("elu",), saturates=True),
    Op("softplus", 1, lambda x: np.logaddexp(0.0, x), (lambda g, ans, x: g * F.sigmoid(x),),
       lambda sp, x: sp.log(1 + sp.exp(x)), names=("softplus",), saturates=True),
]  # fmt: skip
