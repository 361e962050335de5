"""Compile a replayed program (:mod:`gradcalc.engine.compile.replay`) into one native loop, with
LLVM.

The replay runs one numpy call per recorded step: every intermediate value of the forward
and the backward pass travels through memory, and numpy's sines and exponentials are the C
library's, one number at a time. Here the whole program -- forward and backward -- becomes
one machine-code loop over the points, built with llvmlite (LLVM's code generator, as numba
uses it). Each pass of the loop computes four points at once in the CPU's vector registers
(two without AVX2), keeping every intermediate value there; on Linux the functions come
from glibc's vector maths library (libmvec: ``_ZGVdN4v_sin`` computes four sines in one
call), elsewhere from the C library one lane at a time.

What the loop writes: the outputs (values, partial derivatives), the slopes checked for
saturation, the inputs of every op whose domain rule must be checked (the replay then runs
the op's own rule on them, with numpy), and one flag per point that is set where a value the
replay checks for NaN or infinity is not finite. So flagged points, findings and fallbacks
are the replay's.

Nothing of the user's text reaches LLVM: the module is built as objects (no source text is
parsed from anything but what :mod:`llvmlite.ir` prints of them), slots are numbered, and a
constant is an IEEE double written in hexadecimal (:mod:`gradcalc.engine.compile.native_code`
builds it). Ops outside its tables (``FUNCTIONS``, ``ARITHMETIC``, ``COMPOSITE``,
``INSTRUCTIONS``), parameters, or constants that are arrays leave
the program to the step-by-step replay.

Arithmetic (+, -, *, /, negation, square, square root, absolute value, floor, ceiling,
sign, minimum, maximum) is the same IEEE operation numpy performs (no fused multiply-add, no
reassociation; signed zeros and NaN as numpy treats them), bit for bit; the vector
functions agree with the C library's to a few units in the last place (glibc documents at
most 4), so results agree with the tape's to a few ulps, as amplified by the expression.

>>> import numpy as np
>>> from gradcalc.engine.compile.sweep import record_sweep
>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> sweep = record_sweep(lower(parse_program("3*w1**2 + 2*w1*w2")), ("w1", "w2"))
>>> kernel = compile_sweep(sweep)
>>> slots = [np.array([5.0, 1.0, 2.0]), np.array([3.0, 0.0, 1.0])] + [None] * (sweep.size - 2)
>>> outputs = run(kernel, slots, 3, {}, lambda mask: None)
>>> slots[sweep.gradients[0]["w1"]], slots[sweep.gradients[0]["w2"]]
(array([36.,  6., 14.]), array([10.,  2.,  4.]))
"""

from __future__ import annotations

import ctypes
import functools
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.engine.compile import native_code
from gradcalc.engine.compile.native_bounds import inexact_slots
from gradcalc.engine.compile.native_code import (
    ARITHMETIC,
    COMPOSITE,
    FUNCTIONS,
    INSTRUCTIONS,
    module_of,
    outputs_of,
    target,
    watched_of,
)
from gradcalc.engine.compile.native_rules import BOUNDARIES

if TYPE_CHECKING:
    from gradcalc.engine.compile.program import Step, Sweep

#: Compiled kernels kept by the program's structure (a graph compiled again from the same
#: text, as ``grad()`` does on every call, finds its kernel here).
CACHED = 64

#: The longest program compiled (LLVM's time grows faster than the program: longer ones
#: replay step by step, whose cost per step is spread over many points anyway).
MAX_STEPS = 4000

_lock = threading.Lock()
_kernels: OrderedDict[Hashable, Kernel | None] = OrderedDict()


@dataclass
class Kernel:
    """A compiled program: ``function(n, inputs, outputs, flags, extents)`` computes ``n``
    points (a multiple of ``lanes``) from the arrays of the ``inputs`` slots into those of
    the ``outputs`` slots, setting ``flags[i]`` where a checked value is not finite (when
    ``flagging``), and writes each ``watched`` output's extent per lane; ``checks`` are the
    steps whose domain rule the caller runs afterwards."""

    function: Callable[..., None]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    checks: tuple[Step, ...]
    flagging: bool
    lanes: int
    engine: Any = field(repr=False)  # keeps the machine code alive
    #: the outputs whose extent (smallest and largest magnitude, any NaN) the kernel tells
    watched: tuple[int, ...] = ()
    #: the partial derivatives that may differ from numpy's (a maths function feeds them):
    #: the replay computes again with numpy the points where one is below the vanishing
    #: threshold (exactly 0 is healthy, a tiny value vanishing)
    doubtful: frozenset[int] = frozenset()


@functools.cache
def available() -> bool:
    """Whether llvmlite is installed and makes code for this machine.

    >>> isinstance(available(), bool)
    True
    """
    try:
        target()
    except Exception:  # no llvmlite, or no code generator for this CPU: numpy replays
        return False
    return True


def kernel_of(sweep: Sweep) -> Kernel | None:
    """:func:`compile_sweep` once per sweep: the kernel (or ``None``) is kept in it."""
    if not sweep.built_native:
        sweep.built_native.append(compile_sweep(sweep))
    return sweep.built_native[0]  # type: ignore[no-any-return]


def compile_sweep(sweep: Sweep) -> Kernel | None:
    """The sweep as one native kernel (compiled once per structure), or ``None`` when an op,
    a parameter or an array constant is not supported, llvmlite is missing, or LLVM fails
    to compile it (numpy's steps compute the same numbers, only slower)."""
    if not available():
        return None
    key = _structure(sweep)
    if key is None or not sweep.steps:
        return None
    with _lock:
        if key in _kernels:
            _kernels.move_to_end(key)
            return _kernels[key]
        try:
            kernel: Kernel | None = _build(sweep)
        except Exception:  # an LLVM that refuses the module: the step-by-step replay
            kernel = None
        _kernels[key] = kernel
        while len(_kernels) > CACHED:
            _kernels.popitem(last=False)
        return kernel


#: An output's extent over the points computed: its smallest and largest magnitude (both
#: NaN where any value is NaN, as numpy's minimum and maximum give them).
Extent = tuple[float, float]


def run(
    kernel: Kernel,
    slots: list[Any],
    size: int,
    into: Mapping[int, np.ndarray],
    flag: Callable[[np.ndarray], None],
) -> dict[int, Extent]:
    """Compute ``size`` points of the inputs in ``slots`` (1-d float64 arrays), writing each
    output slot into ``into[slot]`` (a contiguous array of ``size``) where given, else into a
    new array, and put it in ``slots``; ``flag(mask)`` gets the points with a non-finite
    checked value. Returns the extent of each watched output (see :data:`Extent`), which
    spares the caller its own passes over them. The domain checks are the caller's
    (``kernel.checks``)."""
    inputs = [np.ascontiguousarray(slots[i]) for i in kernel.inputs]
    outputs = [_writable(into.get(s), size) for s in kernel.outputs]
    flags = np.empty(size, dtype=np.uint8) if kernel.flagging else None
    extents = _no_point_yet(len(kernel.watched), kernel.lanes).copy()  # (both calls add in)
    bulk = size - size % kernel.lanes
    if bulk:
        _call(kernel, bulk, inputs, outputs, flags, extents)
    if bulk < size:  # the last few points, padded to one pass with copies of the last one
        rest = size - bulk
        padded = [
            np.concatenate([a[bulk:], np.repeat(a[-1:], kernel.lanes - rest)]) for a in inputs
        ]
        tails = [np.empty(kernel.lanes) for _ in outputs]
        tail_flags = None if flags is None else np.empty(kernel.lanes, dtype=np.uint8)
        _call(kernel, kernel.lanes, padded, tails, tail_flags, extents)
        for out, tail in zip(outputs, tails):
            out[bulk:] = tail[:rest]
        if flags is not None and tail_flags is not None:
            flags[bulk:] = tail_flags[:rest]
    for slot, out in zip(kernel.outputs, outputs):
        given = into.get(slot)
        if given is not None and given is not out:
            given[...] = out
            out = given
        slots[slot] = out
    if flags is not None and flags.any():
        flag(flags.view(bool))
    return _extents(kernel, extents)


@functools.cache
def _no_point_yet(watched: int, lanes: int) -> np.ndarray:
    """The extents before any point: smallest +inf, largest 0 (copied for each call)."""
    start = np.empty((watched, native_code.PARTS, lanes))
    start[:, 0], start[:, 1] = np.inf, 0.0
    start.flags.writeable = False
    return start


def _extents(kernel: Kernel, extents: np.ndarray) -> dict[int, Extent]:
    """Each watched output's extent from its lanes' minima and maxima; NaN in either (numpy's
    minimum and maximum propagate it), both NaN."""
    smallest = extents[:, 0].min(axis=1).tolist()
    largest = extents[:, 1].max(axis=1).tolist()
    return {
        slot: (lo, hi) if lo == lo and hi == hi else (math.nan, math.nan)  # (NaN != NaN)
        for slot, lo, hi in zip(kernel.watched, smallest, largest)
    }


def _writable(given: np.ndarray | None, size: int) -> np.ndarray:
    """``given`` where the kernel can write into it (contiguous float64 of ``size``), else a
    new array (copied into ``given`` afterwards)."""
    if (
        given is not None
        and given.shape == (size,)
        and given.dtype == np.float64
        and given.flags.c_contiguous
        and given.flags.writeable
    ):
        return given
    return np.empty(size)


def _call(
    kernel: Kernel,
    n: int,
    inputs: list[np.ndarray],
    outputs: list[np.ndarray],
    flags: np.ndarray | None,
    extents: np.ndarray,
) -> None:
    """One call of the machine code (ctypes lets go of the GIL while it runs)."""
    reads = (ctypes.c_void_p * max(len(inputs), 1))(*(a.ctypes.data for a in inputs))
    writes = (ctypes.c_void_p * max(len(outputs), 1))(*(a.ctypes.data for a in outputs))
    flagged = None if flags is None else flags.ctypes.data
    kernel.function(n, reads, writes, flagged, extents.ctypes.data)


def _supported(step: Step, sweep: Sweep) -> bool:
    """Whether the kernel can compute the step exactly as the replay does."""
    if step.params or any(
        i in sweep.constants and sweep.constants[i].ndim != 0 for i in step.inputs
    ):
        return False
    if step.guard and step.check_domain and step.op.name not in BOUNDARIES:
        return False  # a rule whose decisions the loop cannot bound
    if step.ufunc is None:
        return step.op.name in COMPOSITE
    name = step.ufunc.__name__
    return name in ARITHMETIC or name in FUNCTIONS or name in INSTRUCTIONS


def _structure(sweep: Sweep) -> Hashable | None:
    """The program's structure, which decides its machine code; ``None`` if unsupported."""
    if len(sweep.steps) > MAX_STEPS or not all(_supported(s, sweep) for s in sweep.steps):
        return None
    if any(value.ndim != 0 for value in sweep.constants.values()):
        return None
    steps = tuple(
        (
            step.op.name if step.ufunc is None else step.ufunc.__name__,
            step.inputs,
            step.out,
            step.guard and step.check_finite,
            step.guard and step.check_domain,
        )
        for step in sweep.steps
    )
    constants = tuple(sorted((k, float(v).hex()) for k, v in sweep.constants.items()))
    return (len(sweep.variables), steps, constants, outputs_of(sweep))


def _build(sweep: Sweep) -> Kernel:
    """Compile the sweep (every step supported) into a :class:`Kernel`."""
    _, _, lanes, _ = target()
    module, flagging = module_of(sweep, lanes)
    engine, address = _machine_code(module)
    pointer = ctypes.c_void_p
    prototype = ctypes.CFUNCTYPE(None, ctypes.c_int64, pointer, pointer, pointer, pointer)
    checks = tuple(step for step in sweep.steps if step.guard and step.check_domain)
    variables = tuple(range(len(sweep.variables)))
    return Kernel(
        prototype(address),
        variables,
        outputs_of(sweep),
        checks,
        flagging,
        lanes,
        engine,
        watched_of(sweep),
        frozenset(inexact_slots(sweep).intersection(sweep.partial_slots())),
    )


def _machine_code(module: Any) -> tuple[Any, int]:
    """The module optimised and compiled for this CPU: its execution engine (which holds the
    code) and the kernel's address."""
    import llvmlite.binding as llvm

    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    machine = native_code.machine()
    passes = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=2))
    passes.getModulePassManager().run(parsed, passes)
    engine = llvm.create_mcjit_compiler(parsed, machine)
    engine.finalize_object()
    return engine, engine.get_function_address("kernel")
