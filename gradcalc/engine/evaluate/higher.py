"""Second and higher derivatives of an op graph, from nested tapes.

The inner tape differentiates the graph; an outer tape, watching the same inputs,
records that backward pass and differentiates it again -- no symbolic algebra.

>>> from gradcalc.engine.run.api import compile_expression
>>> g = compile_expression("x**3 + x*y**2", ["x", "y"])
>>> run = hessian(g, {"x": 5.0, "y": 2.0}, ["x", "y"])
>>> run.matrix.tolist()
[[30.0, 4.0], [4.0, 10.0]]
>>> [float(d) for d in derivatives(g, {"x": 5.0, "y": 2.0}, "x", 4).orders]
[79.0, 30.0, 6.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gradcalc.core.errors import InputError
from gradcalc.core.problems import Problem
from gradcalc.core.tape import Tape
from gradcalc.engine.evaluate.evaluate import TapeRow, make_leaves, run_graph, tape_rows
from gradcalc.lang.graph import Graph

#: The most tape records the nested tapes of ``--order N`` may hold in all: each order
#: records the backward pass of the one before, so the count grows geometrically.
MAX_RECORDS = 200_000


@dataclass
class Higher:
    """Derivatives beyond the first, with the outermost tape's rows and problems.

    ``matrix`` is the Hessian, shaped ``(n, n) + points shape`` (``hessian``); ``orders``
    holds d^k f/dx^k for k = 1..N (``derivatives``).
    """

    sources: tuple[str, ...]
    value: np.ndarray
    gradient: dict[str, np.ndarray]
    rows: list[TapeRow]
    problems: list[Problem]
    matrix: np.ndarray | None = None
    orders: list[np.ndarray] | None = None


def check_variables(graph: Graph, sources: Sequence[str], what: str) -> None:
    """Higher derivatives are taken with respect to free variables only.

    Raises:
        InputError: for a statement name or an unknown name.
    """
    for name in sources:
        if name not in graph.variable_nodes:
            raise InputError(
                f"{what} is taken with respect to variables; {name!r} is not one "
                f"(variables: {', '.join(graph.variables)})"
            )


def hessian(
    graph: Graph, point: Mapping[str, object], sources: Sequence[str], target: int = 0
) -> Higher:
    """The Hessian of target ``target`` with respect to ``sources`` (variables)."""
    check_variables(graph, sources, "the Hessian")
    leaves, shape = make_leaves(graph, point)
    xs = [leaves[name] for name in sources]
    with Tape(persistent=True) as outer:
        outer.watch(list(leaves.values()))  # every variable: see derivatives()
        with Tape() as inner:
            inner.watch(xs)
            tensors = run_graph(graph, leaves)
        first = inner.gradient(tensors[graph.targets[target]], xs, unconnected="zero")
    rows, problems = [], []
    for g in first:
        rows.append([h.value for h in outer.gradient(g, xs, unconnected="zero")])
        problems += outer.problems()
    n = len(xs)
    matrix = np.array([[np.broadcast_to(h, shape) for h in row] for row in rows]).reshape(
        (n, n, *shape)
    )
    return Higher(
        tuple(sources),
        np.broadcast_to(tensors[graph.targets[target]].value, shape),
        {name: np.broadcast_to(g.value, shape) for name, g in zip(sources, first)},
        tape_rows(graph, outer, tensors),
        _distinct(problems),
        matrix=matrix,
    )


def derivatives(
    graph: Graph, point: Mapping[str, object], source: str, order: int, target: int = 0
) -> Higher:
    """d^k f / d source^k for k = 1..order, through ``order`` nested tapes."""
    check_variables(graph, [source], "a derivative of order > 1")
    leaves, shape = make_leaves(graph, point)
    x = leaves[source]
    tapes = [Tape() for _ in range(order)]
    active: list[Tape] = []
    orders: list[np.ndarray] = []
    try:
        for tape in tapes:
            active.append(tape.__enter__())
            tape.watch(x)
        # the outermost tape watches every variable, as a first derivative's tape does: an
        # input outside an op's domain (sqrt(x) at x = -1) leaves f undefined at the point
        # whatever the variable differentiated by, and is found only on a record of it
        tapes[0].watch(list(leaves.values()))
        tensors = run_graph(graph, leaves)
        current = tensors[graph.targets[target]]
        before = 0
        while active:  # innermost first; the tapes still open record its backward pass
            recorded = sum(len(t.records) for t in active)
            _within_budget(recorded, before, order, len(orders))
            before = recorded
            tape = active.pop()
            tape.__exit__(None, None, None)
            current = tape.gradient(current, x, unconnected="zero")
            orders.append(np.broadcast_to(current.value, shape))
    finally:
        for tape in reversed(active):
            tape.__exit__(None, None, None)
    outermost = tapes[0]
    return Higher(
        (source,),
        np.broadcast_to(tensors[graph.targets[target]].value, shape),
        {source: orders[0]},
        tape_rows(graph, outermost, tensors),
        outermost.problems(),
        orders=orders,
    )


def _within_budget(recorded: int, before: int, order: int, done: int) -> None:
    """Refuse the next order if it would take the nested tapes past :data:`MAX_RECORDS`
    (judged by how much the last order grew them), before it is recorded.

    >>> _within_budget(150_000, 50_000, 12, 7)
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: --order 12 needs more than 200,000 tape records ...
    """
    growth = recorded / before if before else 1.0
    if recorded > MAX_RECORDS or recorded * growth > MAX_RECORDS:
        raise InputError(
            f"--order {order} needs more than {MAX_RECORDS:,} tape records for this expression "
            f"(the nested tapes grow {growth:.1f}x per order; stopped after order {done}): "
            "ask for a lower --order"
        )


def _distinct(problems: list[Problem]) -> list[Problem]:
    """One problem per (record, kind, reason), their points merged, in tape order."""
    merged: dict[tuple[int, str, str], Problem] = {}
    for p in problems:
        key = (p.record.index, p.kind, p.reason)
        if key in merged:
            merged[key] = Problem(p.record, p.kind, p.reason, merged[key].mask | p.mask)
        else:
            merged[key] = p
    return sorted(merged.values(), key=lambda p: p.record.index)
