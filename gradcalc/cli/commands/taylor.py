"""``gradcalc taylor``: the Taylor polynomial about a point, from nested tapes and sympy."""

from __future__ import annotations

from typing import Annotated

import typer

from gradcalc.cli.console import show
from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import expression_text
from gradcalc.cli.options import At, CheckTimeout, Expression, output_option
from gradcalc.core.errors import InputError


def taylor(
    context: AppContext,
    expression: Expression,
    at: At = None,
    order: Annotated[
        int,
        typer.Option(
            "--order",
            min=1,
            max=12,
            help="The degree (1: the tangent line or plane; at most 2 with several variables).",
        ),
    ] = 2,
    output: Annotated[str, output_option("gradcalc.render.pointfree:TaylorView")] = "table",
    check_timeout: CheckTimeout = 5.0,
) -> int:
    """The Taylor polynomial of EXPRESSION about the point --at, to degree --order."""
    from gradcalc.apps.derive.taylor import taylor as expand
    from gradcalc.engine.judge.exits import exit_status, undefined_values
    from gradcalc.render.pointfree import TaylorView

    if not at:
        raise InputError("taylor expands about a point: give it with --at x=0")
    result = expand(expression_text(expression, None), at, order, check_timeout)
    show(context, TaylorView(), result, output)
    tape = [c.tape for c in result.coefficients]
    return exit_status(failed=result.status == "disagree", undefined=undefined_values(tape))
