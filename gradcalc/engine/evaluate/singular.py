"""Explain points where a value or gradient is undefined: which subexpression, which point,
why, and -- at a kink -- the one-sided derivatives on either side.

The decision comes from the op graph and the registry's domain rules, never from sympy
(which calls d/dx sqrt(x**2) at 0 "0" and d/dx log(x) at -1 "-1").

>>> from gradcalc.engine.run.api import grad
>>> result = grad("abs(x) + x", at={"x": 0.0}, strict=False)
>>> print(result.singularities[0].describe(result.points, "f"))  # doctest: +NORMALIZE_WHITESPACE
abs(x) is not differentiable at x=0.0: abs has a corner at 0 (tape #1);
one-sided: ∂f/∂x = 0 from the left, 2 from the right
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from gradcalc.core.ops import NOT_DIFFERENTIABLE, UNDEFINED
from gradcalc.core.problems import NON_FINITE_ADJOINT, NON_FINITE_VALUE, Problem
from gradcalc.engine.evaluate.evaluate import TapeRow, evaluate
from gradcalc.engine.evaluate.points import Points
from gradcalc.lang.graph import Graph

STEPS = (1e-7, 1e-9)  # relative steps for the one-sided limits
LIMIT_RTOL = 1e-4  # estimates at both steps must agree this well
MAX_ONE_SIDED_SOURCES = 20


#: The kind of a derivative that is not finite although every record of the tape is
#: (``1/x`` at 1e-200: ∂f/∂x = -1e400 overflows float64); its ``expression`` is ``∂f/∂x``.
GRADIENT = "non-finite gradient"


@dataclass(eq=False)
class Singularity:
    """One problem of the tape, in the user's terms.

    ``points`` are the flat indices of the affected points; ``one_sided`` maps each
    variable to its (left, right) derivative at the first of them, ``None`` where that
    limit is infinite or does not exist (only filled in for kinks).
    """

    kind: str
    expression: str
    record: int
    op: str
    reason: str
    points: np.ndarray
    one_sided: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)

    @property
    def value_undefined(self) -> bool:
        """Whether the value itself is undefined (not only the gradient)."""
        return self.kind in (UNDEFINED, NON_FINITE_VALUE)

    def describe(self, points: Points, target: str) -> str:
        """One line: what, where, why, and what the one-sided derivatives are."""
        where = points.label(int(self.points[0])) if points.names else "the point"
        more = f" (and {len(self.points) - 1} more points)" if len(self.points) > 1 else ""
        overflow = "overflows float64" if "overflow" in self.reason else "is NaN"
        subject, what = {
            UNDEFINED: (self.expression, f"is undefined at {where}{more}: {self.reason}"),
            NOT_DIFFERENTIABLE: (
                self.expression,
                f"is not differentiable at {where}{more}: {self.reason}",
            ),
            NON_FINITE_VALUE: (self.expression, f"{overflow} at {where}{more}"),
            NON_FINITE_ADJOINT: (
                f"the derivative through {self.expression}",
                f"{overflow} at {where}{more}",
            ),
            GRADIENT: (self.expression, f"{overflow} at {where}{more}"),
        }[self.kind]
        line = f"{subject} {what}" + (f" (tape #{self.record})" if self.record else "")
        if self.one_sided:
            sides = ", ".join(
                f"∂{target}/∂{name} = {_side(left)} from the left, {_side(right)} from the right"
                for name, (left, right) in self.one_sided.items()
            )
            line += f"; one-sided: {sides}"
        return line


def _side(value: float | None) -> str:
    if value is None:
        return "none (infinite or no limit)"
    return f"{value:.10g}"


def singularities(
    graph: Graph,
    problems: Sequence[Problem],
    rows: Sequence[TapeRow],
    points: Points,
    target: int,
    sources: Sequence[str],
) -> list[Singularity]:
    """The problems of one target as :class:`Singularity` objects, with one-sided derivatives
    at kinks (for variables among ``sources``)."""
    found = []
    for problem in problems:
        row = rows[problem.record.index - 1]
        affected = np.flatnonzero(problem.mask.reshape(-1))
        if row.node is not None:
            expression = graph.source_text(row.node)
        else:  # a record of a backward pass, seen by an outer tape
            expression = f"{row.formula} (inside the derivative)"
        singularity = Singularity(
            problem.kind,
            expression,
            row.index,
            row.op,
            problem.reason,
            affected,
        )
        if problem.kind == NOT_DIFFERENTIABLE:
            variables = [s for s in sources if s in graph.variable_nodes][:MAX_ONE_SIDED_SOURCES]
            sides = one_sided(graph, points, int(affected[0]), target, variables)
            # only the variables the kink concerns: where left and right differ
            singularity.one_sided = {n: lr for n, lr in sides.items() if lr[0] != lr[1]}
        found.append(singularity)
    return found


def one_sided(
    graph: Graph, points: Points, k: int, target: int, variables: Sequence[str]
) -> dict[str, tuple[float | None, float | None]]:
    """Left and right partial derivatives at point ``k``, as limits of the tape's gradient
    just beside the point (``None`` where the estimates diverge or are not finite).

    >>> from gradcalc.engine.run.api import compile_expression
    >>> from gradcalc.engine.evaluate.points import parse_at
    >>> g = compile_expression("abs(x)", ["x"])
    >>> one_sided(g, parse_at(["x=0"]), 0, 0, ["x"])
    {'x': (-1.0, 1.0)}
    """
    base = {n: float(a.reshape(-1)[k] if a.ndim else a) for n, a in points.arrays.items()}
    shifted: dict[str, list[float]] = {n: [] for n in graph.variables}
    for name in variables:
        scale = max(1.0, abs(base[name]))
        for sign in (-1.0, 1.0):
            for step in STEPS:
                for n in graph.variables:
                    shifted[n].append(base[n] + (sign * step * scale if n == name else 0.0))
    run = evaluate(graph, {n: np.array(v) for n, v in shifted.items()}, variables)
    gradients = run.gradients[target]
    result = {}
    for i, name in enumerate(variables):
        g = gradients[name]
        estimates = np.zeros(4) if g is None else g[4 * i : 4 * i + 4]
        result[name] = (_limit(estimates[0], estimates[1]), _limit(estimates[2], estimates[3]))
    return result


def _limit(coarse: float, fine: float) -> float | None:
    if not (np.isfinite(coarse) and np.isfinite(fine)):
        return None
    if abs(coarse - fine) > LIMIT_RTOL * max(abs(coarse), abs(fine), 1e-12):
        return None
    return float(f"{fine:.8g}") + 0.0  # 8 significant digits; -0.0 becomes 0.0
