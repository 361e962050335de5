"""``gradcalc.grad``: text in, checked gradients out -- the function the CLI renders.

>>> result = grad("3*w1**2 + 2*w1*w2", at={"w1": 5, "w2": 3})
>>> float(result.value), {k: float(v) for k, v in result.gradient.items()}
(105.0, {'w1': 36.0, 'w2': 10.0})
>>> result.check.status, str(result.check.partials["w1"].derivative)
('agree', '6*w1 + 2*w2')
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np

from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.core.ops import NOT_DIFFERENTIABLE
from gradcalc.core.tape import Problem
from gradcalc.engine import display, higher
from gradcalc.engine.classify import Classification, classify
from gradcalc.engine.diagnostics import KINDS, Finding, Thresholds, diagnose, non_finite
from gradcalc.engine.evaluate import Evaluation, LazyRows, TapeRow, evaluate, source_names
from gradcalc.engine.exact import (
    exact_determinants,
    exact_texts,
    known_exactly,
    settled,
    settled_value,
)
from gradcalc.engine.points import Points, parse_at
from gradcalc.engine.replay import SweepResult, run_sweep, sweep_for
from gradcalc.engine.singular import Singularity, singularities
from gradcalc.lang.graph import Graph, lower
from gradcalc.lang.parser import parse_program
from gradcalc.symbolic.crosscheck import (
    CheckInput,
    CheckReport,
    check_against,
    cross_check,
    symbolic_gradient,
    target_expression,
)
from gradcalc.symbolic.derivative import derivative, symbol


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
        tape: the recorded operations, as rows with values and adjoints (for a replayed
            batch, recorded on a full tape when first read: see :class:`Options`).
        singularities: where and why the value or gradient is undefined (with
            ``subgradient``, kinks are not listed: they become warnings).
        undefined: per point, whether the gradient is undefined there.
        value_undefined: per point, whether the value itself is undefined there.
        first_reason: per point (flat), the index in ``singularities`` of the first one
            that concerns it, or -1.
        check: the comparison with sympy (``None`` with ``check=False``).
        warnings: plain-text notes for the user.
        diagnostics: NaN/infinity, vanishing or exploding components, saturated
            activations and kinks (see :mod:`gradcalc.engine.diagnostics`).
        read_as: the expression as gradcalc read it (``e^2x`` is ``e^2·x``); where that is
            likely not what was meant, ``warnings`` start with both readings.
        shown: the gradient to show: the tape's, except where the symbolic check found the
            exact value at a point (and agreed): there its nearest float (``cos(pi/2)`` is
            0, not 6.1e-17; see :mod:`gradcalc.engine.exact`).
        exact: per source, the exact value's text per point (flat) where it is known and
            short (any length with ``exact``), else ``None``; empty without exact values.
        shown_value: ``value`` likewise exact where the points were given exactly.
    """

    expression: str
    target: str
    sources: tuple[str, ...]
    points: Points
    value: np.ndarray
    gradient: dict[str, np.ndarray | None]
    tape: Sequence[TapeRow]
    singularities: list[Singularity]
    undefined: np.ndarray
    value_undefined: np.ndarray
    first_reason: np.ndarray
    check: CheckReport | None
    warnings: list[str] = field(default_factory=list)
    diagnostics: list[Finding] = field(default_factory=list)
    read_as: str = ""
    shown: dict[str, np.ndarray | None] = field(default_factory=dict)
    exact: dict[str, list[str | None]] = field(default_factory=dict)
    shown_value: np.ndarray | None = None

    def reason(self, k: int) -> str | None:
        """Why the gradient is undefined at point ``k`` (``None`` where it is defined)."""
        i = int(self.first_reason[k])
        if i < 0:
            return None
        singular = self.singularities[i]
        return f"{singular.expression}: {singular.kind}: {singular.reason}"

    def _repr_html_(self) -> str | None:
        """In a notebook: the tables the command line prints, as HTML (see
        :mod:`gradcalc.engine.display`)."""
        return display.show("text/html", self)

    def _repr_latex_(self) -> str | None:
        """In a notebook (for LaTeX export): sympy's derivatives."""
        return display.show("text/latex", self)


@dataclass(kw_only=True)
class HessianResult(GradResult):
    """A :class:`GradResult` with the Hessian and the second-derivative test per point.

    ``matrix`` is shaped ``(n, n) + points shape``; ``tests[k]`` classifies point ``k``.
    ``shown_matrix`` is ``matrix`` exact where the check knows the exact value (see
    :attr:`GradResult.shown`), ``exact_matrix`` the exact texts per entry and point.
    """

    matrix: np.ndarray
    tests: list[Classification]
    shown_matrix: np.ndarray | None = None
    exact_matrix: list[list[list[str | None]]] = field(default_factory=list)


@dataclass(kw_only=True)
class DerivativeResult(GradResult):
    """A :class:`GradResult` for one source with its derivatives of order 1..``order``."""

    order: int
    orders: list[np.ndarray]
    shown_orders: list[np.ndarray] = field(default_factory=list)  # exact where known

    @property
    def derivative(self) -> np.ndarray:
        """The derivative of the requested order."""
        return self.orders[-1]


@dataclass(kw_only=True)
class DirectionalResult(GradResult):
    """A :class:`GradResult` with the derivative along ``direction`` (unit length unless
    asked otherwise)."""

    direction: dict[str, float]
    directional: np.ndarray


@dataclass
class JacobianResult:
    """The Jacobian of several targets: ``matrix[i, j]`` = d target_i / d source_j (over the
    points), ``determinant`` when square; ``rows`` are the targets' gradient results.

    ``shown_matrix`` and ``determinant`` are exact where the check knows the exact values
    (see :attr:`GradResult.shown`); ``exact_determinant`` holds the determinant's exact
    text per point where every entry is known exactly, and ``symbolic_determinant`` sympy's
    simplified determinant (``r`` for the polar map), when it was found within the budget.
    """

    rows: list[GradResult]
    matrix: np.ndarray
    determinant: np.ndarray | None
    shown_matrix: np.ndarray | None = None
    exact_determinant: list[str | None] = field(default_factory=list)
    symbolic_determinant: str | None = None

    @property
    def targets(self) -> list[str]:
        """The targets' names."""
        return [row.target for row in self.rows]

    def _repr_html_(self) -> str | None:
        """In a notebook: the tables the command line prints, as HTML."""
        return display.show("text/html", self)


@dataclass(frozen=True)
class Options:
    """How to compute and check (see :func:`grad` for each)."""

    check: bool = True
    subgradient: bool = False
    check_timeout: float = 5.0
    exact: bool = False
    strict: bool = True
    thresholds: Thresholds = field(default_factory=Thresholds)
    tape: bool | None = None


def grad(
    expression: str,
    at: Mapping[str, object] | Sequence[str] | Points | None = None,
    wrt: Sequence[str] | None = None,
    of: Sequence[str] | None = None,
    **options: Any,
) -> GradResult | list[GradResult]:
    """The gradient of ``expression`` at the point(s) ``at``, cross-checked with sympy.

    Args:
        expression: the text, e.g. ``"3*w1**2 + 2*w1*w2"`` or a program ``"y = x^2; z = y^2"``.
        at: ``{"x": 1.0}``; for many points ``{"x": numpy_array, ...}`` or a list of
            mappings (``[{"x": 1}, {"x": 2}]``); ``--at`` style specs (``["x=pi/4"]``); or a
            :class:`~gradcalc.engine.points.Points`.
        wrt: the sources (default: every free variable); statement names allowed.
        of: statement names to differentiate (default: the last statement). With more
            than one target, a list of results is returned.
        **options: the fields of :class:`Options`: ``check`` (compare with sympy's
            symbolic derivative), ``subgradient`` (at kinks, return the conventional value
            -- 0 for ``abs`` at 0, as PyTorch does -- with a warning instead of raising),
            ``check_timeout`` (seconds before the check is skipped), ``exact`` (keep every
            exact symbolic value as text, however long), ``strict`` (raise
            :class:`~gradcalc.core.errors.UndefinedError` if any point is undefined; ``False``
            marks those points in ``undefined`` and goes on), ``thresholds`` (a
            :class:`~gradcalc.engine.diagnostics.Thresholds` for the diagnostics), ``tape``
            (how to keep the tape's rows: by default, 256 points or more are computed by
            replaying the recorded tape chunk by chunk -- see :mod:`gradcalc.engine.replay`,
            several times faster and in bounded memory -- and the result's ``tape`` is
            recorded on a full tape only when first read, with every record's values at
            every point; ``False``: no rows at all; ``True``: compute on the full tape and
            keep its rows).

    Raises:
        InputError: bad expression, names or values.
        UndefinedError: the value or gradient is undefined at a point (``strict``).

    >>> grad("y = x**2; z = y**2", at={"x": 3}, wrt=["x", "y"]).gradient
    {'x': array(108.), 'y': array(18.)}
    """
    points = as_points(at)
    graph = compile_expression(expression, points.names, of)
    results = gradient_at(graph, points, wrt, Options(**options))
    return results[0] if len(results) == 1 else results


def hessian(
    expression: str,
    at: Mapping[str, object] | Sequence[str] | Points | None = None,
    wrt: Sequence[str] | None = None,
    of: Sequence[str] | None = None,
    **options: Any,
) -> HessianResult:
    """The Hessian of ``expression`` (one target) from nested tapes, checked entry by entry
    against sympy, with the second-derivative test at each point.

    >>> result = hessian("x**2 - y**2", at={"x": 0, "y": 0})
    >>> result.matrix.tolist(), result.tests[0].verdict
    ([[2.0, 0.0], [0.0, -2.0]], 'saddle point')
    """
    points = as_points(at)
    graph = compile_expression(expression, points.names, of)
    return hessian_at(graph, points, wrt, Options(**options))


def jacobian(
    expression: str,
    at: Mapping[str, object] | Sequence[str] | Points | None = None,
    wrt: Sequence[str] | None = None,
    of: Sequence[str] | None = None,
    **options: Any,
) -> JacobianResult:
    """The Jacobian of several targets (``"r*cos(t), r*sin(t)"``, or a program's ``of``).

    >>> result = jacobian("r*cos(t), r*sin(t)", at={"r": 2, "t": 0})
    >>> result.matrix.tolist(), float(result.determinant)
    ([[1.0, -0.0], [0.0, 2.0]], 2.0)
    """
    points = as_points(at)
    graph = compile_expression(expression, points.names, of)
    return jacobian_at(graph, points, wrt, Options(**options))


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
    graph: Graph, points: Points, wrt: Sequence[str] | None = None, options: Options = Options()
) -> list[GradResult]:
    """One :class:`GradResult` per target of a compiled graph (see :func:`grad`).

    With many points (unless ``options.tape`` is ``True``), the recorded tape is replayed
    chunk by chunk (:mod:`gradcalc.engine.replay`); only the points that need explaining
    (undefined, at a kink, NaN) are computed again on a full tape and merged back.

    >>> graph = compile_expression("x*y")
    >>> many = Points(("x", "y"), {"x": np.arange(3.0), "y": np.ones(3)}, None)
    >>> gradient_at(graph, many, options=Options(check=False, tape=False))[0].gradient["x"]
    array([1., 1., 1.])
    """
    run = _swept(graph, points, wrt, options) or evaluate(graph, points.arrays, wrt)
    return _gradient_results(run, points, options)


def _gradient_results(run: Evaluation, points: Points, options: Options) -> list[GradResult]:
    """One judged and checked :class:`GradResult` per target of an evaluation."""
    return [
        _finish(
            GradResult,
            _Computed(
                run.graph,
                k,
                run.sources,
                run.values[k],
                run.gradients[k],
                run.rows[k],
                run.problems[k],
                None if run.findings is None else run.findings[k],
                named_by=None if run.named_by is None else run.named_by[k],
            ),
            points,
            options,
            functools.partial(cross_check, run.graph, k, run.gradients[k]),
        )
        for k in range(len(run.graph.targets))
    ]


def hessian_at(
    graph: Graph, points: Points, wrt: Sequence[str] | None = None, options: Options = Options()
) -> HessianResult:
    """The :class:`HessianResult` of a compiled graph's single target (see :func:`hessian`)."""
    target = _single_target(graph, "the Hessian")
    sources = source_names(graph, wrt)
    run = higher.hessian(graph, points.arrays, sources, target)
    matrix = run.matrix
    assert matrix is not None  # higher.hessian always sets it
    labels = [(a, b) for a in sources for b in sources]
    tape_values = {  # the gradient too: its exact values are shown (an exact 0 is no noise)
        **{a: run.gradient[a] for a in sources},
        **{f"{a},{b}": matrix[i, j] for i, a in enumerate(sources) for j, b in enumerate(sources)},
    }

    def build() -> dict[str, object]:
        first = symbolic_gradient(graph, target, list(sources))
        return {**first, **{f"{a},{b}": derivative(first[a], symbol(b)) for a, b in labels}}

    result = _finish(
        HessianResult,
        _Computed(graph, target, run.sources, run.value, run.gradient, run.rows, run.problems),
        points,
        options,
        lambda where: check_against(
            graph, ("hessian", target, tuple(sources)), build, tape_values, where
        ),
        matrix=matrix,
        tests=[],
    )
    result.shown_matrix = np.array(
        [
            [settled(matrix[i, j], result.check, f"{a},{b}") for j, b in enumerate(sources)]
            for i, a in enumerate(sources)
        ]
    ).reshape(matrix.shape)
    result.exact_matrix = [
        [exact_texts(result.check, f"{a},{b}") for b in sources] for a in sources
    ]
    coordinates = [np.broadcast_to(a, (points.count,)) for a in points.arrays.values()]
    known = np.array([known_exactly(result.check, s, points.count) for s in sources])
    for k in range(points.count):  # the test on the exact values where they are known
        h = result.shown_matrix.reshape(len(sources), len(sources), -1)[:, :, k]
        g = np.array([_shown_at(result, s, k) for s in sources])
        scale = max((abs(float(c[k])) for c in coordinates), default=1.0)
        result.tests.append(classify(h, g, scale, exact=known[:, k]))
    return result


def _shown_at(result: GradResult, source: str, k: int) -> float:
    """The shown (exact where known) gradient component ``source`` at point ``k``."""
    shown = result.shown.get(source)
    values = result.gradient[source] if shown is None else shown
    return 0.0 if values is None else float(np.asarray(values).reshape(-1)[k])


def derivatives_at(
    graph: Graph, points: Points, source: str, order: int, options: Options = Options()
) -> DerivativeResult:
    """Derivatives of order 1..``order`` with respect to one variable, through nested tapes."""
    target = _single_target(graph, f"a derivative of order {order}")
    run = higher.derivatives(graph, points.arrays, source, order, target)
    orders = run.orders
    assert orders is not None  # higher.derivatives always sets them
    tape_values = {f"d{k}": orders[k - 1] for k in range(1, order + 1)}

    def build() -> dict[str, object]:
        expr = target_expression(graph, target)
        return {f"d{k}": derivative(expr, symbol(source), k) for k in range(1, order + 1)}

    result = _finish(
        DerivativeResult,
        _Computed(
            graph,
            target,
            run.sources,
            run.value,
            run.gradient,
            run.rows,
            run.problems,
            labels={source: "d1"},
        ),
        points,
        options,
        lambda where: check_against(
            graph, ("orders", target, source, order), build, tape_values, where
        ),
        order=order,
        orders=orders,
    )
    result.shown_orders = [
        settled(orders[k - 1], result.check, f"d{k}") for k in range(1, order + 1)
    ]
    return result


def directional_at(
    graph: Graph,
    points: Points,
    direction: Sequence[float],
    wrt: Sequence[str] | None = None,
    normalize: bool = True,
    options: Options = Options(),
) -> DirectionalResult:
    """The derivative along ``direction`` (one component per source), checked with sympy."""
    target = _single_target(graph, "a directional derivative")
    sources = source_names(graph, wrt)
    if len(direction) != len(sources):
        raise InputError(
            f"--direction has {len(direction)} components for {len(sources)} variables "
            f"({', '.join(sources)})"
        )
    vector = np.asarray(direction, dtype=float)
    length = float(np.linalg.norm(vector))
    if not np.isfinite(length) or length == 0:
        raise InputError("--direction must be a non-zero vector of finite numbers")
    if normalize:
        vector = vector / length
    unit = dict(zip(sources, vector.tolist()))
    run = evaluate(graph, points.arrays, sources)
    gradient = run.gradients[target]
    along = sum(u * (0.0 if gradient[s] is None else gradient[s]) for s, u in unit.items())
    tape_values = {**gradient, "direction": np.asarray(along)}

    def build() -> dict[str, object]:
        first = symbolic_gradient(graph, target, list(sources))
        exact_unit = _exact_direction(direction, normalize)
        return {**first, "direction": sum(u * first[s] for s, u in zip(sources, exact_unit))}

    key = ("direction", target, tuple(sources), tuple(direction), normalize)
    value = run.values[target]
    return _finish(
        DirectionalResult,
        _Computed(
            graph,
            target,
            run.sources,
            value,
            gradient,
            run.rows[target],
            run.problems[target],
        ),
        points,
        options,
        lambda where: check_against(graph, key, build, tape_values, where),
        direction=unit,
        directional=np.broadcast_to(along, value.shape),
    )


def jacobian_at(
    graph: Graph, points: Points, wrt: Sequence[str] | None = None, options: Options = Options()
) -> JacobianResult:
    """The Jacobian of all of a compiled graph's targets (see :func:`jacobian`)."""
    rows = gradient_at(graph, points, wrt, options)
    shape = rows[0].value.shape
    matrix = np.array(
        [
            [np.broadcast_to(0.0 if g is None else g, shape) for g in row.gradient.values()]
            for row in rows
        ]
    )
    shown = np.array(
        [
            [np.broadcast_to(0.0 if g is None else g, shape) for g in row.shown.values()]
            for row in rows
        ]
    )
    m, n = matrix.shape[:2]
    if m != n:
        return JacobianResult(rows, matrix, None, shown)
    flat = np.array(_determinant(shown), dtype=float).reshape(-1)
    exact, symbolic = exact_determinants(rows, options.check_timeout, options.exact)
    for k, value in enumerate(exact):
        if value is not None:
            flat[k] = value[0]
    determinant = flat.reshape(shape)
    texts = [value[1] or None if value is not None else None for value in exact]
    return JacobianResult(rows, matrix, determinant, shown, texts, symbolic)


def _determinant(matrix: np.ndarray) -> np.ndarray:
    """Determinants of an (n, n, points) stack; explicit products for n <= 3 (exact for
    integers, where LU factorisation would round), LU beyond."""
    determinant: np.ndarray
    with np.errstate(all="ignore"):
        if matrix.shape[0] == 1:
            determinant = matrix[0, 0]
        elif matrix.shape[0] == 2:
            determinant = matrix[0, 0] * matrix[1, 1] - matrix[0, 1] * matrix[1, 0]
        elif matrix.shape[0] == 3:
            a = matrix
            determinant = (
                a[0, 0] * (a[1, 1] * a[2, 2] - a[1, 2] * a[2, 1])
                - a[0, 1] * (a[1, 0] * a[2, 2] - a[1, 2] * a[2, 0])
                + a[0, 2] * (a[1, 0] * a[2, 1] - a[1, 1] * a[2, 0])
            )
        else:
            n = matrix.shape[0]
            determinant = np.linalg.det(np.moveaxis(matrix.reshape(n, n, -1), -1, 0))
    return determinant


# --- shared machinery ----------------------------------------------------------------


@dataclass
class _Computed:
    """What a tape computation produced for one target, before it is judged and checked."""

    graph: Graph
    target: int
    sources: tuple[str, ...]
    value: np.ndarray
    gradient: Mapping[str, np.ndarray | None]
    rows: Sequence[TapeRow]
    problems: list[Problem]
    #: the diagnostic findings when already known (from the replay), else diagnosed here
    findings: list[Finding] | None = None
    #: the check's label for a source's derivative, where it is not the source's name
    labels: dict[str, str] = field(default_factory=dict)
    #: rows naming the problems' records, where ``rows`` are not (see :class:`Evaluation`)
    named_by: list[TapeRow] | None = None


Result = TypeVar("Result", bound=GradResult)


def _filled(value: bool | int, shape: tuple[int, ...]) -> np.ndarray:
    """An array of ``value``: for many points a read-only view of one number (filling 10^6
    entries costs a millisecond), for a few a plain array (a view costs more to make).

    >>> _filled(False, (2,)), _filled(-1, (10**6,)).strides
    (array([False, False]), (0,))
    """
    if int(np.prod(shape)) < 4096:
        return np.full(shape, value)
    return np.broadcast_to(np.asarray(value), shape)


def _finish(
    kind: type[Result],
    run: _Computed,
    points: Points,
    options: Options,
    check: Callable[[CheckInput], CheckReport],
    **extra: Any,
) -> Result:
    """Judge the undefined points, warn about unused variables, run the symbolic check; build
    the ``kind`` of result with its own fields in ``extra``."""
    graph, k = run.graph, run.target
    name = graph.target_names[k]
    shape = run.value.shape
    named_by = run.rows if run.named_by is None else run.named_by
    found = singularities(graph, run.problems, named_by, points, k, run.sources)
    warnings: list[str] = graph.ambiguities
    undefined = value_undefined = conventional = _filled(False, shape)
    if found:
        undefined, value_undefined = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool)
        conventional = np.zeros(shape, dtype=bool)  # kinks given their conventional value
    for singular, problem in zip(found, run.problems):
        if singular.kind == NOT_DIFFERENTIABLE and options.subgradient:
            warnings.append(
                f"{singular.describe(points, name)}; --subgradient: using the conventional value"
            )
            conventional |= problem.mask
            continue
        undefined |= problem.mask
        if singular.value_undefined:
            value_undefined |= problem.mask
    if options.subgradient:
        found = [s for s in found if s.kind != NOT_DIFFERENTIABLE]
    if options.strict and found:
        raise UndefinedError(found[0].describe(points, name))
    size = max(int(np.prod(shape)), 1)
    first_reason = np.full(size, -1) if found else _filled(-1, (size,))
    for i, singular in reversed(list(enumerate(found))):
        first_reason[singular.points] = i
    for source in run.sources:
        if run.gradient[source] is None and source in graph.variable_nodes:
            warnings.append(f"{source} is not used by {name}: it is independent (gradient 0)")
    report, shown_value = None, run.value
    if options.check:
        skip = undefined | conventional  # a convention is not a derivative sympy could confirm
        where = CheckInput(points.arrays, points.exact, skip, options.check_timeout, options.exact)
        report = check(where)
        if report.status != "skipped":
            shown_value = settled_value(graph, k, run.value, where)
        if report.note:
            warnings.append(report.note)
        elif report.status == "disagree":
            warnings.append(_disagreement(report))
    result = kind(
        expression=graph.text,
        target=name,
        sources=run.sources,
        points=points,
        value=run.value,
        gradient=dict(run.gradient),
        tape=run.rows,
        singularities=found,
        undefined=undefined,
        value_undefined=value_undefined,
        first_reason=first_reason,
        check=report,
        warnings=warnings,
        read_as=graph.read_as,
        **extra,
    )
    labels = {s: run.labels.get(s, s) for s in run.gradient}
    result.shown = {
        s: None if g is None else settled(g, report, labels[s]) for s, g in run.gradient.items()
    }
    result.exact = {s: exact_texts(report, labels[s]) for s in run.gradient}
    result.shown_value = shown_value
    known = run.findings
    if known is None:
        result.diagnostics = diagnose(result, options.thresholds)
    else:  # NaN and infinity are the problems', the others the replay's (sorted by kind)
        result.diagnostics = non_finite(result) + known
    return result


#: Fewer points than this are computed on a full tape (the replay only pays off for batches).
SWEEP_MIN_POINTS = 256


def _swept(
    graph: Graph, points: Points, wrt: Sequence[str] | None, options: Options
) -> Evaluation | None:
    """The evaluation by replaying the recorded tape, with the points that need explaining
    computed again on a full tape; ``None`` when the caller wants the full tape
    (``options.tape``) or there are few points."""
    if options.tape or points.count < SWEEP_MIN_POINTS or not graph.elementwise:
        return None
    if any(v not in points.arrays or points.arrays[v].ndim > 1 for v in graph.variables):
        return None  # the full tape reports the missing value, or holds the matrix
    sources = source_names(graph, wrt)
    columns = [points.arrays[v] for v in graph.variables]
    if len({c.shape for c in columns}) > 1:
        columns = list(np.broadcast_arrays(*columns))
    arrays = dict(zip(graph.variables, columns))
    out = run_sweep(sweep_for(graph, sources), arrays, options.thresholds)
    targets = range(len(graph.targets))
    rows: list[Sequence[TapeRow]] = [[] for _ in targets]
    if options.tape is None:  # recorded on a full tape if anyone looks
        record = functools.cache(lambda: evaluate(graph, arrays, sources).rows)
        rows = [LazyRows(functools.partial(lambda k: record()[k], k)) for k in targets]
    findings = _findings(graph, points, sources, options, out)  # tracked for one target only
    run = Evaluation(
        graph,
        sources,
        out.values,
        out.gradients,
        rows,
        [[] for _ in targets],
        [findings] + [[] for _ in graph.targets[1:]],
    )
    if out.flagged is not None:
        _explain(run, points, arrays, out.flagged, options)
    return run


def _explain(
    run: Evaluation,
    points: Points,
    arrays: Mapping[str, np.ndarray],
    flagged: np.ndarray,
    options: Options,
) -> None:
    """Compute the ``flagged`` points of a replayed batch on a full tape and merge them into
    ``run``: their values and gradients, the problems (masks over every point) and the
    diagnostic findings."""
    where = np.flatnonzero(flagged)
    subset = Points(
        points.names,
        {n: arrays[n][where] if n in arrays else a for n, a in points.arrays.items()},
        None if points.exact is None else [points.exact[k] for k in where],
    )
    tape = evaluate(run.graph, {v: arrays[v][where] for v in run.graph.variables}, run.sources)
    explained = _gradient_results(tape, subset, replace(options, check=False, strict=False))
    run.named_by = [list(r) for r in tape.rows]
    assert run.findings is not None  # set by _swept
    for k, result in enumerate(explained):
        run.values[k][where] = tape.values[k]
        for source, column in run.gradients[k].items():
            if column is not None:
                column[where] = tape.gradients[k][source]
        run.problems[k] = [
            Problem(p.record, p.kind, p.reason, _spread(p.mask, where, flagged.shape))
            for p in tape.problems[k]
        ]
        spread = [
            replace(f, mask=_spread(f.mask, where, flagged.shape))
            for f in result.diagnostics
            if f.kind != "non-finite"  # found again from the merged problems
        ]
        run.findings[k] = _merge_findings(run.findings[k], spread, run.sources)


def _spread(mask: np.ndarray, where: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A mask over the points ``where`` as a mask over every point."""
    full = np.zeros(shape, dtype=bool)
    full[where] = np.broadcast_to(mask, where.shape)
    return full


def _merge_findings(
    replayed: list[Finding], explained: list[Finding], sources: Sequence[str]
) -> list[Finding]:
    """One finding per kind and subject (source or record), the points of both merged and
    the message of whichever came first, in :func:`diagnose`'s order."""

    def key(f: Finding) -> tuple[Any, ...]:
        subject = sources.index(f.source) if f.source is not None else f.record
        return (KINDS.index(f.kind), subject, f.message if f.kind == "kink" else "")

    merged: dict[tuple[Any, ...], Finding] = {}
    for finding in replayed + explained:
        known = merged.get(key(finding))
        if known is None:
            merged[key(finding)] = finding
            continue
        first = min((known, finding), key=lambda f: int(np.argmax(f.mask)))
        merged[key(finding)] = replace(first, mask=known.mask | finding.mask)
    return [merged[k] for k in sorted(merged)]


def _findings(
    graph: Graph, points: Points, sources: Sequence[str], options: Options, out: SweepResult
) -> list[Finding]:
    """The diagnoses of a replayed batch: the replay marked the points of each finding; a
    full tape at the first of them says which op is to blame, in :func:`diagnose`'s words."""
    findings = []
    diagnosed: dict[int, list[Finding]] = {}  # several findings often share their first point

    def diagnoses_at(k: int) -> list[Finding]:
        if k not in diagnosed:
            single = Points(
                points.names,
                {n: np.atleast_1d(a)[k : k + 1] for n, a in points.arrays.items()},
                None if points.exact is None else points.exact[k : k + 1],
            )
            full_tape = evaluate(graph, single.arrays, sources)
            at_k = _gradient_results(full_tape, single, replace(options, check=False))
            diagnosed[k] = at_k[0].diagnostics
        return diagnosed[k]

    for (kind, key), mask in out.findings.items():
        if not mask.any():
            continue
        there = next(
            f
            for f in diagnoses_at(int(np.argmax(mask)))
            if f.kind == kind and (f.record == key or f.source == key)
        )
        findings.append(replace(there, mask=mask))
    return findings


def _disagreement(report: CheckReport) -> str:
    """Why the check failed, in words: a different number, or a singularity that float64
    rounded past (``sin(pi)`` is 1.2e-16, not 0), or an ill-conditioned point."""
    exact_singular = any(
        np.any(p.mismatch & ~np.isfinite(p.values)) for p in report.partials.values()
    )
    if exact_singular:
        return (
            "sympy finds the derivative undefined here in exact arithmetic: float64 rounded "
            "past a singularity (sin(pi) is 1.2e-16, not 0), so the tape's numbers mean nothing"
        )
    return (
        "the tape and sympy's derivative disagree (largest difference "
        f"{report.max_difference:.3g}): a bug, or a point where float64 cannot resolve the "
        "expression (e.g. tan of a huge argument)"
    )


def _single_target(graph: Graph, what: str) -> int:
    if len(graph.targets) != 1:
        raise InputError(
            f"{what} takes one target; this has {len(graph.targets)} "
            f"({', '.join(graph.target_names)}): choose one with --of"
        )
    return 0


def _exact_direction(direction: Sequence[float], normalize: bool) -> list[Any]:
    """The direction as exact sympy numbers (normalised exactly: 1/sqrt(5), 2/sqrt(5))."""
    import sympy as sp

    exact = [sp.nsimplify(float(v), rational=True) for v in direction]
    if not normalize:
        return exact
    length = sp.sqrt(sum(v**2 for v in exact))
    return [v / length for v in exact]


def as_points(
    at: Mapping[str, object] | Sequence[object] | str | Points | None,
) -> Points:
    """``at`` as :class:`Points`: a mapping of names to numbers or arrays, a list of such
    mappings (one point each, all naming the same variables), ``--at`` style texts, or
    :class:`~gradcalc.engine.points.Points` (returned as is); ``None``: no variables.

    >>> as_points([{"x": 1, "y": 2}, {"x": 3, "y": 4}]).arrays["x"]
    array([1., 3.])
    >>> as_points({"x": 2}).names, as_points(["x=pi/4"]).count
    (('x',), 1)
    >>> as_points([{"x": 1}, 2])
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: at: give one mapping of values, a list of mappings, or ...
    """
    if isinstance(at, Points):
        return at
    if at is None:
        return Points((), {}, [{}])
    if isinstance(at, Mapping):
        arrays = {str(k): _values(k, v) for k, v in at.items()}
        exact = None
        if all(a.ndim == 0 for a in arrays.values()):
            exact = [{k: repr(float(a)) for k, a in arrays.items()}]
        return Points(tuple(arrays), arrays, exact)
    if isinstance(at, str):
        at = [at]
    items = list(at)
    mappings = [item for item in items if isinstance(item, Mapping)]
    if items and len(mappings) == len(items):
        names = list(mappings[0])
        if any(list(item) != names for item in mappings):
            raise InputError("at: every point in the list must name the same variables")
        return as_points({n: [_values(n, item[n]) for item in mappings] for n in names})
    texts = [item for item in items if isinstance(item, str)]
    if len(texts) != len(items):
        raise InputError(
            "at: give one mapping of values, a list of mappings, or --at style texts "
            "such as ['x=1,y=2']"
        )
    return parse_at(texts)


def _values(name: object, value: object) -> np.ndarray:
    """One variable's value(s) as a float array, or an error naming the variable."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(
            f"at: the value of {name} is not a number or an array of numbers"
        ) from None
