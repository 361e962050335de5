"""Replay a recorded forward-and-reverse program (a :class:`~gradcalc.engine.compile.sweep.Sweep`)
over many points, a cache-sized chunk at a time.

Differentiating one expression at a million points on a fresh tape would keep a million-long
array for every record and every adjoint. Instead the program recorded once
(:func:`~gradcalc.engine.compile.sweep.record_sweep`) is replayed on slices of the points small
enough
to stay in the CPU cache, freeing every value after its last use, with no tape bookkeeping
per op.

The replay computes; it does not explain. It checks every forward op's domain rule, every
value for NaN or infinity, each activation for saturation and the gradients for vanishing or
exploding components, and marks the points where any of these fires (``flagged``): the caller
re-runs just those points on a full tape, which explains them, and merges them back. Step
by step, values are the same numpy calls on the same inputs, so results are bit-for-bit
those of the tape; the program compiled to one native loop (:mod:`gradcalc.engine.compile.native`,
the default from :data:`NATIVE_MIN_POINTS` points) agrees with them to a few ulps, and
sends the tape every point where those ulps could decide otherwise.

>>> import numpy as np
>>> from gradcalc.engine.compile.sweep import record_sweep
>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> graph = lower(parse_program("3*w1**2 + 2*w1*w2"))
>>> sweep = record_sweep(graph, ("w1", "w2"))
>>> out = run_sweep(sweep, {"w1": np.array([5.0, 1.0]), "w2": np.array([3.0, 0.0])})
>>> out.values[0], out.gradients[0]["w1"], out.gradients[0]["w2"]
(array([105.,   3.]), array([36.,  6.]), array([10.,  2.]))
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.core.errors import InputError
from gradcalc.engine.compile import fused, native, recycle
from gradcalc.engine.compile.program import Sweep
from gradcalc.engine.compile.replay_steps import (
    check_domain,
    check_magnitude,
    is_finite,
    run_steps,
    slots_of,
)
from gradcalc.engine.evaluate.findings import Thresholds

#: Points per replayed slice: a few arrays of this many float64 fit in a core's L2 cache
#: (measured: 2,048 points per slice is 2x slower, per-step overhead; 65,536 no faster).
CHUNK = 32768

#: Slices at least this long are computed in a few reused, aligned arrays (shorter ones
#: in the arrays numpy allocates, which cost less to make than the reused ones).
POOLED = 4096

#: Threads that replay slices at once (numpy computes with the GIL released), at most.
MAX_THREADS = 4


def default_threads() -> int:
    """``GRADCALC_THREADS`` if set (a whole number >= 1), else one per CPU up to
    :data:`MAX_THREADS`; any other value is an :class:`~gradcalc.core.errors.InputError`
    (a typo would otherwise pass unseen).

    >>> import os
    >>> os.environ["GRADCALC_THREADS"] = " 1 "
    >>> default_threads()
    1
    >>> os.environ["GRADCALC_THREADS"] = "four"
    >>> default_threads()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: GRADCALC_THREADS is 'four': give a whole number from 1 ...
    >>> del os.environ["GRADCALC_THREADS"]
    """
    chosen = os.environ.get("GRADCALC_THREADS", "").strip()
    if not chosen:
        return min(_cpus(), MAX_THREADS)
    if len(chosen) <= 6 and chosen.isascii() and chosen.isdigit() and int(chosen) >= 1:
        return int(chosen)
    raise InputError(
        f"GRADCALC_THREADS is {chosen[:20]!r}: give a whole number from 1 "
        f"(unset: one per CPU, at most {MAX_THREADS})"
    )


@functools.cache
def _cpus() -> int:
    """The machine's CPUs, asked once (``os.cpu_count`` reads a file each time: 6 µs here)."""
    return os.cpu_count() or 1


@dataclass
class SweepResult:
    """Each target's value and partial derivatives at every point, and where the gradients
    are unhealthy: ``findings[(kind, key)]`` marks the points with a ``vanishing`` or
    ``exploding`` component (key: the source) or a ``saturated`` activation (key: its tape
    record index). Which op is to blame is for a full tape to tell, at one point."""

    values: list[np.ndarray]
    gradients: list[dict[str, np.ndarray | None]] = field(default_factory=list)
    findings: dict[tuple[str, Any], np.ndarray] = field(default_factory=dict)
    #: the points a full tape must compute and explain (their numbers here are not to be
    #: used), or ``None`` when there are none
    flagged: np.ndarray | None = None


def run_sweep(
    sweep: Sweep,
    arrays: Mapping[str, np.ndarray],
    thresholds: Thresholds | None = None,
    chunk: int = CHUNK,
    threads: int | None = None,
    kernels: str | None = None,
) -> SweepResult:
    """Replay ``sweep`` over 1-d ``arrays`` (one per variable, all the same length).

    Points that need the full tape to be explained -- a domain issue, a NaN or infinity, and,
    with several targets, a saturated activation or a vanishing or exploding gradient -- are
    marked in ``flagged`` (with one target, findings are marked point by point instead).
    The slices are shared among ``threads`` threads (default: :func:`default_threads`;
    numpy releases the GIL while it computes), each writing its own part of the result, so
    the numbers do not depend on the thread count. ``kernels`` (default: as
    ``GRADCALC_KERNELS`` says; see :func:`kernels_for`) chooses how the steps run: as one
    native loop (:mod:`gradcalc.engine.compile.native`) or as numexpr's fused kernels
    (:mod:`gradcalc.engine.compile.fused`), the same numbers to a few units in the last place; or
    one numpy call per step, bit for bit the tape's.

    >>> from gradcalc.engine.compile.sweep import record_sweep
    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> sweep = record_sweep(lower(parse_program("log(x)")), ("x",))
    >>> run_sweep(sweep, {"x": np.array([1.0, 2.0])}).gradients[0]["x"]
    array([1. , 0.5])
    >>> run_sweep(sweep, {"x": np.array([1.0, -2.0, 3.0])}).flagged
    array([False,  True, False])
    """
    thresholds = thresholds or Thresholds()
    columns = [np.asarray(arrays[v], dtype=np.float64) for v in sweep.variables]
    n = len(columns[0]) if columns else 1
    result = _outputs(sweep, n)
    how = kernels_for(sweep, n, kernels)
    run = _Replay(
        sweep,
        columns,
        n,
        chunk,
        thresholds,
        result,
        _Marks(n, tracked=sweep.saturating_records is not None),
        fused.kernels_of(sweep) if how == "numexpr" else None,
        _written(sweep, result),
        native.kernel_of(sweep) if how == "native" else None,
    )
    starts = list(range(0, n, chunk))
    workers = min(threads or default_threads(), len(starts))
    if workers == 1:
        run.share(starts)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(run.share, [starts[k::workers] for k in range(workers)]))
    result.flagged = run.marks.masks.pop(FLAGGED, None)
    result.findings = run.marks.findings(sweep)
    if result.flagged is not None:
        for mask in result.findings.values():  # a flagged point is the tape's to diagnose
            mask[result.flagged] = False
    return result


#: Points from which the replay runs native code by default: compiling a program takes 20 to
#: 200 ms (once per structure), replaying 20,000 points step by step about as long
#: (docs/performance.md). The choice depends on the count alone, so the same call gives the
#: same bits whatever ran before it.
NATIVE_MIN_POINTS = 20_000

#: The choices of ``GRADCALC_KERNELS`` (an empty or unset one is ``auto``).
KERNELS = ("auto", "native", "numpy", "numexpr")


def kernels_for(sweep: Sweep, n: int, kernels: str | None = None) -> str:
    """How ``n`` points of ``sweep`` are replayed: ``"native"``, ``"numexpr"`` or ``"numpy"``.

    ``kernels`` (default: the environment's ``GRADCALC_KERNELS``) is one of :data:`KERNELS`.
    ``auto`` (the default) runs native code (with llvmlite installed and every op
    supported) from :data:`NATIVE_MIN_POINTS` points, and numpy's steps below; ``native``
    native code at any count; ``numexpr`` fused kernels (with numexpr installed); ``numpy``
    one numpy call per step, bit for bit the tape. A choice that cannot be had falls back to
    numpy's; a choice not in :data:`KERNELS` is an :class:`~gradcalc.core.errors.InputError`.
    Native code's maths functions differ from numpy's in the last bits; where that could
    decide a kink, a tie, a pole or a zero otherwise, the point goes to the tape (see
    :mod:`gradcalc.engine.compile.native_bounds`).

    >>> from gradcalc.engine.compile.sweep import record_sweep
    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> sweep = record_sweep(lower(parse_program("x*sin(x)")), ("x",))
    >>> kernels_for(sweep, 10, "numpy"), kernels_for(sweep, 10, "auto")
    ('numpy', 'numpy')
    """
    choice = (kernels or os.environ.get("GRADCALC_KERNELS", "")).strip().lower() or "auto"
    if choice not in KERNELS:  # (a typo would otherwise pass unseen)
        raise InputError(f"GRADCALC_KERNELS is {choice!r}: use one of {', '.join(KERNELS)}")
    if choice == "numexpr":
        return "numexpr" if fused.available() and fused.kernels_of(sweep) is not None else "numpy"
    if choice not in ("auto", "native") or (choice == "auto" and n < NATIVE_MIN_POINTS):
        return "numpy"  # (before asking for llvmlite, whose import takes a while)
    return "native" if native.available() and native.kernel_of(sweep) is not None else "numpy"


def _outputs(sweep: Sweep, n: int) -> SweepResult:
    """A result to fill: each target's value and connected partials, ``n`` points each,
    in memory earlier results gave back where there is some (see
    :mod:`gradcalc.engine.compile.recycle`)."""
    return SweepResult(
        [recycle.take(n) for _ in sweep.values],
        [
            {s: None if g is None else recycle.take(n) for s, g in t.items()}
            for t in sweep.gradients
        ],
    )


def _written(sweep: Sweep, result: SweepResult) -> dict[int, np.ndarray]:
    """The result column each output slot goes to (a slot that is both a value and a
    gradient goes to the first)."""
    written = {slot: result.values[k] for k, slot in enumerate(sweep.values)}
    for k, target in enumerate(sweep.gradients):
        for source, slot in target.items():
            column = result.gradients[k][source]
            if slot is not None and column is not None:
                written.setdefault(slot, column)
    return written


@dataclass
class _Replay:
    """One call of :func:`run_sweep`: what the threads replaying its slices share."""

    sweep: Sweep
    columns: list[np.ndarray]
    n: int
    chunk: int
    thresholds: Thresholds
    result: SweepResult
    marks: _Marks
    kernels: fused.Kernels | None
    written: dict[int, np.ndarray]  # output slot -> its result column
    native_kernel: native.Kernel | None = None

    def share(self, starts: list[int]) -> None:
        """Replay the slices beginning at ``starts`` (one thread's share), each writing its
        own part of the result."""
        sweep = self.sweep
        slots = slots_of(sweep)
        width = min(self.chunk, self.n)
        # the steps' buffers and one more for _store (numpy recycles small arrays itself),
        # in memory earlier calls gave back where they are large enough for that to pay
        make = recycle.take if width >= recycle.MIN_POINTS else recycle.aligned
        # the native kernel's arrays that are no output (its own allocations otherwise)
        extra = [] if self.native_kernel is None else self._unwritten(self.native_kernel)
        count = len(extra) if self.native_kernel is not None else sweep.buffers
        pool = [make(width) for _ in range(count + 1)] if width >= POOLED else []
        with np.errstate(all="ignore"):
            for start in starts:
                part = slice(start, min(start + self.chunk, self.n))
                for k, column in enumerate(self.columns):
                    slots[k] = column[part]
                flag = functools.partial(self.marks.mark, FLAGGED, part)
                size = part.stop - part.start
                buffers = [b[:size] for b in pool] if size < width else pool
                outputs: dict[int, tuple[np.ndarray, np.ndarray]] = {}
                extents: dict[int, native.Extent] = {}
                if self.native_kernel is not None:
                    outputs, extents = self._native(slots, part, flag, dict(zip(extra, buffers)))
                elif self.kernels is None:
                    outputs = {slot: (col, col[part]) for slot, col in self.written.items()}
                    run_steps(sweep.steps, slots, flag, outputs, buffers)
                else:
                    fused.run(
                        self.kernels,
                        slots,
                        functools.partial(check_domain, flag=flag),
                        functools.partial(check_magnitude, flag=flag),
                    )
                scratch = buffers[-1] if buffers else None
                _store(
                    sweep,
                    slots,
                    self.result,
                    part,
                    self.thresholds,
                    self.marks,
                    outputs,
                    scratch,
                    extents,
                )

    def _native(
        self,
        slots: list[Any],
        part: slice,
        flag: Callable[[np.ndarray], None],
        into: dict[int, np.ndarray],
    ) -> tuple[dict[int, tuple[np.ndarray, np.ndarray]], dict[int, native.Extent]]:
        """Run the native kernel on the slice ``part``: its outputs written in place in the
        result (as ``_store`` takes them) and the extents it measured. ``into``: arrays for
        the outputs that go to no result column."""
        kernel = self.native_kernel
        assert kernel is not None
        outputs = {
            slot: (col, col[part]) for slot, col in self.written.items() if slot in kernel.outputs
        }
        into.update((slot, written) for slot, (_, written) in outputs.items())
        size = part.stop - part.start
        extents = native.run(kernel, slots, size, into, flag)
        for step in kernel.checks:
            check_domain(step, [slots[i] for i in step.inputs], flag)
        if self._settle_small_partials(kernel, slots, size, flag, extents):
            extents = {}  # (some outputs changed: _store measures them itself)
        return outputs, extents

    def _settle_small_partials(
        self,
        kernel: native.Kernel,
        slots: list[Any],
        size: int,
        flag: Callable[[np.ndarray], None],
        extents: Mapping[int, native.Extent],
    ) -> bool:
        """Compute again with numpy's steps the slice's points where a partial derivative
        made of maths functions (``kernel.doubtful``) is below the vanishing threshold, 0
        included (exactly 0 is healthy, a tiny value vanishing: another library's last ulp
        can tell them apart). Returns whether any point was: its outputs and flags are
        then numpy's."""
        threshold = self.thresholds.vanishing
        small: np.ndarray | None = None
        for slot in kernel.doubtful:
            if not extents[slot][0] >= threshold:  # rare (or a NaN somewhere): look closer
                below = np.absolute(slots[slot]) < threshold
                small = below if small is None else small | below
        if small is None or not small.any():
            return False
        where = np.flatnonzero(small)
        again = slots_of(self.sweep)
        again[: len(self.columns)] = [slots[k][where] for k in range(len(self.columns))]

        def spread(mask: np.ndarray) -> None:
            full = np.zeros(size, dtype=bool)
            full[where] = mask
            flag(full)

        run_steps(self.sweep.steps, again, spread, {}, [])
        for slot in kernel.watched:  # (kept to the end: never released)
            slots[slot][where] = again[slot]
        return True

    def _unwritten(self, kernel: native.Kernel) -> list[int]:
        """The kernel's output slots that go to no result column."""
        return [slot for slot in kernel.outputs if slot not in self.written]


FLAGGED = ("flagged", None)  # the key of the flagged points among the marks


class _Marks:
    """Boolean masks over all the points, each made when a point is first marked in it
    (most batches need none), shared by the threads."""

    def __init__(self, n: int, tracked: bool):
        self.n = n
        self.tracked = tracked  # findings are marked point by point (else: flagged)
        self.masks: dict[tuple[str, Any], np.ndarray] = {}
        self.lock = threading.Lock()

    def mark(self, key: tuple[str, Any], part: slice, mask: np.ndarray) -> None:
        """Mark the points of ``mask`` (over the slice ``part``) in the mask ``key``."""
        if not self.tracked and key != FLAGGED:
            key = FLAGGED  # a finding the full tape has to sort out
        with self.lock:
            if key not in self.masks:
                self.masks[key] = np.zeros(self.n, dtype=bool)
        target = self.masks[key][part]
        np.logical_or(target, np.broadcast_to(mask, target.shape), out=target)

    def findings(self, sweep: Sweep) -> dict[tuple[str, Any], np.ndarray]:
        """Every tracked kind of finding, in order, with its points (none where unmarked)."""
        if not self.tracked:
            return {}
        kinds: list[tuple[str, Any]] = [
            ("vanishing", s) for s, g in sweep.gradients[0].items() if g is not None
        ]
        kinds += [("exploding", key) for _, key in kinds]
        kinds += [("saturated", index) for index in sweep.saturating_records or ()]
        return {key: self.masks[key] for key in kinds if key in self.masks}


def _store(
    sweep: Sweep,
    slots: list[Any],
    result: SweepResult,
    part: slice,
    thresholds: Thresholds,
    marks: _Marks,
    outputs: Mapping[int, tuple[np.ndarray, np.ndarray]],
    scratch: np.ndarray | None = None,
    extents: Mapping[int, native.Extent] | None = None,
) -> None:
    """Copy the slice's outputs into the result (unless a step wrote them there) and mark
    its unhealthy points: findings, or (untracked, and for NaN or infinity) flagged points.
    ``scratch``, an array of the slice's length, holds the magnitudes looked at;
    ``extents``, the smallest and largest magnitude of outputs a native kernel measured as
    it computed them (then only a finding makes a pass over them)."""
    known = extents or {}

    def magnitude(values: np.ndarray) -> np.ndarray:
        fits = scratch is not None and values.shape == scratch.shape
        size: np.ndarray = np.absolute(values, out=scratch if fits else None)
        return size

    def extent(slot: int) -> tuple[float, float]:
        if slot in known:
            return known[slot]
        size = magnitude(slots[slot])  # (NaN propagates to both)
        smallest = np.minimum.reduce(size, axis=None, initial=np.inf)
        return smallest, np.maximum.reduce(size, axis=None, initial=0.0)

    for k, slot in enumerate(sweep.saturation):
        if not extent(slot)[0] >= thresholds.saturation:  # rare (or NaN): mark the points
            index = None if sweep.saturating_records is None else sweep.saturating_records[k]
            slope = magnitude(slots[slot])
            marks.mark(("saturated", index), part, slope < thresholds.saturation)
    for k, slot in enumerate(sweep.values):
        finite = math.isfinite(known[slot][1]) if slot in known else is_finite(slots[slot])
        if not finite:
            marks.mark(FLAGGED, part, ~np.isfinite(slots[slot]))
        _copy(result.values[k], part, slots[slot], outputs.get(slot))
    for k, target in enumerate(sweep.gradients):
        for source, held in target.items():
            column = result.gradients[k][source]
            if held is None or column is None:
                continue
            smallest, largest = extent(held)
            clean = math.isfinite(largest)  # else a NaN hides the minimum too: mark all
            if not clean:
                marks.mark(FLAGGED, part, ~np.isfinite(slots[held]))
            if not clean or largest > thresholds.exploding:  # rare: then mark the points
                size = magnitude(slots[held])
                marks.mark(("exploding", source), part, size > thresholds.exploding)
            if not clean or smallest < thresholds.vanishing:  # or exactly 0
                size = magnitude(slots[held])
                vanishing = (size > 0) & (size < thresholds.vanishing)
                if vanishing.any():
                    marks.mark(("vanishing", source), part, vanishing)
            _copy(column, part, slots[held], outputs.get(held))


def _copy(
    column: np.ndarray,
    part: slice,
    values: np.ndarray,
    written: tuple[np.ndarray, np.ndarray] | None,
) -> None:
    """``column[part] = values``, unless a step wrote them there (``written``)."""
    if written is None or written[0] is not column or written[1] is not values:
        column[part] = values
