"""``gradcalc hessian``: the Hessian (nested tapes), its eigenvalues and the
second-derivative test."""

from __future__ import annotations

from typing import Annotated

from gradcalc.cli.console import Writer
from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import Session, engine_options, names
from gradcalc.cli.options import (
    At,
    CheckTimeout,
    Columns,
    Digits,
    Exact,
    Expression,
    IdColumn,
    Latex,
    NoCheck,
    Of,
    PointsFile,
    ResultsOut,
    SkipBadRows,
    Subgradient,
    Wrt,
    output_option,
)
from gradcalc.core.errors import InputError


def hessian(
    context: AppContext,
    expression: Expression,
    at: At = None,
    points: PointsFile = None,
    skip_bad_rows: SkipBadRows = False,
    columns: Columns = None,
    id_column: IdColumn = None,
    out: ResultsOut = None,
    wrt: Wrt = None,
    of: Of = None,
    output: Annotated[str, output_option("gradcalc.render.views.matrices:HessianView")] = "table",
    no_check: NoCheck = False,
    exact: Exact = False,
    latex: Latex = False,
    digits: Digits = None,
    subgradient: Subgradient = False,
    check_timeout: CheckTimeout = 5.0,
) -> int:
    """The Hessian of EXPRESSION (nested tapes), its eigenvalues and the second-derivative test."""
    from gradcalc.engine.run import api
    from gradcalc.render.views import matrices

    if latex and no_check:
        raise InputError("--latex shows sympy's derivatives: it needs the check (drop --no-check)")
    if not at and points is None and of is None:  # no point: the formula
        from gradcalc.cli.commands.diff import point_free
        from gradcalc.cli.inputs import expression_text

        text = expression_text(expression, None)
        return point_free(context, text, "hessian", wrt, 1, output, latex, check_timeout)
    session = Session(context, expression, at, points, of, skip_bad_rows, columns, id_column, wrt)
    options = engine_options(no_check, subgradient, check_timeout, exact)
    writer = Writer(context, output, digits, False, session.many, id_column, out)
    return session.run(
        matrices.HessianView(latex=latex, exact=exact),
        lambda chunk: api.hessian_at(session.graph, chunk, names(wrt), options),
        writer,
    )
