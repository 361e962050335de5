"""Linear algebra: the matrix product ``@``, the dot product and the Euclidean norm.

``X @ W`` follows numpy's ``matmul``: a vector on the left is a row, on the right a column,
and leading axes are batches (broadcast). ``dot(u, v)`` is ``sum(u*v, axis=-1)``: the scalar
u·v for two vectors, one dot product per row for a matrix and a vector. ``norm(x)`` is the
Euclidean norm of all elements (``axis=``: along one axis).

>>> from gradcalc.core.ops import F
>>> from gradcalc import constant
>>> (constant([[1.0, 2.0]]) @ constant([[3.0], [4.0]])).value
array([[11.]])
>>> F.dot(constant([1.0, 2.0]), constant([3.0, 4.0])).value, F.norm(constant([3.0, 4.0])).value
(array(11.), array(5.))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from gradcalc.core.errors import ShapeError
from gradcalc.core.ops.domains import kink
from gradcalc.core.ops.record import DomainIssue, F, Op, named
from gradcalc.core.ops.shape import Axis, along, spread, swap_last
from gradcalc.core.tensor import Tensor


def _column(t: Tensor) -> Tensor:
    """``t`` with a last axis of length 1 added: (..., n) -> (..., n, 1)."""
    result: Tensor = F.reshape(t, shape=(*t.shape, 1))
    return result


def _row(t: Tensor) -> Tensor:
    """``t`` with an axis of length 1 before its last: (..., n) -> (..., 1, n)."""
    result: Tensor = F.reshape(t, shape=(*t.shape[:-1], 1, t.shape[-1]))
    return result


def _matrix_t(t: Tensor) -> Tensor:
    """The transpose of the last two axes."""
    result: Tensor = F.transpose(t, axes=swap_last(len(t.shape)))
    return result


def _matmul_x(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """d/dx of ``x @ y`` against the adjoint ``g`` (batch axes are summed by the tape)."""
    if len(y.shape) == 1:  # (..., m, n) @ (n,) -> (..., m); or two vectors -> ()
        result: Tensor = g * y if len(x.shape) == 1 else _column(g) * y
    elif len(x.shape) == 1:  # (n,) @ (..., n, k) -> (..., k)
        result = F.sum(y * _row(g), axis=-1)
    else:
        result = F.matmul(g, _matrix_t(y))
    return result


def _matmul_y(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """d/dy of ``x @ y`` against the adjoint ``g``."""
    if len(x.shape) == 1:  # (n,) @ (..., n, k) -> (..., k); or two vectors -> ()
        result: Tensor = g * x if len(y.shape) == 1 else _column(x) * _row(g)
    elif len(y.shape) == 1:  # (..., m, n) @ (n,) -> (..., m)
        result = F.sum(_column(g) * x, axis=-2)
    else:
        result = F.matmul(_matrix_t(x), g)
    return result


def _zero_norm(x: np.ndarray, axis: Axis = None) -> Iterable[DomainIssue]:
    yield kink(
        np.all(x == 0, axis=axis), "norm has a corner at the zero vector (no direction there)"
    )


def _as_object(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=object)


def _matmul_symbolic(x: Any, y: Any) -> Any:
    try:
        return np.matmul(_as_object(x), _as_object(y))
    except ValueError:
        raise ShapeError(
            f"matmul cannot take shapes {np.shape(x)} and {np.shape(y)}: "
            "(..., m, n) @ (..., n, k), the inner sizes equal"
        ) from None


OPS = [
    Op("matmul", 2, np.matmul, (_matmul_x, _matmul_y),
       lambda sp, x, y: _matmul_symbolic(x, y), symbol="@", precedence=2,
       infix=("@",), dunders=("__matmul__", "__rmatmul__"), rule=named("product rule"),
       elementwise=False, shapes="(..., m, n) @ (..., n, k), the inner sizes equal",
       summary="matrix product; adjoints G @ yᵀ for x and xᵀ @ G for y"),
    Op("dot", 2, lambda x, y: np.sum(x * y, axis=-1),
       (lambda g, ans, x, y: _column(g) * y, lambda g, ans, x, y: _column(g) * x),
       lambda sp, x, y: along(_as_object(x) * _as_object(y), -1, lambda v: sp.Add(*v)),
       names=("dot",), rule=named("product rule"), elementwise=False,
       summary="sum(x*y, axis=-1); adjoints g·y for x and g·x for y",
       shapes="vectors of one length (dot multiplies along the last axis)"),
    Op("norm", 1, lambda x, axis=None: np.sqrt(np.sum(np.square(x), axis=axis)),
       (lambda g, ans, x, axis=None: spread(g / ans, x.shape, axis) * x,),
       lambda sp, x, axis=None: along(x, axis, lambda v: sp.sqrt(sp.Add(*(t**2 for t in v)))),
       domain=_zero_norm, names=("norm",), params=("axis",), keywords=("axis",),
       elementwise=False, shapes="", summary="sqrt(sum(x^2)); adjoint g·x/norm(x), none at 0"),
]  # fmt: skip
