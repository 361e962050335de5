"""``gradcalc jacobian``: the Jacobian matrix of several targets by the variables."""

from __future__ import annotations

from typing import Annotated

import typer

from gradcalc.cli.commands.hessian import DERIVATIVE, POINT, at_points
from gradcalc.cli.commands.optionsets import (
    CheckOptions,
    DerivativeOptions,
    Offer,
    OutputOptions,
    PointOptions,
    option_sets,
)
from gradcalc.cli.context import AppContext

#: The output options jacobian offers (its view shows no tape and no LaTeX).
DISPLAY = Offer(
    "output", "exact", "digits", "out", view="gradcalc.render.views.matrices:JacobianView"
)


@option_sets
def jacobian(
    context: AppContext,
    expression: Annotated[
        str,
        typer.Argument(
            metavar="EXPRESSION",
            help='Targets separated by commas, e.g. "r*cos(t), r*sin(t)", or a program with --of.',
        ),
    ],
    *,
    point: Annotated[PointOptions, POINT],
    derivative: Annotated[DerivativeOptions, DERIVATIVE],
    display: Annotated[OutputOptions, DISPLAY],
    check: Annotated[CheckOptions, Offer()],
) -> int:
    """The Jacobian matrix of several targets (rows) by the variables (columns)."""
    from gradcalc.engine.run import api
    from gradcalc.render.views import matrices

    sets = (point, derivative, display, check)
    view = matrices.JacobianView(exact=display.exact)
    return at_points(context, expression, sets, "jacobian", view, api.jacobian_at)
