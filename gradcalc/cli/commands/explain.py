"""``gradcalc explain``: the forward pass, the reverse pass and the rules, step by step."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import expression_text, names
from gradcalc.cli.options import At, Expression, Wrt
from gradcalc.core.errors import ExitCode, InputError


class ExplainFormat(str, enum.Enum):
    """Formats of ``gradcalc explain``."""

    table = "table"
    markdown = "markdown"
    latex = "latex"


def explain(
    context: AppContext,
    expression: Expression,
    at: At = None,
    wrt: Wrt = None,
    output: Annotated[
        ExplainFormat,
        typer.Option(
            "--format",
            case_sensitive=False,
            help="A rich panel, or Markdown / LaTeX for homework.",
        ),
    ] = ExplainFormat.table,
) -> int:
    """Step by step: the forward pass, the reverse pass (the chain rule with numbers), and the
    symbolic derivative rule by rule (without --at: the rules and the simplified result)."""
    from gradcalc.apps import explain as explaining

    if at and len(at) != 1:
        raise InputError("explain works at one point (--at x=3), or without one")
    steps = explaining.explain(expression_text(expression, None), at or None, names(wrt))
    if output is ExplainFormat.markdown:
        print(explaining.to_markdown(steps))
    elif output is ExplainFormat.latex:
        print(explaining.to_latex(steps))
    else:
        context.console().print(explaining.to_rich(steps))
    return ExitCode.OK


class GraphFormat(str, enum.Enum):
    """Text formats of ``gradcalc graph``."""

    dot = "dot"
    mermaid = "mermaid"
