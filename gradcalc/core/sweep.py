"""The reverse sweep of a tape: each record on the path from the sources to the targets, last
first, hands its adjoint to its inputs through its op's gradient rules.

>>> from gradcalc import Tape, Variable
>>> x = Variable(3.0)
>>> with Tape() as tape:
...     y = x * x
>>> adjoints = {y.id: np.array(1.0)}
>>> accumulate_arrays(tape.records, {x.id, y.id}, adjoints)
>>> adjoints[x.id]
array(6.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

import numpy as np

from gradcalc.core.ops import REGISTRY
from gradcalc.core.problems import Recorded
from gradcalc.core.tensor import Tensor, quiet, recording

Rec = TypeVar("Rec", bound=Recorded)


def accumulate(path: Sequence[Recorded], reached: set[int], adjoints: dict[int, Tensor]) -> None:
    """The reverse sweep: each record on ``path``, last first, hands its adjoint to its
    inputs through the op's gradient rules (ops themselves, so outer tapes record them)."""
    sum_to, adjoint = REGISTRY["sum_to"], adjoints.get  # (this loop runs once per record)
    for rec in reversed(path):
        g = adjoint(rec.output.id)
        if g is None:
            continue
        inputs, output, params = rec.inputs, rec.output, rec.params
        for x, rule in zip(inputs, rec.op.grads):
            if x.id not in reached:
                continue
            part = rule(g, output, *inputs, **params)
            if part.value.shape != x.value.shape:
                part = sum_to(part, shape=x.value.shape)
            previous = adjoint(x.id)
            adjoints[x.id] = part if previous is None else previous + part


def accumulate_arrays(
    path: Sequence[Recorded], reached: set[int], adjoints: dict[int, np.ndarray]
) -> None:
    """:func:`accumulate` on arrays, for a pass that no tape records: an op's
    ``array_grads`` where it has them (the same numpy calls as its rules, so the same
    numbers), else its rules on tensors made for the call."""
    sum_to, add, adjoint = REGISTRY["sum_to"].forward, REGISTRY["add"].forward, adjoints.get
    for rec in reversed(path):
        g = adjoint(rec.output.id)
        if g is None:
            continue
        inputs, params, rules = rec.inputs, rec.params, rec.op.array_grads
        if rules is None:
            tensor_rules, g_tensor = rec.op.grads, Tensor(g)
            parts = [
                rule(g_tensor, rec.output, *inputs, **params).value if x.id in reached else None
                for x, rule in zip(inputs, tensor_rules)
            ]
        else:
            values = [x.value for x in inputs]
            parts = [
                rule(g, rec.output.value, *values, **params) if x.id in reached else None
                for x, rule in zip(inputs, rules)
            ]
        for x, part in zip(inputs, parts):
            if part is None:
                continue
            if type(part) is not np.ndarray:  # a ufunc makes np.float64 of 0-d arrays
                part = np.asarray(part)
            if part.shape != x.value.shape:
                part = np.asarray(sum_to(part, shape=x.value.shape))
            previous = adjoint(x.id)
            adjoints[x.id] = part if previous is None else np.asarray(add(previous, part))


def sweep(
    path: Sequence[Recorded], reached: set[int], start: dict[int, Tensor], ids: set[int]
) -> tuple[dict[int, Tensor], dict[int, np.ndarray]]:
    """The reverse sweep along ``path`` from the targets' seeds ``start``: the adjoints as
    tensors (at least the sources', ``ids``) and every adjoint as an array. While a tape
    records, through the ops (:func:`accumulate`), so it records the pass; else on arrays.

    >>> from gradcalc import Tape, Variable
    >>> x = Variable(3.0)
    >>> with Tape() as tape:
    ...     y = x * x
    >>> adjoints, values = sweep(tape.records, {x.id, y.id}, {y.id: Tensor(1.0)}, {x.id})
    >>> adjoints, values[x.id]
    ({...: Tensor(6.)}, array(6.))
    """
    with quiet():
        if recording():
            adjoints = dict(start)
            accumulate(path, reached, adjoints)
            return adjoints, {i: t.value for i, t in adjoints.items()}
        # a first derivative: the same numbers on arrays, no tensor per op
        values = {i: seed.value for i, seed in start.items()}
        accumulate_arrays(path, reached, values)
        return {i: Tensor(v) for i, v in values.items() if i in ids}, values


def upstream(producers: Mapping[int, Rec], targets: Sequence[Tensor]) -> list[Rec]:
    """The records ``targets`` depend on, in tape order (``producers``: each record by its
    output's id): a target's own sub-tape, found in time proportional to its size, not to
    the tape's -- one reverse pass per target of a Jacobian stays linear in the total.

    >>> from gradcalc import Tape, Variable
    >>> x = Variable(3.0)
    >>> with Tape() as tape:
    ...     y, z = x * x, x + 1
    >>> [rec.index for rec in upstream({r.output.id: r for r in tape.records}, [z])]
    [2]
    """
    found: dict[int, Rec] = {}
    stack = [t.id for t in targets]
    while stack:
        rec = producers.get(stack.pop())
        if rec is not None and rec.index not in found:
            found[rec.index] = rec
            stack.extend(t.id for t in rec.inputs)
    return [found[i] for i in sorted(found)]


def between(
    producers: Mapping[int, Rec], targets: Sequence[Tensor], reached: set[int]
) -> list[Rec]:
    """The records from the tensors in ``reached`` (the sources) to ``targets``, in tape order:
    those of the targets' sub-tape that read a reached tensor; their outputs join ``reached``.

    >>> from gradcalc import Tape, Variable
    >>> x, c = Variable(3.0), Variable(2.0)
    >>> with Tape() as tape:
    ...     y, z = x * x, c * c
    ...     w = y + z
    >>> reached = {x.id}
    >>> producers = {r.output.id: r for r in tape.records}
    >>> [rec.index for rec in between(producers, [w], reached)], w.id in reached
    ([1, 3], True)
    """
    path: list[Rec] = []
    for rec in upstream(producers, targets):  # (the targets' sub-tape only)
        for t in rec.inputs:  # (a loop, not any(): this runs once per record)
            if t.id in reached:
                reached.add(rec.output.id)
                path.append(rec)
                break
    return path
