"""``gradcalc graph``: the op graph with each node's value and adjoint (DOT, Mermaid, SVG)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from gradcalc.cli.console import show
from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import Session, names
from gradcalc.cli.options import PANELS, At, Digits, Expression, Of, Wrt, output_option
from gradcalc.core.errors import ExitCode, InputError


def graph(
    context: AppContext,
    expression: Expression,
    at: At = None,
    wrt: Wrt = None,
    of: Of = None,
    output: Annotated[str, output_option("gradcalc.render.views.views:GraphView")] = "dot",
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Write FILE.svg (drawn by gradcalc), .png (needs Graphviz) or .dot instead.",
            rich_help_panel=PANELS["output"],
        ),
    ] = None,
    digits: Digits = None,
) -> int:
    """The op graph of EXPRESSION with the value and the adjoint on every node."""
    from gradcalc.cli.tensors import scalar_only
    from gradcalc.engine.run import api
    from gradcalc.render.drawings import drawing, graph_svg
    from gradcalc.render.views.views import GraphView

    if at is not None and len(at) > 1:
        raise InputError("graph draws one point: give one --at")
    scalar_only(at, "graph")
    session = Session(context, expression, at, None, of)
    # checked: a point where float64 rounded past a singularity is undefined (exit 3)
    options = api.Options(check=True, strict=False)
    (result, *rest) = api.gradient_at(session.graph, session.first, names(wrt), options)
    if rest:
        raise InputError("graph draws one target: choose it with --of")
    for warning in result.warnings:  # (the title says how the input was read)
        print(f"warning: {warning}", file=sys.stderr)
    # undefined at the point: drawn all the same (the title says where), exit 3 as grad's
    code = ExitCode.UNDEFINED if result.undefined.any() else ExitCode.OK
    if out is None:
        show(context, GraphView(), result, output, digits)
        return code
    if Path(out).suffix.lower() == ".svg":
        drawing.write_text(out, graph_svg.to_svg(result, digits=digits))
    else:
        drawing.render_file(drawing.to_dot(result, digits=digits), out)
    print(f"wrote {out}", file=sys.stderr)
    return code
