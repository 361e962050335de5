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

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gradcalc.core.errors import InputError, UndefinedError, did_you_mean
from gradcalc.core.ops import NOT_DIFFERENTIABLE
from gradcalc.core.tape import Tape
from gradcalc.core.tensor import Tensor, constant
from gradcalc.engine.api import compile_expression
from gradcalc.engine.evaluate import run_graph
from gradcalc.engine.points import parse_at
from gradcalc.lang.graph import Graph
from gradcalc.render.gradient import json_number

METHODS = ("gd", "momentum", "adam", "bfgs")
#: The learning rate of each first-order method unless told (bfgs needs none).
DEFAULT_LR = {"gd": 1e-3, "momentum": 1e-3, "adam": 1e-2}
MOMENTUM_BETA = 0.9
ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 0.9, 0.999, 1e-8
#: The default path keeps PATH_ROWS to 2 * PATH_ROWS evenly spaced rows, and the last step.
PATH_ROWS = 50
#: ``progress`` is called every this many steps, and once at the end.
PROGRESS_EVERY = 100
SCIPY_MISSING = "--method bfgs needs scipy: pip install 'gradcalc[optimize]'"

Update = Callable[[np.ndarray, int], np.ndarray]
Progress = Callable[[int], None] | None


@dataclass(frozen=True)
class Step:
    """One recorded row of the path: the iterate after ``step`` updates (0: the start)."""

    step: int
    point: dict[str, float]
    value: float
    gradient_norm: float


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
    """

    point: dict[str, float]
    value: float
    gradient_norm: float
    steps: int
    reason: str
    converged: bool
    method: str
    path: list[Step]

    def _repr_html_(self) -> str:
        """In a notebook: the path and the stop ``gradcalc minimize`` prints, as HTML."""
        from gradcalc.render.html import to_html
        from gradcalc.render.optimizers import minimum_tables

        return to_html(minimum_tables(self, None))


@dataclass(frozen=True)
class _Stop:
    """The last iterate of a run and why the run ended there."""

    x: np.ndarray
    value: float
    norm: float
    step: int
    reason: str
    converged: bool


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
        method: ``gd`` (x -= lr*g), ``momentum`` (heavy ball: v = 0.9*v + g, x -= lr*v),
            ``adam`` (betas 0.9 and 0.999, eps 1e-8) or ``bfgs`` (scipy's, given the tape's
            gradient; needs scipy).
        lr: the learning rate; default :data:`DEFAULT_LR` (gd and momentum 1e-3, adam 1e-2).
            bfgs ignores it: its line search chooses each step.
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
    'diverged: value became inf at step 121 (x**2: overflow to infinity) — lower --lr'
    """
    if method not in METHODS:
        raise InputError(f"--method {method}: choose one of {', '.join(METHODS)}")
    _check_options(lr, steps, tol, every)
    values = _start_values(start)
    graph = compile_expression(expression, list(values))
    x = _start_point(graph, values)
    objective = _Objective(graph)
    _, start_norm = objective.start(x)
    path = _Path(graph.variables, every)
    if method == "bfgs":
        judge = _Judge(objective, steps, tol, start_norm, "raise --steps")
        stop = _bfgs(objective, x, judge, path, progress)
    else:
        judge = _Judge(objective, steps, tol, start_norm, "raise --steps or --lr")
        update = _UPDATES[method](DEFAULT_LR[method] if lr is None else lr)
        stop = _descend(objective, x, update, judge, path, progress)
    path.add(stop.step, stop.x, stop.value, stop.norm)
    if progress is not None:
        progress(stop.step)
    point = dict(zip(graph.variables, stop.x.tolist()))
    return Minimum(
        point, stop.value, stop.norm, stop.step, stop.reason, stop.converged, method, path.rows
    )


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


# --- evaluation ----------------------------------------------------------------------


class _Objective:
    """The compiled expression's value and tape gradient at a point (a vector ordered like
    ``graph.variables``): one tape per call, nothing else recorded or checked."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.target = graph.targets[0]
        self._last: tuple[Tape, list[Tensor]] = (Tape(), [])  # the latest evaluation

    def __call__(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        sources = [constant(v) for v in x.tolist()]
        with Tape() as tape:
            tape.watch(sources)
            tensors = run_graph(self.graph, dict(zip(self.graph.variables, sources)))
        grads = tape.gradient(tensors[self.target], sources, unconnected="zero")
        self._last = (tape, tensors)
        return float(tensors[self.target].value), np.array([float(g.value) for g in grads])

    def at(self, x: np.ndarray) -> tuple[float, float]:
        """The value and the gradient's Euclidean norm at ``x``."""
        value, gradient = self(x)
        return value, float(np.linalg.norm(gradient))

    def explain(self) -> str:
        """Why the latest evaluation was not finite, as ``" (subexpression: reason)"``."""
        tape, tensors = self._last
        node_of = {tensor.id: i for i, tensor in enumerate(tensors)}
        # only records the target depends on (those the backward pass reached) can explain
        # it, and a domain error or an overflow explains more than a kink does: kinks last
        problems = [p for p in tape.problems() if p.record.adjoint is not None]
        problems.sort(key=lambda p: p.kind == NOT_DIFFERENTIABLE)
        if not problems:
            return ""
        node = node_of.get(problems[0].record.output.id)
        where = problems[0].record.op.name if node is None else self.graph.source_text(node)
        return f" ({where}: {problems[0].reason})"

    def start(self, x: np.ndarray) -> tuple[float, float]:
        """The value and gradient norm at the start ``x``.

        Raises:
            UndefinedError: when the value or the gradient is not finite there.
        """
        value, gradient = self(x)
        bad = _non_finite(value, gradient)
        if bad:
            where = ", ".join(f"{n}={_text(v)}" for n, v in zip(self.graph.variables, x.tolist()))
            what, number = bad
            raise UndefinedError(
                f"cannot start from {where}: the {what} is {number}{self.explain()}"
            )
        return value, float(np.linalg.norm(gradient))


def _non_finite(value: float, gradient: np.ndarray) -> tuple[str, str] | None:
    """``("value", "inf")``, ``("gradient", "NaN")``..., or ``None`` when all are finite."""
    if not math.isfinite(value):
        return "value", _short(value)
    bad = gradient[~np.isfinite(gradient)]
    return ("gradient", _short(float(bad[0]))) if bad.size else None


# --- gd, momentum and adam -----------------------------------------------------------


def _gd(lr: float) -> Update:
    return lambda g, k: -lr * g


def _momentum(lr: float) -> Update:
    velocity: np.ndarray | float = 0.0

    def update(g: np.ndarray, k: int) -> np.ndarray:
        nonlocal velocity
        velocity = MOMENTUM_BETA * velocity + g
        return -lr * velocity

    return update


def _adam(lr: float) -> Update:
    m: np.ndarray | float = 0.0
    v: np.ndarray | float = 0.0

    def update(g: np.ndarray, k: int) -> np.ndarray:
        nonlocal m, v
        m = ADAM_BETA1 * m + (1 - ADAM_BETA1) * g
        v = ADAM_BETA2 * v + (1 - ADAM_BETA2) * g * g
        m_hat = m / (1 - ADAM_BETA1 ** (k + 1))
        v_hat = v / (1 - ADAM_BETA2 ** (k + 1))
        return -lr * m_hat / (np.sqrt(v_hat) + ADAM_EPS)

    return update


_UPDATES: dict[str, Callable[[float], Update]] = {"gd": _gd, "momentum": _momentum, "adam": _adam}


def _descend(
    objective: _Objective,
    x: np.ndarray,
    update: Update,
    judge: _Judge,
    path: _Path,
    progress: Progress,
) -> _Stop:
    """``x += update(gradient, k)`` until ``judge`` says stop."""
    k = 0
    with np.errstate(all="ignore"):
        value, gradient = objective(x)
        norm = float(np.linalg.norm(gradient))
        while (stop := judge(value, gradient, norm, k)) is None:
            if path.wants(k):
                path.add(k, x, value, norm)
            if progress is not None and k % PROGRESS_EVERY == 0:
                progress(k)
            x = x + update(gradient, k)
            k += 1
            value, gradient = objective(x)
            norm = float(np.linalg.norm(gradient))
    return _Stop(x, value, norm, k, *stop)


@dataclass
class _Judge:
    """When a run stops, and why: the value or gradient is not finite, the gradient norm is
    at most ``tol``, or ``steps`` updates are made. ``start_norm`` is the norm at step 0;
    ``rises`` counts the steps where the value went up (a sign of a learning rate too big)."""

    objective: _Objective
    steps: int
    tol: float
    start_norm: float
    more: str  # what to raise when the steps run out
    rises: int = 0
    previous: float = math.inf

    def __call__(
        self, value: float, gradient: np.ndarray, norm: float, k: int
    ) -> tuple[str, bool] | None:
        """The reason to stop at step ``k`` and whether it converged, or ``None`` to go on."""
        bad = _non_finite(value, gradient)
        if bad:
            return self.diverged(bad, k, value), False
        self.rises += value > self.previous
        self.previous = value
        if norm <= self.tol:
            return self.converged(norm), True
        if k >= self.steps:
            return self.exhausted(norm), False
        return None

    def converged(self, norm: float) -> str:
        return f"gradient norm {_short(norm)} ≤ tol {_short(self.tol)}"

    def exhausted(self, norm: float) -> str:
        if norm > self.start_norm:
            return (
                f"reached {self.steps} steps with the gradient norm growing "
                f"({_short(self.start_norm)} → {_short(norm)}): "
                "the expression may have no minimum, or lower --lr"
            )
        if self.rises > self.steps // 10:
            return (
                f"reached {self.steps} steps (gradient norm {_short(norm)}) with the value "
                f"going up in {self.rises} of them: lower --lr"
            )
        return f"reached {self.steps} steps (gradient norm {_short(norm)}): {self.more}"

    def diverged(self, bad: tuple[str, str], k: int, value: float) -> str:
        hint = "the expression may have no minimum" if value == -math.inf else "lower --lr"
        what, number = bad
        return f"diverged: {what} became {number} at step {k}{self.objective.explain()} — {hint}"


# --- bfgs ----------------------------------------------------------------------------


def _bfgs(
    objective: _Objective, x0: np.ndarray, judge: _Judge, path: _Path, progress: Progress
) -> _Stop:
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
        stop = (f"scipy's BFGS stopped: {message} (gradient norm {_short(norm)})", False)
    return _Stop(np.asarray(found.x, dtype=float), value, norm, found.nit, *stop)


def _scipy_minimize() -> Callable:
    """``scipy.optimize.minimize``, imported only when bfgs is asked for."""
    try:
        from scipy.optimize import minimize as scipy_minimize
    except ImportError as error:
        raise InputError(SCIPY_MISSING) from error
    return scipy_minimize


# --- the path ------------------------------------------------------------------------


class _Path:
    """The recorded rows: every ``every`` steps; by default every ``stride`` steps, where the
    stride doubles (and every other row is dropped) whenever 2 * PATH_ROWS rows are kept, so
    a run of any length keeps PATH_ROWS to 2 * PATH_ROWS evenly spaced rows."""

    def __init__(self, names: Sequence[str], every: int | None):
        self.names = tuple(names)
        self.stride = every or 1
        self.adaptive = every is None
        self.rows: list[Step] = []

    def wants(self, k: int) -> bool:
        """Whether step ``k`` is to be recorded."""
        return k % self.stride == 0

    def add(self, k: int, x: np.ndarray, value: float, norm: float) -> None:
        """Record step ``k`` (once: the last step may already be there)."""
        if self.rows and self.rows[-1].step == k:
            return
        self.rows.append(Step(k, dict(zip(self.names, x.tolist())), value, norm))
        if self.adaptive and len(self.rows) >= 2 * PATH_ROWS:
            self.rows = self.rows[::2]
            self.stride *= 2


# --- checking the input --------------------------------------------------------------


def _check_options(lr: float | None, steps: int, tol: float, every: int | None) -> None:
    if lr is not None and not (math.isfinite(lr) and lr > 0):
        raise InputError(f"--lr must be a positive number, got {lr}")
    if not _is_count(steps):
        raise InputError(f"--steps must be a positive whole number, got {steps}")
    if not (math.isfinite(tol) and tol >= 0):
        raise InputError(f"--tol must be a number ≥ 0, got {tol}")
    if every is not None and not _is_count(every):
        raise InputError(f"--every must be a positive whole number, got {every}")


def _is_count(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n >= 1


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


# --- formatting ----------------------------------------------------------------------


def _short(x: float) -> str:
    """Two significant digits, with a compact exponent below 0.01 and from 10^4 on.

    >>> _short(8.2e-11), _short(1e-10), _short(0.0031), _short(0.25), _short(0.0)
    ('8.2e-11', '1e-10', '3.1e-3', '0.25', '0')
    >>> _short(2136.8), _short(float("nan")), _short(-math.inf)
    ('2100', 'NaN', '-inf')
    """
    if math.isnan(x):
        return "NaN"
    if x == 0 or math.isinf(x) or 0.01 <= abs(x) < 1e4:
        return f"{float(f'{x:.2g}'):g}"
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa.removesuffix('.0')}e{int(exponent)}"


def _text(x: float) -> str:
    """A number exactly, without a needless ``.0``: ``-1``, ``-1.2``."""
    return repr(x).removesuffix(".0")


def _json_point(point: Mapping[str, float]) -> dict[str, float | None]:
    return {name: json_number(v) for name, v in point.items()}
