"""``gradcalc graph``: the op graph with each node's value and adjoint (DOT, Mermaid)."""

from __future__ import annotations

import enum
import sys
from typing import Annotated

import typer

from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import Session, names
from gradcalc.cli.options import At, Digits, Expression, Of, Wrt
from gradcalc.core.errors import ExitCode, InputError


class GraphFormat(str, enum.Enum):
    """Text formats of ``gradcalc graph``."""

    dot = "dot"
    mermaid = "mermaid"


def graph(
    context: AppContext,
    expression: Expression,
    at: At = None,
    wrt: Wrt = None,
    of: Of = None,
    output: Annotated[
        GraphFormat, typer.Option("--format", "-f", help="Graphviz DOT or Mermaid text.")
    ] = GraphFormat.dot,
    out: Annotated[
        str | None,
        typer.Option(
            "--out", metavar="FILE", help="Write FILE.svg / .png (needs Graphviz) or .dot instead."
        ),
    ] = None,
    digits: Digits = None,
) -> int:
    """The op graph of EXPRESSION with the value and the adjoint on every node."""
    from gradcalc.engine import api
    from gradcalc.render import drawing

    if at is not None and len(at) > 1:
        raise InputError("graph draws one point: give one --at")
    session = Session(context, expression, at, None, of)
    options = api.Options(check=False, strict=False)
    (result, *rest) = api.gradient_at(session.graph, session.first, names(wrt), options)
    if rest:
        raise InputError("graph draws one target: choose it with --of")
    if out is not None:
        drawing.render_file(drawing.to_dot(result, digits=digits), out)
        print(f"wrote {out}", file=sys.stderr)
        return ExitCode.OK
    text = drawing.to_dot if output is GraphFormat.dot else drawing.to_mermaid
    print(text(result, digits=digits))
    return ExitCode.OK
