"""``gradcalc diff``: the derivative as a formula -- simplified, in your notation, verified on
the tape; ``--implicit y`` for dy/dx on a curve. ``grad``, ``hessian`` and ``jacobian``
without a point come here too (:func:`point_free`)."""

from __future__ import annotations

from typing import Annotated

import typer

from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import expression_text, names
from gradcalc.cli.options import (
    PANELS,
    CheckTimeout,
    Expression,
    Order,
    Wrt,
    output_option,
)
from gradcalc.cli.reading import show_read
from gradcalc.core.errors import InputError


def diff(
    context: AppContext,
    expression: Expression,
    wrt: Wrt = None,
    order: Order = 1,
    implicit: Annotated[
        str | None,
        typer.Option(
            "--implicit",
            metavar="Y",
            help='For an equation ("x^2 + y^2 = 25"): dY/dx, Y a function of the others.',
            rich_help_panel=PANELS["derivative"],
        ),
    ] = None,
    at: Annotated[
        list[str] | None,
        typer.Option(
            "--at",
            metavar="NAME=VALUE,...",
            help="With --implicit: a point on the curve, for the value there "
            "(a formula's value at a point is gradcalc grad's).",
            rich_help_panel=PANELS["point"],
        ),
    ] = None,
    output: Annotated[str, output_option("gradcalc.render.views.derivative:DiffView")] = "table",
    latex: Annotated[
        bool,
        typer.Option(
            "--latex", help="Also print each derivative as LaTeX.", rich_help_panel=PANELS["output"]
        ),
    ] = False,
    check_timeout: CheckTimeout = 5.0,
) -> int:
    """The derivative of EXPRESSION as a formula, simplified and verified on the tape."""
    text = expression_text(expression, None)
    if implicit is not None:
        from gradcalc.apps.derive.implicit import implicit as differentiate_implicitly
        from gradcalc.engine.judge.exits import undefined_values
        from gradcalc.lang.intake import read
        from gradcalc.render.views.pointfree import ImplicitView

        reading = read(text, equation=True)
        result = differentiate_implicitly(
            text, implicit, names(wrt), at or [], check_timeout, order
        )
        show_read(context, ImplicitView(latex), result, output, [reading])
        values = [] if result.values is None else list(result.values.values())
        return status(result.verification.status, undefined_values(values))
    if at:
        raise InputError(
            "diff gives the derivative as a formula; for its value at a point use "
            "gradcalc grad EXPRESSION --at ... (or --at with --implicit, on a curve)"
        )
    return point_free(context, text, None, wrt, order, output, latex, check_timeout)


def point_free(
    context: AppContext,
    text: str,
    kind: str | None,
    wrt: str | None,
    order: int,
    output: str,
    latex: bool,
    check_timeout: float,
) -> int:
    """The symbolic answer of ``diff`` (and of ``grad``, ``hessian``, ``jacobian`` without a
    point): ``kind`` is ``gradient``, ``hessian``, ``jacobian`` or None (from the question)."""
    from gradcalc.apps.derive.diff import differentiate
    from gradcalc.lang.intake import read
    from gradcalc.render.views.derivative import DiffView

    reading = read(text, names(wrt) or ())
    result = differentiate(text, names(wrt), order, kind, check_timeout)
    show_read(context, DiffView(latex), result, output, [reading])
    return status(result.verification.status if result.entries else "differs")


def status(verification: str, undefined: bool = False) -> int:
    """The exit code (:func:`~gradcalc.engine.judge.exits.exit_status`): 1 when the tape contradicts
    the symbolic answer (or there is none), else 3 when a value at the point is not finite,
    else 0 (an answer the tape could not check is printed with the reason)."""
    from gradcalc.engine.judge.exits import exit_status

    return exit_status(failed=verification == "differs", undefined=undefined)
