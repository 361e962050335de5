"""One slice of a replayed program, step by step: the same numpy call per step as the tape
makes, and the checks of each forward step (its op's domain rule, NaN and infinity), which
flag the points a full tape must explain. :mod:`gradcalc.engine.compile.replay` shares the slices
out and gathers the results.

>>> import numpy as np
>>> from gradcalc.engine.compile.sweep import record_sweep
>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> sweep = record_sweep(lower(parse_program("log(x)")), ("x",))
>>> slots = slots_of(sweep)
>>> slots[0] = np.array([1.0, -2.0])
>>> with np.errstate(all="ignore"):  # (as the replay computes)
...     run_steps(sweep.steps, slots, lambda mask: print(mask), {}, [])
[False  True]
>>> slots[sweep.values[0]]
array([ 0., nan])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from gradcalc.engine.compile.program import Step, Sweep


def slots_of(sweep: Sweep) -> list[Any]:
    """A slot for every value of the program, the constants filled in."""
    slots: list[Any] = [None] * sweep.size
    for k, value in sweep.constants.items():
        slots[k] = value
    return slots


def run_steps(
    steps: list[Step],
    slots: list[Any],
    flag: Callable[[np.ndarray], None],
    outputs: Mapping[int, tuple[np.ndarray, np.ndarray]],
    buffers: list[np.ndarray],
) -> None:
    """Run every step on the current slice, passing ``flag`` the points needing the tape; a
    ufunc step writes into its place in the result where its value is an output
    (``outputs``: slot -> (result column, its part for this slice)), else into its buffer
    (see :func:`gradcalc.engine.compile.sweep._plan_buffers`)."""
    for step in steps:
        values = [slots[i] for i in step.inputs]
        ufunc = step.ufunc
        if ufunc is None:
            out = step.op.forward(*values, **step.params)
        else:
            target = outputs.get(step.out)
            if target is not None:
                into: np.ndarray | None = target[1]
            else:
                into = None if step.buffer is None or not buffers else buffers[step.buffer]
            out = ufunc(*values[: ufunc.nin], out=into)
        if step.guard:
            if step.check_domain:
                check_domain(step, values, flag)
            if step.check_finite:
                check_finite(out, flag)
        slots[step.out] = out
        for i in step.release:
            slots[i] = None


def check_domain(step: Step, values: list[Any], flag: Callable[[np.ndarray], None]) -> None:
    """Flag the points where the step's inputs are outside its op's domain (except for
    issues about a constant input); the caller ignores floating-point errors (as
    :meth:`~gradcalc.core.ops.Op.issues` would)."""
    assert step.op.domain is not None  # else check_domain is off
    for issue in step.op.domain(*values):
        if issue.concerns(step.constant_inputs) and issue.mask.any():
            flag(issue.mask)


def check_finite(values: np.ndarray, flag: Callable[[np.ndarray], None]) -> None:
    """Flag the points where ``values`` are NaN or infinite.

    >>> check_finite(np.array([1.0, np.inf, np.nan]), print)
    [False  True  True]
    """
    if not is_finite(values):
        flag(~np.isfinite(values))


def check_magnitude(values: np.ndarray, limit: float, flag: Callable[[np.ndarray], None]) -> None:
    """Flag the points where ``|values|`` is ``limit`` or more, or NaN (with an infinite
    ``limit``: :func:`check_finite`).

    >>> check_magnitude(np.array([1.0, -3.0, np.nan, 2.0]), 3.0, print)
    [False  True  True False]
    """
    if limit == math.inf:
        check_finite(values, flag)
        return
    reached = ~(np.absolute(values) < limit)
    if reached.any():
        flag(reached)


def is_finite(values: np.ndarray) -> bool:
    """One pass: a sum is finite only if every term is (a finite sum that overflows just
    costs a second, exact look).

    >>> with np.errstate(over="ignore"):  # (as the replay computes)
    ...     [is_finite(np.array(v)) for v in ([1.0, 2.0], [1e308, 1e308], [1.0, np.nan])]
    [True, False, False]

    (1e308 + 1e308 overflows: the caller then looks at each value.)
    """
    return math.isfinite(np.add.reduce(values, axis=None))
