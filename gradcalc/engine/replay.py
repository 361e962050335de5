"""Replay a recorded forward-and-reverse tape over many points, a cache-sized chunk at a time.

Differentiating one expression at a million points on a fresh tape would keep a million-long
array for every record and every adjoint. Instead, :func:`record_sweep` runs the graph once at
a probe point under an *outer* tape while an inner tape differentiates it: the outer tape then
holds the whole computation -- the forward records and the backward pass the gradient rules
produced -- as one straight-line program (constants folded in). :func:`run_sweep` replays that
program on slices of the points small enough to stay in the CPU cache, freeing every value
after its last use, with no tape bookkeeping per op.

The replay computes; it does not explain. It checks every forward op's domain rule, every
value for NaN or infinity, each activation for saturation and the gradients for vanishing or
exploding components, and marks the points where any of these fires (``flagged``): the caller
re-runs just those points on a full tape, which explains them, and merges them back. Values
are the same numpy calls on the same inputs, so results are bit-for-bit those of the tape.

>>> import numpy as np
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
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gradcalc.core.ops import Op
from gradcalc.core.tape import Record, Tape
from gradcalc.core.tensor import Tensor
from gradcalc.engine import fused
from gradcalc.engine.diagnostics import Thresholds
from gradcalc.engine.evaluate import make_leaves, run_graph, source_tensors
from gradcalc.lang.graph import Graph

#: Points per replayed slice: a few arrays of this many float64 fit in a core's L2 cache
#: (measured: 2,048 points per slice is 2x slower, per-step overhead; 65,536 no faster).
CHUNK = 32768

#: Threads that replay slices at once (numpy computes with the GIL released), at most.
MAX_THREADS = 4


def default_threads() -> int:
    """``GRADCALC_THREADS`` if set (a whole number >= 1), else one per CPU up to
    :data:`MAX_THREADS`.

    >>> import os
    >>> os.environ["GRADCALC_THREADS"] = "1"
    >>> default_threads()
    1
    >>> del os.environ["GRADCALC_THREADS"]
    """
    chosen = os.environ.get("GRADCALC_THREADS", "")
    if chosen.isdigit() and int(chosen) >= 1:
        return int(chosen)
    return min(os.cpu_count() or 1, MAX_THREADS)


_PROBE = 0.5  # any value: the program's shape does not depend on it


@dataclass(frozen=True)
class Step:
    """One replayed operation: ``slots[out] = op.forward(*slots[inputs], **params)``.

    ``guard`` is set for forward records (their domain and finiteness are checked);
    ``constant_inputs`` marks inputs no gradient flows to; ``release`` lists the slots
    whose last use this is; ``check_domain`` is off when the op's domain rule cannot fire
    given its constant inputs (``x**2`` is defined everywhere); ``check_finite`` is off when
    a NaN or infinity here could not vanish before reaching a checked value (see
    :func:`_plan_finite_checks`).
    """

    op: Op
    inputs: tuple[int, ...]
    out: int
    params: dict[str, Any]
    guard: bool
    constant_inputs: tuple[bool, ...]
    release: tuple[int, ...] = ()
    check_domain: bool = True
    check_finite: bool = True


@dataclass
class Sweep:
    """A straight-line forward-and-reverse program over numbered slots.

    Slots ``0 .. len(variables)-1`` hold the variables' values; ``constants`` fill some
    others; every step writes one. ``values[k]`` and ``gradients[k][source]`` name the slots
    holding target ``k``'s value and partial derivatives (``None``: not connected);
    ``saturation`` the local slopes of the activations that may saturate (the backward pass
    computes the same slopes, so checking them costs one comparison).
    """

    variables: tuple[str, ...]
    sources: tuple[str, ...]
    constants: dict[int, np.ndarray]
    steps: list[Step]
    values: list[int]
    gradients: list[dict[str, int | None]]
    saturation: tuple[int, ...] = ()
    size: int = 0
    #: the tape record index of each ``saturation`` slope; ``None`` with several targets,
    #: whose findings only a full tape sorts out (then any finding sends the batch there)
    saturating_records: tuple[int, ...] | None = None
    _kernels: list[fused.Kernels | None] = field(default_factory=list, repr=False)

    def kernels(self) -> fused.Kernels | None:
        """The steps as fused kernels (built once), or ``None`` without numexpr."""
        if not self._kernels:
            self._kernels.append(fused.fuse(self))
        return self._kernels[0]


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


def record_sweep(graph: Graph, sources: Sequence[str]) -> Sweep:
    """Record ``graph`` and its gradient with respect to ``sources`` as a :class:`Sweep`.

    Raises:
        UndefinedError: for a constant subexpression outside its op's domain.
    """
    leaves, _ = make_leaves(graph, dict.fromkeys(graph.variables, _PROBE))
    with Tape(persistent=True) as outer:
        outer.watch(list(leaves.values()))
        with Tape(persistent=True) as inner:
            inner.watch(list(leaves.values()))
            tensors = run_graph(graph, leaves)
        wrt = source_tensors(graph, tensors, sources)
        grads = [inner.gradient(tensors[t], wrt) for t in graph.targets]
        # the activations on the gradient's path: their slopes are checked for saturation
        saturating = [rec for rec in inner.records if rec.op.saturates and rec.adjoint is not None]
        slopes = [_slope(rec) for rec in saturating]
    forward = {rec.output.id for rec in inner.records}
    slot: dict[int, int] = {leaves[v].id: k for k, v in enumerate(graph.variables)}
    constants: dict[int, np.ndarray] = {}

    def slot_of(tensor: Tensor) -> int:
        if tensor.id not in slot:
            slot[tensor.id] = len(slot)
            constants[slot[tensor.id]] = tensor.value
        return slot[tensor.id]

    steps = []
    for rec in outer.records:
        inputs = tuple(slot_of(t) for t in rec.inputs)
        slot[rec.output.id] = len(slot)
        steps.append(
            Step(
                rec.op,
                inputs,
                slot[rec.output.id],
                rec.params,
                rec.output.id in forward,
                tuple(k in constants for k in inputs),
            )
        )
    saturation = tuple(slot_of(t) for t in slopes)
    saturating_records = tuple(rec.index for rec in saturating)
    values = [slot_of(tensors[t]) for t in graph.targets]
    gradients = [
        {s: None if g is None else slot_of(g) for s, g in zip(sources, target_grads)}
        for target_grads in grads
    ]
    steps, alias = _simplify(steps, constants)
    sweep = Sweep(
        tuple(graph.variables),
        tuple(sources),
        constants,
        steps,
        [alias.get(v, v) for v in values],
        [{s: None if g is None else alias.get(g, g) for s, g in t.items()} for t in gradients],
        tuple(alias.get(k, k) for k in saturation),
        len(slot),
        saturating_records if len(graph.targets) == 1 else None,
    )
    _plan_finite_checks(sweep)
    _plan_releases(sweep)
    return sweep


def _simplify(
    steps: list[Step], constants: dict[int, np.ndarray]
) -> tuple[list[Step], dict[int, int]]:
    """Drop steps whose result is already known, without changing a single bit of any value:
    repeated steps (the backward pass recomputes ``cos(x)`` for every use), ``a * 1``,
    ``a ** 1`` and ``-(-a)``. Returns the kept steps and the slot each dropped one aliases.
    """

    def is_one(k: int) -> bool:
        return k in constants and constants[k].ndim == 0 and constants[k] == 1.0

    alias: dict[int, int] = {}
    seen: dict[tuple[Any, ...], int] = {}
    negated: dict[int, int] = {}
    kept = []
    for step in steps:
        inputs = tuple(alias.get(i, i) for i in step.inputs)
        key = (step.op.name, inputs, tuple(sorted(step.params.items())))
        name = step.op.name
        if key in seen:
            alias[step.out] = seen[key]
        elif name == "mul" and (is_one(inputs[0]) or is_one(inputs[1])):
            alias[step.out] = inputs[1] if is_one(inputs[0]) else inputs[0]
        elif name == "pow" and is_one(inputs[1]):
            alias[step.out] = inputs[0]
        elif name == "neg" and inputs[0] in negated:
            alias[step.out] = negated[inputs[0]]
        else:
            seen[key] = step.out
            if name == "neg":
                negated[step.out] = inputs[0]
            kept.append(replace(step, inputs=inputs, check_domain=_may_fire(step, constants)))
    return kept, alias


def _may_fire(step: Step, constants: dict[int, np.ndarray]) -> bool:
    """Whether the step's domain rule can report anything, given its constant inputs.

    Only steps with a constant input are examined: their rule is tried on every probe value
    for the other inputs (``x**2`` never fires, ``x**0.5`` and ``1/x`` do).
    """
    if step.op.domain is None or not step.guard:
        return False
    if not any(step.constant_inputs) or step.op.arity < 2:
        return True
    values = [
        constants[i] if const else np.array(step.op.probes)
        for i, const in zip(step.inputs, step.constant_inputs)
    ]
    return any(
        issue.arg is None or not step.constant_inputs[issue.arg]
        for issue in step.op.issues(*values)
    )


def _slope(rec: Record) -> Tensor:
    """The local slope of an activation (its gradient rule with an incoming adjoint of 1)."""
    return rec.op.grads[0](Tensor(np.ones(())), rec.output, *rec.inputs, **rec.params)


def _propagates(step: Step, position: int, constants: dict[int, np.ndarray]) -> bool:
    """Whether a non-finite input at ``position`` surely makes ``step``'s result non-finite."""
    return step.op.propagates(position, [constants.get(i) for i in step.inputs])


def _plan_finite_checks(sweep: Sweep) -> None:
    """Check a forward value for NaN or infinity only where one could get lost on its way to
    a target's value, which :func:`_store` checks: where some forward reader does not
    propagate it. A value no forward step reads is either a target (checked there) or part
    of a statement the targets do not use (which cannot make them undefined)."""
    readers: dict[int, list[tuple[Step, int]]] = {}
    for step in sweep.steps:
        if step.guard:
            for position, i in enumerate(step.inputs):
                readers.setdefault(i, []).append((step, position))
    sweep.steps = [
        replace(
            step,
            check_finite=any(
                not _propagates(reader, position, sweep.constants)
                for reader, position in readers.get(step.out, ())
            ),
        )
        if step.guard
        else step
        for step in sweep.steps
    ]


def _plan_releases(sweep: Sweep) -> None:
    """Mark each computed slot for release right after its last reader."""
    kept = set(sweep.values) | set(sweep.saturation)
    kept |= {s for g in sweep.gradients for s in g.values() if s is not None}
    last: dict[int, int] = {}
    for k, step in enumerate(sweep.steps):
        for i in step.inputs:
            last[i] = k
    computed = {step.out for step in sweep.steps}
    releases: dict[int, list[int]] = {}
    for i, k in last.items():
        if i in computed and i not in kept:
            releases.setdefault(k, []).append(i)
    sweep.steps = [
        replace(step, release=tuple(releases.get(k, ()))) for k, step in enumerate(sweep.steps)
    ]


def run_sweep(
    sweep: Sweep,
    arrays: Mapping[str, np.ndarray],
    thresholds: Thresholds | None = None,
    chunk: int = CHUNK,
    threads: int | None = None,
    fuse: bool | None = None,
) -> SweepResult:
    """Replay ``sweep`` over 1-d ``arrays`` (one per variable, all the same length).

    Points that need the full tape to be explained -- a domain issue, a NaN or infinity, and,
    with several targets, a saturated activation or a vanishing or exploding gradient -- are
    marked in ``flagged`` (with one target, findings are marked point by point instead).
    The slices are shared among ``threads`` threads (default: :func:`default_threads`;
    numpy releases the GIL while it computes), each writing its own part of the result, so
    the numbers do not depend on the thread count. With ``fuse`` (default: as
    ``GRADCALC_KERNELS`` says, see :func:`gradcalc.engine.fused.chosen`) and numexpr
    installed, the steps run as fused kernels (:mod:`gradcalc.engine.fused`): the same
    numbers to a few units in the last place; else one numpy call per step, bit for bit the
    tape's.

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
    result = SweepResult(
        [np.empty(n) for _ in sweep.values],
        [{s: None if g is None else np.empty(n) for s, g in t.items()} for t in sweep.gradients],
    )
    marks = _Marks(n, tracked=sweep.saturating_records is not None)
    kernels = sweep.kernels() if fused.chosen(fuse) else None
    starts = list(range(0, n, chunk))
    workers = min(threads or default_threads(), len(starts))
    shares = [starts[k::workers] for k in range(workers)]
    written = {slot: result.values[k] for k, slot in enumerate(sweep.values)}
    for k, target in enumerate(sweep.gradients):
        for source, slot in target.items():
            column = result.gradients[k][source]
            if slot is not None and column is not None:
                written.setdefault(slot, column)

    def replay_share(share: list[int]) -> None:
        slots: list[Any] = [None] * sweep.size
        for k, value in sweep.constants.items():
            slots[k] = value
        with np.errstate(all="ignore"):
            for start in share:
                part = slice(start, min(start + chunk, n))
                for k, column in enumerate(columns):
                    slots[k] = column[part]
                flag = functools.partial(marks.mark, FLAGGED, part)
                outputs: dict[int, tuple[np.ndarray, np.ndarray]] = {}
                if kernels is None:
                    outputs = {slot: (column, column[part]) for slot, column in written.items()}
                    _replay(sweep.steps, slots, flag, outputs)
                else:
                    fused.run(
                        kernels,
                        slots,
                        functools.partial(_check_domain, flag=flag),
                        functools.partial(_check_finite, flag=flag),
                    )
                _store(sweep, slots, result, part, thresholds, marks, outputs)

    if workers == 1:
        replay_share(starts)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(replay_share, shares))
    result.flagged = marks.masks.pop(FLAGGED, None)
    result.findings = marks.findings(sweep)
    if result.flagged is not None:
        for mask in result.findings.values():  # a flagged point is the tape's to diagnose
            mask[result.flagged] = False
    return result


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


def _replay(
    steps: list[Step],
    slots: list[Any],
    flag: Callable[[np.ndarray], None],
    outputs: Mapping[int, tuple[np.ndarray, np.ndarray]],
) -> None:
    """Run every step on the current slice, passing ``flag`` the points needing the tape; a
    numpy ufunc whose result is an output writes it into its place in the result directly
    (``outputs``: slot -> (result column, its part for this slice))."""
    for step in steps:
        values = [slots[i] for i in step.inputs]
        forward = step.op.forward
        if step.out in outputs and isinstance(forward, np.ufunc) and not step.params:
            out = forward(*values, out=outputs[step.out][1])
        else:
            out = forward(*values, **step.params)
        if step.guard:
            if step.check_domain:
                _check_domain(step, values, flag)
            if step.check_finite:
                _check_finite(out, flag)
        slots[step.out] = out
        for i in step.release:
            slots[i] = None


def _check_domain(step: Step, values: list[Any], flag: Callable[[np.ndarray], None]) -> None:
    """Flag the points where the step's inputs are outside its op's domain (except for
    issues about a constant input)."""
    for issue in step.op.issues(*values):
        if issue.arg is None or not step.constant_inputs[issue.arg]:
            flag(issue.mask)


def _check_finite(values: np.ndarray, flag: Callable[[np.ndarray], None]) -> None:
    """Flag the points where ``values`` are NaN or infinite."""
    if not _finite(values):
        flag(~np.isfinite(values))


def _finite(values: np.ndarray) -> bool:
    """One pass: a sum is finite only if every term is (a finite sum that overflows just
    costs a second, exact look)."""
    return math.isfinite(np.add.reduce(values, axis=None))


def _store(
    sweep: Sweep,
    slots: list[Any],
    result: SweepResult,
    part: slice,
    thresholds: Thresholds,
    marks: _Marks,
    outputs: Mapping[int, tuple[np.ndarray, np.ndarray]],
) -> None:
    """Copy the slice's outputs into the result (unless a step wrote them there) and mark
    its unhealthy points: findings, or (untracked, and for NaN or infinity) flagged points."""
    for k, slot in enumerate(sweep.saturation):
        slope = np.abs(slots[slot])
        if not slope.min(initial=np.inf) >= thresholds.saturation:  # rare (or NaN): mark
            index = None if sweep.saturating_records is None else sweep.saturating_records[k]
            marks.mark(("saturated", index), part, slope < thresholds.saturation)
    for k, slot in enumerate(sweep.values):
        if not _finite(slots[slot]):
            marks.mark(FLAGGED, part, ~np.isfinite(slots[slot]))
        _copy(result.values[k], part, slots[slot], outputs.get(slot))
    for k, target in enumerate(sweep.gradients):
        for source, held in target.items():
            column = result.gradients[k][source]
            if held is None or column is None:
                continue
            size = np.abs(slots[held])
            largest = size.max(initial=0.0)
            clean = math.isfinite(largest)  # else a NaN hides the minimum too: mark all
            if not clean:
                marks.mark(FLAGGED, part, ~np.isfinite(size))
            if not clean or largest > thresholds.exploding:  # rare: then mark the points
                marks.mark(("exploding", source), part, size > thresholds.exploding)
            if not clean or size.min(initial=np.inf) < thresholds.vanishing:  # or exactly 0
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


def sweep_for(graph: Graph, sources: Sequence[str]) -> Sweep:
    """The graph's :class:`Sweep` for ``sources``, recorded once and cached on the graph."""
    key = ("sweep", tuple(sources))
    if key not in graph.cache:
        graph.cache[key] = record_sweep(graph, sources)
    sweep: Sweep = graph.cache[key]
    return sweep
