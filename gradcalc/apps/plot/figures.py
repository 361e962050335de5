"""How a plot is drawn: in the terminal (plotext's braille) or into a PNG or SVG file
(matplotlib), from the curves, frames, tangents and contours that :mod:`gradcalc.apps.plot.plot`
computes. Matplotlib and plotext are imported only when a plot is drawn.
"""

from __future__ import annotations

import functools
import math
import re
import textwrap
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.core.errors import InputError, reason_of
from gradcalc.core.numbers import format_number

if TYPE_CHECKING:
    from matplotlib.axes import Axes

Span = tuple[float, float]

six = functools.partial(format_number, digits=6)  # titles and labels: 6 significant digits

CONTOUR_LEVELS = 15
MIN_SIZE = (40, 12)  # smallest terminal plot: columns, lines
FILE_FORMATS = (".png", ".svg")
TITLE_WIDTH = 70  # characters per line of a file's title
PANEL_TITLE_WIDTH = 50  # of a panel's title, two panels side by side


@dataclass(frozen=True)
class Curve:
    """Points of a curve; ``y`` is NaN where it is undefined."""

    x: np.ndarray
    y: np.ndarray

    def pieces(self) -> Iterator[Curve]:
        """The runs of consecutive defined points (a terminal plot would join across gaps)."""
        defined = np.isfinite(self.y)
        edges = np.flatnonzero(np.diff(defined.astype(np.int8))) + 1
        for start, stop in zip(np.r_[0, edges], np.r_[edges, defined.size]):
            if defined[start]:
                yield Curve(self.x[start:stop], self.y[start:stop])


@dataclass(frozen=True)
class Frame:
    """Title, axis labels and, for the terminal, the size in columns and lines."""

    title: str
    xlabel: str
    ylabel: str
    width: int = 80
    height: int = 24


@dataclass(frozen=True)
class Tangent:
    """A function of one variable on a grid, and its tangent at the point."""

    expression: str
    name: str
    point: str
    x0: float
    y0: float
    slope: float
    curve: Curve

    def title(self) -> str:
        value, slope = six(self.y0), six(self.slope)
        return f"{self.expression} at {self.point}: value {value}, slope {slope}"

    def limits(self) -> Span:
        """The vertical axis: the function's range and the point, with a margin."""
        defined = self.curve.y[np.isfinite(self.curve.y)]
        return padded(defined.min(initial=self.y0), defined.max(initial=self.y0), 0.1)

    def line(self) -> Curve:
        """The tangent line, cut where it leaves the plot's vertical range."""
        (xlo, xhi), (ylo, yhi) = (self.curve.x[0], self.curve.x[-1]), self.limits()
        if self.slope != 0:
            ends = sorted(self.x0 + (y - self.y0) / self.slope for y in (ylo, yhi))
            xlo, xhi = max(xlo, ends[0]), min(xhi, ends[1])
        xs = np.array([xlo, xhi])
        return Curve(xs, self.y0 + self.slope * (xs - self.x0))


@dataclass(frozen=True)
class Contour:
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
        gradient = ", ".join(six(g) for g in self.gradient)
        return f"{self.expression} at {self.point}: value {six(self.value)}, gradient ({gradient})"


def tangent_terminal(plt: Any, tangent: Tangent) -> None:
    for k, piece in enumerate(tangent.curve.pieces()):
        plt.plot(
            piece.x, piece.y, marker="braille", label=None if k else f"f = {tangent.expression}"
        )
    line = tangent.line()
    plt.plot(line.x, line.y, marker="·", label=f"tangent, slope {six(tangent.slope)}")
    plt.scatter([tangent.x0], [tangent.y0], marker="●", label=f"point ({tangent.point})")
    plt.xlim(tangent.curve.x[0], tangent.curve.x[-1])
    plt.ylim(*tangent.limits())
    short_ticks(plt, np.array(tangent.limits()))


def tangent_file(ax: Axes, tangent: Tangent) -> None:
    ax.plot(
        tangent.curve.x, tangent.curve.y, lw=2, label=f"f({tangent.name}) = {tangent.expression}"
    )
    line = tangent.line()
    ax.plot(line.x, line.y, "--", lw=1.5, label=f"tangent, slope {six(tangent.slope)}")
    ax.plot(tangent.x0, tangent.y0, "o", ms=8, label=f"{tangent.point}, f = {six(tangent.y0)}")
    ax.set_xlim(tangent.curve.x[0], tangent.curve.x[-1])
    ax.set_ylim(*tangent.limits())


def contour_file(ax: Axes, contour: Contour) -> None:
    x, y = contour.grid
    z = np.ma.masked_invalid(contour.values)
    lines = ax.contour(x, y, z, CONTOUR_LEVELS, cmap="viridis", linewidths=1)
    ax.clabel(lines, fontsize=7)
    if z.min() < contour.value < z.max():
        ax.contour(x, y, z, [contour.value], colors="crimson", linestyles="dotted")
        ax.plot([], [], ":", color="crimson", label=f"level f = {six(contour.value)}")  # legend
    label = f"{contour.point}, f = {six(contour.value)}"
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


def log_scale(curve: Curve) -> bool:
    """A log scale when every finite value is positive."""
    return bool(np.all(curve.y[np.isfinite(curve.y)] > 0))


def loss_label(curve: Curve) -> str:
    return "value (log scale)" if log_scale(curve) else "value"


def path_file(ax: Axes, grid, values: np.ndarray, path: Curve, names: Sequence[str]) -> None:
    x, y = grid
    z = np.ma.masked_invalid(values)
    levels = np.unique(np.quantile(z.compressed(), np.linspace(0, 1, CONTOUR_LEVELS + 2)[1:-1]))
    if levels.size >= 2:
        lines = ax.contour(x, y, z, levels, cmap="viridis", linewidths=1)
        ax.clabel(lines, fontsize=7, fmt="%.3g")
    ax.plot(
        path.x, path.y, ".-", color="crimson", lw=1.2, ms=3, label=f"path ({path.x.size} points)"
    )
    start = f"start ({names[0]}={six(path.x[0])}, {names[1]}={six(path.y[0])})"
    end = f"end ({names[0]}={six(path.x[-1])}, {names[1]}={six(path.y[-1])})"
    ax.plot(path.x[0], path.y[0], "o", color="black", ms=7, label=start)
    ax.plot(path.x[-1], path.y[-1], "*", color="crimson", ms=13, label=end)
    ax.set_aspect("equal")


def loss_terminal(plt: Any, curve: Curve, log: bool) -> None:
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


#: From this magnitude on, a y tick is written short (plotext writes every digit of it).
WIDE_TICKS = 1e5
#: ... and below this one (0.000000000000000000050 for 5e-20).
NARROW_TICKS = 1e-3


def short_ticks(plt: Any, values: np.ndarray) -> None:
    """The y ticks of large or tiny values in short notation (``5.18e+21``, ``5e-20``):
    plotext writes all of a tick's digits, and labels of 20 characters left a blank plot
    (``plot "e^(20x)"``, ``plot "1e-300*x"``). An evenly spaced few, between the least and
    the greatest finite value, with the digits that tell them apart (``x + 1e15``)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return
    lo, hi = float(finite.min()), float(finite.max())
    if not NARROW_TICKS <= max(abs(lo), abs(hi)) < WIDE_TICKS and lo < hi:
        with np.errstate(over="ignore"):
            ticks = np.linspace(lo, hi, min(max(plt_rows(plt) // 2, 2), 5))
        plt.yticks(list(ticks), tick_labels(ticks))


def tick_labels(ticks: np.ndarray) -> list[str]:
    """Evenly spaced ``ticks`` written with 3 significant digits, or as many more as keep
    each within a 20th of a step of its place (so no two read alike).

    >>> tick_labels(np.array([2e43, 4e43])), tick_labels(np.array([1e15 - 5, 1e15 + 5]))
    (['2e+43', '4e+43'], ['999999999999995', '1000000000000005'])
    """
    step = float(np.max(np.diff(ticks))) if ticks.size > 1 else 0.0
    for digits in range(3, 18):
        labels = [format_number(t, digits) for t in ticks]
        if all(abs(float(label) - t) <= step / 20 for label, t in zip(labels, ticks)):
            break
    return labels


def plt_rows(plt: Any) -> int:
    """The plot area's height in rows (plotext's current plot size)."""
    return int(plt.plot_size()[1]) - 4  # less the frame and the x axis


def loss_file(ax: Axes, curve: Curve, log: bool) -> None:
    ax.plot(curve.x, curve.y, ".-" if curve.x.size <= 50 else "-", label="value")
    if log:
        ax.set_yscale("log")


def curve_terminal(plt: Any, curve: Curve, expression: str) -> None:
    """A function's curve alone (``gradcalc plot`` without a point)."""
    for k, piece in enumerate(curve.pieces()):
        plt.plot(piece.x, piece.y, marker="braille", label=None if k else f"f = {expression}")
    plt.xlim(curve.x[0], curve.x[-1])
    short_ticks(plt, curve.y)


def curve_file(ax: Axes, curve: Curve, expression: str) -> None:
    ax.plot(curve.x, curve.y, lw=2, label=f"f = {expression}")
    ax.set_xlim(curve.x[0], curve.x[-1])


def fit_terminal(plt: Any, data: Curve, line: Curve) -> None:
    for k, piece in enumerate(line.pieces()):
        plt.plot(piece.x, piece.y, marker="braille", label=None if k else "fitted curve")
    plt.scatter(data.x, data.y, marker="●", label="data")
    short_ticks(plt, np.concatenate([data.y, line.y]))


def fit_file(ax: Axes, data: Curve, line: Curve) -> None:
    ax.plot(data.x, data.y, "o", ms=4, alpha=0.7, label="data")
    ax.plot(line.x, line.y, lw=2, label="fitted curve")


def terminal(draw: Callable[[Any], None], frame: Frame) -> str:
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
        with np.errstate(over="ignore", invalid="ignore"):  # (a scale past float64: below)
            draw(plt)
            plt.xlabel(frame.xlabel)
            plt.ylabel(frame.ylabel)
            body = no_negative_zero(plt.uncolorize(plt.build()))
    except (OverflowError, ZeroDivisionError):  # plotext scales to integer rows and columns
        raise InputError(
            "the values to plot span too wide or too narrow a range for a terminal plot "
            "(plotext cannot scale them); try a smaller --range or --out plot.svg"
        ) from None
    finally:
        plt.clear_figure()
    return f"{fit_width(frame.title, frame.width).center(frame.width)}\n{body}"


def no_negative_zero(body: str) -> str:
    r"""plotext's tick labels with ``-0.0`` (a tick a rounding below 0) written ``0.0``: the
    y labels (before ``┤``) and the x labels (the line under the frame's ``└``).

    >>> print(no_negative_zero(" -0.0┤⠤⠤\n     └┬─┬\n   -1.0 -0.0"))
      0.0┤⠤⠤
         └┬─┬
       -1.0  0.0
    """
    zero = re.compile(r"(?<![\d.])-(0(?:\.0+)?)(?![\d.])")
    lines = body.split("\n")
    for k, line in enumerate(lines):
        if "┤" in line:
            label, _, rest = line.partition("┤")
            lines[k] = zero.sub(r" \1", label) + "┤" + rest
        elif k and "└" in lines[k - 1]:
            lines[k] = zero.sub(r" \1", line)
    return "\n".join(lines)


def write(out: str, panels: Sequence[tuple[Callable[[Axes], None], Frame]], size: Span) -> None:
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
    from gradcalc.io.written import Replacing  # (renamed into place only when complete)

    image = Replacing(out)
    try:
        figure.savefig(image.temporary, format=Path(out).suffix[1:].lower())
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        image.discard()
        raise InputError(f"cannot write {out}: {reason_of(error)}") from None
    except BaseException:
        image.discard()
        raise
    image.commit()


def padded(lo: float, hi: float, margin: float) -> Span:
    """``lo..hi`` widened by ``margin`` of its length on each side (by 1 if it is a point)."""
    if hi - lo <= 0:
        return lo - 1, hi + 1
    extra = margin * (hi - lo)
    return lo - extra, hi + extra


def fit_width(text: str, width: int) -> str:
    """Shorten a title to ``width`` (plotext's own title vanishes when it is too wide)."""
    return text if len(text) <= width else text[: width - 1] + "…"
