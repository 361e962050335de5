"""A program whose variables are tensors, evaluated at one point: the loss, each parameter's
gradient, the tape with every record's shape, and the layer report.

The target must be one number (a loss: ``mean((p - y)^2)``); the sources may have any shape,
and each gradient has its source's shape. A value that is undefined somewhere (a log of a
negative element, an overflow) makes the point undefined, naming the record and how many
elements; a kink (``relu`` at exactly 0) takes the tape's one-sided value and is a warning.

>>> from gradcalc.engine.run.api import compile_expression
>>> graph = compile_expression("sum(W*W)", ["W"])
>>> result = tensor_gradient(graph, {"W": np.array([[1.0, 2.0], [3.0, 4.0]])})
>>> float(result.value), result.gradient["W"].tolist()
(30.0, [[2.0, 4.0], [6.0, 8.0]])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.core.ops import NOT_DIFFERENTIABLE, REGISTRY
from gradcalc.core.problems import Problem
from gradcalc.core.tape import Tape
from gradcalc.core.tensor import Tensor, constant
from gradcalc.engine.evaluate.evaluate import (
    TapeRow,
    ancestors,
    make_leaves,
    run_graph,
    source_names,
    source_tensors,
    tape_rows,
)
from gradcalc.engine.tensors.layers import LayerReport, Thresholds, layer_report
from gradcalc.lang.graph import Graph


@dataclass(frozen=True)
class Summary:
    """An array in five numbers: its shape, mean, min, max and (Frobenius) norm.

    >>> Summary.of(np.array([[3.0, -4.0]]))
    Summary(shape=(1, 2), mean=-0.5, min=-4.0, max=3.0, norm=5.0)
    """

    shape: tuple[int, ...]
    mean: float
    min: float
    max: float
    norm: float

    @classmethod
    def of(cls, array: np.ndarray) -> Summary:
        """The summary of ``array``."""
        values = np.asarray(array, dtype=float)
        return cls(
            values.shape,
            float(values.mean()),
            float(values.min()),
            float(values.max()),
            float(np.linalg.norm(values.reshape(-1))),
        )


@dataclass
class TensorResult:
    """The gradient of a tensor program's target at one point.

    Attributes:
        graph: the compiled program.
        target: the target's name (its statement name, or ``f``).
        sources: the names differentiated with respect to, in order.
        values: every variable's value (data and parameters).
        value: the target's value (0-d).
        gradient: per source, d target / d source in the source's shape (``None``: the
            target does not depend on it).
        tape: the recorded operations, with values and adjoints.
        layers: the layer report (:mod:`gradcalc.engine.tensors.layers`).
        warnings: plain-text notes (kinks met, a broadcast that squares a column).
        given: how each variable's value was given (``randn(4,8)``, ``data.csv column t``).
        check: the cross-check, when one was made (:mod:`gradcalc.engine.tensors.tensorcheck`).
        at_kink: some element lies exactly on a kink (the gradient there is one-sided).
    """

    graph: Graph
    target: str
    sources: tuple[str, ...]
    values: dict[str, np.ndarray]
    value: np.ndarray
    gradient: dict[str, np.ndarray | None]
    tape: list[TapeRow]
    layers: LayerReport
    warnings: list[str] = field(default_factory=list)
    given: dict[str, str] = field(default_factory=dict)
    check: Any = None
    at_kink: bool = False

    @property
    def read_as(self) -> str:
        """The program as gradcalc read it."""
        return self.graph.read_as


def tensor_gradient(
    graph: Graph,
    values: Mapping[str, np.ndarray],
    wrt: Sequence[str] | None = None,
    thresholds: Thresholds | None = None,
) -> TensorResult:
    """Evaluate ``graph`` at ``values`` on a tape and differentiate its one target.

    Raises:
        InputError: a missing value, shapes that do not fit (naming the subexpression), a
            target that is not one number, several targets.
        UndefinedError: the target or a gradient is undefined at the point.
    """
    if len(graph.targets) != 1:
        raise InputError("with tensor values, differentiate one target (one statement in --of)")
    sources = source_names(graph, wrt)
    make_leaves(graph, {n: 0.0 for n in values})  # the same message for a missing value
    leaves: dict[str, Tensor] = {name: constant(values[name]) for name in graph.variables}
    with Tape(persistent=True) as tape:
        tape.watch(list(leaves.values()))
        tensors = _run(graph, leaves)
    target = tensors[graph.targets[0]]
    name = graph.target_names[0] if graph.target_names else "f"
    if target.value.size != 1 or target.value.ndim:
        raise InputError(
            f"the target {name} has shape {target.value.shape}: a gradient needs one number "
            "(reduce it, e.g. with mean(...) or sum(...))"
        )
    everything = tuple(dict.fromkeys([*sources, *graph.variables]))
    grads = tape.gradient(target, source_tensors(graph, tensors, everything))
    gradient = {s: None if g is None else g.value for s, g in zip(everything, grads)}
    rows = tape_rows(graph, tape, tensors)
    upstream = ancestors(tape, target)
    problems = [p for p in tape.problems() if p.record.index in upstream]
    kinks = _judge(problems, rows)
    return TensorResult(
        graph,
        name,
        sources,
        {n: leaves[n].value for n in graph.variables},
        target.value,
        {s: gradient[s] for s in sources},
        rows,
        layer_report(rows, {n: leaves[n].value for n in graph.variables}, gradient, thresholds),
        kinks + _outer_broadcasts(rows),
        at_kink=bool(kinks),
    )


def _run(graph: Graph, leaves: Mapping[str, Tensor]) -> list[Tensor]:
    """Run the graph; shapes that do not fit are an input error naming the subexpression."""
    try:
        return run_graph(graph, leaves)
    except ValueError as error:
        raise InputError(f"the shapes do not fit: {error}") from None


def _judge(problems: list[Problem], rows: list[TapeRow]) -> list[str]:
    """Raise for an undefined record upstream of the target; kinks become warnings."""
    formulas = {row.index: row.reading for row in rows}
    warnings = []
    for problem in problems:
        count, total = int(np.count_nonzero(problem.mask)), problem.mask.size
        where = f"{formulas.get(problem.record.index, problem.record.op.name)}"
        share = f"{count:,} of {total:,} elements"
        if problem.kind == NOT_DIFFERENTIABLE:
            warnings.append(
                f"{where} is at a kink on {share} ({problem.reason}): the gradient takes the "
                "one-sided value the tape's rule gives there"
            )
            continue
        raise UndefinedError(f"{where} is undefined on {share}: {problem.kind}: {problem.reason}")
    return warnings


def _outer_broadcasts(rows: list[TapeRow]) -> list[str]:
    """Warn where an elementwise op combined two arrays into one larger than both: ``p - y``
    with ``p`` of shape (300, 1) and ``y`` of shape (300,) is a 300 x 300 table, almost never
    what was meant (a loss over it is a number, silently wrong)."""
    warnings = []
    for row in rows:
        op = REGISTRY[row.op]
        if row.node is None or op.arity != 2 or not getattr(op, "elementwise", True):
            continue
        sizes = [value.size for value in row.input_values]
        if min(sizes) > 1 and row.value.size > max(sizes):
            a, b = (value.shape for value in row.input_values)
            warnings.append(
                f"{row.reading} combines shapes {a} and {b} into {row.value.shape}: every "
                "element with every other -- if a column met a vector, make both columns"
            )
    return warnings
