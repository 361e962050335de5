"""Fuse a replayed program (:mod:`gradcalc.engine.compile.replay`) into a few elementwise kernels.

The replay runs one numpy call per recorded step, so every intermediate value travels
through memory. Here the steps become a handful of numexpr expressions, each computing one
value that must exist as an array (an output, a value read more than once, the input of a
domain check or a value checked for NaN), with everything used once inlined: numexpr
evaluates an expression in blocks that stay in the CPU cache, without the temporaries.

Only text this module writes reaches numexpr's compiler: the slots are named ``s0``,
``s1``, ... by number, every constant is such a named input (a 0-d array, never a
literal), and each op's text comes from :data:`KERNELS`, a fixed table keyed by the op's
name. Nothing the user typed -- no variable name, no number's text -- is part of it. Ops
the table lacks (or steps with parameters) run as numpy calls, as in the replay.

numexpr is optional (``pip install gradcalc[numexpr]``); without it :func:`fuse` returns
``None`` and the replay runs step by step. Results agree with the step-by-step replay to a
few units in the last place (numexpr's sin, exp, ... are the C library's; numpy has its
own vectorised ones), not bit for bit -- except what a domain rule reads: a maths function
whose value reaches one (a kink, a tie, a pole, a domain's edge) runs as numpy's step, and
numexpr's arithmetic on numpy's values gives numpy's bits, so numexpr decides every such
point as the tape does (``max(cosh(sin(x + x)), cosh(sin(2)))``: numexpr's cosh missed the
ties that numpy's has). And as the native kernels do, a value that may differ from numpy's
(a maths function's, or made from one) is flagged from
:data:`~gradcalc.engine.compile.native_bounds.HUGE` on where the replay checks it, and so is every
value of a function that overflows (exp, sinh, cosh, pow: never inlined), checked or not:
within an ulp of the largest double one library's ``exp`` may be finite where numpy's is
infinite, and the tape decides.

>>> import numpy as np
>>> from gradcalc.engine.compile.sweep import record_sweep
>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> sweep = record_sweep(lower(parse_program("x*x + 1")), ("x",))
>>> fuse(sweep).texts()  # the value (s2 holds the constant 1), then the derivative
['((s0 * s0) + s2)', '(s0 + s0)']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.engine.compile.native_bounds import (
    HUGE,
    flag_limit,
    inexact_slots,
    overflowing_slots,
    tracked_slots,
)

if TYPE_CHECKING:
    from gradcalc.engine.compile.program import Step, Sweep

#: numexpr's text for each op it can compute exactly as the op's numpy forward does (the
#: same IEEE operation or C library function; NaN and infinity pass through alike).
#: Missing: erf, cbrt, sigmoid, softplus (no such function in numexpr), relu, step, sign,
#: max, min (numexpr's may treat NaN differently), and the shape ops.
KERNELS: dict[str, str] = {
    "add": "({0} + {1})",
    "sub": "({0} - {1})",
    "mul": "({0} * {1})",
    "div": "({0} / {1})",
    "neg": "(-{0})",
    "pow": "({0} ** {1})",
    "exp": "exp({0})",
    "log": "log({0})",
    "log10": "log10({0})",
    "sqrt": "sqrt({0})",
    "sin": "sin({0})",
    "cos": "cos({0})",
    "tan": "tan({0})",
    "sec": "(1.0 / cos({0}))",
    "csc": "(1.0 / sin({0}))",
    "cot": "(1.0 / tan({0}))",
    "asin": "arcsin({0})",
    "acos": "arccos({0})",
    "atan": "arctan({0})",
    "atan2": "arctan2({0}, {1})",
    "sinh": "sinh({0})",
    "cosh": "cosh({0})",
    "tanh": "tanh({0})",
    "sech": "(1.0 / cosh({0}))",
    "asinh": "arcsinh({0})",
    "acosh": "arccosh({0})",
    "atanh": "arctanh({0})",
    "abs": "abs({0})",
    "floor": "floor({0})",
    "ceiling": "ceil({0})",
}

#: The most inputs one kernel reads (numpy's iterator takes at most 32 operands before
#: numpy 2, 64 since; one is the output) and the most ops it inlines (numexpr numbers its
#: registers with one byte).
MAX_INPUTS = 24
MAX_OPS = 120


@dataclass(frozen=True)
class Stage:
    """Compute slot ``out``: with ``kernel`` (a compiled numexpr program reading the slots
    ``inputs``, in order), or by the replay's one numpy ``step``. Then flag the points where
    its magnitude reaches ``limit`` (infinity: where it is not finite; ``None``: unchecked),
    run the domain checks of ``checks`` (steps whose inputs are all computed by now) and
    free ``release``."""

    out: int
    inputs: tuple[int, ...]
    kernel: Callable[..., np.ndarray] | None
    step: Step | None
    text: str = ""
    checks: tuple[Step, ...] = ()
    limit: float | None = None
    release: tuple[int, ...] = ()


@dataclass
class Kernels:
    """The fused program: stages in order, the domain checks that only read variables or
    constants (run before the first stage), and the outputs that may differ from numpy's
    (flagged from :data:`~gradcalc.engine.compile.native_bounds.HUGE` on, after the last stage)."""

    stages: list[Stage]
    first_checks: tuple[Step, ...] = ()
    large_outputs: tuple[int, ...] = ()

    def texts(self) -> list[str]:
        """The numexpr texts, in order (for tests and curiosity)."""
        return [stage.text for stage in self.stages if stage.kernel is not None]


def available() -> bool:
    """Whether numexpr is installed (``GRADCALC_KERNELS=numexpr`` chooses these kernels:
    see :func:`gradcalc.engine.compile.replay.kernels_for`; they are not the default, for the
    reasons docs/performance.md gives).

    >>> isinstance(available(), bool)
    True
    """
    try:
        import numexpr  # noqa: F401
    except ImportError:
        return False
    return True


def fuse(sweep: Sweep) -> Kernels | None:
    """The sweep's steps as fused kernels, or ``None`` without numexpr (or when numexpr
    refuses a kernel: then the step-by-step replay is the safe answer)."""
    try:
        return _build(sweep, tracked_slots(sweep))
    except (ImportError, AttributeError, TypeError, ValueError, KeyError, SyntaxError):
        return None


def kernels_of(sweep: Sweep) -> Kernels | None:
    """:func:`fuse` once per sweep: the kernels are kept in it for the next replay."""
    if not sweep.built_kernels:
        sweep.built_kernels.append(fuse(sweep))
    return sweep.built_kernels[0]  # type: ignore[no-any-return]


#: The ops numexpr computes as the very IEEE operation numpy does: the same bits.
_SAME_BITS = frozenset({"add", "sub", "mul", "div", "neg", "sqrt", "abs"})


def _fusable(step: Step, sweep: Sweep, decided: set[int]) -> bool:
    """Whether numexpr computes the step: an op it has, no parameters, constants that are
    single numbers, and -- where a domain rule reads the value (``decided``: the slots
    its decisions are made from) -- an op that gives numpy's bits."""
    return (
        step.op.name in KERNELS
        and not step.params
        and all(sweep.constants[i].ndim == 0 for i in step.inputs if i in sweep.constants)
        and (step.out not in decided or step.op.name in _SAME_BITS)
    )


def _materialized(sweep: Sweep, decided: set[int], overflowing: set[int]) -> set[int]:
    """The slots that must exist as arrays: outputs, values read twice or by a numpy step,
    the inputs of domain checks, values checked for NaN, the values of functions that
    overflow, and every numpy step's result."""
    readers: dict[int, int] = {}
    kept = set(sweep.kept_slots())
    for step in sweep.steps:
        for i in step.inputs:
            readers[i] = readers.get(i, 0) + 1
        if step.check_domain or not _fusable(step, sweep, decided):
            kept.update(step.inputs)
        if (
            (step.check_finite and step.guard)
            or step.out in overflowing
            or not _fusable(step, sweep, decided)
        ):
            kept.add(step.out)
    kept |= {i for i, n in readers.items() if n > 1}
    return kept


def _build(sweep: Sweep, decided: set[int]) -> Kernels:  # decided: see _fusable
    from numexpr import NumExpr
    from numexpr.necompiler import getContext, getExprNames

    inexact = inexact_slots(sweep)
    overflowing = overflowing_slots(sweep, inexact)
    kept = _materialized(sweep, decided, overflowing)
    inline: dict[int, tuple[str, frozenset[int], int]] = {}  # slot: (text, inputs, ops)
    stages: list[Stage] = []
    ready = set(range(len(sweep.variables))) | set(sweep.constants)  # slots computed so far
    pending = [s for s in sweep.steps if s.check_domain]  # domain checks not yet placed
    first = tuple(s for s in pending if set(s.inputs) <= ready)
    pending = [s for s in pending if s not in first]

    def operand(slot: int) -> tuple[str, frozenset[int], int]:
        return inline.get(slot) or (f"s{slot}", frozenset((slot,)), 0)

    def emit(stage: Stage) -> None:
        nonlocal pending
        ready.add(stage.out)
        now = tuple(s for s in pending if set(s.inputs) <= ready)
        pending = [s for s in pending if s not in now]
        stages.append(Stage(**{**vars(stage), "checks": now}))

    def compile_stage(out: int, text: str, inputs: frozenset[int], limit: float | None) -> Stage:
        order = tuple(sorted(inputs))
        signature = [(f"s{i}", np.float64) for i in order]
        program = NumExpr(text, signature)
        uses_vml = getExprNames(text, getContext({}))[1]

        def kernel(*arrays: np.ndarray) -> np.ndarray:
            result: np.ndarray = program(*arrays, ex_uses_vml=uses_vml)
            return result

        return Stage(out, order, kernel, None, text, limit=limit)

    def materialize(slot: int) -> None:
        """Give an inlined value its own stage (its expression grew too large)."""
        text, inputs, _ = inline.pop(slot)
        emit(compile_stage(slot, text, inputs, limit=None))

    for step in sweep.steps:
        limit = flag_limit(step, inexact, overflowing)
        if not _fusable(step, sweep, decided):
            emit(Stage(step.out, step.inputs, None, step, limit=limit))
            continue
        while True:
            parts = [operand(i) for i in step.inputs]
            inputs = frozenset().union(*(p[1] for p in parts))
            ops = 1 + sum(p[2] for p in parts)
            if len(inputs) <= MAX_INPUTS and ops <= MAX_OPS:
                break
            largest = max((i for i in step.inputs if i in inline), key=lambda i: inline[i][2])
            materialize(largest)
        text = KERNELS[step.op.name].format(*(p[0] for p in parts))
        if step.out in kept:
            emit(compile_stage(step.out, text, inputs, limit))
        else:
            inline[step.out] = (text, inputs, ops)
    return Kernels(_plan_releases(stages, sweep), first, _large_outputs(sweep, stages, inexact))


def _large_outputs(sweep: Sweep, stages: list[Stage], inexact: set[int]) -> tuple[int, ...]:
    """The outputs that may differ from numpy's (``inexact``) and that no stage already
    flags from :data:`~gradcalc.engine.compile.native_bounds.HUGE` on: to look at after the last
    stage."""
    unlooked = inexact - {stage.out for stage in stages if stage.limit == HUGE}
    return tuple(dict.fromkeys(s for s in sweep.kept_slots() if s in unlooked))


def _plan_releases(stages: list[Stage], sweep: Sweep) -> list[Stage]:
    """Free each computed slot right after the last stage that reads it."""
    kept = set(sweep.kept_slots())
    computed = {stage.out for stage in stages}
    last: dict[int, int] = {}
    for k, stage in enumerate(stages):
        for i in stage.inputs:
            last[i] = k
        for check in stage.checks:
            for i in check.inputs:
                last[i] = max(last.get(i, k), k)
    releases: dict[int, list[int]] = {}
    for i, k in last.items():
        if i in computed and i not in kept:
            releases.setdefault(k, []).append(i)
    return [
        Stage(**{**vars(stage), "release": tuple(releases.get(k, ()))})
        for k, stage in enumerate(stages)
    ]


def run(
    kernels: Kernels,
    slots: list[Any],
    domain: Callable[[Step, list[Any]], None],
    reaching: Callable[[np.ndarray, float], None],
) -> None:
    """Compute every stage on the current slice; ``domain(step, inputs)`` and
    ``reaching(value, limit)`` (the points whose magnitude reaches ``limit``, or NaN) mark
    the points that need the tape, as in the replay."""
    for step in kernels.first_checks:
        domain(step, [slots[i] for i in step.inputs])
    for stage in kernels.stages:
        values = [slots[i] for i in stage.inputs]
        if stage.kernel is not None:
            out = stage.kernel(*values)
        else:
            assert stage.step is not None
            out = stage.step.op.forward(*values, **stage.step.params)
        if stage.limit is not None:
            reaching(out, stage.limit)
        slots[stage.out] = out
        for step in stage.checks:
            domain(step, [slots[i] for i in step.inputs])
        for i in stage.release:
            slots[i] = None
    for slot in kernels.large_outputs:
        reaching(slots[slot], HUGE)
