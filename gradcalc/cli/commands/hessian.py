"""``gradcalc hessian``: the Hessian (nested tapes), its eigenvalues and the
second-derivative test."""

from __future__ import annotations

from typing import Annotated

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
from gradcalc.cli.options import Expression
from gradcalc.core.errors import InputError

#: The options hessian offers of each set (its view has no tape to show).
POINT = Offer("at", "points", "skip_bad_rows", "columns", "id_column")
DERIVATIVE = Offer("wrt", "of", "subgradient")
DISPLAY = Offer(
    "output", "exact", "latex", "digits", "out", view="gradcalc.render.matrices:HessianView"
)


@option_sets
def hessian(
    context: AppContext,
    expression: Expression,
    *,
    point: Annotated[PointOptions, POINT],
    derivative: Annotated[DerivativeOptions, DERIVATIVE],
    display: Annotated[OutputOptions, DISPLAY],
    check: Annotated[CheckOptions, Offer()],
) -> int:
    """The Hessian of EXPRESSION (nested tapes), its eigenvalues and the second-derivative test."""
    from gradcalc.engine.run import api
    from gradcalc.render import matrices

    if display.latex and check.no_check:
        raise InputError("--latex shows sympy's derivatives: it needs the check (drop --no-check)")
    at, wrt, of = point.at, derivative.wrt, derivative.of
    if not at and point.points is None and of is None:  # no point: the formula
        from gradcalc.cli.commands.diff import point_free
        from gradcalc.cli.inputs import expression_text

        text = expression_text(expression, None)
        shown = (display.output, display.latex, check.check_timeout)
        return point_free(context, text, "hessian", wrt, 1, *shown)
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
        matrices.HessianView(latex=display.latex, exact=display.exact),
        lambda chunk: api.hessian_at(session.graph, chunk, names(wrt), options),
        writer,
    )
