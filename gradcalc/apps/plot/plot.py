"""Plots: a function with its tangent line, contour lines with the gradient arrow, a loss curve
and a fitted curve -- as text for the terminal (plotext) or as a PNG/SVG file (matplotlib).

Values on the plotting grid come from ONE tape evaluation over all the grid's points; the slope
or gradient at the point comes from the tape as well. Where the function is undefined (outside
its domain, or not a finite number) nothing is drawn: the curve has a gap there.

>>> text = tangent_plot("x**2", at=["x=2"], width=60, height=16)
>>> print(text.splitlines()[0].strip())
x**2 at x=2: value 4, slope 4
>>> len(text.splitlines()), {len(line) for line in text.splitlines()}
(16, {60})

Writing a file needs matplotlib (``pip install 'gradcalc[plot]'``); two-variable plots are
files only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from gradcalc.apps.plot.figures import (
    Contour,
    Curve,
    Frame,
    Span,
    Tangent,
    contour_file,
    curve_file,
    curve_terminal,
    fit_file,
    fit_terminal,
    log_scale,
    loss_file,
    loss_label,
    loss_terminal,
    padded,
    path_file,
    six,
    tangent_file,
    tangent_terminal,
    terminal,
    write,
)
from gradcalc.apps.plot.poles import broken_at_poles
from gradcalc.core.errors import InputError
from gradcalc.core.naming import function_head
from gradcalc.core.ops import UNDEFINED
from gradcalc.core.problems import NON_FINITE_VALUE
from gradcalc.engine.evaluate.evaluate import evaluate
from gradcalc.engine.evaluate.names import require_values
from gradcalc.engine.evaluate.points import Points, constant_value, parse_at
from gradcalc.engine.run.api import Options, compile_expression, gradient_at
from gradcalc.lang.graph import Graph

At = Sequence[str] | Mapping[str, float]

HALF_SPAN = 5.0  # default span: the point ± this
TERMINAL_SAMPLES = 401  # odd, so that the middle of the span and whole numbers are sampled
FILE_SAMPLES = 801
CONTOUR_SAMPLES = 201
ARROW_LENGTH = 0.2  # the gradient arrow's length, as a fraction of the span
PATH_MARGIN = 0.15  # around a path, as a fraction of its extent
FIGURE_SIZE = (8.0, 5.0)  # inches, at 100 dpi: 800 x 500 pixels
CONTOUR_FIGURE_SIZE = (7.0, 6.5)
DESCENT_FIGURE_SIZE = (12.0, 5.5)


def plot(
    expression: str,
    at: At,
    span: Span | None = None,
    out: str | None = None,
    width: int = 80,
    height: int = 24,
) -> str | None:
    """A tangent plot for a function of one variable, a contour plot for two (what
    ``gradcalc plot`` draws).

    >>> plot("x*y", at=["x=1,y=2"])
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: a plot of two variables (x, y) needs --out fig.png or fig.s...
    """
    graph, points = _prepare(expression, at)
    if len(graph.variables) == 1:
        return _tangent_plot(graph, points, span, out, width, height)
    _contour_plot(graph, points, span, out)
    return None


def function_plot(
    expression: str,
    span: Span | None = None,
    out: str | None = None,
    width: int = 80,
    height: int = 24,
) -> str | None:
    """A function of one variable over ``span`` (default -5..5), without a point: what
    ``gradcalc plot "sin(x)"`` draws. Returns the terminal plot's text, or ``None`` when
    ``out`` was written; gaps where the function is undefined.

    >>> lines = function_plot("log(x)", span=(-1, 4)).splitlines()
    >>> lines[0][:44], lines[1].strip()  # (ln is undefined for x <= 0: a note says so)
    ('note: f is not a finite number at 81 of 401 ', 'f(x) = log(x) on [-1, 4]')
    """
    graph = compile_expression(expression)
    if len(graph.targets) != 1 or len(graph.variables) != 1:
        raise InputError(
            "a plot without a point draws one function of one variable; this has "
            f"{len(graph.variables)}{_listed(graph.variables)}: give the point with --at"
        )
    name = graph.variables[0]
    lo, hi = (-HALF_SPAN, HALF_SPAN) if span is None else _checked_span(span)
    xs = np.linspace(lo, hi, TERMINAL_SAMPLES if out is None else FILE_SAMPLES)
    f = lambda at: _defined_values(graph, {name: at})  # noqa: E731  (f at some x)
    curve = broken_at_poles(Curve(xs, f(xs)), f)
    if not np.isfinite(curve.y).any():
        raise InputError(f"nothing to plot: {expression} is undefined on [{six(lo)}, {six(hi)}]")
    head, body = function_head(graph.text, [name])
    title = f"{head + ' = ' if head else ''}{body} on [{six(lo)}, {six(hi)}]"
    frame = Frame(title, name, f"f({name})", width, height)
    if out is None:
        return _gaps(curve) + terminal(lambda plt: curve_terminal(plt, curve, graph.text), frame)
    write(out, [(lambda ax: curve_file(ax, curve, graph.text), frame)], FIGURE_SIZE)
    return None


def tangent_plot(
    expression: str,
    at: At,
    span: Span | None = None,
    out: str | None = None,
    width: int = 80,
    height: int = 24,
) -> str | None:
    """The function of one variable over ``span`` with its tangent line at the point.

    Args:
        expression: the function's text, e.g. ``"x**2"``.
        at: the point: ``["x=2"]`` (``--at`` specs) or ``{"x": 2.0}``.
        span: the interval of the horizontal axis (default: the point ± 5); it must
            contain the point.
        out: a ``.png`` or ``.svg`` file to write (needs matplotlib); without it, the plot
            is returned as text, ``width`` columns by ``height`` lines, without colour codes.

    Returns:
        The text of the terminal plot, or ``None`` when a file was written.

    Raises:
        InputError: a bad expression, point, span or file name, not exactly one variable,
            or matplotlib missing for a file.
        UndefinedError: the value or slope is undefined at the point.

    >>> lines = tangent_plot("log(x)", at={"x": 1.0}, span=(-5, 5)).splitlines()
    >>> lines[0][:44], lines[1].strip()  # (ln is undefined for x <= 0: a note says so)
    ('note: f is not a finite number at 201 of 401', 'log(x) at x=1: value 0, slope 1')
    """
    graph, points = _prepare(expression, at)
    if len(graph.variables) != 1:
        raise InputError(
            _wrong_count("a tangent plot", "one variable", graph.variables, "contour_plot")
        )
    return _tangent_plot(graph, points, span, out, width, height)


def contour_plot(expression: str, at: At, span: Span | None = None, out: str | None = None) -> None:
    """Contour lines of a function of two variables around the point, with the gradient
    arrow at the point, written to ``out`` (``.png`` or ``.svg``; needs matplotlib).

    ``span`` is the interval of both axes (default: each coordinate of the point ± 5); the
    arrow points along the gradient (its length is a fixed fraction of the span, its
    components are in the legend).

    Raises:
        InputError: as :func:`tangent_plot`, and when ``out`` is missing: a terminal cannot
            show contour lines.
        UndefinedError: the value or gradient is undefined at the point.

    >>> contour_plot("x**2", at=["x=1"], out="fig.png")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: a contour plot needs two variables; this has 1 (x): use tan...
    """
    graph, points = _prepare(expression, at)
    if len(graph.variables) != 2:
        raise InputError(
            _wrong_count("a contour plot", "two variables", graph.variables, "tangent_plot")
        )
    _contour_plot(graph, points, span, out)


def descent_plot(
    expression: str,
    path: Mapping[str, Sequence[float]],
    values: Sequence[float],
    steps: Sequence[float],
    out: str,
    title: str,
) -> None:
    """A minimisation of a function of two variables, in two panels written to ``out``
    (``.png`` or ``.svg``; needs matplotlib): the path over the contour lines, and the value
    at each recorded step (as :func:`loss_plot` draws it).

    ``path`` gives each variable's coordinates at the recorded steps (``{"x": [...], "y":
    [...]}``), ``values`` the function's value there and ``steps`` their step numbers;
    points that are not finite are left out. The window is a square around the path with a
    margin; the levels are spread over the values in the window (quantiles), so a narrow
    valley shows as well as a round bowl; the start and the end are marked.

    >>> descent_plot("x**2 + y**2", {"x": [1.0, 0.0]}, [1.0, 0.0], [0, 1], "fig.png", "gd")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: descent_plot draws one function of two variables, given t...

    Raises:
        InputError: as :func:`contour_plot` and :func:`loss_plot`, and a path without a
            finite point.
    """
    graph = compile_expression(expression, list(path))
    coordinates = [np.asarray(path.get(n, ()), dtype=float).reshape(-1) for n in graph.variables]
    loss = _loss(values, steps)
    if (
        len(graph.targets) != 1
        or len(graph.variables) != 2
        or set(path) != set(graph.variables)
        or not coordinates[0].shape == coordinates[1].shape == loss.x.shape
    ):
        raise InputError(
            "descent_plot draws one function of two variables, given the path's coordinates "
            f"of each ({', '.join(graph.variables)}), as many as values and steps"
        )
    xs, ys = coordinates
    finite = np.isfinite(xs) & np.isfinite(ys)
    if not finite.any():
        raise InputError("nothing to plot: no point of the path is finite")
    route = Curve(xs[finite], ys[finite])
    half = max(np.ptp(route.x), np.ptp(route.y), 1e-3) * (0.5 + PATH_MARGIN)
    middles = [(float(v.min()) + float(v.max())) / 2 for v in (route.x, route.y)]
    grid = np.meshgrid(*(np.linspace(m - half, m + half, CONTOUR_SAMPLES) for m in middles))
    surface = _defined_values(graph, dict(zip(graph.variables, grid)))
    panels = [
        (
            lambda ax: path_file(ax, grid, surface, route, graph.variables),
            Frame(f"{title}: path", *graph.variables),
        ),
        (
            lambda ax: loss_file(ax, loss, log_scale(loss)),
            Frame(f"{title}: value", "step", loss_label(loss)),
        ),
    ]
    write(out, panels, DESCENT_FIGURE_SIZE)


def loss_plot(
    values: Sequence[float],
    out: str | None,
    title: str,
    width: int = 80,
    height: int = 24,
    steps: Sequence[float] | None = None,
) -> str | None:
    """The value at each recorded step of a minimisation, on a log scale when every value
    is positive; non-finite values are left out.

    ``steps`` are the step numbers of the values (default 0, 1, 2, ...: give them when only
    every k-th step was recorded).

    >>> text = loss_plot([4.0, 1.0, 0.25, 0.0625], None, "minimize x**2", width=50, height=14)
    >>> len(text.splitlines()), "(log scale)" in text
    (14, True)
    """
    curve = _loss(values, steps)
    log = log_scale(curve)
    label = loss_label(curve)
    if out is None:
        return terminal(
            lambda plt: loss_terminal(plt, curve, log),
            Frame(title, "step", label, width=width, height=height),
        )
    write(out, [(lambda ax: loss_file(ax, curve, log), Frame(title, "step", label))], FIGURE_SIZE)
    return None


def fit_plot(
    x: np.ndarray,
    y: np.ndarray,
    curve: Callable[[np.ndarray], np.ndarray],
    out: str | None,
    title: str,
    width: int = 80,
    height: int = 24,
    labels: tuple[str, str] = ("x", "y"),
) -> str | None:
    """The data points ``(x, y)`` and the fitted ``curve`` (called once, on a grid spanning
    ``x``); where the curve is not finite it is left out. ``labels`` name the two axes (the
    data's column names).

    >>> text = fit_plot(np.array([0.0, 1, 2]), np.array([1.0, 3, 5]), lambda t: 2 * t + 1,
    ...                 None, "fit a*x + b", width=50, height=14)
    >>> "fitted curve" in text, "data" in text
    (True, True)
    """
    xs, ys = (np.asarray(v, dtype=float) for v in (x, y))
    if xs.ndim != 1 or xs.shape != ys.shape:
        raise InputError("fit_plot needs x and y as two 1-d arrays of the same length")
    finite = np.isfinite(xs) & np.isfinite(ys)
    if not finite.any():
        raise InputError("nothing to plot: no data point is finite")
    xs, ys = xs[finite], ys[finite]
    data = Curve(xs, ys)
    lo, hi = padded(float(xs.min()), float(xs.max()), 0.0)  # widened if one x
    grid = np.linspace(lo, hi, TERMINAL_SAMPLES if out is None else FILE_SAMPLES)
    with np.errstate(all="ignore"):
        fitted = np.broadcast_to(np.asarray(curve(grid), dtype=float), grid.shape)
    line = Curve(grid, np.where(np.isfinite(fitted), fitted, np.nan))
    if out is None:
        return terminal(
            lambda plt: fit_terminal(plt, data, line), Frame(title, *labels, width, height)
        )
    write(out, [(lambda ax: fit_file(ax, data, line), Frame(title, *labels))], FIGURE_SIZE)
    return None


def parse_span(text: str) -> Span:
    """Parse ``--range lo:hi``; each end is a constant expression.

    >>> parse_span("-pi:pi") == (-np.pi, np.pi), parse_span("0:1/2")
    (True, (0.0, 0.5))

    Raises:
        InputError: not two constants separated by ``:``, or ``lo >= hi``.
    """
    lo, colon, hi = text.partition(":")
    if not colon or not lo.strip() or not hi.strip():
        raise InputError(f"--range expects lo:hi like -5:5, got {text!r}")
    return _checked_span((constant_value(lo.strip()), constant_value(hi.strip())))


# --- preparing the function ------------------------------------------------------------


def _prepare(expression: str, at: At) -> tuple[Graph, Points]:
    """Compile ``expression`` for one point that gives each of its one or two variables a
    value."""
    points = parse_at([at] if isinstance(at, str) else _specs(at))
    if points.count != 1:
        raise InputError(f"a plot is drawn at one point; got {points.count}: give one --at")
    graph = compile_expression(expression, points.names)
    if len(graph.targets) != 1:
        names = ", ".join(graph.target_names)
        raise InputError(f"a plot shows one function; this has {len(graph.targets)} ({names})")
    require_values(graph, points.names)
    if not 1 <= len(graph.variables) <= 2:
        raise InputError(
            "a plot shows a function of one or two variables; "
            f"this has {len(graph.variables)}{_listed(graph.variables)}"
        )
    return graph, points


def _specs(at: At) -> Sequence[str]:
    """``--at`` specs for the point (a mapping becomes one spec: ``{"x": 2.0}`` -> ``x=2``)."""
    if not isinstance(at, Mapping):
        return at
    try:
        return [",".join(f"{name}={float(v)!r}".removesuffix(".0") for name, v in at.items())]
    except (TypeError, ValueError):
        raise InputError("a plot is drawn at one point: give one number per variable") from None


def _wrong_count(what: str, needs: str, variables: Sequence[str], instead: str) -> str:
    return f"{what} needs {needs}; this has {len(variables)}{_listed(variables)}: use {instead}"


def _listed(names: Sequence[str]) -> str:
    return f" ({', '.join(names)})" if names else ""


def _checked_span(span: Span) -> Span:
    lo, hi = (float(v) for v in span)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise InputError(f"the range {six(lo)}:{six(hi)} must be finite with lo < hi")
    return lo, hi


def _span_around(span: Span | None, name: str, centre: float) -> Span:
    """``span`` (checked to contain the point's coordinate), or the coordinate ± 5."""
    if span is None:
        return centre - HALF_SPAN, centre + HALF_SPAN
    lo, hi = _checked_span(span)
    if not lo <= centre <= hi:
        raise InputError(f"the point {name}={six(centre)} is outside the range {six(lo)}:{six(hi)}")
    return lo, hi


def _defined_values(graph: Graph, arrays: Mapping[str, np.ndarray]) -> np.ndarray:
    """The function's values in one tape pass; NaN where undefined or not finite."""
    run = evaluate(graph, arrays)
    values = np.array(run.values[0], dtype=float)
    for problem in run.problems[0]:
        if problem.kind in (UNDEFINED, NON_FINITE_VALUE):
            values[np.broadcast_to(problem.mask, values.shape)] = np.nan
    values[~np.isfinite(values)] = np.nan
    return values


def _at_point(graph: Graph, points: Points) -> tuple[float, list[float]]:
    """The value and gradient (one component per variable) at the point, from the tape;
    checked, so that a point where float64 rounded past a singularity is undefined."""
    result = gradient_at(graph, points, options=Options(check=True))[0]
    return float(result.value), [0.0 if g is None else float(g) for g in result.gradient.values()]


def _tangent(graph: Graph, points: Points, span: Span | None, samples: int) -> Tangent:
    name = graph.variables[0]
    x0 = float(points.arrays[name])
    lo, hi = _span_around(span, name, x0)
    y0, (slope,) = _at_point(graph, points)
    xs = np.linspace(lo, hi, samples)
    f = lambda at: _defined_values(graph, {name: at})  # noqa: E731  (f at some x)
    curve = broken_at_poles(Curve(xs, f(xs)), f)
    return Tangent(graph.text, name, points.label(0), x0, y0, slope, curve)


# --- drawing ------------------------------------------------------------------------------


def _tangent_plot(
    graph: Graph, points: Points, span: Span | None, out: str | None, width: int, height: int
) -> str | None:
    tangent = _tangent(graph, points, span, TERMINAL_SAMPLES if out is None else FILE_SAMPLES)
    frame = Frame(tangent.title(), tangent.name, f"f({tangent.name})", width, height)
    if out is None:
        return _gaps(tangent.curve) + terminal(lambda plt: tangent_terminal(plt, tangent), frame)
    write(out, [(lambda ax: tangent_file(ax, tangent), frame)], FIGURE_SIZE)
    return None


def _gaps(curve: Curve) -> str:
    """A note when f is not finite (overflow, or outside its domain) at some samples, which
    the plot leaves out: ``exp(x)`` over -1000..1000 overflows past 709.78 and drew an
    empty plot without a word.

    >>> print(_gaps(Curve(np.array([0.0, 1, 2, 3]), np.array([1.0, np.nan, np.nan, 2]))), end="")
    note: f is not a finite number at 2 of 4 samples (x from 1 to 2): left out of the plot
    """
    poles = curve.x[np.isinf(curve.y)]  # (breaks put between samples, not samples)
    near = ", ".join(f"{x:.6g}" for x in poles[:5]) + (", ..." if poles.size > 5 else "")
    broken = f"note: f has a pole near x = {near}: the curve is broken there\n" * bool(poles.size)
    missing = np.isnan(curve.y)
    if not missing.any():
        return broken
    xs = curve.x[missing]
    where = f"x from {xs.min():.6g} to {xs.max():.6g}"
    return broken + (
        f"note: f is not a finite number at {int(missing.sum())} of {missing.size - poles.size} "
        f"samples ({where}): left out of the plot\n"
    )


def _contour_plot(graph: Graph, points: Points, span: Span | None, out: str | None) -> None:
    names = graph.variables
    if out is None:
        raise InputError(
            f"a plot of two variables ({', '.join(names)}) needs --out fig.png or fig.svg: "
            "a terminal cannot show contour lines"
        )
    contour = _contour(graph, points, span)
    frame = Frame(contour.title(), names[0], names[1])
    write(out, [(lambda ax: contour_file(ax, contour), frame)], CONTOUR_FIGURE_SIZE)


def _contour(graph: Graph, points: Points, span: Span | None) -> Contour:
    point = tuple(float(points.arrays[n]) for n in graph.variables)
    spans = [_span_around(span, n, c) for n, c in zip(graph.variables, point)]
    value, gradient = _at_point(graph, points)
    grid = np.meshgrid(*(np.linspace(lo, hi, CONTOUR_SAMPLES) for lo, hi in spans))
    values = _defined_values(graph, dict(zip(graph.variables, grid)))
    length = ARROW_LENGTH * min(hi - lo for lo, hi in spans)
    return Contour(graph.text, points.label(0), point, value, tuple(gradient), grid, values, length)


def _loss(values: Sequence[float], steps: Sequence[float] | None) -> Curve:
    """The values by step (0, 1, 2, ... unless ``steps`` says), NaN where not finite."""
    ys = np.asarray(values, dtype=float).reshape(-1)
    xs = np.arange(ys.size, dtype=float) if steps is None else np.asarray(steps, dtype=float)
    if xs.shape != ys.shape:
        raise InputError(f"loss_plot: {xs.size} steps for {ys.size} values")
    finite = np.isfinite(ys)
    if not finite.any():
        raise InputError("nothing to plot: no recorded step has a finite value")
    return Curve(xs, np.where(finite, ys, np.nan))
