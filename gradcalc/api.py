"""``gradcalc.grad``: text in, checked gradients out -- the function the CLI renders.

>>> result = grad("3*w1**2 + 2*w1*w2", at={"w1": 5, "w2": 3})
>>> float(result.value), {k: float(v) for k, v in result.gradient.items()}
(105.0, {'w1': 36.0, 'w2': 10.0})
>>> result.check.status, str(result.check.partials["w1"].derivative)
('agree', '6*w1 + 2*w2')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gradcalc.crosscheck import CheckReport, cross_check
from gradcalc.errors import UndefinedError
from gradcalc.evaluate import Evaluation, TapeRow, evaluate
from gradcalc.lower import Graph, lower
from gradcalc.ops import NOT_DIFFERENTIABLE
from gradcalc.parse import parse_program
from gradcalc.points import Points, parse_at
from gradcalc.singular import Singularity, singularities


@dataclass
class GradResult:
    """The gradient of one target at one or many points, with its evidence.

    Attributes:
        expression: the text as typed.
        target: the target's name (statement name, or the expression's text).
        sources: the names differentiated with respect to, in order.
        points: the points (``points.count`` of them).
        value: the target's value (a 0-d array for one point).
        gradient: per source, the tape's derivative (``None``: the target does not
            depend on it -- it is independent).
        tape: the recorded operations, as rows with values and adjoints.
        singularities: where and why the value or gradient is undefined (with
            ``subgradient``, kinks are not listed: they become warnings).
        undefined: per point, whether the gradient is undefined there.
        value_undefined: per point, whether the value itself is undefined there.
        first_reason: per point (flat), the index in ``singularities`` of the first one
            that concerns it, or -1.
        check: the comparison with sympy (``None`` with ``check=False``).
        warnings: plain-text notes for the user.
    """

    expression: str
    target: str
    sources: tuple[str, ...]
    points: Points
    value: np.ndarray
    gradient: dict[str, np.ndarray | None]
    tape: list[TapeRow]
    singularities: list[Singularity]
    undefined: np.ndarray
    value_undefined: np.ndarray
    first_reason: np.ndarray
    check: CheckReport | None
    warnings: list[str] = field(default_factory=list)

    def reason(self, k: int) -> str | None:
        """Why the gradient is undefined at point ``k`` (``None`` where it is defined)."""
        i = int(self.first_reason[k])
        if i < 0:
            return None
        singular = self.singularities[i]
        return f"{singular.expression}: {singular.kind}: {singular.reason}"


def grad(
    expression: str,
    at: Mapping[str, object] | Sequence[str] | Points | None = None,
    wrt: Sequence[str] | None = None,
    of: Sequence[str] | None = None,
    check: bool = True,
    subgradient: bool = False,
    check_timeout: float = 5.0,
    exact: bool = False,
    strict: bool = True,
) -> GradResult | list[GradResult]:
    """The gradient of ``expression`` at the point(s) ``at``, cross-checked with sympy.

    Args:
        expression: the text, e.g. ``"3*w1**2 + 2*w1*w2"`` or a program ``"y = x^2; z = y^2"``.
        at: ``{"x": 1.0}`` or ``{"x": numpy_array, ...}`` for many points, ``--at`` style
            specs (``["x=pi/4"]``) or a :class:`~gradcalc.points.Points`.
        wrt: the sources (default: every free variable); statement names allowed.
        of: statement names to differentiate (default: the last statement). With more
            than one, a list of results is returned.
        check: compare with sympy's symbolic derivative.
        subgradient: at kinks, return the conventional value (0 for ``abs`` at 0, as PyTorch
            does) with a warning instead of raising.
        check_timeout: seconds the symbolic check may take before it is skipped.
        exact: keep every exact symbolic value as text, however long.
        strict: raise :class:`~gradcalc.errors.UndefinedError` if any point is undefined
            (``False``: mark those points in ``undefined`` and go on).

    Raises:
        InputError: bad expression, names or values.
        UndefinedError: the value or gradient is undefined at a point (``strict``).

    >>> grad("y = x**2; z = y**2", at={"x": 3}, wrt=["x", "y"]).gradient
    {'x': array(108.), 'y': array(18.)}
    """
    points = _points(at)
    graph = compile_expression(expression, points.names, of)
    results = gradient_at(graph, points, wrt, check, subgradient, check_timeout, exact, strict)
    return results[0] if len(results) == 1 else results


def compile_expression(
    expression: str, variables: Sequence[str] = (), of: Sequence[str] | None = None
) -> Graph:
    """Parse and lower ``expression``; ``variables`` are names the user gives values for
    (they stay variables even when unused, and shadow the constants ``pi``, ``e``).

    >>> compile_expression("x*e", ["x"]).variables
    ('x',)
    >>> compile_expression("x*e", ["x", "e"]).variables
    ('x', 'e')
    """
    program = parse_program(expression, variables=variables)
    return lower(program, of=of, extra_variables=variables)


def gradient_at(
    graph: Graph,
    points: Points,
    wrt: Sequence[str] | None = None,
    check: bool = True,
    subgradient: bool = False,
    check_timeout: float = 5.0,
    exact: bool = False,
    strict: bool = True,
) -> list[GradResult]:
    """One :class:`GradResult` per target of a compiled graph (see :func:`grad`)."""
    run = evaluate(graph, points.arrays, wrt)
    return [
        _result(graph, run, k, points, check, subgradient, check_timeout, exact, strict)
        for k in range(len(graph.targets))
    ]


def _points(at) -> Points:
    if isinstance(at, Points):
        return at
    if at is None:
        return Points((), {}, [{}])
    if isinstance(at, Mapping):
        arrays = {str(k): np.asarray(v, dtype=float) for k, v in at.items()}
        exact = None
        if all(a.ndim == 0 for a in arrays.values()):
            exact = [{k: repr(float(a)) for k, a in arrays.items()}]
        return Points(tuple(arrays), arrays, exact)
    return parse_at(list(at))


def _result(graph: Graph, run: Evaluation, k, points, check, subgradient, timeout, exact, strict):
    gradient = run.gradients[k]
    shape = run.values[k].shape
    found = singularities(graph, run.problems[k], run.rows[k], points, k, run.sources)
    warnings: list[str] = []
    undefined = np.zeros(shape, dtype=bool)
    value_undefined = np.zeros(shape, dtype=bool)
    for singular, problem in zip(found, run.problems[k]):
        if singular.kind == NOT_DIFFERENTIABLE and subgradient:
            warnings.append(
                singular.describe(points, graph.target_names[k])
                + "; --subgradient: using the conventional value"
            )
            continue
        undefined |= problem.mask
        if singular.value_undefined:
            value_undefined |= problem.mask
    if subgradient:
        found = [s for s in found if s.kind != NOT_DIFFERENTIABLE]
    if strict and found:
        raise UndefinedError(found[0].describe(points, graph.target_names[k]))
    first_reason = np.full(max(int(np.prod(shape)), 1), -1)
    for i, singular in reversed(list(enumerate(found))):
        first_reason[singular.points] = i
    for name in run.sources:
        if gradient[name] is None and name in graph.variable_nodes:
            warnings.append(
                f"{name} is not used by {graph.target_names[k]}: it is independent (gradient 0)"
            )
    report = None
    if check:
        report = cross_check(
            graph, k, gradient, points.arrays, points.exact, undefined, timeout, exact
        )
        if report.note:
            warnings.append(report.note)
        elif report.status == "disagree":
            warnings.append(
                f"the tape and sympy's derivative disagree (largest difference "
                f"{report.max_difference:.3g})"
            )
    return GradResult(
        graph.text,
        graph.target_names[k],
        run.sources,
        points,
        run.values[k],
        gradient,
        run.rows[k],
        found,
        undefined,
        value_undefined,
        first_reason,
        report,
        warnings,
    )
