"""TensorFlow's names for what gradcalc's primitives compute: ``reduce_sum``, ``reduce_mean``,
``reduce_max``, ``reduce_min``, ``reduce_logsumexp`` (with ``axis`` and ``keepdims``) and
``clip_by_norm``, each composed of recorded primitives, so the tape shows the primitives.

>>> from gradcalc import Tape, Variable
>>> x = Variable([[1.0, 2.0], [3.0, 4.0]])
>>> with Tape() as tape:
...     y = reduce_mean(x, axis=0)
>>> y, tape.gradient(y, x)
(Tensor([2., 3.]), Tensor([[0.5, 0.5],
        [0.5, 0.5]]))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gradcalc.core.ops import F
from gradcalc.core.ops.record import Op
from gradcalc.core.ops.shape import kept_shape
from gradcalc.core.tensor import Tensor, as_tensor

Axis = int | Sequence[int] | None


def _reduce(op: Op, x: Any, axis: Axis, keepdims: bool) -> Tensor:
    """``op`` over ``axis`` (a list of axes as a tuple), the reduced axes kept as 1 on
    ``keepdims``."""
    x = as_tensor(x)
    axes = axis if axis is None or isinstance(axis, int) else tuple(axis)
    result: Tensor = op(x, axis=axes)
    if keepdims:
        result = F.reshape(result, shape=kept_shape(x.shape, axes))
    return result


def reduce_sum(x: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The sum of the elements (along ``axis``), as ``tf.reduce_sum``.

    >>> from gradcalc import constant
    >>> reduce_sum(constant([1.0, 2.0, 3.0])), reduce_sum(constant([[1.0, 2.0]]), axis=[0, 1])
    (Tensor(6.), Tensor(3.))
    """
    return _reduce(F.sum, x, axis, keepdims)


def reduce_mean(x: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The mean of the elements (along ``axis``), as ``tf.reduce_mean``.

    >>> from gradcalc import constant
    >>> reduce_mean(constant([[1.0, 2.0], [3.0, 5.0]]), axis=1, keepdims=True)
    Tensor([[1.5],
            [4. ]])
    """
    return _reduce(F.mean, x, axis, keepdims)


def reduce_max(x: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The largest element (along ``axis``), as ``tf.reduce_max``; a tie shares the gradient.

    >>> from gradcalc import constant
    >>> reduce_max(constant([[1.0, 7.0], [3.0, 5.0]]), axis=0)
    Tensor([3., 7.])
    """
    return _reduce(F.amax, x, axis, keepdims)


def reduce_min(x: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The smallest element (along ``axis``), as ``tf.reduce_min``.

    >>> from gradcalc import constant
    >>> reduce_min(constant([[1.0, 7.0], [3.0, 5.0]]), axis=1)
    Tensor([1., 3.])
    """
    return _reduce(F.amin, x, axis, keepdims)


def reduce_logsumexp(x: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """log(sum(exp(x))) (along ``axis``) without overflow, as ``tf.reduce_logsumexp``.

    >>> from gradcalc import constant
    >>> reduce_logsumexp(constant([1000.0, 1000.0]))
    Tensor(1000.69314718)
    """
    return _reduce(F.logsumexp, x, axis, keepdims)


def clip_by_norm(t: Any, clip_norm: Any, axes: Axis = None) -> Tensor:
    """``t`` scaled down so its L2 norm (over ``axes``; default all) is at most ``clip_norm``:
    ``t * clip_norm / max(norm(t), clip_norm)``, as ``tf.clip_by_norm``.

    >>> from gradcalc import constant
    >>> clip_by_norm(constant([3.0, 4.0]), 1.0), clip_by_norm(constant(4.0), 0.5)
    (Tensor([0.6, 0.8]), Tensor(0.5))
    """
    t = as_tensor(t)
    norm = _reduce(F.norm, t, axes, keepdims=True)
    result: Tensor = t * clip_norm / F.max(norm, clip_norm)
    return result
