"""Reductions along an axis, and softmax: ``sum``, ``mean``, ``amax``, ``amin``, ``logsumexp``.

Each takes ``axis`` (an integer, negative counting from the end; default: every element, so
the result is one number; ``softmax``: the last axis). ``max`` and ``min`` with one argument
or with ``axis=`` are ``amax`` and ``amin`` (two or more arguments compare elementwise).

>>> from gradcalc.core.ops import F
>>> from gradcalc import constant
>>> X = constant([[1.0, 2.0], [3.0, 4.0]])
>>> F.sum(X).value, F.mean(X, axis=0).value, F.amax(X, axis=1).value
(array(10.), array([2., 3.]), array([2., 4.]))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from gradcalc.core.ops.domains import kink
from gradcalc.core.ops.record import DomainIssue, F, Op, named
from gradcalc.core.ops.shape import Axis, along, axes_of, count, kept_shape, spread
from gradcalc.core.tensor import Tensor


def _extreme_share(x: Tensor, ans: Tensor, axis: Axis) -> Tensor:
    """Where ``x`` attains its extreme along ``axis``, each element's share of the adjoint
    (ties split it evenly). A constant: it changes only where the op has no derivative."""
    hit = x.value == np.reshape(ans.value, kept_shape(x.shape, axis))
    return Tensor(hit / np.sum(hit, axis=axes_of(axis, len(x.shape)), keepdims=True))


def _ties(name: str, extreme: Any) -> Any:
    """The domain of ``amax``/``amin``: a corner where two elements tie for the extreme."""

    def domain(x: np.ndarray, axis: Axis = None) -> Iterable[DomainIssue]:
        axes = axes_of(axis, x.ndim)
        hits = np.sum(x == extreme(x, axis=axes, keepdims=True), axis=axes)
        yield kink(hits > 1, f"{name} has a corner where two elements tie for the {name[1:]}")

    return domain


def _logsumexp(x: np.ndarray, axis: Axis = None) -> np.ndarray:
    """log(sum(exp(x))) without overflow: the largest element is taken out first."""
    axes = axes_of(axis, x.ndim)
    top = np.max(x, axis=axes, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    out = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True)) + top
    return np.asarray(np.squeeze(out, axis=axes))


def _softmax(x: np.ndarray, axis: Axis = -1) -> np.ndarray:
    axes = axes_of(axis, x.ndim)
    e = np.exp(x - np.max(x, axis=axes, keepdims=True))
    result: np.ndarray = e / np.sum(e, axis=axes, keepdims=True)
    return result


def _softmax_symbolic(sp: Any, x: Any, axis: Axis = -1) -> Any:
    e = np.frompyfunc(sp.exp, 1, 1)(np.asarray(x, dtype=object))
    total = along(e, axis, lambda v: sp.Add(*v))
    return e / np.reshape(np.asarray(total, dtype=object), kept_shape(e.shape, axis))


_AXIS: dict[str, Any] = {
    "params": ("axis",),
    "keywords": ("axis",),
    "elementwise": False,
    "shapes": "",
}

OPS = [
    Op("sum", 1, lambda x, axis=None: np.sum(x, axis=axis),
       (lambda g, ans, x, axis=None: spread(g, x.shape, axis),),
       lambda sp, x, axis=None: along(x, axis, lambda v: sp.Add(*v)),
       names=("sum",), rule=named("sum rule"),
       summary="sum of the elements (along axis); adjoint g on every element", **_AXIS),
    Op("mean", 1, lambda x, axis=None: np.asarray(np.mean(x, axis=axis)),
       (lambda g, ans, x, axis=None: spread(g, x.shape, axis) / count(x.shape, axis),),
       lambda sp, x, axis=None: along(x, axis, lambda v: sp.Add(*v) / len(v)),
       names=("mean",), rule=named("sum rule"),
       summary="mean of the elements (along axis); adjoint g/n on every element", **_AXIS),
    Op("amax", 1, lambda x, axis=None: np.max(x, axis=axis),
       (lambda g, ans, x, axis=None: spread(g, x.shape, axis) * _extreme_share(x, ans, axis),),
       lambda sp, x, axis=None: along(x, axis, lambda v: sp.Max(*v)),
       domain=_ties("amax", np.max), names=("amax",),
       summary="largest element (along axis); adjoint g on it, split among ties", **_AXIS),
    Op("amin", 1, lambda x, axis=None: np.min(x, axis=axis),
       (lambda g, ans, x, axis=None: spread(g, x.shape, axis) * _extreme_share(x, ans, axis),),
       lambda sp, x, axis=None: along(x, axis, lambda v: sp.Min(*v)),
       domain=_ties("amin", np.min), names=("amin",),
       summary="smallest element (along axis); adjoint g on it, split among ties", **_AXIS),
    Op("logsumexp", 1, _logsumexp,
       (lambda g, ans, x, axis=None:
            spread(g, x.shape, axis) * F.exp(x - spread(ans, x.shape, axis)),),
       lambda sp, x, axis=None: along(x, axis, lambda v: sp.log(sp.Add(*map(sp.exp, v)))),
       names=("logsumexp",),
       summary="log(sum(exp(x))) without overflow; adjoint g·softmax(x)", **_AXIS),
    Op("softmax", 1, _softmax,
       (lambda g, ans, x, axis=-1: ans * (g - spread(F.sum(g * ans, axis=axis), x.shape, axis)),),
       _softmax_symbolic, names=("softmax",),
       summary="exp(x)/sum(exp(x)) along axis (default the last); adjoint s·(g - sum(g·s))",
       **_AXIS),
]  # fmt: skip
