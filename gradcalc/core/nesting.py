"""What a tape's ``gradient`` takes and gives back: one tensor, a list or tuple, a dict, nested
as deep as you like (TensorFlow's ``tf.nest``), flattened in order and rebuilt; the targets'
seeds, and what an unconnected source gets.

>>> structure = {"a": 1, "b": [2, (3, 4)]}
>>> flat = flatten(structure)
>>> flat
[1, 2, 3, 4]
>>> rebuild(structure, [x * 10 for x in flat])
{'a': 10, 'b': [20, (30, 40)]}
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Any

import numpy as np

from gradcalc.core.tensor import Tensor, as_tensor


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

    >>> t = Tensor([1.0, 2.0])
    >>> [s.value.tolist() for s in seeds({"a": t}, [t], {"a": [3.0, 4.0]})]
    [[3.0, 4.0]]
    """
    given = [None] * len(targets) if output_gradients is None else _along(target, output_gradients)
    return [
        Tensor(np.ones_like(t.value)) if g is None else as_tensor(g) for t, g in zip(targets, given)
    ]


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


def stack_rows(target: Tensor, source: Tensor, column: tuple[Tensor | None, ...]) -> Any:
    if all(c is None for c in column):
        return None
    parts = [np.zeros(source.shape) if c is None else c.value for c in column]
    return Tensor(np.stack(parts).reshape(target.shape + source.shape))


def batch_seeds(shape: tuple[int, ...]) -> Iterator[np.ndarray]:
    """For ``batch_jacobian``: one seed per element of a row of a target of ``shape``, ones at
    that element in every row.

    >>> [seed.tolist() for seed in batch_seeds((2, 2))]
    [[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]]
    """
    width = int(np.prod(shape[1:]))
    for k in range(width):
        seed = np.zeros((shape[0], width))
        seed[:, k] = 1.0
        yield seed.reshape(shape)


def stack_batch(shape: tuple[int, ...], source: Tensor, columns: list[Any]) -> Tensor | None:
    """The gradients of :func:`batch_seeds` as one Jacobian per row, shaped
    ``(batch, *outs, *ins)`` (``None``: no column is connected)."""
    if all(c is None for c in columns):
        return None
    parts = [np.zeros(source.shape) if c is None else c.value for c in columns]
    return Tensor(np.stack(parts, axis=1).reshape(shape + source.shape[1:]))
