"""Record a graph and its gradient as a straight-line program over numbered slots: a
:class:`Sweep`, which :mod:`gradcalc.engine.compile.replay` runs over many points a chunk at a time.

:func:`record_sweep` runs the graph once at a probe point under an *outer* tape while an
inner tape differentiates it: the outer tape then holds the whole computation -- the forward
records and the backward pass the gradient rules produced -- as one program (constants
folded in). The program is then simplified without changing a bit of any value (repeated
steps, ``a * 1``), and planned: which steps need a domain or finiteness check, and after
which step each slot can be freed.

>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> sweep = record_sweep(lower(parse_program("3*w1**2 + 2*w1*w2")), ("w1", "w2"))
>>> sweep.variables, [step.op.name for step in sweep.steps if step.guard]
(('w1', 'w2'), ['pow', 'mul', 'mul', 'mul', 'add'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from gradcalc.core.tape import Record, Tape
from gradcalc.core.tensor import Tensor
from gradcalc.engine.compile.program import Step, Sweep
from gradcalc.engine.compile.signs import fold_signs
from gradcalc.engine.evaluate.evaluate import make_leaves, run_graph, source_tensors
from gradcalc.lang.graph import Graph

_PROBE = 0.5  # any value: the program's shape does not depend on it


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
    slots = _Slots([leaves[v] for v in graph.variables])
    forward = {rec.output.id for rec in inner.records}
    steps = [_step(rec, slots, forward) for rec in outer.records]
    saturation = tuple(slots.of(t) for t in slopes)
    saturating_records = tuple(rec.index for rec in saturating)
    values = [slots.of(tensors[t]) for t in graph.targets]
    gradients = [
        {s: None if g is None else slots.of(g) for s, g in zip(sources, target_grads)}
        for target_grads in grads
    ]
    constants = slots.constants
    steps, alias = _simplify(steps, constants)
    kept = {alias.get(k, k) for k in [*values, *saturation]}
    kept |= {alias.get(g, g) for t in gradients for g in t.values() if g is not None}
    steps, signs, size = fold_signs(steps, constants, len(slots.slot), kept)

    def read(k: int) -> int:
        k = alias.get(k, k)
        return signs.get(k, k)

    sweep = Sweep(
        tuple(graph.variables),
        tuple(sources),
        constants,
        steps,
        [read(v) for v in values],
        [{s: None if g is None else read(g) for s, g in t.items()} for t in gradients],
        tuple(read(k) for k in saturation),
        size,
        saturating_records if len(graph.targets) == 1 else None,
    )
    _plan_finite_checks(sweep)
    _plan_releases(sweep)
    _plan_buffers(sweep)
    return sweep


class _Slots:
    """Slot numbers for the tensors of a recording: the variables first, then each constant
    (whose value is kept) and each step's output in order of first appearance."""

    def __init__(self, variables: list[Tensor]):
        self.slot: dict[int, int] = {leaf.id: k for k, leaf in enumerate(variables)}
        self.constants: dict[int, np.ndarray] = {}

    def of(self, tensor: Tensor) -> int:
        """The tensor's slot; a tensor seen for the first time is a constant."""
        if tensor.id not in self.slot:
            self.slot[tensor.id] = len(self.slot)
            self.constants[self.slot[tensor.id]] = tensor.value
        return self.slot[tensor.id]

    def output(self, tensor: Tensor) -> int:
        """A new slot for a step's output."""
        self.slot[tensor.id] = len(self.slot)
        return self.slot[tensor.id]


def _step(rec: Record, slots: _Slots, forward: set[int]) -> Step:
    """The step replaying the record ``rec`` (a forward one when its output is in ``forward``)."""
    inputs = tuple(slots.of(t) for t in rec.inputs)
    out = slots.output(rec.output)
    constant = tuple(k in slots.constants for k in inputs)
    return Step(rec.op, inputs, out, rec.params, rec.output.id in forward, constant)


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


#: The ops whose domain rule, given a constant input, is tried on probe values (see
#: :func:`_may_fire`): where it fires depends on the other input's sign and on 0 alone.
PROBED = frozenset({"pow", "div"})


def _may_fire(step: Step, constants: dict[int, np.ndarray]) -> bool:
    """Whether the step's domain rule can report anything, given its constant inputs.

    Only powers and quotients with a constant input are examined: their rule is tried on
    every probe value for the other input (``x**2`` never fires, ``x**0.5`` and ``1/x`` do).
    Any other op's rule may fire wherever a variable meets a constant -- ``max(x, c)`` has a
    corner at ``x == c``, which no fixed probe hits -- so it is always checked.
    """
    if step.op.domain is None or not step.guard:
        return False
    if not any(step.constant_inputs) or step.op.arity < 2 or step.op.name not in PROBED:
        return True
    values = [
        constants[i] if const else np.array(step.op.probes)
        for i, const in zip(step.inputs, step.constant_inputs)
    ]
    return any(issue.concerns(step.constant_inputs) for issue in step.op.issues(*values))


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
    kept = set(sweep.kept_slots())
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


def _ufunc(step: Step, constants: dict[int, np.ndarray]) -> np.ufunc | None:
    """The ufunc that computes ``step`` into a float64 array it is given, if there is one:
    its op's forward (a float64 ufunc without parameters), or ``np.square`` for a power of
    exactly 2 (numpy computes ``np.power(x, 2.0)`` as ``np.square(x)``: the same bits).

    >>> from gradcalc.core.ops import REGISTRY
    >>> two = {1: np.array(2.0)}
    >>> _ufunc(Step(REGISTRY["pow"], (0, 1), 2, {}, True, (False, True)), two)
    <ufunc 'square'>
    """
    forward = step.op.forward
    if not isinstance(forward, np.ufunc) or step.params or forward.nout != 1:
        return None
    try:
        dtypes = forward.resolve_dtypes((np.dtype(np.float64),) * forward.nin + (None,))
    except TypeError:  # no float64 loop
        return None
    if dtypes[-1] != np.float64:
        return None
    exponent = constants.get(step.inputs[-1]) if step.op.name == "pow" else None
    if exponent is not None and exponent.shape == () and exponent == 2.0:
        return np.square
    return forward


def _plan_buffers(sweep: Sweep) -> None:
    """Give each step that computes an array of one chunk's length with a ufunc (other than
    an output, written into the result directly) a buffer to write into, reused once the
    value in it is released: the values of a chunk stay in the same few arrays, warm in the
    cache, instead of a fresh array per step. A step whose domain is checked after it runs
    never writes over its own inputs (the check reads them)."""
    outputs = set(sweep.values) | {s for g in sweep.gradients for s in g.values() if s is not None}
    vectors = set(range(len(sweep.variables)))
    owner: dict[int, int] = {}  # slot -> its buffer
    free: list[int] = []
    count = 0
    steps = []
    for step in sweep.steps:
        ufunc = _ufunc(step, sweep.constants)
        in_place = not (step.guard and step.check_domain)
        if in_place:
            free += [owner.pop(i) for i in step.release if i in owner]
        buffer = None
        if any(i in vectors for i in step.inputs):
            vectors.add(step.out)
            scalars = all(sweep.constants[i].ndim == 0 for i in step.inputs if i not in vectors)
            if ufunc is not None and scalars and step.out not in outputs:
                buffer = free.pop() if free else count
                count += buffer == count
                owner[step.out] = buffer
        if not in_place:
            free += [owner.pop(i) for i in step.release if i in owner]
        steps.append(replace(step, ufunc=ufunc, buffer=buffer))
    sweep.steps, sweep.buffers = steps, count


def sweep_for(graph: Graph, sources: Sequence[str]) -> Sweep:
    """The graph's :class:`Sweep` for ``sources``, recorded once and cached on the graph."""
    key = ("sweep", tuple(sources))
    if key not in graph.cache:
        graph.cache[key] = record_sweep(graph, sources)
    sweep: Sweep = graph.cache[key]
    return sweep
