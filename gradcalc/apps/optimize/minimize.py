"""Minimize an expression by following the tape's gradient: ``gradcalc minimize``.

The expression is parsed and lowered once; each step runs the op graph on one fresh tape
at the current point and takes the gradient from it (no re-parsing, no tape rows, no
symbolic check). ``gd``, ``momentum`` and ``adam`` are implemented here; ``bfgs`` hands
the tape's value and gradient to scipy, an optional dependency.

>>> m = minimize("(x-3)**2 + 2*(y+1)**2", ["x=0,y=0"], method="momentum", lr=0.05)
>>> m.converged, round(m.point["x"], 9), round(m.point["y"], 9)
(True, 3.0, -1.0)
>>> m.reason
'gradient norm ... ≤ tol 1e-10'
>>> m.path[0]
Step(step=0, point={'x': 0.0, 'y': 0.0}, value=11.0, gradient_norm=7.2111...)
>>> m.path[-1].step == m.steps, 50 <= len(m.path) <= 101
(True, True)
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gradcalc.apps.optimize.descent import (
    DEFAULT_LR,
    PROGRESS_EVERY,
    UPDATES,
    Judge,
    LineSearch,
    Objective,
    Progress,
    Recorder,
    Step,
    Stop,
    check_options,
    descend,
    fixed,
)
from gradcalc.core.errors import InputError, did_you_mean
from gradcalc.core.numbers import format_number
from gradcalc.engine.evaluate.points import parse_at
from gradcalc.engine.run.api import compile_expression
from gradcalc.lang.graph import Graph
from gradcalc.render.pieces.gradient import json_number

if TYPE_CHECKING:
    from gradcalc.symbolic.decide.extremum import HigherOrder

__all__ = [
    "DEFAULT_LR",
    "METHODS",
    "PROGRESS_EVERY",
    "SCIPY_MISSING",
    "Minimum",
    "Step",
    "minimize",
    "path_rows",
    "to_json",
]

METHODS = ("gd", "momentum", "adam", "bfgs")
SCIPY_MISSING = "--method bfgs needs scipy: pip install 'gradcalc[optimize]'"


@dataclass
class Minimum:
    """Where a minimization stopped, and why.

    Attributes:
        point: the last iterate, per variable.
        value: the expression's value there (``inf`` or ``nan`` when it diverged).
        gradient_norm: the Euclidean norm of the tape's gradient there.
        steps: how many updates were made (bfgs: iterations).
        reason: why it stopped, in plain words, with a hint when it did not converge.
        converged: whether the gradient norm reached ``tol``.
        method: ``gd``, ``momentum``, ``adam`` or ``bfgs``.
        path: rows recorded along the way; the first is the start, the last is ``point``.
        found: what the second-order test (the tape's Hessian) says the stopping point is,
            when the gradient reached ``tol``: ``minimum``, ``maximum``, ``saddle`` or
            ``degenerate`` (a zero eigenvalue: no verdict); empty otherwise. Only a
            minimum, or a degenerate point, counts as converged.
        lr: the fixed learning rate the steps took; ``None`` where each step's length was
            searched (gd without a rate, and bfgs).
    """

    point: dict[str, float]
    value: float
    gradient_norm: float
    steps: int
    reason: str
    converged: bool
    method: str
    path: list[Step]
    found: str = ""
    lr: float | None = None

    @property
    def rule(self) -> str:
        """How the steps were sized, in words: ``"lr 0.1"``, ``"line search"``.

        >>> Minimum({}, 0.0, 0.0, 0, "", True, "adam", [], lr=0.01).rule
        'lr 0.01'
        """
        if self.lr is not None:
            return f"lr {format_number(self.lr, 6)}"
        return "line search" if self.method == "gd" else "scipy's line search"

    def _repr_html_(self) -> str:
        """In a notebook: the path and the stop ``gradcalc minimize`` prints, as HTML."""
        from gradcalc.render.notebook.html import to_html
        from gradcalc.render.views.optimizers import minimum_tables

        return to_html(minimum_tables(self, None))


def minimize(
    expression: str,
    start: Sequence[str] | Mapping[str, float],
    method: str = "gd",
    lr: float | None = None,
    steps: int = 10_000,
    tol: float = 1e-10,
    every: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Minimum:
    """Minimize ``expression`` from ``start`` with the tape's exact gradient.

    Args:
        expression: one expression, or a program whose last statement is minimized.
        start: ``--from`` specs (``["x=-1.2,y=1"]``) or ``{"x": -1.2, "y": 1.0}``: a value
            for each variable of the expression and for nothing else.
        method: ``gd`` (x -= lr*g; without ``lr``, each step's length found by a backtracking
            line search: :class:`~gradcalc.apps.optimize.descent.LineSearch`), ``momentum``
            (heavy ball: v = 0.9*v + g, x -= lr*v),
            ``adam`` (betas 0.9 and 0.999, eps 1e-8) or ``bfgs`` (scipy's, given the tape's
            gradient; needs scipy).
        lr: the learning rate; default: a line search for gd, :data:`DEFAULT_LR` for
            momentum (1e-3) and adam (1e-2). bfgs ignores it: its line search chooses each
            step.
        steps: the most updates to make (bfgs: iterations).
        tol: stop once the gradient's Euclidean norm is at most this.
        every: record a path row every this many steps (default: 50 to 100 rows over the
            run); the first and the last step are always recorded.
        progress: called with the step number every :data:`PROGRESS_EVERY` steps (bfgs:
            every iteration) and once at the end.

    Raises:
        InputError: an unknown method, a bad option, a variable without a start value, a
            start value for a name the expression does not use, or bfgs without scipy.
        UndefinedError: the value or the gradient is NaN or infinite at the start.

    >>> m = minimize("(x-1)**2", {"x": 0.0}, lr=0.5)
    >>> m.point, m.steps, m.reason
    ({'x': 1.0}, 1, 'gradient norm 0 ≤ tol 1e-10')
    >>> minimize("x**2", {"x": 1.0}, lr=10.0).reason
    'diverged: value became inf at step 121 (x^2: overflow to infinity) — lower --lr'
    """
    if method not in METHODS:
        raise InputError(f"--method {method}: choose one of {', '.join(METHODS)}")
    check_options(lr, steps, tol, every)
    values = _start_values(start)
    graph = compile_expression(expression, list(values))
    x = _start_point(graph, values)
    path = Recorder(graph.variables, every)
    stop = _run(Objective(graph), x, method, lr, steps, tol, path, progress)
    path.add(stop.step, stop.x, stop.value, stop.norm)
    if progress is not None:
        progress(stop.step)
    point = dict(zip(graph.variables, stop.x.tolist()))
    found, reason, converged = _second_order(graph, stop)
    return Minimum(
        point, stop.value, stop.norm, stop.step, reason, converged, method, path.rows, found,
        _fixed_rate(method, lr),
    )  # fmt: skip


def _fixed_rate(method: str, lr: float | None) -> float | None:
    """The learning rate every step took; ``None`` where a line search chose each step's
    length (gd without a rate, and bfgs).

    >>> _fixed_rate("gd", None), _fixed_rate("gd", 0.1), _fixed_rate("adam", None)
    (None, 0.1, 0.01)
    """
    if method == "bfgs" or (method == "gd" and lr is None):
        return None
    return DEFAULT_LR[method] if lr is None else lr


FOUND = {
    "local minimum": "minimum",
    "local maximum": "maximum",
    "saddle point": "saddle",
    "inflection point": "inflection",  # (of one variable, by the terms of lowest order)
    "inconclusive": "degenerate",
}


def _second_order(graph: Graph, stop: Stop) -> tuple[str, str, bool]:
    """What the stopping point is, the reason to report, and whether it converged: a
    gradient at ``tol`` is convergence only at a minimum (or where the Hessian cannot tell).

    >>> g = compile_expression("x^2 - y^2")
    >>> found, reason, converged = _second_order(g, Stop(np.zeros(2), 0.0, 0.0, 0, "ok", True))
    >>> found, converged, reason.split(": ")[0]
    ('saddle', False, 'ok, but at a saddle point, not a minimum')
    """
    if not stop.converged:
        return "", stop.reason, False
    from gradcalc.engine.evaluate.classify import classify
    from gradcalc.engine.evaluate.higher import hessian

    arrays = {n: np.asarray(v) for n, v in zip(graph.variables, stop.x)}
    run = hessian(graph, arrays, graph.variables)
    gradient = np.array([float(run.gradient[n]) for n in graph.variables])
    assert run.matrix is not None  # hessian() always sets it
    scale = max(1.0, float(np.max(np.abs(stop.x)))) if stop.x.size else 1.0
    test = classify(run.matrix.astype(float), gradient, scale, tolerance=max(stop.norm, 1e-300))
    found = FOUND.get(test.verdict, "")
    eigen = " and ".join(format_number(e, 6) for e in sorted(test.eigenvalues))
    if found in ("maximum", "saddle"):
        what = "a local maximum" if found == "maximum" else "a saddle point"
        reason = f"{stop.reason}, but at {what}, not a minimum: the Hessian's eigenvalues are "
        return found, f"{reason}{eigen} (start elsewhere)", False
    descent = _still_descending(graph, stop, gradient, scale)
    if descent:
        return "", f"{stop.reason}, but {descent}", False
    if found == "degenerate":
        return _degenerate(graph, stop, eigen)
    return found, stop.reason, True


def _degenerate(graph: Graph, stop: Stop, eigen: str) -> tuple[str, str, bool]:
    """Where the Hessian is singular: at a point where the gradient is exactly 0, the terms
    of lowest order of f decide when they can (x^3 at 0: an inflection point, no minimum;
    x^4: a minimum); else it is not known to be a minimum, so not converged (exit 1).

    >>> found, reason, converged = _degenerate(
    ...     compile_expression("x^3"), Stop(np.zeros(1), 0.0, 0.0, 0, "ok", True), "0")
    >>> found, converged, reason.split(":")[0]
    ('inflection', False, 'ok, but at an inflection point, not a minimum')
    """
    singular = f"the Hessian is singular there to within rounding (eigenvalues {eigen})"
    decided = _lowest_order(graph, stop) if stop.norm == 0 else None
    if decided is None:
        reason = f"{stop.reason}; {singular}: no test decides whether it is a minimum"
        return "degenerate", reason, False
    if decided.verdict == "local minimum":
        reason = f"{stop.reason}; {singular}, and by the terms of lowest order a minimum"
        return "minimum", f"{reason}: {decided.reason}", True
    found = FOUND[decided.verdict]
    article = "an" if decided.verdict[0] in "aeiou" else "a"
    reason = f"{stop.reason}, but at {article} {decided.verdict}, not a minimum: {decided.reason}"
    return found, reason, False


def _lowest_order(graph: Graph, stop: Stop) -> HigherOrder | None:
    """The verdict of f's terms of lowest order at the stopping point, taken exactly (its
    floats' decimal forms), or None."""
    import sympy as sp

    from gradcalc.symbolic.decide.extremum import higher_order
    from gradcalc.symbolic.translate.convert import converted

    symbols = [sp.Symbol(v, real=True) for v in graph.variables]
    point = {s: sp.Rational(repr(float(c))) for s, c in zip(symbols, stop.x)}
    return higher_order(converted(graph)[graph.targets[0]], symbols, point)


#: How far ``_still_descending`` looks along the descent direction, in units of the point's
#: scale (max(1, its largest coordinate)): a minimum nearer than the first is passed over.
PROBES = (1.0, 10.0, 100.0, 1000.0)


def _still_descending(graph: Graph, stop: Stop, gradient: np.ndarray, scale: float) -> str:
    """Why the stopping point is no minimum although the gradient is below ``tol``: f is
    lower one scale away in the direction of descent (exp(x) at x = -23: its gradient is
    8e-11, and f only falls further); ``""`` where f rises there, as beside a minimum.

    >>> g = compile_expression("exp(x)")
    >>> x = np.array([-23.0])
    >>> _still_descending(g, Stop(x, 1e-10, 1e-10, 1, "ok", True), np.exp(x), 1.0)
    'f keeps decreasing in the direction of descent (to 0 at distance 1000): no minimum found'
    """
    norm = float(np.linalg.norm(gradient))
    if not norm > 0.0 or not np.isfinite(norm):
        return ""
    objective, direction = Objective(graph), gradient / norm
    with np.errstate(all="ignore"):
        values = [objective(stop.x - t * scale * direction)[0] for t in PROBES]
    if not values[0] < stop.value:
        return ""
    if all(b <= a for a, b in itertools.pairwise(values)):  # (NaN, outside the domain: no)
        far = format_number(PROBES[-1] * scale, 3)
        return (
            f"f keeps decreasing in the direction of descent (to {format_number(values[-1], 3)} "
            f"at distance {far}): no minimum found"
        )
    near = format_number(scale, 3)
    return (
        f"f is lower ({format_number(values[0], 6)}) at distance {near} in the direction of "
        "descent: not a minimum (lower --tol, or start elsewhere)"
    )


def _run(
    objective: Objective,
    x: np.ndarray,
    method: str,
    lr: float | None,
    steps: int,
    tol: float,
    path: Recorder,
    progress: Progress,
) -> Stop:
    """One run of ``method`` from ``x`` (checked: the start is finite) until it stops."""
    _, start_norm = objective.start(x)
    if method == "bfgs":
        judge = Judge(objective, steps, tol, start_norm, "raise --steps")
        return _bfgs(objective, x, judge, path, progress)
    rate = _fixed_rate(method, lr)
    if rate is None:
        judge = Judge(objective, steps, tol, start_norm, "raise --steps, or try --method bfgs")
        return descend(objective, x, LineSearch(), judge, path, progress)
    judge = Judge(objective, steps, tol, start_norm, "raise --steps or --lr")
    return descend(objective, x, fixed(UPDATES[method](rate)), judge, path, progress)


def to_json(m: Minimum) -> dict:
    """The result as plain JSON data; NaN and infinities become ``None``.

    >>> m = Minimum({"x": 1.0}, 0.0, 0.0, 3, "done", True, "gd", [Step(3, {"x": 1.0}, 0.0, 0.0)])
    >>> to_json(m)["path"]
    [{'step': 3, 'point': {'x': 1.0}, 'value': 0.0, 'gradient_norm': 0.0}]
    >>> to_json(Minimum({"x": math.inf}, math.nan, 0.0, 1, "", False, "gd", []))["point"]
    {'x': None}
    """
    return {
        "point": _json_point(m.point),
        "value": json_number(m.value),
        "gradient_norm": json_number(m.gradient_norm),
        "steps": m.steps,
        "reason": m.reason,
        "converged": m.converged,
        "method": m.method,
        "found": m.found or None,
        "lr": m.lr,
        "path": [
            {
                "step": s.step,
                "point": _json_point(s.point),
                "value": json_number(s.value),
                "gradient_norm": json_number(s.gradient_norm),
            }
            for s in m.path
        ],
    }


def path_rows(m: Minimum) -> tuple[list[str], list[list[float]]]:
    """The path as a CSV header and rows: step, each variable, value, gradient_norm.

    >>> path_rows(minimize("(x-1)**2", {"x": 0.0}, lr=0.5))
    (['step', 'x', 'value', 'gradient_norm'], [[0, 0.0, 1.0, 2.0], [1, 1.0, 0.0, 0.0]])
    """
    names = list(m.point)
    header = ["step", *names, "value", "gradient_norm"]
    rows = [[s.step, *(s.point[n] for n in names), s.value, s.gradient_norm] for s in m.path]
    return header, rows


def _bfgs(
    objective: Objective, x0: np.ndarray, judge: Judge, path: Recorder, progress: Progress
) -> Stop:
    """scipy's BFGS on the tape's value and gradient; ``tol`` bounds the gradient's 2-norm."""
    scipy_minimize = _scipy_minimize()
    iteration = 0

    def callback(xk: np.ndarray) -> None:
        nonlocal iteration
        iteration += 1
        if path.wants(iteration):
            path.add(iteration, xk, *objective.at(xk))
        if progress is not None:
            progress(iteration)

    path.add(0, x0, *objective.at(x0))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy's notes on NaN in line searches
        found = scipy_minimize(
            objective,
            x0,
            jac=True,
            method="BFGS",
            callback=callback,
            options={"maxiter": judge.steps, "gtol": judge.tol, "norm": 2},
        )
    value, gradient = float(found.fun), np.asarray(found.jac, dtype=float)
    norm = float(np.linalg.norm(gradient))
    stop = judge(value, gradient, norm, found.nit)
    if found.success:  # scipy's own test: the gradient norm reached gtol
        stop = (judge.converged(norm), True)
    elif stop is None:  # scipy gave up early, e.g. precision loss in its line search
        message = str(found.message).rstrip(".")
        stop = (f"scipy's BFGS stopped: {message} (gradient norm {format_number(norm, 2)})", False)
    return Stop(np.asarray(found.x, dtype=float), value, norm, found.nit, *stop)


def _scipy_minimize() -> Callable:
    """``scipy.optimize.minimize``, imported only when bfgs is asked for."""
    try:
        from scipy.optimize import minimize as scipy_minimize
    except ImportError as error:
        raise InputError(SCIPY_MISSING) from error
    return scipy_minimize


def _start_values(start: Sequence[str] | Mapping[str, float]) -> dict[str, float]:
    """The start point by name; ``--from`` specs are parsed and validated like ``--at``."""
    if isinstance(start, Mapping):
        values = {str(name): float(value) for name, value in start.items()}
    else:
        specs = [start] if isinstance(start, str) else list(start)
        if len(specs) != 1:
            raise InputError(f"--from takes one point like x=-1.2,y=1, got {len(specs)} specs")
        try:
            points = parse_at(specs)
        except InputError as error:
            raise InputError(error.message.replace("--at", "--from")) from error
        values = {name: float(array) for name, array in points.arrays.items()}
    for name, value in values.items():
        if not math.isfinite(value):
            raise InputError(f"--from {name}={value}: the start must be finite")
    return values


def _start_point(graph: Graph, values: Mapping[str, float]) -> np.ndarray:
    """The start as a vector ordered like ``graph.variables``. The graph must have one target;
    every variable needs a value, and every value must be for a variable the target uses."""
    if len(graph.targets) != 1:
        raise InputError(
            f"minimize takes one expression; this has {len(graph.targets)} "
            f"({', '.join(graph.target_names)})"
        )
    used = {i for node in graph.nodes for i in node.inputs} | set(graph.targets)
    variables = [v for v in graph.variables if graph.variable_nodes[v] in used]
    for name in values:
        if name not in variables:
            raise InputError(
                f"--from {name}: the expression has no variable {name}; "
                f"{did_you_mean(name, variables)}its variables: {', '.join(variables) or 'none'}"
            )
    for name in graph.variables:
        if name not in values:
            raise InputError(f"no start value for {name}: add {name}=... to --from")
    if not graph.variables:
        raise InputError("nothing to minimize: the expression has no variables")
    return np.array([values[v] for v in graph.variables])


def _json_point(point: Mapping[str, float]) -> dict[str, float | None]:
    return {name: json_number(v) for name, v in point.items()}
