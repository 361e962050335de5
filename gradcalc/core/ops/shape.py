"""Shape bookkeeping: broadcasting and its adjoint, reshaping, transposing and indexing.

The internal ops (``sum_to``, ``broadcast_to``, ``reshape``, ``scatter``) carry gradients of
broadcasting and reductions; ``transpose`` and indexing (``v[i]``) are written by users. The
helpers below are shared by the rules of the reductions.

>>> from gradcalc.core.ops import F
>>> from gradcalc import constant
>>> F.sum_to(constant([[1.0, 2.0], [3.0, 4.0]]), shape=(2,)).value
array([4., 6.])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gradcalc.core.errors import ShapeError
from gradcalc.core.ops.record import F, Op
from gradcalc.core.tensor import Tensor

Axis = int | tuple[int, ...] | None


def _sum_to(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a broadcast array back down to ``shape`` (the adjoint of broadcasting)."""
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and x.shape[lead + i] != 1
    )
    return np.sum(x, axis=axes, keepdims=False).reshape(shape) if axes else x.reshape(shape)


def _broadcast_to(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.array(np.broadcast_to(x, shape))


def axes_of(axis: Axis, ndim: int) -> tuple[int, ...]:
    """The axes a reduction over ``axis`` removes, as non-negative numbers (all for ``None``).

    >>> axes_of(-1, 3), axes_of(None, 2), axes_of((0, 2), 3)
    ((2,), (0, 1), (0, 2))

    Raises:
        ShapeError: for an axis the array does not have, or one given twice.
    """
    if axis is None:
        return tuple(range(ndim))
    chosen = [int(a) for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis)]
    for a in chosen:
        if not -ndim <= a < ndim:
            raise ShapeError(f"axis {a} is out of range for a tensor of {ndim} axes")
    axes = sorted(a % ndim for a in chosen)
    if len(set(axes)) < len(axes):
        raise ShapeError(f"axis {axis} names an axis twice")
    return tuple(axes)


def kept_shape(shape: tuple[int, ...], axis: Axis) -> tuple[int, ...]:
    """The shape of a reduction over ``axis`` with the reduced axes kept as 1.

    >>> kept_shape((3, 4), 0), kept_shape((3, 4), None)
    ((1, 4), (1, 1))
    """
    axes = axes_of(axis, len(shape))
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def spread(g: Any, shape: tuple[int, ...], axis: Axis) -> Tensor:
    """A reduction's result ``g`` broadcast back over the reduced axes of ``shape``
    (differentiable: the adjoint of a sum).

    >>> from gradcalc import constant
    >>> spread(constant([1.0, 2.0]), (2, 3), 1).value
    array([[1., 1., 1.],
           [2., 2., 2.]])
    """
    result: Tensor = F.broadcast_to(F.reshape(g, shape=kept_shape(shape, axis)), shape=shape)
    return result


def count(shape: tuple[int, ...], axis: Axis) -> int:
    """How many elements a reduction over ``axis`` combines into each result.

    >>> count((3, 4), 1), count((3, 4), None)
    (4, 12)
    """
    return int(np.prod([shape[a] for a in axes_of(axis, len(shape))], dtype=np.int64))


def along(x: Any, axis: Axis, combine: Callable[[Sequence[Any]], Any]) -> Any:
    """``combine`` applied to the elements along ``axis`` of an object array (all elements
    for ``None``): the sympy counterparts of the reductions.

    >>> along(np.array([[1, 2], [3, 4]], dtype=object), 0, sum)
    array([4, 6], dtype=object)
    """
    array = np.asarray(x, dtype=object)
    axes = axes_of(axis, array.ndim)
    rest = [n for i, n in enumerate(array.shape) if i not in axes]
    moved = np.moveaxis(array, axes, tuple(range(-len(axes), 0))).reshape((*rest, -1))
    out = np.empty(tuple(rest), dtype=object)
    for index in np.ndindex(*rest):
        out[index] = combine(list(moved[index]))
    return out[()] if out.ndim == 0 else out


def _inverse(axes: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """The permutation that undoes ``axes`` (reversing all axes undoes itself)."""
    return None if axes is None else tuple(int(i) for i in np.argsort(axes))


def swap_last(ndim: int) -> tuple[int, ...]:
    """The permutation that swaps the last two axes (a matrix transpose, batches kept).

    >>> swap_last(3)
    (0, 2, 1)
    """
    return (*range(ndim - 2), ndim - 1, ndim - 2)


def _scatter(g: np.ndarray, shape: tuple[int, ...], index: tuple[int, ...]) -> np.ndarray:
    """Zeros of ``shape`` with ``g`` added at ``index`` (the adjoint of indexing: an entry
    taken twice, ``x[[0, 0]]``, gets both adjoints).

    >>> _scatter(np.array([1.0, 10.0, 100.0]), (3,), (np.array([0, 0, 2]),))
    array([ 11.,   0., 100.])
    """
    out = np.zeros(shape)
    np.add.at(out, index, g)
    return out


def _as_object(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=object)


def _scalar(x: np.ndarray) -> Any:
    return x[()] if x.ndim == 0 else x


OPS = [
    Op("sum_to", 1, _sum_to, (lambda g, ans, x, shape: F.broadcast_to(g, shape=x.shape),),
       lambda sp, x, shape: _scalar(_sum_to(_as_object(x), shape)), params=("shape",),
       elementwise=False, shapes=""),
    Op("broadcast_to", 1, _broadcast_to, (lambda g, ans, x, shape: F.sum_to(g, shape=x.shape),),
       lambda sp, x, shape: _scalar(_broadcast_to(_as_object(x), shape)), params=("shape",),
       elementwise=False, shapes=""),
    Op("reshape", 1, np.reshape, (lambda g, ans, x, shape: F.reshape(g, shape=x.shape),),
       lambda sp, x, shape: _scalar(np.reshape(_as_object(x), shape)), params=("shape",),
       elementwise=False, shapes=""),
    Op("transpose", 1, lambda x, axes=None: np.transpose(x, axes),
       (lambda g, ans, x, axes=None: F.transpose(g, axes=_inverse(axes)),),
       lambda sp, x, axes=None: _scalar(np.transpose(_as_object(x), axes)), params=("axes",),
       names=("transpose",), elementwise=False, shapes="",
       summary="the axes reversed (a matrix transposed); adjoint transpose(g)"),
    Op("index", 1, lambda x, index: x[index],
       (lambda g, ans, x, index: F.scatter(g, shape=x.shape, index=index),),
       lambda sp, x, index: _index_symbolic(x, index), params=("index",), dunders=("__getitem__",),
       elementwise=False, shapes="an index within the tensor's axes and sizes"),
    Op("scatter", 1, _scatter, (lambda g, ans, x, shape, index: F.index(g, index=index),),
       lambda sp, x, shape, index: _scatter_symbolic(x, shape, index), params=("shape", "index"),
       elementwise=False, shapes=""),
]  # fmt: skip


def _index_symbolic(x: Any, index: Any) -> Any:
    try:
        return _as_object(x)[index]
    except IndexError:
        raise ShapeError(f"index {index} is outside a tensor of shape {np.shape(x)}") from None


def _scatter_symbolic(x: Any, shape: tuple[int, ...], index: tuple[int, ...]) -> np.ndarray:
    out = np.zeros(shape, dtype=object)
    np.add.at(out, index, x)
    return out
