"""Fold the negations of a recorded backward pass into the steps that read them.

The gradient rules negate freely -- ``d/dx cos(x) = -sin(x)``, ``d/dy (x - y) = -1`` times the
adjoint -- and a replayed program pays a pass over the points for each ``neg`` (or multiply
by -1). IEEE arithmetic is symmetric in the sign, so most of them need never run:
``(-a)*b`` and ``a/(-b)`` are ``-(a*b)`` and ``-(a/b)`` exactly, ``a + (-b)`` *is* ``a - b``,
``-(-a)`` is ``a``. :func:`fold_signs` carries each negation along to where it can be
absorbed by an addition or subtraction, and computes it only where it cannot (a function
of it, ``(-a) + (-b)``, whose zero would come out with the other sign, or an output).
Every value is the same, bit for bit (a NaN's sign bit aside: NaN points go to the tape).
Forward steps are left as they are: their checks read their values.

>>> from gradcalc.core.ops import REGISTRY
>>> from gradcalc.engine.compile.program import Step
>>> def step(name, inputs, out):
...     return Step(REGISTRY[name], inputs, out, {}, False, (False,) * len(inputs))
>>> program = [step("neg", (0,), 2), step("mul", (2, 1), 3), step("add", (1, 3), 4)]
>>> steps, alias, size = fold_signs(program, {}, 5, {4})
>>> [(s.op.name, s.inputs, s.out) for s in steps], alias, size
([('mul', (0, 1), 5), ('sub', (1, 5), 4)], {}, 6)
"""

from __future__ import annotations

import itertools
from collections.abc import Set
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from gradcalc.core.ops import REGISTRY

if TYPE_CHECKING:
    from gradcalc.engine.compile.program import Step

#: The backward steps whose negated inputs can be folded.
_FOLDED = ("neg", "mul", "div", "add", "sub")


def fold_signs(
    steps: list[Step], constants: dict[int, np.ndarray], size: int, kept: Set[int]
) -> tuple[list[Step], dict[int, int], int]:
    """The steps with the backward pass's negations folded away, the slot each ``kept``
    slot (an output) now reads from where that changed, and the new number of slots."""
    fresh = itertools.count(size)
    signed: dict[int, tuple[int, bool]] = {}  # slot -> (the slot it reads, negated?)
    out: list[Step] = []

    def emit(like: Step, name: str, inputs: tuple[int, ...], slot: int) -> None:
        """A step like ``like`` computing ``name`` of ``inputs`` into ``slot`` (a backward
        step, unless it is ``like``'s own op)."""
        constant = tuple(i in constants for i in inputs)
        if name != like.op.name:
            like = replace(like, op=REGISTRY[name], params={}, guard=False)
        out.append(replace(like, inputs=inputs, out=slot, constant_inputs=constant))

    def plain(like: Step, i: int) -> int:
        """The slot holding slot ``i``'s value, computing a pending negation into ``i``."""
        base, negated = signed.get(i, (i, False))
        if negated:
            emit(like, "neg", (base,), i)
            del signed[i]
            return i
        return base

    def minus_one(i: int) -> bool:
        return i in constants and constants[i].ndim == 0 and constants[i] == -1.0

    for step in steps:
        name = step.op.name
        if step.guard or step.params or name not in _FOLDED:
            emit(step, name, tuple(plain(step, i) for i in step.inputs), step.out)
            continue
        (a, a_neg), (b, b_neg) = [signed.get(i, (i, False)) for i in (step.inputs * 2)[:2]]
        if name == "neg":
            signed[step.out] = (a, not a_neg)
        elif name == "mul" and (minus_one(step.inputs[0]) or minus_one(step.inputs[1])):
            signed[step.out] = (b, not b_neg) if minus_one(step.inputs[0]) else (a, not a_neg)
        elif name in ("mul", "div") and (a_neg or b_neg):
            raw = next(fresh)
            emit(step, name, (a, b), raw)
            signed[step.out] = (raw, a_neg != b_neg)
        elif name in ("add", "sub") and (a_neg or b_neg):
            if name == "sub":  # a - b is a + (-b)
                b_neg = not b_neg
            if a_neg and b_neg:  # -(a + b) would turn the zero of -0 + 0 into -0
                emit(step, name, tuple(plain(step, i) for i in step.inputs), step.out)
            elif a_neg:
                emit(step, "sub", (b, a), step.out)
            else:
                emit(step, "sub" if b_neg else "add", (a, b), step.out)
        else:
            emit(step, name, (a, b), step.out)
    alias = {}
    for slot in sorted(kept & signed.keys()):
        base = plain(steps[-1], slot)
        if base != slot:
            alias[slot] = base
    return out, alias, next(fresh)
