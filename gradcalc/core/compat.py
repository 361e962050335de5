"""TensorFlow's names for what gradcalc's primitives compute: ``reduce_sum``, ``reduce_mean``,
``reduce_max``, ``reduce_min``, ``reduce_logsumexp`` (with ``axis`` and ``keepdims``) and
``clip_by_norm``, each composed of recorded primitives, so the tape shows the primitives; and
``zeros`` and ``ones``.

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
from typing import Any, NamedTuple

import numpy as np

from gradcalc.core.ops import F
from gradcalc.core.ops.record import Op
from gradcalc.core.ops.shape import kept_shape
from gradcalc.core.tensor import Tensor, as_tensor, check_float_dtype

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


def zeros(shape: int | tuple[int, ...], dtype: Any = None, name: str | None = None) -> Tensor:
    """A constant of zeros, as ``tf.zeros`` (``dtype``: a float type, computed in float64).

    >>> zeros(2, dtype=np.float32), zeros((1, 2)).shape
    (Tensor([0., 0.]), (1, 2))
    """
    check_float_dtype(dtype)
    return Tensor(np.zeros(shape), name)


def ones(shape: int | tuple[int, ...], dtype: Any = None, name: str | None = None) -> Tensor:
    """A constant of ones, as ``tf.ones`` (``dtype``: a float type, computed in float64).

    >>> ones(2, dtype="float64")
    Tensor([1., 1.])
    """
    check_float_dtype(dtype)
    return Tensor(np.ones(shape), name)


class Spelling(NamedTuple):
    """One row of the TensorFlow mapping table (docs/python-api.md is generated from
    :data:`TENSORFLOW`): how TensorFlow writes it, how gradcalc does, and where they differ
    (``on_purpose``: a deliberate difference). ``names`` are the gradcalc attributes the row
    promises (the tests resolve each)."""

    tensorflow: str
    gradcalc: str
    names: tuple[str, ...]
    difference: str = ""
    on_purpose: bool = False


#: TensorFlow's GradientTape API, as the guides use it, beside gradcalc's.
TENSORFLOW = (
    Spelling("`tf.GradientTape()`", "`gradcalc.Tape()`", ("Tape",)),
    Spelling("`tf.GradientTape(persistent=True)`", "`gradcalc.Tape(persistent=True)`", ("Tape",),
             "as in TensorFlow, a `gradient` or `jacobian` called inside its `with` block is "
             "recorded by the tape (TensorFlow also logs a warning about the cost)"),
    Spelling("`tf.GradientTape(watch_accessed_variables=False)`",
             "`gradcalc.Tape(watch_accessed_variables=False)`", ("Tape",)),
    Spelling("`tf.Variable(3.0, name='x0', trainable=False)`",
             '`gradcalc.Variable(3.0, name="x0", trainable=False)`', ("Variable",),
             "`var.name` is the name as given (`'x0'`, no `:0`); `None` when none was given"),
    Spelling("`tf.constant(3.0, name='x3')`", '`gradcalc.constant(3.0, name="x3")`', ("constant",)),
    Spelling("`tf.constant(10)` (an integer)", "`gradcalc.constant(10)`", ("constant",),
             "every tensor is float64: an integer is a number and gets a gradient "
             "(TensorFlow gives `None`); a float `dtype=` (`gradcalc.float32`, `float16`, "
             "`float64`, numpy's) is taken and computed in float64, any other is a `TypeError`",
             on_purpose=True),
    Spelling("`tf.zeros(2, dtype=tf.float32)`, `tf.ones((2, 3))`",
             "`gradcalc.zeros(2, dtype=gradcalc.float32)`, `gradcalc.ones((2, 3))`",
             ("zeros", "ones", "float32"), "constants, in float64"),
    Spelling("`tape.watch(x)`, `tape.watched_variables()`",
             "`tape.watch(x)`, `tape.watched_variables()`",
             ("Tape.watch", "Tape.watched_variables"), "`tape.watched` also lists watched tensors"),
    Spelling("`tape.gradient(y, [w, b])`, `tape.gradient(y, {'w': w})`",
             "the same (sources nested in lists, tuples and dicts)", ("Tape.gradient",)),
    Spelling("`tape.gradient({'y0': y0, 'y1': y1}, x)`", "the same: the gradient of the sum",
             ("Tape.gradient",)),
    Spelling("`tape.gradient(v, v)`", "the same: ones", ("Tape.gradient",)),
    Spelling("`tape.gradient(y, x, output_gradients=dy)`", "the same", ("Tape.gradient",),
             "`dy` of another shape than `y`'s is a `ShapeError` (a number for a 0-d `y`)"),
    Spelling("`tape.gradient(y, 'x')` (a string)", "the same", ("Tape.gradient",),
             "a clear `TypeError`, never a silent `None`", on_purpose=True),
    Spelling("`unconnected_gradients=tf.UnconnectedGradients.ZERO`",
             '`unconnected_gradients=gradcalc.UnconnectedGradients.ZERO` or `"zero"`',
             ("UnconnectedGradients",), '`unconnected="zero"` is another name for it'),
    Spelling("`tape.jacobian(y, x)`, `tape.batch_jacobian(y, x)`", "the same",
             ("Tape.jacobian", "Tape.batch_jacobian"),
             "`experimental_use_pfor=` and `parallel_iterations=` are taken and ignored: they "
             "choose how TensorFlow computes the same numbers"),
    Spelling("`tape.stop_recording()`, `tape.reset()`", "the same",
             ("Tape.stop_recording", "Tape.reset")),
    Spelling("`tf.stop_gradient(x)`", "`gradcalc.stop_gradient(x)`", ("stop_gradient",)),
    Spelling("`@tf.custom_gradient`", "`@gradcalc.custom_gradient`", ("custom_gradient",),
             "the function may not read a variable it does not take as an argument "
             "(`TypeError`; TensorFlow's `variables=` form is not supported)", on_purpose=True),
    Spelling("`tf.reduce_sum(x, axis=0, keepdims=True)`, `tf.reduce_mean`, `tf.reduce_max`, "
             "`tf.reduce_min`, `tf.reduce_logsumexp`",
             "`gradcalc.reduce_sum(x, axis=0, keepdims=True)` and the others",
             ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_logsumexp"),
             "`gradcalc.sum`, `mean`, `amax`, `amin`, `logsumexp` are the primitives underneath"),
    Spelling("`tf.clip_by_norm(t, 0.5)`", "`gradcalc.clip_by_norm(t, 0.5)`", ("clip_by_norm",)),
    Spelling("`tf.math.sin(x)`, `tf.nn.relu`, `tf.nn.sigmoid`, `tf.nn.softplus`, `tf.nn.elu`",
             "`gradcalc.sin(x)`, `gradcalc.relu`, `sigmoid`, `softplus`, `elu`",
             ("sin", "relu", "sigmoid", "softplus", "elu")),
    Spelling("`x @ w`, `tf.transpose(w)`, `tf.norm(x)`",
             "`x @ w`, `gradcalc.transpose(w)`, `gradcalc.norm(x)`", ("transpose", "norm")),
    Spelling("`if x > 0.0:`, `while y < 10.0:`", "the same", ("Tensor.__gt__", "Tensor.__bool__"),
             "a comparison gives numpy booleans; `==` compares tensors as objects (use "
             "`x.numpy() == 1.0`)", on_purpose=True),
    Spelling("`np.mean(x, axis=0)` on a tensor", "the same: a numpy array, not recorded",
             ("Tensor.__array__",),
             "a numpy ufunc on a tensor (`np.sin(x)`) is a `TypeError`: use `gradcalc.sin(x)` "
             "(recorded) or `np.sin(x.numpy())`", on_purpose=True),
    Spelling("`len(x)`, `for row in x:`", "the same: along the first axis",
             ("Tensor.__len__", "Tensor.__iter__"),
             "each row is an indexing `x[i]` that the tape records; a 0-d tensor: `TypeError`"),
    Spelling("`v.assign(2.0)`, `v.assign_add(1)`, `v.assign_sub(d)`", "the same (not recorded)",
             ("Variable.assign", "Variable.assign_add", "Variable.assign_sub")),
    Spelling("`print(tape)`", "the tape table of `gradcalc grad`", ("Tape.__repr__",),
             "TensorFlow prints an object address; a notebook shows the table as HTML",
             on_purpose=True),
    Spelling("`RuntimeError` on a second `gradient` call",
             "`gradcalc.TapeError` (a `RuntimeError`)", ("TapeError",)),
)  # fmt: skip


def tensorflow_table() -> str:
    """:data:`TENSORFLOW` as the Markdown table of docs/python-api.md.

    >>> print(tensorflow_table().splitlines()[2])
    | `tf.GradientTape()` | `gradcalc.Tape()` |  |
    """
    lines = ["| TensorFlow | gradcalc | differences |", "|---|---|---|"]
    for row in TENSORFLOW:
        note = f"**on purpose:** {row.difference}" if row.on_purpose else row.difference
        lines.append(f"| {row.tensorflow} | {row.gradcalc} | {note} |")
    return "\n".join(lines)
