"""``gradcalc taylor``: the Taylor polynomial about a point, from nested tapes and sympy."""

from __future__ import annotations

from typing import Annotated

import typer

from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import expression_text
from gradcalc.cli.options import PANELS, At, CheckTimeout, Expression, output_option
from gradcalc.cli.reading import given_names, given_values, named_at, show_read
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
            rich_help_panel=PANELS["derivative"],
        ),
    ] = 2,
    output: Annotated[str, output_option("gradcalc.render.views.pointfree:TaylorView")] = "table",
    check_timeout: CheckTimeout = 5.0,
) -> int:
    """The Taylor polynomial of EXPRESSION about the point --at, to degree --order."""
    from gradcalc.apps.derive.taylor import taylor as expand
    from gradcalc.cli.tensors import scalar_only
    from gradcalc.engine.judge.exits import exit_status, undefined_values
    from gradcalc.lang.intake import read
    from gradcalc.render.views.pointfree import TaylorView

    if not at:
        raise InputError("taylor expands about a point: give it with --at x=0")
    scalar_only(at, "taylor")
    text = expression_text(expression, None)
    at = named_at(at, text) or []
    reading = read(text, given_names(at), values=given_values(at))
    result = expand(text, at, order, check_timeout)
    show_read(context, TaylorView(), result, output, [reading])
    tape = [c.tape for c in result.coefficients]
    undefined = result.limit is None and undefined_values(tape)  # (extended by its limit: 0)
    return exit_status(failed=result.status == "disagree", undefined=undefined)
