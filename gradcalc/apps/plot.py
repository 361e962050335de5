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

import functools
import math
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.core.errors import InputError, reason_of
from gradcalc.core.numbers import format_number
from gradcalc.core.ops import UNDEFINED
from gradcalc.core.tape import NON_FINITE_VALUE
from gradcalc.engine.api import Options, compile_expression, gradient_at
from gradcalc.engine.evaluate import evaluate
from gradcalc.engine.points import Points, constant_value, parse_at
from gradcalc.lang.graph import Graph

_label = functools.partial(format_number, digits=6)  # titles and labels: 6 significant digits

if TYPE_CHECKING:
    from matplotlib.axes import Axes

At = Sequence[str] | Mapping[str, float]
Span = tuple[float, float]

HALF_SPAN = 5.0  # default span: the point ± this
TERMINAL_SAMPLES = 401  # odd, so that the middle of the span and whole numbers are sampled
FILE_SAMPLES = 801
CONTOUR_SAMPLES = 201
CONTOUR_LEVELS = 15
ARROW_LENGTH = 0.2  # the gradient arrow's length, as a fraction of the span
PATH_MARGIN = 0.15  # around a path, as a fraction of its extent
MIN_SIZE = (40, 12)  # smallest terminal plot: columns, lines
FILE_FORMATS = (".png", ".svg")
TITLE_WIDTH = 70  # characters per line of a file's title
PANEL_TITLE_WIDTH = 50  # of a panel's title, two panels side by side
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

    >>> tangent_plot("log(x)", at={"x": 1.0}, span=(-5, 5)).splitlines()[0].strip()
    'log(x) at x=1: value 0, slope 1'
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
    route = _Curve(xs[finite], ys[finite])
    half = max(np.ptp(route.x), np.ptp(route.y), 1e-3) * (0.5 + PATH_MARGIN)
    middles = [(float(v.min()) + float(v.max())) / 2 for v in (route.x, route.y)]
    grid = np.meshgrid(*(np.linspace(m - half, m + half, CONTOUR_SAMPLES) for m in middles))
    surface = _defined_values(graph, dict(zip(graph.variables, grid)))
    panels = [
        (
            lambda ax: _path_file(ax, grid, surface, route, graph.variables),
            _Frame(f"{title}: path", *graph.variables),
        ),
        (
            lambda ax: _loss_file(ax, loss, _log_scale(loss)),
            _Frame(f"{title}: value", "step", _loss_label(loss)),
        ),
    ]
    _write(out, panels, DESCENT_FIGURE_SIZE)


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
    log = _log_scale(curve)
    label = _loss_label(curve)
    if out is None:
        return _terminal(
            lambda plt: _loss_terminal(plt, curve, log),
            _Frame(title, "step", label, width=width, height=height),
        )
    _write(
        out, [(lambda ax: _loss_file(ax, curve, log), _Frame(title, "step", label))], FIGURE_SIZE
    )
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
    data = _Curve(xs, ys)
    lo, hi = _padded(float(xs.min()), float(xs.max()), 0.0)  # widened if one x
    grid = np.linspace(lo, hi, TERMINAL_SAMPLES if out is None else FILE_SAMPLES)
    with np.errstate(all="ignore"):
        fitted = np.broadcast_to(np.asarray(curve(grid), dtype=float), grid.shape)
    line = _Curve(grid, np.where(np.isfinite(fitted), fitted, np.nan))
    if out is None:
        return _terminal(
            lambda plt: _fit_terminal(plt, data, line), _Frame(title, *labels, width, height)
        )
    _write(out, [(lambda ax: _fit_file(ax, data, line), _Frame(title, *labels))], FIGURE_SIZE)
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


@dataclass(frozen=True)
class _Curve:
    """Points of a curve; ``y`` is NaN where it is undefined."""

    x: np.ndarray
    y: np.ndarray

    def pieces(self) -> Iterator[_Curve]:
        """The runs of consecutive defined points (a terminal plot would join across gaps)."""
        defined = np.isfinite(self.y)
        edges = np.flatnonzero(np.diff(defined.astype(np.int8))) + 1
        for start, stop in zip(np.r_[0, edges], np.r_[edges, defined.size]):
            if defined[start]:
                yield _Curve(self.x[start:stop], self.y[start:stop])


@dataclass(frozen=True)
class _Frame:
    """Title, axis labels and, for the terminal, the size in columns and lines."""

    title: str
    xlabel: str
    ylabel: str
    width: int = 80
    height: int = 24


@dataclass(frozen=True)
class _Tangent:
    """A function of one variable on a grid, and its tangent at the point."""

    expression: str
    name: str
    point: str
    x0: float
    y0: float
    slope: float
    curve: _Curve

    def title(self) -> str:
        value, slope = _label(self.y0), _label(self.slope)
        return f"{self.expression} at {self.point}: value {value}, slope {slope}"

    def limits(self) -> Span:
        """The vertical axis: the function's range and the point, with a margin."""
        defined = self.curve.y[np.isfinite(self.curve.y)]
        return _padded(defined.min(initial=self.y0), defined.max(initial=self.y0), 0.1)

    def line(self) -> _Curve:
        """The tangent line, cut where it leaves the plot's vertical range."""
        (xlo, xhi), (ylo, yhi) = (self.curve.x[0], self.curve.x[-1]), self.limits()
        if self.slope != 0:
            ends = sorted(self.x0 + (y - self.y0) / self.slope for y in (ylo, yhi))
            xlo, xhi = max(xlo, ends[0]), min(xhi, ends[1])
        xs = np.array([xlo, xhi])
        return _Curve(xs, self.y0 + self.slope * (xs - self.x0))


@dataclass(frozen=True)
class _Contour:
    """A function of two variables on a grid, and its gradient at the point."""

    expression: str
    point: str
    point_xy: tuple[float, ...]
    value: float
    gradient: tuple[float, ...]
    grid: Sequence[np.ndarray]
    values: np.ndarray
    arrow: float  # the arrow's length in the plot's units

    def title(self) -> str:
        gradient = ", ".join(_label(g) for g in self.gradient)
        return (
            f"{self.expression} at {self.point}: value {_label(self.value)}, gradient ({gradient})"
        )


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
    missing = [v for v in graph.variables if v not in points.names]
    if missing:
        raise InputError(f"no value given for {', '.join(missing)} (use --at {missing[0]}=...)")
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
        raise InputError(f"the range {_label(lo)}:{_label(hi)} must be finite with lo < hi")
    return lo, hi


def _span_around(span: Span | None, name: str, centre: float) -> Span:
    """``span`` (checked to contain the point's coordinate), or the coordinate ± 5."""
    if span is None:
        return centre - HALF_SPAN, centre + HALF_SPAN
    lo, hi = _checked_span(span)
    if not lo <= centre <= hi:
        raise InputError(
            f"the point {name}={_label(centre)} is outside the range {_label(lo)}:{_label(hi)}"
        )
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
    """The value and gradient (one component per variable) at the point, from the tape."""
    result = gradient_at(graph, points, options=Options(check=False))[0]
    return float(result.value), [0.0 if g is None else float(g) for g in result.gradient.values()]


def _tangent(graph: Graph, points: Points, span: Span | None, samples: int) -> _Tangent:
    name = graph.variables[0]
    x0 = float(points.arrays[name])
    lo, hi = _span_around(span, name, x0)
    y0, (slope,) = _at_point(graph, points)
    xs = np.linspace(lo, hi, samples)
    curve = _Curve(xs, _defined_values(graph, {name: xs}))
    return _Tangent(graph.text, name, points.label(0), x0, y0, slope, curve)


# --- drawing ------------------------------------------------------------------------------


def _tangent_plot(
    graph: Graph, points: Points, span: Span | None, out: str | None, width: int, height: int
) -> str | None:
    tangent = _tangent(graph, points, span, TERMINAL_SAMPLES if out is None else FILE_SAMPLES)
    frame = _Frame(tangent.title(), tangent.name, f"f({tangent.name})", width, height)
    if out is None:
        return _terminal(lambda plt: _tangent_terminal(plt, tangent), frame)
    _write(out, [(lambda ax: _tangent_file(ax, tangent), frame)], FIGURE_SIZE)
    return None


def _tangent_terminal(plt: Any, tangent: _Tangent) -> None:
    for k, piece in enumerate(tangent.curve.pieces()):
        plt.plot(
            piece.x, piece.y, marker="braille", label=None if k else f"f = {tangent.expression}"
        )
    line = tangent.line()
    plt.plot(line.x, line.y, marker="·", label=f"tangent, slope {_label(tangent.slope)}")
    plt.scatter([tangent.x0], [tangent.y0], marker="●", label=f"point ({tangent.point})")
    plt.xlim(tangent.curve.x[0], tangent.curve.x[-1])
    plt.ylim(*tangent.limits())


def _tangent_file(ax: Axes, tangent: _Tangent) -> None:
    ax.plot(
        tangent.curve.x, tangent.curve.y, lw=2, label=f"f({tangent.name}) = {tangent.expression}"
    )
    line = tangent.line()
    ax.plot(line.x, line.y, "--", lw=1.5, label=f"tangent, slope {_label(tangent.slope)}")
    ax.plot(tangent.x0, tangent.y0, "o", ms=8, label=f"{tangent.point}, f = {_label(tangent.y0)}")
    ax.set_xlim(tangent.curve.x[0], tangent.curve.x[-1])
    ax.set_ylim(*tangent.limits())


def _contour_plot(graph: Graph, points: Points, span: Span | None, out: str | None) -> None:
    names = graph.variables
    if out is None:
        raise InputError(
            f"a plot of two variables ({', '.join(names)}) needs --out fig.png or fig.svg: "
            "a terminal cannot show contour lines"
        )
    contour = _contour(graph, points, span)
    frame = _Frame(contour.title(), names[0], names[1])
    _write(out, [(lambda ax: _contour_file(ax, contour), frame)], CONTOUR_FIGURE_SIZE)


def _contour(graph: Graph, points: Points, span: Span | None) -> _Contour:
    point = tuple(float(points.arrays[n]) for n in graph.variables)
    spans = [_span_around(span, n, c) for n, c in zip(graph.variables, point)]
    value, gradient = _at_point(graph, points)
    grid = np.meshgrid(*(np.linspace(lo, hi, CONTOUR_SAMPLES) for lo, hi in spans))
    values = _defined_values(graph, dict(zip(graph.variables, grid)))
    length = ARROW_LENGTH * min(hi - lo for lo, hi in spans)
    return _Contour(
        graph.text, points.label(0), point, value, tuple(gradient), grid, values, length
    )


def _contour_file(ax: Axes, contour: _Contour) -> None:
    x, y = contour.grid
    z = np.ma.masked_invalid(contour.values)
    lines = ax.contour(x, y, z, CONTOUR_LEVELS, cmap="viridis", linewidths=1)
    ax.clabel(lines, fontsize=7)
    if z.min() < contour.value < z.max():
        ax.contour(x, y, z, [contour.value], colors="crimson", linestyles="dotted")
        ax.plot([], [], ":", color="crimson", label=f"level f = {_label(contour.value)}")  # legend
    label = f"{contour.point}, f = {_label(contour.value)}"
    ax.plot(*contour.point_xy, "o", color="crimson", ms=7, label=label)
    norm = float(np.hypot(contour.gradient[0], contour.gradient[1]))
    if norm > 0:
        dx, dy = np.array(contour.gradient) * contour.arrow / norm
        style: dict[str, Any] = {
            "angles": "xy",
            "scale_units": "xy",
            "scale": 1,
            "color": "crimson",
        }
        ax.quiver(*contour.point_xy, dx, dy, **style, label="gradient direction")
    ax.set_aspect("equal")


def _loss(values: Sequence[float], steps: Sequence[float] | None) -> _Curve:
    """The values by step (0, 1, 2, ... unless ``steps`` says), NaN where not finite."""
    ys = np.asarray(values, dtype=float).reshape(-1)
    xs = np.arange(ys.size, dtype=float) if steps is None else np.asarray(steps, dtype=float)
    if xs.shape != ys.shape:
        raise InputError(f"loss_plot: {xs.size} steps for {ys.size} values")
    finite = np.isfinite(ys)
    if not finite.any():
        raise InputError("nothing to plot: no recorded step has a finite value")
    return _Curve(xs, np.where(finite, ys, np.nan))


def _log_scale(curve: _Curve) -> bool:
    """A log scale when every finite value is positive."""
    return bool(np.all(curve.y[np.isfinite(curve.y)] > 0))


def _loss_label(curve: _Curve) -> str:
    return "value (log scale)" if _log_scale(curve) else "value"


def _path_file(ax: Axes, grid, values: np.ndarray, path: _Curve, names: Sequence[str]) -> None:
    x, y = grid
    z = np.ma.masked_invalid(values)
    levels = np.unique(np.quantile(z.compressed(), np.linspace(0, 1, CONTOUR_LEVELS + 2)[1:-1]))
    if levels.size >= 2:
        lines = ax.contour(x, y, z, levels, cmap="viridis", linewidths=1)
        ax.clabel(lines, fontsize=7, fmt="%.3g")
    ax.plot(
        path.x, path.y, ".-", color="crimson", lw=1.2, ms=3, label=f"path ({path.x.size} points)"
    )
    start = f"start ({names[0]}={_label(path.x[0])}, {names[1]}={_label(path.y[0])})"
    end = f"end ({names[0]}={_label(path.x[-1])}, {names[1]}={_label(path.y[-1])})"
    ax.plot(path.x[0], path.y[0], "o", color="black", ms=7, label=start)
    ax.plot(path.x[-1], path.y[-1], "*", color="crimson", ms=13, label=end)
    ax.set_aspect("equal")


def _loss_terminal(plt: Any, curve: _Curve, log: bool) -> None:
    for k, piece in enumerate(curve.pieces()):
        plt.plot(piece.x, piece.y, marker="braille", label=None if k else "value")
    if log:
        plt.yscale("log")
        defined = curve.y[np.isfinite(curve.y)]
        lo, hi = np.log10([defined.min(), defined.max()])
        powers = list(range(math.ceil(lo - 1e-9), math.floor(hi + 1e-9) + 1))
        rows = max(plt_rows(plt) // 2, 2)  # at most one tick every other row: plotext would
        stride = math.ceil(len(powers) / rows)  # otherwise drop clashing labels at random
        powers = powers[::stride]
        if len(powers) >= 2:  # powers of ten as ticks, when at least two are in range
            plt.yticks([10.0**k for k in powers], [f"1e{k}" for k in powers])


def plt_rows(plt: Any) -> int:
    """The plot area's height in rows (plotext's current plot size)."""
    return int(plt.plot_size()[1]) - 4  # less the frame and the x axis


def _loss_file(ax: Axes, curve: _Curve, log: bool) -> None:
    ax.plot(curve.x, curve.y, ".-" if curve.x.size <= 50 else "-", label="value")
    if log:
        ax.set_yscale("log")


def _fit_terminal(plt: Any, data: _Curve, line: _Curve) -> None:
    for k, piece in enumerate(line.pieces()):
        plt.plot(piece.x, piece.y, marker="braille", label=None if k else "fitted curve")
    plt.scatter(data.x, data.y, marker="●", label="data")


def _fit_file(ax: Axes, data: _Curve, line: _Curve) -> None:
    ax.plot(data.x, data.y, "o", ms=4, alpha=0.7, label="data")
    ax.plot(line.x, line.y, lw=2, label="fitted curve")


def _terminal(draw: Callable[[Any], None], frame: _Frame) -> str:
    """Draw with plotext at a fixed size (whatever the terminal) and return the text without
    colour codes."""
    import plotext as plt  # imported here: it is only needed for terminal plots

    if frame.width < MIN_SIZE[0] or frame.height < MIN_SIZE[1]:
        raise InputError(
            f"a terminal plot needs at least {MIN_SIZE[0]} columns and {MIN_SIZE[1]} lines"
        )
    plt.clear_figure()
    plt.limitsize(False, False)
    plt.plotsize(frame.width, frame.height - 1)  # and a line for the title
    plt.theme("clear")
    try:
        draw(plt)
        plt.xlabel(frame.xlabel)
        plt.ylabel(frame.ylabel)
        body = plt.uncolorize(plt.build())
    except (OverflowError, ZeroDivisionError):  # plotext scales to integer rows and columns
        raise InputError(
            "the values to plot span too wide or too narrow a range for a terminal plot "
            "(plotext cannot scale them); try a smaller --range or --out plot.svg"
        ) from None
    finally:
        plt.clear_figure()
    return f"{_fit_width(frame.title, frame.width).center(frame.width)}\n{body}"


def _write(out: str, panels: Sequence[tuple[Callable[[Axes], None], _Frame]], size: Span) -> None:
    """Draw each panel (side by side) with matplotlib (Agg, no pyplot: nothing global to close)
    and write ``out``."""
    if Path(out).suffix.lower() not in FILE_FORMATS:
        raise InputError(f"--out {out}: the file name must end in .png or .svg")
    try:
        import matplotlib  # noqa: F401  -- optional: pip install 'gradcalc[plot]'
    except ImportError:
        raise InputError(f"writing {out} needs matplotlib: pip install 'gradcalc[plot]'") from None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    for k, (draw, frame) in enumerate(panels, start=1):
        ax = figure.add_subplot(1, len(panels), k)
        draw(ax)
        ax.set_title(
            textwrap.fill(frame.title, TITLE_WIDTH if len(panels) == 1 else PANEL_TITLE_WIDTH)
        )
        ax.set_xlabel(frame.xlabel)
        ax.set_ylabel(frame.ylabel)
        ax.grid(alpha=0.3)
        ax.legend()
    try:
        figure.savefig(out)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        raise InputError(f"cannot write {out}: {reason_of(error)}") from None


def _padded(lo: float, hi: float, margin: float) -> Span:
    """``lo..hi`` widened by ``margin`` of its length on each side (by 1 if it is a point)."""
    if hi - lo <= 0:
        return lo - 1, hi + 1
    extra = margin * (hi - lo)
    return lo - extra, hi + extra


def _fit_width(text: str, width: int) -> str:
    """Shorten a title to ``width`` (plotext's own title vanishes when it is too wide)."""
    return text if len(text) <= width else text[: width - 1] + "…"
