"""What a tape's ``gradient`` takes and gives back: one tensor, a list or tuple, a dict, nested
as deep as you like (TensorFlow's ``tf.nest``), flattened in order and rebuilt; the targets'
seeds, what an unconnected source gets, and a Jacobian's rows stacked into one tensor.

>>> structure = {"a": 1, "b": [2, (3, 4)]}
>>> flat = flatten(structure)
>>> flat
[1, 2, 3, 4]
>>> rebuild(structure, [x * 10 for x in flat])
{'a': 10, 'b': [20, (30, 40)]}
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from gradcalc.core.errors import ShapeError
from gradcalc.core.ops import F, Op
from gradcalc.core.tensor import Tensor, as_tensor, recording


class UnconnectedGradients(str, enum.Enum):
    """What ``gradient`` gives a source the target does not depend on (TensorFlow's
    ``tf.UnconnectedGradients``); the strings ``"none"`` and ``"zero"`` mean the same.

    >>> UnconnectedGradients.ZERO == "zero"
    True
    """

    NONE = "none"
    ZERO = "zero"


Unconnected = UnconnectedGradients | str


def _leaves(items: Any) -> Iterator[Any]:
    if isinstance(items, dict):
        for value in items.values():
            yield from _leaves(value)
    elif isinstance(items, (list, tuple)):
        for value in items:
            yield from _leaves(value)
    else:
        yield items


def flatten(items: Any) -> list[Any]:
    """The leaves of a nested list/tuple/dict structure, in order (a leaf is itself).

    >>> flatten(5), flatten([[1], {"x": 2}])
    ([5], [1, 2])
    """
    nested = (dict, list, tuple)
    if not isinstance(items, nested):  # (one tensor, or a flat list: most calls)
        return [items]
    if not isinstance(items, dict) and not any([isinstance(i, nested) for i in items]):
        return list(items)
    return list(_leaves(items))


def rebuild(structure: Any, values: list[Any]) -> Any:
    """``values`` (one per leaf of ``structure``, in order) put back into its shape.

    >>> rebuild([1, {"k": 2}], ["a", "b"])
    ['a', {'k': 'b'}]
    """
    nested = (dict, list, tuple)
    if not isinstance(structure, nested):
        return values[0]
    if type(structure) in (list, tuple) and not any([isinstance(i, nested) for i in structure]):
        return type(structure)(values)
    remaining = iter(values)

    def build(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: build(value) for key, value in item.items()}
        if isinstance(item, (list, tuple)):
            return type(item)(build(value) for value in item)
        return next(remaining)

    return build(structure)


def unconnected_mode(given: Unconnected, alias: Unconnected | None) -> str:
    """``"none"`` or ``"zero"`` from ``unconnected_gradients`` (or its other name)."""
    mode = given if alias is None else alias
    if mode == "none" or mode == "zero":  # (the enum's members are these strings)
        return "zero" if mode == "zero" else "none"
    raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {mode!r}")


def result_of(adjoints: dict[int, Tensor], source: Tensor, mode: str) -> Tensor | None:
    """What ``source`` gets from the adjoints of a backward pass: its own, else ``None`` or,
    in ``"zero"`` mode, zeros like it.

    >>> result_of({}, Tensor([1.0, 2.0]), "zero"), result_of({}, Tensor(1.0), "none")
    (Tensor([0., 0.]), None)
    """
    grad = adjoints.get(source.id)
    if grad is None and mode == "zero":
        return Tensor(np.zeros_like(source.value))
    return grad


def tensors_of(structure: Any, role: str, one: bool = False) -> list[Tensor]:
    """The tensors of a target or sources structure, each checked."""
    flat = [structure] if one else flatten(structure)
    for item in flat:
        if not isinstance(item, Tensor):
            shown = f" {item!r}" if isinstance(item, str) else ""
            raise TypeError(
                f"the {role} must be a tensor, got {type(item).__name__}{shown}: a tape "
                "differentiates tensors (a Variable, or a constant it watches), not names"
            )
    return flat


def seeds(target: Any, targets: list[Tensor], output_gradients: Any) -> list[Tensor]:
    """The adjoint each target starts from: ones like it, or the ``output_gradients`` given in
    the targets' structure (at a target's place, its adjoint; ``None``: ones).

    Raises:
        ShapeError: for an adjoint whose shape is not its target's (it would be broadcast,
            counting elements several times).

    >>> t = Tensor([1.0, 2.0])
    >>> [s.value.tolist() for s in seeds({"a": t}, [t], {"a": [3.0, 4.0]})]
    [[3.0, 4.0]]
    """
    given = [None] * len(targets) if output_gradients is None else _along(target, output_gradients)
    found = [
        Tensor(np.ones_like(t.value)) if g is None else as_tensor(g) for t, g in zip(targets, given)
    ]
    for t, seed in zip(targets, found):
        if seed.shape != t.shape:
            raise ShapeError(
                f"output_gradients has shape {seed.shape} for a target of shape {t.shape}: "
                "give one adjoint per element of the target, in its shape"
            )
    return found


def _along(structure: Any, other: Any) -> list[Any]:
    """The parts of ``other`` at the places of ``structure``'s leaves."""
    if isinstance(structure, dict) and isinstance(other, dict) and other.keys() == structure.keys():
        return [leaf for key in structure for leaf in _along(structure[key], other[key])]
    if isinstance(structure, (list, tuple)):
        if isinstance(other, (list, tuple)) and len(other) == len(structure):
            return [leaf for s, o in zip(structure, other) for leaf in _along(s, o)]
    elif not isinstance(structure, dict):
        return [other]
    raise ValueError("output_gradients must have the targets' structure, one entry per target")


def jacobian_seeds(shape: tuple[int, ...]) -> Iterator[np.ndarray]:
    """For ``jacobian``: one seed per element of a target of ``shape``, one at that element;
    an empty target gets one empty seed (its backward pass finds which sources it reaches).

    >>> [seed.tolist() for seed in jacobian_seeds((2,))], [s.shape for s in jacobian_seeds((0, 3))]
    ([[1.0, 0.0], [0.0, 1.0]], [(0, 3)])
    """
    size = int(np.prod(shape))
    if not size:
        yield np.zeros(shape)
    for k in range(size):
        seed = np.zeros(size)
        seed[k] = 1.0
        yield seed.reshape(shape)


def stack_rows(target: Tensor, source: Tensor, column: tuple[Tensor | None, ...]) -> Any:
    """The gradients of :func:`jacobian_seeds` as the Jacobian, shaped ``target.shape +
    source.shape`` (``None``: no row is connected).

    >>> stack_rows(Tensor([0.0, 0.0]), Tensor(0.0), (Tensor(1.0), None))
    Tensor([1., 0.])
    """
    return _stacked(column, source, 0, target.shape + source.shape)


def batch_seeds(shape: tuple[int, ...]) -> Iterator[np.ndarray]:
    """For ``batch_jacobian``: one seed per element of a row of a target of ``shape``, ones at
    that element in every row; rows without elements get one empty seed.

    >>> [seed.tolist() for seed in batch_seeds((2, 2))]
    [[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]]
    """
    width = int(np.prod(shape[1:]))
    if not width:
        yield np.zeros(shape)
    for k in range(width):
        seed = np.zeros((shape[0], width))
        seed[:, k] = 1.0
        yield seed.reshape(shape)


def stack_batch(shape: tuple[int, ...], source: Tensor, columns: list[Any]) -> Tensor | None:
    """The gradients of :func:`batch_seeds` as one Jacobian per row, shaped
    ``(batch, *outs, *ins)`` (``None``: no column is connected)."""
    return _stacked(columns, source, 1, shape + source.shape[1:])


def _stacked(
    parts: Sequence[Tensor | None], source: Tensor, axis: int, shape: tuple[int, ...]
) -> Tensor | None:
    """``parts`` (each shaped like ``source``; ``None``: zeros) stacked along ``axis`` and
    reshaped to ``shape``. While a tape records, the stacking is an op that it records, so a
    Jacobian taken inside an outer tape can be differentiated by it (a Hessian as the Jacobian
    of a Jacobian); else the arrays themselves are stacked."""
    if all(p is None for p in parts):
        return None
    if not int(np.prod(shape)):  # an empty Jacobian (its one seed was empty)
        return Tensor(np.zeros(shape))
    filled = [Tensor(np.zeros(source.shape)) if p is None else p for p in parts]
    if not recording():
        return Tensor(np.stack([p.value for p in filled], axis=axis).reshape(shape))
    result: Tensor = F.reshape(_stack_op(len(filled), axis)(*filled), shape=shape)
    return result


def _stack_op(count: int, axis: int) -> Op:
    """``np.stack`` of ``count`` tensors along ``axis`` as an op: input k's rule is the
    adjoint's slice k along ``axis`` (an indexing, itself recorded by outer tapes)."""

    def rule(k: int) -> Callable[..., Tensor]:
        where = (slice(None),) * axis + (k,)
        return lambda g, ans, *xs: F.index(g, index=where)

    def symbolic(sp: Any, *xs: Any) -> Any:
        return np.stack([np.asarray(x, dtype=object) for x in xs], axis=axis)

    return Op(
        "stack",
        count,
        lambda *xs: np.stack(xs, axis=axis),
        tuple(rule(k) for k in range(count)),
        symbolic,
        elementwise=False,
        shapes="tensors of one shape",
    )
