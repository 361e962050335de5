"""``gradcalc explain``: the forward pass, the reverse pass and the rules, step by step."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import expression_text, names
from gradcalc.cli.options import At, Expression, Wrt, output_option
from gradcalc.cli.reading import (
    given_names,
    given_values,
    named_at,
    show_read,
    show_reading_first,
)
from gradcalc.core.errors import ExitCode, InputError, UndefinedError


def explain(
    context: AppContext,
    expression: Expression,
    at: At = None,
    wrt: Wrt = None,
    output: Annotated[str, output_option("gradcalc.apps.views:ExplainView")] = "table",
) -> int:
    """Step by step: the forward pass, the reverse pass (the chain rule with numbers), and the
    symbolic derivative rule by rule (without --at: the rules and the simplified result)."""
    from gradcalc.apps.explain import explain as explaining
    from gradcalc.apps.views import ExplainView
    from gradcalc.cli.tensors import scalar_only
    from gradcalc.lang.intake import read

    if at and len(at) != 1:
        raise InputError("explain works at one point (--at x=3), or without one")
    scalar_only(at, "explain")
    text = expression_text(expression, None)
    at = named_at(at, text)
    reading = read(text, given_names(at), values=given_values(at))
    try:
        steps = explaining.explain(text, at or None, names(wrt))
    except UndefinedError:  # (undefined at the point: how it was read comes first all the same)
        show_reading_first(context, output, [reading])
        raise
    if reading.warnings != tuple(steps.warnings):  # (the point's values warned about too)
        steps = dataclasses.replace(steps, warnings=list(reading.warnings))
    show_read(context, ExplainView(), steps, output, [reading], headed=False)
    return ExitCode.OK
