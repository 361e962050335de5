"""Least-squares curve fitting on the tape: ``gradcalc fit "a*x + b" data.csv --params a,b``.

The residuals ``model(params, columns) - y`` of every row and their Jacobian come from ONE
evaluation of the graph on the tape: the parameters are broadcast to the data's length, so
the gradient of each row's residual with respect to each parameter is one Jacobian column.
A Levenberg–Marquardt loop written with numpy alone minimises the sum of their squares.

>>> data = {"x": np.array([0.0, 1, 2, 3, 4]), "y": np.array([2.1, 2.4, 3.1, 3.4, 4.1])}
>>> result = fit("a*x + b", data, ["a", "b"])
>>> {k: round(v, 9) for k, v in result.params.items()}, round(result.r2, 9), result.reason
({'a': 0.5, 'b': 2.02}, 0.981161695, 'converged: relative RSS change and step below tol=1e-12')
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.core.ops import FUNCTION_NAMES
from gradcalc.engine.evaluate.evaluate import Evaluation, evaluate, make_leaves, run_graph
from gradcalc.engine.evaluate.points import Points, constant_value
from gradcalc.engine.evaluate.singular import singularities
from gradcalc.io.files import Skipped, read_points
from gradcalc.io.lines import open_text
from gradcalc.lang.graph import Graph, lower
from gradcalc.lang.literals import NAME, split_top_level
from gradcalc.lang.parser import parse_program
from gradcalc.render.pieces.gradient import json_number

DEFAULT_INIT = 1.0  # the starting value of every parameter not given in ``init``
DAMPING_START = 1e-3  # λ of the first step; divided by 10 after a success, times 10 after a failure
DAMPING_MAX = 1e20  # beyond this no step can lower the RSS: the fit has stalled
EPS = float(np.finfo(float).eps)


@dataclass
class FitResult:
    """The outcome of :func:`fit`.

    Attributes:
        params: the fitted value of each parameter, in the order given.
        stderr: each parameter's standard error, sqrt(diag(inv(JᵀJ)) · RSS/(n-p)); NaN when
            n ≤ p or JᵀJ is singular (``warnings`` says which).
        rss: the residual sum of squares.
        r2: the coefficient of determination 1 - RSS/TSS (NaN when y is constant).
        n: the number of data rows.
        steps: the Levenberg–Marquardt iterations taken (one evaluation of the tape each).
        reason: why the iteration stopped.
        converged: whether it stopped because the fit had settled.
        warnings: plain-text notes for the user.
        model: the model as typed.
        y: the name of the column fitted.
        inputs: the data columns the model reads (for a plot: one input is a curve).
        fitted: the model's value at every data row.
        graph: the compiled model (used by :meth:`predict`).
    """

    params: dict[str, float]
    stderr: dict[str, float]
    rss: float
    r2: float
    n: int
    steps: int
    reason: str
    converged: bool
    warnings: list[str]
    model: str
    y: str
    inputs: tuple[str, ...]
    fitted: np.ndarray = field(repr=False)
    graph: Graph = field(repr=False)

    def predict(self, values: np.ndarray | Mapping[str, np.ndarray]) -> np.ndarray:
        """The fitted model at new values: an array for a model of one input column,
        else a mapping from each input column to its values.

        >>> data = {"x": np.array([0.0, 1, 2]), "y": np.array([1.0, 3, 5])}
        >>> fit("a*x + b", data, ["a", "b"]).predict(np.array([3.0, 10.0])).round(9)
        array([ 7., 21.])

        Raises:
            InputError: for a bare array when the model has not exactly one input column,
                or a mapping without a value for some input column.
        """
        if not isinstance(values, Mapping):
            if len(self.inputs) != 1:
                raise InputError(
                    f"the model reads {len(self.inputs)} columns ({', '.join(self.inputs)}): "
                    "give a value for each by name"
                )
            values = {self.inputs[0]: values}
        leaves, shape = make_leaves(self.graph, {**values, **self.params})
        value = run_graph(self.graph, leaves)[self.graph.targets[0]].value
        return np.broadcast_to(value, shape).copy()

    def _repr_html_(self) -> str:
        """In a notebook: the tables ``gradcalc fit`` prints, as HTML."""
        from gradcalc.render.notebook.html import to_html
        from gradcalc.render.views.optimizers import fit_tables

        return to_html(fit_tables(self, None))


def fit(
    model: str,
    data: Mapping[str, np.ndarray],
    params: Sequence[str],
    y: str = "y",
    init: Mapping[str, float] | Sequence[str] | None = None,
    max_steps: int = 200,
    tol: float = 1e-12,
) -> FitResult:
    """Fit the parameters ``params`` of ``model`` to the column ``y`` by least squares.

    Args:
        model: one expression, e.g. ``"A*exp(-k*t) + c"``; every name in it that is not a
            parameter must be a column of ``data``.
        data: equal-length 1-d arrays of finite numbers by column name (see :func:`read_data`).
        params: the parameters, e.g. ``["a", "b"]`` or ``"a,b"``; each must appear in the
            model and must not be a column.
        y: the column the model should reproduce.
        init: starting values, ``{"a": 1.0}`` or ``--init`` specs such as ``["a=1,b=pi/4"]``;
            every parameter not given starts at ``DEFAULT_INIT`` (1.0).
        max_steps: at most this many Levenberg–Marquardt iterations.
        tol: the fit has converged when a step changes the RSS by at most ``tol`` relative
            (or by rounding only), the step is at most ``tol`` relative to the parameters,
            and a full Gauss–Newton step would not lower the RSS by more than that either.

    Raises:
        InputError: bad names, columns, data or initial values.
        UndefinedError: the model or its gradient is undefined (or overflows) at some data
            row with the initial parameters.

    >>> data = {"t": np.array([0.0, 1, 2]), "y": np.array([3.0, 1.5, 0.75])}
    >>> result = fit("A*exp(-k*t)", data, "A,k", init={"k": 0.5})
    >>> round(result.params["A"], 9), round(result.params["k"] / math.log(2), 9), result.warnings
    (3.0, 1.0, [])
    """
    names = _param_names(params)
    columns = _columns(data)
    observed = _observed(columns, y)
    graph, inputs = _compile(model, names, columns, y)
    _check_limits(max_steps, tol)
    residuals = _Residuals(graph, names, {c: columns[c] for c in inputs}, observed)
    best, steps, reason, converged = _minimise(residuals, _initial(init, names), max_steps, tol)
    warnings = [] if converged else [f"the fit did not converge ({reason})"]
    stderr = _standard_errors(best.jacobian, best.rss, names, warnings)
    return FitResult(
        params=dict(zip(names, best.values.tolist())),
        stderr=dict(zip(names, stderr.tolist())),
        rss=best.rss,
        r2=_r_squared(best.rss, residuals.y, warnings),
        n=residuals.y.size,
        steps=steps,
        reason=reason,
        converged=converged,
        warnings=warnings,
        model=model,
        y=y,
        inputs=inputs,
        fitted=best.residual + residuals.y,
        graph=graph,
    )


def _observed(columns: Mapping[str, np.ndarray], y: str) -> np.ndarray:
    """The column the model is fitted to."""
    if y not in columns:
        raise InputError(f"no column {y!r} to fit in the data; its columns: {', '.join(columns)}")
    return columns[y]


def _check_limits(max_steps: int, tol: float) -> None:
    if max_steps < 0 or not tol >= 0:
        raise InputError("max_steps and tol must not be negative")


def read_data(
    source: str | os.PathLike[str] | Iterable[str], skipped: Skipped | None = None
) -> dict[str, np.ndarray]:
    """Read a CSV of data columns (header row = column names) from a path or a text stream,
    with the validation of :func:`gradcalc.io.files.read_points`.

    >>> import io
    >>> read_data(io.StringIO("x,y\\n1,2\\n3,4.5\\n"))
    {'x': array([1., 3.]), 'y': array([2. , 4.5])}

    With ``skipped`` (``--skip-bad-rows``), bad rows are left out and counted there.

    Raises:
        InputError: an unreadable file, or anything :func:`~gradcalc.io.files.read_points`
            refuses (naming the row and column).
    """
    if not isinstance(source, (str, os.PathLike)):
        return concatenate(read_points(source, what="data file", skipped=skipped))
    with open_text(os.fspath(source), "data file") as stream:
        return concatenate(read_points(stream, what="data file", skipped=skipped))


def to_json(result: FitResult) -> dict[str, object]:
    """The result as JSON-ready data; every non-finite number becomes ``None`` (null).

    >>> data = {"x": np.array([0.0, 1]), "y": np.array([1.0, 3])}
    >>> to_json(fit("a*x + b", data, ["a", "b"]))["stderr"]
    {'a': None, 'b': None}
    """
    return {
        "params": {k: json_number(v) for k, v in result.params.items()},
        "stderr": {k: json_number(v) for k, v in result.stderr.items()},
        "rss": json_number(result.rss),
        "r2": json_number(result.r2),
        "n": result.n,
        "steps": result.steps,
        "reason": result.reason,
        "converged": result.converged,
        "warnings": list(result.warnings),
    }


# --- the problem -------------------------------------------------------------------------


def _param_names(params: Sequence[str]) -> tuple[str, ...]:
    names = params.split(",") if isinstance(params, str) else list(params)
    names = [name.strip() for name in names]
    if not names or not all(names):
        raise InputError("--params needs one or more parameter names, like --params a,b")
    if len(set(names)) != len(names):
        raise InputError(f"--params: a parameter is repeated in {', '.join(names)}")
    return tuple(names)


def _columns(data: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    columns = {str(name): np.asarray(values, dtype=float) for name, values in data.items()}
    lengths = {column.shape for column in columns.values()}
    if len(lengths) != 1 or len(next(iter(lengths))) != 1:
        raise InputError("the data must be 1-d columns of equal length")
    for name, column in columns.items():
        if not NAME.match(name):
            raise InputError(f"data column {name!r} is not a valid variable name")
        bad = np.flatnonzero(~np.isfinite(column))
        if bad.size:
            raise InputError(f"data column {name}[{bad[0]}] = {column[bad[0]]} is not finite")
    if not next(iter(lengths))[0]:
        raise InputError("the data has no rows")
    return columns


def _compile(
    model: str, params: tuple[str, ...], columns: Mapping[str, np.ndarray], y: str
) -> tuple[Graph, tuple[str, ...]]:
    """The model's graph and the data columns it reads, after checking every name."""
    listing = f"parameters: {', '.join(params)}; columns: {', '.join(columns)}"
    clash = [p for p in params if p in columns]
    if clash:
        raise InputError(f"parameter {clash[0]} is also a column of the data: rename one")
    # columns the text mentions are variables (so a column e is not Euler's number); only
    # those: the parser refuses names such as "is" or "log" as variables even when unused
    mentioned = set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", model)).difference(FUNCTION_NAMES)
    variables = [*params, *(c for c in columns if c in mentioned)]
    graph = lower(parse_program(model, variables=variables))
    if len(graph.targets) != 1:
        raise InputError(f"the model must be one expression, not {len(graph.targets)}")
    absent = [p for p in params if p not in graph.variables]
    if absent:
        raise InputError(f"parameter {absent[0]} does not appear in the model {model!r}")
    inputs = tuple(v for v in graph.variables if v not in params)
    unknown = [v for v in inputs if v not in columns]
    if unknown:
        raise InputError(f"{unknown[0]} in the model is not a parameter nor a column ({listing})")
    if y in inputs:
        raise InputError(f"the model reads the column {y} it is fitted to ({listing})")
    return graph, inputs


def _initial(
    init: Mapping[str, float] | Sequence[str] | None, params: tuple[str, ...]
) -> np.ndarray:
    """The starting values, in the order of ``params``."""
    given: dict[str, float] = {}
    if isinstance(init, Mapping):
        given = {str(name): float(value) for name, value in init.items()}
    elif init is not None:
        for spec in [init] if isinstance(init, str) else init:
            for pair in split_top_level(spec):
                name, equals, value = (part.strip() for part in pair.partition("="))
                if not (equals and value and NAME.match(name)):
                    raise InputError(f"--init expects name=value pairs like a=1,b=0, got {pair!r}")
                if name in given:
                    raise InputError(f"--init: {name} is given twice")
                given[name] = constant_value(value)
    unknown = [name for name in given if name not in params]
    if unknown:
        raise InputError(f"--init {unknown[0]}: not a parameter ({', '.join(params)})")
    values = np.array([given.get(p, DEFAULT_INIT) for p in params])
    if not np.all(np.isfinite(values)):
        raise InputError("--init values must be finite numbers")
    return values


@dataclass
class _Trial:
    """The residuals and their Jacobian at one set of parameter values."""

    values: np.ndarray
    residual: np.ndarray
    jacobian: np.ndarray
    rss: float  # infinite where the model is undefined at some row
    point: dict[str, np.ndarray] = field(repr=False)
    run: Evaluation = field(repr=False)


@dataclass
class _Residuals:
    """``model - y`` as a function of the parameter values, with its Jacobian from the tape."""

    graph: Graph
    params: tuple[str, ...]
    inputs: dict[str, np.ndarray]
    y: np.ndarray

    def __call__(self, values: np.ndarray) -> _Trial:
        """One evaluation of the graph, with each parameter broadcast to the data's length."""
        n = self.y.size
        point = {**self.inputs, **{p: np.full(n, v) for p, v in zip(self.params, values)}}
        run = evaluate(self.graph, point, self.params)
        residual = run.values[0] - self.y
        gradient = run.gradients[0]
        jacobian = np.column_stack(
            [np.broadcast_to(0.0 if (g := gradient[p]) is None else g, (n,)) for p in self.params]
        )
        with np.errstate(all="ignore"):
            rss = float(residual @ residual) if not run.problems[0] else math.inf
        return _Trial(values, residual, jacobian, rss if np.isfinite(rss) else math.inf, point, run)

    def undefined(self, trial: _Trial) -> UndefinedError:
        """Why the model cannot be fitted from ``trial``'s parameters (the first problem)."""
        start = ", ".join(f"{p}={v:g}" for p, v in zip(self.params, trial.values))
        advice = f"check the data, or start elsewhere with --init (now {start})"
        run = trial.run
        if not run.problems[0]:
            return UndefinedError(f"the sum of squared residuals overflows float64: {advice}")
        points = Points(tuple(trial.point), trial.point, None)
        found = singularities(self.graph, run.problems[0], run.rows[0], points, 0, self.params)
        where = found[0].describe(points, self.graph.target_names[0])
        return UndefinedError(f"cannot fit: {where}; {advice}")


# --- Levenberg–Marquardt -----------------------------------------------------------------


def _minimise(
    residuals: _Residuals, start: np.ndarray, max_steps: int, tol: float
) -> tuple[_Trial, int, str, bool]:
    """The best trial found, the steps taken, why the iteration stopped and whether it
    converged. Each step solves (JᵀJ + λ·diag(JᵀJ)) δ = -Jᵀr, keeps δ if it lowers the RSS
    and lowers λ (toward Gauss–Newton), else raises λ (toward a short gradient step)."""
    current = residuals(start)
    if not np.isfinite(current.rss):
        raise residuals.undefined(current)
    floor = residuals.y.size * (8 * EPS * float(np.max(np.abs(residuals.y)))) ** 2
    damping = DAMPING_START
    for step in range(1, max_steps + 1):
        delta = _damped_step(current.jacobian, current.residual, damping)
        trial = residuals(current.values + delta)
        change = abs(current.rss - trial.rss) <= tol * current.rss + floor
        settled = change and np.linalg.norm(delta) <= tol * (np.linalg.norm(current.values) + tol)
        if trial.rss < current.rss:
            current, damping = trial, damping / 10
        else:
            damping *= 10
        final = _finish(residuals, current, tol * current.rss + floor) if settled else None
        if final is not None:
            return final, step, f"converged: relative RSS change and step below tol={tol:g}", True
        if damping > DAMPING_MAX:
            return current, step, "stalled: no step lowers the RSS any further", False
    return current, max_steps, f"stopped after max_steps={max_steps} steps", False


def _finish(residuals: _Residuals, current: _Trial, limit: float) -> _Trial | None:
    """At a minimum, a full Gauss–Newton step would lower the RSS by at most ``limit`` by the
    linear model, however strongly the steps were damped: then take that step (it settles
    the digits the RSS can no longer tell apart) unless it raises the RSS beyond ``limit``.
    ``None`` when ``current`` is not a minimum.
    """
    step = _damped_step(current.jacobian, current.residual, 0.0)
    gain = current.rss - float(np.sum((current.residual + current.jacobian @ step) ** 2))
    if gain > limit:
        return None
    final = residuals(current.values + step)
    return final if final.rss <= current.rss + limit else current


def _damped_step(jacobian: np.ndarray, residual: np.ndarray, damping: float) -> np.ndarray:
    """δ minimising |Jδ + r|² + λ·Σ diag(JᵀJ)ⱼ δⱼ², i.e. (JᵀJ + λ·diag(JᵀJ)) δ = -Jᵀr, solved
    by SVD as a stacked least-squares problem in the column-scaled Jacobian J·D⁻¹ (D: the
    column norms), so that neither the squared condition number nor the columns' scales
    (x² beside 1 for x near 10^5) decide what counts as rank-deficient; minimum-norm when
    the scaled problem is singular.

    >>> _damped_step(np.array([[1.0], [1.0]]), np.array([-2.0, -4.0]), 0.0)
    array([3.])
    >>> x = 1e5 + 1e4 * np.arange(4.0)  # columns of norm 3e10, 2e5 and 2
    >>> _damped_step(np.column_stack([x**2, x, np.ones(4)]), -(x**2 - x + 1), 0.0).round(4)
    array([ 1., -1.,  1.])
    """
    scaled, norms = _scaled(jacobian)
    system = np.vstack([scaled, np.sqrt(damping) * np.eye(norms.size)])
    target = np.concatenate([-residual, np.zeros(norms.size)])
    no_step = np.full(jacobian.shape[1], np.nan)  # the caller rejects it and damps harder
    if not (np.all(np.isfinite(system)) and np.all(np.isfinite(target))):
        return no_step  # (LAPACK would print "illegal value" and not converge)
    try:
        return np.linalg.lstsq(system, target, rcond=None)[0] / norms
    except np.linalg.LinAlgError:  # SVD did not converge (entries near 1e300)
        return no_step


def _scaled(jacobian: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """J with each column divided by its norm (a zero column left as it is), and the norms
    (1 for a zero column).

    >>> _scaled(np.array([[3.0, 0.0], [4.0, 0.0]]))[1]
    array([5., 1.])
    """
    with np.errstate(over="ignore", invalid="ignore"):  # (a huge column: checked by callers)
        norms = np.sqrt(np.sum(jacobian**2, axis=0))
    norms = np.where((norms > 0) & np.isfinite(norms), norms, 1.0)
    return jacobian / norms, norms


# --- statistics --------------------------------------------------------------------------


def _standard_errors(
    jacobian: np.ndarray, rss: float, params: tuple[str, ...], warnings: list[str]
) -> np.ndarray:
    """sqrt(diag(inv(JᵀJ)) · RSS/(n-p)) from the SVD of the column-scaled J; NaN, with a
    warning, when n ≤ p or the scaled JᵀJ is singular (the data do not determine some
    parameter: scaling alone, x² beside 1, is no reason)."""
    n, p = jacobian.shape
    undefined = np.full(p, math.nan)
    scaled, norms = _scaled(jacobian)
    _, singular, vt = np.linalg.svd(scaled, full_matrices=n < p)  # (vt: p by p; no n by n U)
    rank = int(np.sum(singular > singular[0] * max(n, p) * EPS)) if singular.size else 0
    if rank < p:  # (fewer rows than parameters too: many values fit as well as these)
        tied = [name for name, c in zip(params, vt[-1]) if abs(c) > 0.1]
        warnings.append(
            f"JᵀJ is singular: the data do not determine {' and '.join(tied)}"
            f"{' separately' if len(tied) > 1 else ''} (these values are one fit of many); "
            "the standard errors are undefined (NaN)"
        )
        return undefined
    if n <= p:
        warnings.append(
            f"{n} data rows for {p} parameters leave no degrees of freedom: "
            "the standard errors are undefined (NaN)"
        )
        return undefined
    covariance = (vt.T / singular**2) @ vt * (rss / (n - p))
    return np.sqrt(np.diag(covariance)) / norms


def _r_squared(rss: float, y: np.ndarray, warnings: list[str]) -> float:
    tss = float(np.sum((y - y.mean()) ** 2))
    if tss == 0:
        warnings.append(f"y is constant ({y[0]:g}): R² is undefined (NaN)")
        return math.nan
    return 1 - rss / tss


def concatenate(chunks: Iterable[Points]) -> dict[str, np.ndarray]:
    """The chunks of a data file as one array per column.

    >>> import io
    >>> concatenate(read_points(io.StringIO("x\\n1\\n2\\n"), chunk_rows=1))
    {'x': array([1., 2.])}
    """
    chunks = list(chunks)
    return {name: np.concatenate([c.arrays[name] for c in chunks]) for name in chunks[0].names}
