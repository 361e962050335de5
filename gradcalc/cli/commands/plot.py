"""``gradcalc plot``: the function and its tangent, or its contours and the gradient."""

from __future__ import annotations

from typing import Annotated

import typer

from gradcalc.cli.console import show_plot
from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import expression_text
from gradcalc.cli.options import PANELS, At, Expression
from gradcalc.core.errors import ExitCode, InputError

OUTPUT = PANELS["output"]


def plot(
    context: AppContext,
    expression: Expression,
    at: At = None,
    span: Annotated[
        str | None,
        typer.Option(
            "--range", metavar="LOW:HIGH", help="The x range, e.g. -5:5.", rich_help_panel=OUTPUT
        ),
    ] = None,
    out: Annotated[
        str | None,
        typer.Option(
            "--out", metavar="FILE", help="Write FILE.png or FILE.svg.", rich_help_panel=OUTPUT
        ),
    ] = None,
    width: Annotated[
        int,
        typer.Option("--width", min=40, help="Terminal plot width.", rich_help_panel=OUTPUT),
    ] = 80,
    height: Annotated[
        int,
        typer.Option("--height", min=12, help="Terminal plot height.", rich_help_panel=OUTPUT),
    ] = 24,
) -> int:
    """The function and its tangent at the point (one variable), or its contours and the
    gradient arrow (two variables, with --out); without --at, the function of one variable
    alone."""
    from gradcalc.apps.plot import plot
    from gradcalc.cli.reading import bound_values, given_names, given_values, named_at, warn
    from gradcalc.cli.tensors import scalar_only
    from gradcalc.lang.intake import read

    if at and len(at) != 1:
        raise InputError("plot is drawn at one point: give one --at x=2 (or none)")
    scalar_only(at, "plot")
    text = expression_text(expression, None)
    at = named_at(at, text) or []
    reading = read(text, given_names(at), values=[*given_values(at), *bound_values(span, ":")])
    bounds = plot.parse_span(span) if span is not None else None
    if at:
        drawn = plot.plot(text, at, bounds, out, width, height)
    else:  # one variable: the function alone
        drawn = plot.function_plot(text, bounds, out, width, height)
    context.console().print(reading.heading(), markup=False, soft_wrap=True)
    show_plot(drawn, out)
    warn(reading.warnings)
    return ExitCode.OK
