"""``gradcalc jacobian``: the Jacobian matrix of several targets by the variables."""

from __future__ import annotations

from typing import Annotated

import typer

from gradcalc.cli.commands.optionsets import (
    CheckOptions,
    DerivativeOptions,
    Offer,
    OutputOptions,
    PointOptions,
    option_sets,
)
from gradcalc.cli.console import Writer
from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import Session, engine_options, names

#: The options jacobian offers of each set (its view has no tape and no LaTeX to show).
POINT = Offer("at", "points", "skip_bad_rows", "columns", "id_column")
DERIVATIVE = Offer("wrt", "of", "subgradient")
DISPLAY = Offer("output", "exact", "digits", "out", view="gradcalc.render.matrices:JacobianView")


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
    from gradcalc.render import matrices

    at, wrt, of = point.at, derivative.wrt, derivative.of
    if not at and point.points is None and of is None:  # no point: the formula
        from gradcalc.cli.commands.diff import point_free
        from gradcalc.cli.inputs import expression_text

        text = expression_text(expression, None)
        return point_free(
            context, text, "jacobian", wrt, 1, display.output, False, check.check_timeout
        )
    rows = (point.skip_bad_rows, point.columns, point.id_column)
    session = Session(context, expression, at, point.points, of, *rows, wrt)
    options = engine_options(
        check.no_check, derivative.subgradient, check.check_timeout, display.exact
    )
    many = session.many
    writer = Writer(
        context, display.output, display.digits, False, many, point.id_column, display.out
    )
    return session.run(
        matrices.JacobianView(exact=display.exact),
        lambda chunk: api.jacobian_at(session.graph, chunk, names(wrt), options),
        writer,
    )
