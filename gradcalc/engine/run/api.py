"""``gradcalc.grad``: text in, checked gradients out -- the function the CLI renders.

>>> result = grad("3*w1**2 + 2*w1*w2", at={"w1": 5, "w2": 3})
>>> float(result.value), {k: float(v) for k, v in result.gradient.items()}
(105.0, {'w1': 36.0, 'w2': 10.0})
>>> result.check.status, str(result.check.partials["w1"].derivative)
('agree', '6*w1 + 2*w2')
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.core.collector import paused
from gradcalc.core.errors import InputError
from gradcalc.core.naming import derivative_label
from gradcalc.engine.evaluate.evaluate import evaluate, source_names
from gradcalc.engine.evaluate.given import as_points, checked_points
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.evaluate.results import GradResult, Options
from gradcalc.engine.judge.exact import exact_determinants, exact_texts, settled
from gradcalc.engine.judge.judge import Computed, finish, gradient_results
from gradcalc.engine.judge.kinks import HigherDerivative
from gradcalc.engine.run.batch import swept
from gradcalc.engine.run.frames import grad_frame, is_frame
from gradcalc.lang.graph import Graph, lower
from gradcalc.lang.parser import parse_program

if TYPE_CHECKING:
    from gradcalc.engine.evaluate.beyond import (
        DerivativeResult,
        DirectionalResult,
        HessianResult,
        JacobianResult,
    )

#: The gradient's result and the options are defined in :mod:`gradcalc.engine.evaluate.results`
#: and named here too; the results beyond the gradient are in
#: :mod:`gradcalc.engine.evaluate.beyond` (public as ``gradcalc.HessianResult`` and the like).
__all__ = [
    "GradResult",
    "Options",
    "as_points",
    "compile_expression",
    "derivatives_at",
    "directional_at",
    "grad",
    "gradient_at",
    "hessian",
    "hessian_at",
    "jacobian",
    "jacobian_at",
]


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
        at: ``{"x": 1.0}``; for many points ``{"x": numpy_array, ...}``, a pandas or a dask
            DataFrame (the results as a DataFrame: :mod:`gradcalc.engine.run.frames`), or a list of
            mappings (``[{"x": 1}, {"x": 2}]``); ``--at`` style specs (``["x=pi/4"]``); or a
            :class:`~gradcalc.engine.evaluate.points.Points`.
        wrt: the sources (default: every free variable); statement names allowed.
        of: statement names to differentiate (default: the last statement). With more
            than one target, a list of results is returned.
        **options: the fields of :class:`Options`: ``check`` (compare with sympy's
            symbolic derivative; without it, the compiled expression -- parsed, and its
            program recorded for many points -- is kept for the next unchecked call with
            the same text, variables and ``of``), ``subgradient`` (at kinks, return the
            conventional value -- 0 for ``abs`` at 0, as PyTorch does -- with a warning
            instead of raising),
            ``check_timeout`` (seconds before the check is skipped), ``exact`` (keep every
            exact symbolic value as text, however long), ``strict`` (raise
            :class:`~gradcalc.core.errors.UndefinedError` if any point is undefined; ``False``
            marks those points in ``undefined`` and goes on), ``thresholds`` (a
            :class:`~gradcalc.engine.evaluate.diagnostics.Thresholds` for the diagnostics), ``tape``
            (how to keep the tape's rows: by default, 256 points or more are computed by
            replaying the recorded tape chunk by chunk -- see :mod:`gradcalc.engine.compile.replay`,
            several times faster and in bounded memory -- and the result's ``tape`` is
            recorded on a full tape only when first read, with every record's values at
            every point; ``False``: no rows at all; ``True``: compute on the full tape and
            keep its rows), ``tangent`` (at a single point, make the tangent line or plane
            as ``result.tangent``: on unless ``tangent=False``).

    Raises:
        InputError: bad expression, names or values.
        UndefinedError: the value or gradient is undefined at a point (``strict``).

    >>> grad("y = x**2; z = y**2", at={"x": 3}, wrt=["x", "y"]).gradient
    {'x': array(108.), 'y': array(18.)}
    """
    if is_frame(at):  # a pandas or dask DataFrame: the results as one (lazy for dask)
        engine = (compile_expression, gradient_at)
        return grad_frame(expression, engine, at, wrt, of, **options)  # type: ignore[no-any-return]
    chosen = Options(**{"tangent": True, **options})
    points, bad = checked_points(at, chosen.strict)
    if chosen.check:  # the check keeps what it learns (a timeout) on its graph: a fresh one
        graph = compile_expression(expression, points.names, of)
    else:
        graph = _compiled(expression, points.names, None if of is None else tuple(of))
    results = gradient_at(graph, points, wrt, chosen)
    for result in results:
        result.warnings.extend(bad)
    return results[0] if len(results) == 1 else results


def hessian(
    expression: str,
    at: Mapping[str, object] | Sequence[str] | Points | None = None,
    wrt: Sequence[str] | None = None,
    of: Sequence[str] | None = None,
    **options: Any,
) -> HessianResult:
    """The Hessian of ``expression`` (one target) from nested tapes, checked entry by entry
    against sympy, with the second-derivative test at each point. ``options`` as for
    :func:`grad` (``strict=False``: a bad value's point is marked in ``undefined``).

    >>> result = hessian("x**2 - y**2", at={"x": 0, "y": 0})
    >>> result.matrix.tolist(), result.tests[0].verdict
    ([[2.0, 0.0], [0.0, -2.0]], 'saddle point')
    """
    chosen = Options(**options)
    points, bad = checked_points(at, chosen.strict)
    graph = compile_expression(expression, points.names, of)
    result = hessian_at(graph, points, wrt, chosen)
    result.warnings.extend(bad)
    return result


def jacobian(
    expression: str,
    at: Mapping[str, object] | Sequence[str] | Points | None = None,
    wrt: Sequence[str] | None = None,
    of: Sequence[str] | None = None,
    **options: Any,
) -> JacobianResult:
    """The Jacobian of several targets (``"r*cos(t), r*sin(t)"``, or a program's ``of``);
    ``options`` as for :func:`grad` (``strict=False``: a bad value's point is marked in
    ``undefined``, the union of the targets').

    >>> result = jacobian("r*cos(t), r*sin(t)", at={"r": 2, "t": 0})
    >>> result.matrix.tolist(), float(result.determinant)
    ([[1.0, -0.0], [0.0, 2.0]], 2.0)
    """
    chosen = Options(**options)
    points, bad = checked_points(at, chosen.strict)
    graph = compile_expression(expression, points.names, of)
    result = jacobian_at(graph, points, wrt, chosen)
    for row in result.rows:
        row.warnings.extend(bad)
    return result


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
    with paused():  # (tokens, syntax and graph nodes: no cycles for the collector to find)
        program = parse_program(expression, variables=variables)
        return lower(program, of=of, extra_variables=variables)


@functools.lru_cache(maxsize=64)
def _compiled(expression: str, variables: tuple[str, ...], of: tuple[str, ...] | None) -> Graph:
    """:func:`compile_expression`, kept for the next unchecked call with the same text: its
    graph holds the recorded program the replay runs (see
    :func:`~gradcalc.engine.compile.sweep.sweep_for`),
    so calling ``grad(..., check=False)`` in a loop parses and records once."""
    return compile_expression(expression, variables, of)


def gradient_at(
    graph: Graph, points: Points, wrt: Sequence[str] | None = None, options: Options = Options()
) -> list[GradResult]:
    """One :class:`GradResult` per target of a compiled graph (see :func:`grad`).

    With many points (unless ``options.tape`` is ``True``), the recorded tape is replayed
    chunk by chunk (:mod:`gradcalc.engine.compile.replay`); only the points that need explaining
    (undefined, at a kink, NaN) are computed again on a full tape and merged back. In a
    stream of jobs (:func:`~gradcalc.engine.run.scalar.planning`), one point is computed by its
    shape's plan where nothing needs explaining (:mod:`gradcalc.engine.run.scalar`).

    >>> graph = compile_expression("x*y")
    >>> many = Points(("x", "y"), {"x": np.arange(3.0), "y": np.ones(3)}, None)
    >>> gradient_at(graph, many, options=Options(check=False, tape=False))[0].gradient["x"]
    array([1., 1., 1.])
    """
    from gradcalc.engine.run.scalar import scalar_evaluation  # (a stream of jobs' plans)

    run = (
        swept(graph, points, wrt, options)
        or (None if options.tape else scalar_evaluation(graph, points, wrt, options.thresholds))
        or evaluate(graph, points.arrays, wrt)
    )
    return gradient_results(run, points, options)


def hessian_at(
    graph: Graph, points: Points, wrt: Sequence[str] | None = None, options: Options = Options()
) -> HessianResult:
    """The :class:`HessianResult` of a compiled graph's single target (see :func:`hessian`)."""
    from gradcalc.engine.evaluate import higher
    from gradcalc.engine.evaluate.beyond import HessianResult
    from gradcalc.symbolic.crosscheck.crosscheck import check_against, symbolic_gradient
    from gradcalc.symbolic.translate.derivative import derivative, symbol

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

    name = graph.target_names[target]
    second = [
        HigherDerivative(f"{a},{b}", derivative_label(name, (a, b)), (a, b), matrix[i, j])
        for (i, a), (j, b) in _pairs(sources)
    ]
    result = finish(
        HessianResult,
        _computed(graph, target, run, higher=second),
        points,
        options,
        lambda where: check_against(
            graph, ("hessian", target, tuple(sources)), build, tape_values, where
        ),
        matrix=matrix,
        tests=[],
    )
    result.matrix = matrix = _with_limits(matrix, result.higher, sources)
    result.shown_matrix = np.array(
        [
            [settled(matrix[i, j], result.check, f"{a},{b}") for j, b in enumerate(sources)]
            for i, a in enumerate(sources)
        ]
    ).reshape(matrix.shape)
    result.exact_matrix = [
        [exact_texts(result.check, f"{a},{b}") for b in sources] for a in sources
    ]
    from gradcalc.engine.judge.classified import classified  # (a gradient needs none of it)

    classified(graph, target, points, result, options)
    return result


def _with_limits(matrix: np.ndarray, limits: Mapping[str, Any], sources: Sequence[str]) -> Any:
    """``matrix`` with the entries ``limits`` holds by label (``x,y``: f's one-sided limits
    at a kink, where the tape has a convention) put in."""
    if not limits:
        return matrix
    return np.array(
        [
            [limits.get(f"{a},{b}", matrix[i, j]) for j, b in enumerate(sources)]
            for i, a in enumerate(sources)
        ],
        dtype=float,
    ).reshape(matrix.shape)


def _computed(graph: Graph, target: int, run: Any, **extra: Any) -> Computed:
    """What a nested-tape run (:mod:`gradcalc.engine.evaluate.higher`) computed, to judge."""
    fields = (run.sources, run.value, run.gradient, run.rows, run.problems)
    return Computed(graph, target, *fields, **extra)


def _pairs(sources: Sequence[str]) -> list[tuple[tuple[int, str], tuple[int, str]]]:
    """Every (row, column) of a matrix over ``sources``, with the indices."""
    return [(ia, jb) for ia in enumerate(sources) for jb in enumerate(sources)]


def derivatives_at(
    graph: Graph, points: Points, source: str, order: int, options: Options = Options()
) -> DerivativeResult:
    """Derivatives of order 1..``order`` with respect to one variable, through nested tapes."""
    from gradcalc.engine.evaluate import higher
    from gradcalc.engine.evaluate.beyond import DerivativeResult
    from gradcalc.symbolic.crosscheck.crosscheck import check_against, target_expression
    from gradcalc.symbolic.translate.derivative import derivative, symbol

    target = _single_target(graph, f"a derivative of order {order}")
    run = higher.derivatives(graph, points.arrays, source, order, target)
    orders = run.orders
    assert orders is not None  # higher.derivatives always sets them
    tape_values = {f"d{k}": orders[k - 1] for k in range(1, order + 1)}

    def build() -> dict[str, object]:
        expr = target_expression(graph, target)
        return {f"d{k}": derivative(expr, symbol(source), k) for k in range(1, order + 1)}

    result = finish(
        DerivativeResult,
        _computed(
            graph,
            target,
            run,
            labels={source: "d1"},
            higher=[
                HigherDerivative(
                    f"d{k}", _order_name(graph, target, source, k), (source,) * k, orders[k - 1]
                )
                for k in range(2, order + 1)
            ],
        ),
        points,
        options,
        lambda where: check_against(
            graph, ("orders", target, source, order), build, tape_values, where
        ),
        order=order,
        orders=orders,
    )
    first = result.gradient.get(source)  # (f's one-sided limits at a kink: not the tape's)
    limits = {"d1": orders[0] if first is None else first, **result.higher}
    orders[:] = [np.asarray(limits.get(f"d{k}", orders[k - 1])) for k in range(1, order + 1)]
    result.shown_orders = [
        settled(orders[k - 1], result.check, f"d{k}") for k in range(1, order + 1)
    ]
    return result


def _order_name(graph: Graph, target: int, source: str, k: int) -> str:
    """``d³f/dx³``: the k-th derivative's name in messages."""
    return derivative_label(graph.target_names[target], [source] * k, ordinary=True)


def directional_at(
    graph: Graph,
    points: Points,
    direction: Sequence[float],
    wrt: Sequence[str] | None = None,
    normalize: bool = True,
    options: Options = Options(),
) -> DirectionalResult:
    """The derivative along ``direction`` (one component per source), checked with sympy."""
    from gradcalc.engine.evaluate.beyond import DirectionalResult
    from gradcalc.symbolic.crosscheck.crosscheck import check_against, symbolic_gradient

    target = _single_target(graph, "a directional derivative")
    sources = source_names(graph, wrt)
    if len(direction) != len(sources):
        raise InputError(
            f"--direction has {len(direction)} components for {len(sources)} variables "
            f"({', '.join(sources)})"
        )
    vector = np.asarray(direction, dtype=float)
    largest = float(np.max(np.abs(vector))) if vector.size else 0.0
    if not np.isfinite(largest) or largest == 0:
        raise InputError("--direction must be a non-zero vector of finite numbers")
    if normalize:  # scaled first: the norm of (1e-300, 1e-300) underflows to 0 unscaled
        scaled = vector / largest
        vector = scaled / np.linalg.norm(scaled)
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
    return finish(
        DirectionalResult,
        Computed(
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
    from gradcalc.engine.evaluate.beyond import JacobianResult

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
