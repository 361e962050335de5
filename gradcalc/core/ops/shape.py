"""Shape bookkeeping for broadcasting: internal ops the parser cannot name.

>>> from gradcalc.core.ops import F
>>> from gradcalc import constant
>>> F.sum_to(constant([[1.0, 2.0], [3.0, 4.0]]), shape=(2,)).value
array([4., 6.])
"""

from __future__ import annotations

import numpy as np

from gradcalc.core.ops.record import F, Op


def _sum_to(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a broadcast array back down to ``shape`` (the adjoint of broadcasting)."""
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and x.shape[lead + i] != 1
    )
    return np.sum(x, axis=axes, keepdims=False).reshape(shape) if axes else x.reshape(shape)


def _broadcast_to(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.array(np.broadcast_to(x, shape))


OPS = [
    Op("sum_to", 1, _sum_to, (lambda g, ans, x, shape: F.broadcast_to(g, shape=x.shape),),
       lambda sp, x, shape: x, params=("shape",)),
    Op("broadcast_to", 1, _broadcast_to, (lambda g, ans, x, shape: F.sum_to(g, shape=x.shape),),
       lambda sp, x, shape: x, params=("shape",)),
]  # fmt: skip
