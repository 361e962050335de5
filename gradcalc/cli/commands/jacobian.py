"""``gradcalc jacobian``: the Jacobian matrix of several targets by the variables."""

from __future__ import annotations

from typing import Annotated

import typer

from gradcalc.cli.console import Writer
from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import Session, engine_options, names
from gradcalc.cli.options import (
    At,
    CheckTimeout,
    Columns,
    Digits,
    Exact,
    IdColumn,
    NoCheck,
    Of,
    PointsFile,
    ResultsOut,
    SkipBadRows,
    Subgradient,
    Wrt,
    output_option,
)


def jacobian(
    context: AppContext,
    expression: Annotated[
        str,
        typer.Argument(
            metavar="EXPRESSION",
            help='Targets separated by commas, e.g. "r*cos(t), r*sin(t)", or a program with --of.',
        ),
    ],
    at: At = None,
    points: PointsFile = None,
    skip_bad_rows: SkipBadRows = False,
    columns: Columns = None,
    id_column: IdColumn = None,
    out: ResultsOut = None,
    wrt: Wrt = None,
    of: Of = None,
    output: Annotated[str, output_option("gradcalc.render.views.matrices:JacobianView")] = "table",
    no_check: NoCheck = False,
    exact: Exact = False,
    digits: Digits = None,
    subgradient: Subgradient = False,
    check_timeout: CheckTimeout = 5.0,
) -> int:
    """The Jacobian matrix of several targets (rows) by the variables (columns)."""
    from gradcalc.engine.run import api
    from gradcalc.render.views import matrices

    if not at and points is None and of is None:  # no point: the formula
        from gradcalc.cli.commands.diff import point_free
        from gradcalc.cli.inputs import expression_text

        text = expression_text(expression, None)
        return point_free(context, text, "jacobian", wrt, 1, output, False, check_timeout)
    session = Session(context, expression, at, points, of, skip_bad_rows, columns, id_column, wrt)
    options = engine_options(no_check, subgradient, check_timeout, exact)
    writer = Writer(context, output, digits, False, session.many, id_column, out)
    return session.run(
        matrices.JacobianView(exact=exact),
        lambda chunk: api.jacobian_at(session.graph, chunk, names(wrt), options),
        writer,
    )
