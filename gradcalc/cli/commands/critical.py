"""``gradcalc critical``: where the gradient is zero, and what each point is."""

from __future__ import annotations

from typing import Annotated

import typer

from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import expression_text
from gradcalc.cli.options import PANELS, CheckTimeout, Expression, output_option
from gradcalc.cli.reading import show_read
from gradcalc.core.errors import ExitCode


def critical(
    context: AppContext,
    expression: Expression,
    region: Annotated[
        str | None,
        typer.Option(
            "--in",
            metavar="x=-5..5,y=-5..5",
            help="The region: exact points outside it are left out; a numeric search starts "
            "inside it (default: every variable in -5..5).",
            rich_help_panel=PANELS["point"],
        ),
    ] = None,
    output: Annotated[str, output_option("gradcalc.render.views.pointfree:CriticalView")] = "table",
    check_timeout: CheckTimeout = 5.0,
) -> int:
    """The critical points of EXPRESSION: exact where sympy can solve grad f = 0, else a
    numeric search on the tape; each with its value, Hessian and second-derivative test.

    --format plain: a tab-separated line per point (its coordinates, f, the verdict), then
    a line per continuum of critical points: continuum, a tab, its description."""
    from gradcalc.apps.critical.critical import critical_points
    from gradcalc.cli.reading import bound_values
    from gradcalc.lang.intake import read
    from gradcalc.render.views.pointfree import CriticalView

    text = expression_text(expression, None)
    reading = read(text, values=bound_values(region, ".."))
    result = critical_points(text, region, check_timeout)
    show_read(context, CriticalView(), result, output, [reading])
    return ExitCode.OK
