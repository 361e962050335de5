"""``gradcalc fit``: least-squares fit of a model's parameters to data."""

from __future__ import annotations

import dataclasses
import sys
from typing import Annotated, Any

import typer

from gradcalc.cli.console import show_plot
from gradcalc.cli.context import AppContext
from gradcalc.cli.options import PANELS, Digits, PlotOut, SkipBadRows, output_option
from gradcalc.core.errors import ExitCode, InputError

MODEL = PANELS["model"]


def fit(
    context: AppContext,
    model: Annotated[str, typer.Argument(metavar="MODEL", help='The model, e.g. "a*x + b".')],
    data: Annotated[
        str,
        typer.Argument(
            metavar="DATA",
            help="The data: CSV (- for stdin), .npy, .npz, .parquet or .arrow; the columns "
            "the model and --y read (others are ignored).",
        ),
    ],
    params: Annotated[
        str,
        typer.Option(
            "--params", metavar="NAMES", help="The parameters to fit (a,b).", rich_help_panel=MODEL
        ),
    ],
    y: Annotated[
        str,
        typer.Option("--y", help="The column the model should match.", rich_help_panel=MODEL),
    ] = "y",
    init: Annotated[
        list[str] | None,
        typer.Option(
            "--init",
            metavar="NAME=VALUE,...",
            help="Starting values (default 1).",
            rich_help_panel=MODEL,
        ),
    ] = None,
    output: Annotated[str, output_option("gradcalc.apps.views:FitView")] = "table",
    plot: Annotated[
        bool,
        typer.Option(
            "--plot", help="Draw the data and the fitted curve.", rich_help_panel=PANELS["output"]
        ),
    ] = False,
    out: PlotOut = None,
    digits: Digits = None,
    skip_bad_rows: SkipBadRows = False,
) -> int:
    """Least-squares fit of MODEL's parameters to DATA, with the tape's Jacobian."""
    from gradcalc.apps.optimize import fit as fitting
    from gradcalc.apps.views import FitView
    from gradcalc.cli.inputs import used_columns
    from gradcalc.cli.reading import show_read, warn
    from gradcalc.io.files import Skipped
    from gradcalc.io.sources import open_points
    from gradcalc.lang.intake import read

    skipped = Skipped() if skip_bad_rows else None
    with open_points(data, "data file") as source:  # the columns the model and --y read
        chosen = used_columns(model, source.names(), None, [y])
        if chosen is not None and y not in chosen:
            chosen.append(y)  # (the reader names the file's columns when it is missing)
        columns = fitting.concatenate(source.read(chosen, None, skipped))
    if skipped is not None and skipped.count:
        print(f"warning: {skipped.summary('data file')}", file=sys.stderr)
    result = fitting.fit(model, columns, params, y, init)
    reading = dataclasses.replace(read(model, list(columns)), name=result.y)
    extra: dict[str, Any] = {} if skipped is None else {"skipped_rows": skipped.count}
    show_read(context, FitView(), result, output, [reading], digits, **extra)
    warn(result.warnings)
    if plot:
        _plot_fit(result, columns, out)
    return ExitCode.OK if result.converged else ExitCode.CHECK_FAILED


def _plot_fit(result: Any, columns: dict, out: str | None) -> None:
    from gradcalc.apps.plot import plot

    if len(result.inputs) != 1:
        raise InputError("fit --plot draws models of one data column")
    (column,) = result.inputs
    title = f"{result.y} ≈ {result.model}"
    x, y = columns[column], columns[result.y]
    text = plot.fit_plot(x, y, result.predict, out, title, labels=(column, result.y))
    show_plot(text, out)
