"""``gradcalc hessian``: the Hessian (nested tapes), its eigenvalues and the
second-derivative test."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

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

#: The options hessian (and jacobian) offer of each set (their views show no tape).
POINT = Offer("at", "points", "skip_bad_rows", "columns", "id_column")
DERIVATIVE = Offer("wrt", "of", "subgradient")
DISPLAY = Offer(
    "output", "exact", "latex", "digits", "out", view="gradcalc.render.views.matrices:HessianView"
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
    from gradcalc.render.views import matrices

    if display.latex and check.no_check:
        raise InputError("--latex shows sympy's derivatives: it needs the check (drop --no-check)")
    view = matrices.HessianView(latex=display.latex, exact=display.exact)
    sets = (point, derivative, display, check)
    return at_points(context, expression, sets, "hessian", view, api.hessian_at)


def at_points(
    context: AppContext,
    expression: str,
    sets: tuple[PointOptions, DerivativeOptions, OutputOptions, CheckOptions],
    kind: str,
    view: Any,
    compute: Callable[..., Any],
) -> int:
    """hessian's and jacobian's answer: without a point, the formula (``point_free`` of
    ``kind``); else ``compute(graph, chunk, sources, options)`` chunk by chunk, shown by
    ``view``."""
    from gradcalc.cli.tensors import scalar_only

    point, derivative, display, check = sets
    at, wrt, of = point.at, derivative.wrt, derivative.of
    scalar_only(at, kind)
    if not at and point.points is None and of is None:  # no point: the formula
        from gradcalc.cli.commands.diff import point_free
        from gradcalc.cli.inputs import expression_text

        text = expression_text(expression, None)
        formula = (display.output, display.latex, check.check_timeout)  # (jacobian: no --latex)
        return point_free(context, text, kind, wrt, 1, *formula)
    rows = (point.skip_bad_rows, point.columns, point.id_column)
    session = Session(context, expression, at, point.points, of, *rows, wrt)
    exact, timeout = display.exact, check.check_timeout
    options = engine_options(check.no_check, derivative.subgradient, timeout, exact)
    shown = (display.output, display.digits, False, session.many, point.id_column, display.out)
    n = len(names(wrt) or session.graph.variables)
    return session.run(
        view,
        lambda chunk: compute(session.graph, chunk, names(wrt), options),
        Writer(context, *shown),
        per_target=1 + 2 * n + n * n if kind == "hessian" else 0,  # (value, gradient, eigen-)
    )
