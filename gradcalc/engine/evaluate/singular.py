"""Explain points where a value or gradient is undefined: which subexpression, which point,
why, and -- at a kink -- the one-sided derivatives on either side.

The decision comes from the op graph and the registry's domain rules, never from sympy
(which calls d/dx sqrt(x**2) at 0 "0" and d/dx log(x) at -1 "-1").

>>> from gradcalc.engine.run.api import grad
>>> result = grad("abs(x) + x", at={"x": 0.0}, strict=False)
>>> print(result.singularities[0].describe(result.points, "f"))  # doctest: +NORMALIZE_WHITESPACE
abs(x) is not differentiable at x=0: abs has a corner at 0 (tape #1);
one-sided: ∂f/∂x = 0 from the left, 2 from the right
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from gradcalc.core.ops import NOT_DIFFERENTIABLE, REGISTRY, UNDEFINED
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
    limit is infinite or does not exist (only filled in for kinks). ``derivative`` names a
    derivative of order 2 or more (``∂²f/∂x²``) that does not exist there although f is
    differentiable (``reason``: its one-sided values), or -- ``undecided`` -- whose
    existence could not be decided.
    """

    kind: str
    expression: str
    record: int
    op: str
    reason: str
    points: np.ndarray
    one_sided: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    derivative: str = ""
    undecided: bool = False
    underflow: str = ""  # the subexpression whose float64 value underflowed to 0 (not undefined)
    inside: bool = False  # a record of a backward pass (f's own slopes do not describe it)

    @property
    def value_undefined(self) -> bool:
        """Whether the value itself is undefined (not only the gradient)."""
        return self.kind in (UNDEFINED, NON_FINITE_VALUE)

    def describe(self, points: Points, target: str) -> str:
        """One line: what, where, why, and what the one-sided derivatives are."""
        where = points.label(int(self.points[0])) if points.names else "the point"
        more = f" (and {len(self.points) - 1} more points)" if len(self.points) > 1 else ""
        overflow = "overflows float64" if "overflow" in self.reason else "is NaN"
        if self.derivative:
            return f"{self.summary(where + more)}: {self.reason}"
        float64 = bool(self.underflow)  # (a part underflowed: not undefined, no kink)
        undefined = "cannot be computed in float64" if float64 else "is undefined"
        kinked = "cannot be differentiated in float64" if float64 else "is not differentiable"
        subject, what = {
            UNDEFINED: (self.expression, f"{undefined} at {where}{more}: {self.reason}"),
            NOT_DIFFERENTIABLE: (
                self.expression,
                f"{kinked} at {where}{more}: {self.reason}",
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
                f"∂{target}/∂{name} = {side_text(left)} from the left, "
                f"{side_text(right)} from the right"
                for name, (left, right) in self.one_sided.items()
            )
            finite = all(None not in pair for pair in self.one_sided.values())
            corner = finite and "corner" not in self.reason  # (sqrt(x^2): not a steep f)
            line += f"; {f'a corner of {target}, ' if corner else ''}one-sided: {sides}"
        return line

    def summary(self, where: str = "") -> str:
        """What a derivative of order 2 or more (``derivative``) is not, at ``where``.

        >>> gone = Singularity("not differentiable", "x*abs(x)", 0, "", "", np.array([0]))
        >>> gone.derivative = "∂²f/∂x²"
        >>> gone.summary("x=0")
        '∂²f/∂x² of x*abs(x) does not exist at x=0'
        """
        at = f" at {where}" if where else ""
        if self.undecided:
            return f"could not decide whether {self.derivative} of {self.expression} exists{at}"
        return f"{self.derivative} of {self.expression} does not exist{at}"


def side_text(value: float | None) -> str:
    """A one-sided derivative in words.

    >>> side_text(-2.0), side_text(None)
    ('-2', 'none (infinite or no limit)')
    """
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
        inside = row.node is None  # a record of a backward pass, seen by an outer tape
        expression = _inner_text(row) if row.node is None else graph.source_text(row.node)
        singularity = Singularity(
            problem.kind,
            expression,
            row.index,
            row.op,
            problem.reason,
            affected,
            inside=inside,
        )
        if problem.kind in (UNDEFINED, NOT_DIFFERENTIABLE):
            _tell_underflow(graph, rows, row, points, singularity)
        if problem.kind == NOT_DIFFERENTIABLE and not inside and not singularity.underflow:
            variables = [s for s in sources if s in graph.variable_nodes][:MAX_ONE_SIDED_SOURCES]
            sides = one_sided(graph, points, int(affected[0]), target, variables)
            # only the variables the kink concerns: where left and right differ
            singularity.one_sided = {n: lr for n, lr in sides.items() if lr[0] != lr[1]}
        found.append(singularity)
    # a NaN adjoint is the consequence of the undefined value behind it (x - x's in
    # (x - x)/ln(x) at x < 0): the causes first, in record order
    return sorted(found, key=lambda s: s.kind == NON_FINITE_ADJOINT)


def _inner_text(row: TapeRow) -> str:
    """A record of a backward pass (no node of f's graph), in the reading's notation.

    >>> from gradcalc.engine.evaluate.evaluate import RowInput
    >>> base, half = RowInput("variable", "x", node=0), RowInput("constant", "0.5")
    >>> row = TapeRow(4, None, "pow", "x ** 0.5", (base, half), None, np.zeros(1), None)
    >>> _inner_text(row)
    'x^0.5 (inside the derivative)'
    """
    return f"{row.reading} (inside the derivative)"


#: Ops that return 0 only where float64 underflows, when each input is finite (and, for the
#: ``NONZERO_INPUTS`` ones, nonzero): exp(-1000) is 5e-435, never 0, but float64 rounds it to 0.
NEVER_ZERO = {"exp", "sigmoid", "softplus", "sech", "mul", "div", "pow"}
NONZERO_INPUTS = {"mul", "div", "pow"}


def _tell_underflow(
    graph: Graph, rows: Sequence[TapeRow], row: TapeRow, points: Points, found: Singularity
) -> None:
    """Say so in ``found`` (undefined, or not differentiable) where its points see a 0
    that is float64's underflow: there it is not computable in float64, not undefined
    (``sqrt(x^2 + y^2)`` at 3e-200, 4e-200 has no kink: x^2 underflows). ``rows`` that are not at
    ``points`` (a replay names its problems with another tape's rows) are recorded again at
    the affected points."""
    affected = found.points
    if np.asarray(row.value).size != points.count:
        at = {n: np.asarray(a).reshape(-1)[affected] for n, a in points.arrays.items()}
        rows = evaluate(graph, at).rows[0] if at else rows
        row, affected = rows[row.index - 1], np.arange(len(affected))
        if np.asarray(row.value).size != len(affected):
            return  # (a tensor program's record: not one value per point)
    tiny, source = underflowed(rows, row, affected)
    if source is None:
        return
    name = expression_of(graph, source)
    if tiny.all():
        found.underflow = name
        found.reason = f"{name} underflows float64 to 0 (it is not 0): {found.reason}"
    else:
        found.reason += (
            f"; at {int(tiny.sum()):,} of these points only because {name} underflows "
            "float64 to 0 there (it is not 0): not computable in float64, not undefined"
        )


def underflowed(
    rows: Sequence[TapeRow], row: TapeRow, affected: np.ndarray
) -> tuple[np.ndarray, TapeRow | None]:
    """Which of the ``affected`` points (flat indices into ``row``'s value) get a 0 into
    ``row`` only because float64 underflowed upstream (exp of a finite number, a product of
    nonzero factors: never 0 exactly), and the first record found to underflow. Only zeros
    are followed, through elementwise records.

    >>> from gradcalc.engine.run.api import grad
    >>> result = grad("log(exp(x) + exp(y))", at={"x": -1000.0, "y": -1000.0}, strict=False)
    >>> found = result.singularities[0]
    >>> print(found.describe(result.points, "f"))  # doctest: +NORMALIZE_WHITESPACE
    ln(exp(x) + exp(y)) cannot be computed in float64 at x=-1000, y=-1000:
    exp(x) underflows float64 to 0 (it is not 0): ln(0) is -infinity (tape #4)
    """
    n = np.asarray(row.value).size
    hit, first = np.zeros(n, dtype=bool), None
    followed: dict[int, np.ndarray] = {}  # the points already followed into each record
    start = np.zeros(n, dtype=bool)
    start[affected] = True
    stack = [(row, start)]
    while stack:
        current, mask = stack.pop()
        for given, value in zip(current.inputs, current.input_values):
            flat = _flat(value, n)
            if given.record is None or flat is None:
                continue
            before = followed.get(given.record, np.zeros(n, dtype=bool))
            zero = mask & (flat == 0.0) & ~before
            source = rows[given.record - 1]
            if not zero.any() or not REGISTRY[source.op].elementwise:
                continue
            followed[given.record] = before | zero
            tiny = _never_zero(source, n)
            if (zero & tiny).any():
                hit |= zero & tiny
                first = first or source
            stack.append((source, zero & ~tiny))
    return hit[affected], first


def _never_zero(row: TapeRow, n: int) -> np.ndarray:
    """The points where ``row``'s op cannot give 0 exactly (all its inputs finite, and
    nonzero for a product, quotient or power): a 0 there is float64's underflow."""
    inputs = [_flat(v, n) for v in row.input_values]
    ok = np.full(n, row.op in NEVER_ZERO)
    for v in inputs:
        if v is None:
            return np.zeros(n, dtype=bool)
        ok &= np.isfinite(v) & ((v != 0.0) if row.op in NONZERO_INPUTS else True)
    return ok


def expression_of(graph: Graph, row: TapeRow) -> str:
    """How the user wrote the subexpression ``row`` computes (its formula, inside a
    derivative)."""
    return graph.source_text(row.node) if row.node is not None else row.reading


def _flat(values: np.ndarray, n: int) -> np.ndarray | None:
    """``values`` as one number per point (of ``n``); ``None`` for a shape that is not."""
    flat = np.asarray(values).reshape(-1)
    if flat.size == 1:
        return np.full(n, flat[0])
    return flat if flat.size == n else None


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
