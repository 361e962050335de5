"""One point at a time, without a tape: the fast path of a stream of small jobs.

A ``--jobs`` stream answers many small expressions, each at one point. Most share a shape
with earlier ones (:func:`~gradcalc.lang.graph.shape`: ``1.3*x^2 + 0.9*x*y`` and
``2.8*x^2 + 0.7*x*y``). For a shape seen before, the graph is recorded once as a
straight-line forward-and-reverse program (:func:`~gradcalc.engine.compile.sweep.record_sweep`)
with its numbers as inputs, like the variables; each job of the shape then runs that
program on plain numpy scalars -- no tape, no arrays of length 1, no bookkeeping per op.

The program makes the same numpy calls on the same values as a tape, so the numbers are
bit for bit the tape's. It computes; it does not explain: a point where anything is
unusual -- a domain rule that fires (an undefined point, a kink), a NaN or infinity
anywhere, a saturated activation, a gradient component that is 0, vanishing or exploding
-- is left to the full tape (:func:`scalar_evaluation` returns ``None``), which explains it.
Shapes whose numbers a tape would treat apart from the variables are never planned: a
number-only subexpression under a domain rule (``log(2.5)``, checked as a constant) or in
an exponent (the power rule reads a constant exponent's value).

>>> from gradcalc.engine.run.api import compile_expression
>>> from gradcalc.engine.evaluate.points import parse_at
>>> store = Plans()
>>> with planning(store):
...     for text in ("1.5*x^2*y", "2.5*x^2*y"):  # the second of a shape is planned
...         run = scalar_evaluation(compile_expression(text), parse_at(["x=2,y=3"]))
>>> float(run.values[0]), {s: float(g) for s, g in run.gradients[0].items()}
(30.0, {'x': 30.0, 'y': 10.0})
>>> len(store.plans)
1
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gradcalc.core.errors import GradcalcError
from gradcalc.core.ops import REGISTRY
from gradcalc.engine.evaluate.evaluate import Evaluation, lazy_rows
from gradcalc.engine.evaluate.findings import Thresholds
from gradcalc.engine.evaluate.points import Points
from gradcalc.lang.graph import Graph, Node, shape
from gradcalc.lang.literals import DECIMAL

#: The plans kept (least recently used first out), and the shapes remembered as seen once.
MAX_PLANS = 256
MAX_SEEN = 4096


@dataclass(frozen=True)
class Plan:
    """A shape's program: ``steps`` as (forward, input slots, output slot, params, the op
    when its domain is checked, which inputs are constants); ``slots`` the initial slot
    values (the constants; the variables and then the numbers fill the first ones)."""

    steps: tuple[tuple[Any, tuple[int, ...], int, dict[str, Any], Any, tuple[bool, ...]], ...]
    slots: tuple[Any, ...]
    values: tuple[int, ...]
    gradients: tuple[dict[str, int | None], ...]
    saturation: tuple[int, ...]


class Plans:
    """The plans of a stream by shape and sources (see :data:`MAX_PLANS`); ``None`` for a
    shape that cannot be planned."""

    def __init__(self) -> None:
        self.plans: OrderedDict[Hashable, Plan | None] = OrderedDict()
        self.seen: set[Hashable] = set()

    def plan(
        self, key: Hashable, graph: Graph, numbers: tuple[int, ...], sources: tuple[str, ...]
    ) -> Plan | None:
        """The plan under ``key``: made from ``graph`` the second time the key is asked for
        (a shape seen once is not worth recording), ``None`` before that or when the
        shape cannot be planned."""
        if key in self.plans:
            self.plans.move_to_end(key)
            return self.plans[key]
        if key not in self.seen:
            if len(self.seen) >= MAX_SEEN:
                self.seen.clear()
            self.seen.add(key)
            return None
        self.plans[key] = _record(graph, numbers, sources)
        while len(self.plans) > MAX_PLANS:
            self.plans.popitem(last=False)
        return self.plans[key]


_stores: list[Plans | None] = []


@contextmanager
def planning(store: Plans | None) -> Iterator[None]:
    """Compute single points through ``store``'s plans in this block (``None``: do not)."""
    _stores.append(store)
    try:
        yield
    finally:
        _stores.pop()


def scalar_evaluation(
    graph: Graph,
    points: Points,
    wrt: Sequence[str] | None = None,
    thresholds: Thresholds | None = None,
) -> Evaluation | None:
    """The evaluation of ``graph`` at one point through the plan of its shape (its rows
    recorded on a full tape when first read); ``None`` outside :func:`planning`, for a
    shape without a plan (yet), or where the point needs the full tape to explain it."""
    store = _stores[-1] if _stores else None
    if store is None or points.count != 1:
        return None
    arrays = points.arrays
    if any(v not in arrays or arrays[v].ndim != 0 for v in graph.variables):
        return None
    sources = graph.variables if not wrt else tuple(dict.fromkeys(wrt))
    if any(s not in graph.variable_nodes for s in sources):
        return None  # statement names (or unknown names: the full tape says so)
    found = plannable(graph)
    if found is None:
        return None
    key, numbers = found
    plan = store.plan((key, sources), graph, numbers, sources)
    if plan is None:
        return None
    inputs = [arrays[v][()] for v in graph.variables]
    inputs += [np.float64(graph.nodes[i].text) for i in numbers]
    try:
        slots = _run(plan, inputs, thresholds or Thresholds())
    except (TypeError, ValueError):  # not scalars after all: the tape's to compute
        slots = None
    if slots is None:
        return None
    point = {v: arrays[v] for v in graph.variables}
    targets = range(len(graph.targets))
    return Evaluation(
        graph,
        sources,
        [np.asarray(slots[k]) for k in plan.values],
        [
            {s: None if k is None else np.asarray(slots[k]) for s, k in gradient.items()}
            for gradient in plan.gradients
        ],
        lazy_rows(graph, point, sources),
        [[] for _ in targets],
        [[] for _ in targets],
    )


def plannable(graph: Graph) -> tuple[Hashable, tuple[int, ...]] | None:
    """The graph's shape key and its numbers' nodes (see :func:`~gradcalc.lang.graph.shape`),
    ``None`` for a graph with tensor ops. Cached on the graph.

    >>> from gradcalc.engine.run.api import compile_expression
    >>> plannable(compile_expression("2.5*x + x^2"))[1], plannable(compile_expression("sum(x)"))
    ((0,), None)
    """
    if ("plannable",) not in graph.cache:
        found = shape(graph, _varies) if graph.elementwise else None
        graph.cache[("plannable",)] = found
    plain: tuple[Hashable, tuple[int, ...]] | None = graph.cache[("plannable",)]
    return plain


def treated_apart(graph: Graph, numbers: tuple[int, ...]) -> bool:
    """Whether a tape treats some of the shape's ``numbers`` apart from the variables: in a
    number-only subexpression under a domain rule (``log(2.5)``, checked as a constant) or
    in an exponent (the power rule reads a constant exponent's value). Such a shape is not
    planned.

    >>> from gradcalc.engine.run.api import compile_expression
    >>> graphs = [compile_expression(text) for text in ("log(2.5)*x", "2.5*x")]
    >>> [treated_apart(graph, plannable(graph)[1]) for graph in graphs]
    [True, False]
    """
    numbered = set(numbers)
    fixed: list[bool] = []  # computed from numbers and constants alone
    counted: list[bool] = []  # ... and from a shared number among them
    for node in graph.nodes:
        inputs = node.inputs
        fixed.append(node.kind == "const" or (node.kind == "op" and all(fixed[i] for i in inputs)))
        counted.append(node.index in numbered or (fixed[-1] and any(counted[i] for i in inputs)))
        if node.kind != "op":
            continue
        if counted[-1] and REGISTRY[node.op].domain is not None:
            return True
        if node.op == "pow" and counted[inputs[1]]:
            return True
    return False


def _varies(text: str) -> bool:
    """Whether a number of this text is an input of the plan: any decimal, 0 and 1 included
    (``1.0*x`` runs the plan of ``2.5*x``: a product with 1.0 is exact, and a 0 that makes
    a value or a gradient component unusual is found when the plan runs, as any other)."""
    return bool(DECIMAL.fullmatch(text))


def _record(graph: Graph, numbers: tuple[int, ...], sources: tuple[str, ...]) -> Plan | None:
    """The plan of ``graph`` with its ``numbers`` as inputs after the variables: they become
    variables of a copy of the graph, differentiated with respect to ``sources`` only;
    ``None`` for a shape whose numbers a tape treats apart (:func:`treated_apart`)."""
    if treated_apart(graph, numbers):
        return None
    names = [f"_c{i}" for i in numbers]  # no variable's name: names start with a letter
    nodes = list(graph.nodes)
    for i, name in zip(numbers, names):
        nodes[i] = Node(i, "var", text=name, label=name)
    general = replace(
        graph,
        nodes=nodes,
        variables=(*graph.variables, *names),
        variable_nodes={**graph.variable_nodes, **dict(zip(names, numbers))},
        cache={},
    )
    from gradcalc.engine.compile.sweep import record_sweep  # only a stream with a shape seen twice

    try:
        sweep = record_sweep(general, sources)
    except GradcalcError:  # e.g. a constant subexpression undefined: the full tape says so
        return None
    slots: list[Any] = [None] * sweep.size
    for k, value in sweep.constants.items():
        slots[k] = value[()] if value.ndim == 0 else value
    steps = tuple(
        (
            step.op.forward,
            step.inputs,
            step.out,
            step.params,
            step.op if step.check_domain else None,
            step.constant_inputs,
        )
        for step in sweep.steps
    )
    return Plan(
        steps,
        tuple(slots),
        tuple(sweep.values),
        tuple(sweep.gradients),
        sweep.saturation,
    )


def _run(plan: Plan, inputs: list[Any], thresholds: Thresholds) -> list[Any] | None:
    """The plan's slots after running it at ``inputs``; ``None`` where anything is unusual
    (see the module's description)."""
    slots = list(plan.slots)
    slots[: len(inputs)] = inputs
    isfinite = math.isfinite
    with np.errstate(all="ignore"):
        for forward, reads, out, params, checked, constants in plan.steps:
            values = [slots[i] for i in reads]
            value = forward(*values, **params)
            if not isfinite(value):
                return None
            if checked is not None:
                for issue in checked.issues(*values, **params):
                    if issue.concerns(constants):
                        return None
            slots[out] = value
    if not all(isfinite(v) for v in inputs) or not all(isfinite(slots[k]) for k in plan.values):
        return None
    for k in plan.saturation:
        if not abs(slots[k]) >= thresholds.saturation:
            return None
    # a margin of 2 either side: the check may show the exact value in place of the tape's
    low, high = 2 * thresholds.vanishing, thresholds.exploding / 2
    for gradient in plan.gradients:
        for held in gradient.values():
            if held is not None and not low <= abs(slots[held]) <= high:
                return None  # 0, vanishing, exploding (or not finite): the tape explains it
    return slots
