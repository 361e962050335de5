"""The tables of the optimisers' results: ``gradcalc fit`` and ``gradcalc minimize`` (their
views, in :mod:`gradcalc.apps.views`, and their notebook HTML use them). Pure: nothing here
prints.
"""

from __future__ import annotations

from typing import Any

from gradcalc.core.numbers import counted, format_number
from gradcalc.render.pieces import gradient as render


def fit_tables(result: Any, digits: int | None) -> list[Any]:
    """``gradcalc fit``: the parameters with standard errors, then the fit's quality."""
    from rich.text import Text

    table = render.new_table(f"{result.y} ≈ {result.model}")
    for header in ("parameter", "value", "standard error"):
        table.add_column(header, justify="left" if header == "parameter" else "right")
    for name, value in result.params.items():
        table.add_row(
            name, format_number(value, digits), format_number(result.stderr[name], digits)
        )
    summary = Text(  # a line each, so that no number is broken across lines at 80 columns
        f"n = {result.n} points\n"
        f"residual sum of squares = {format_number(result.rss, digits)}\n"
        f"R² = {format_number(result.r2, digits)}\n{result.reason} ({result.steps} steps)"
    )
    return [table, summary]


def minimum_tables(result: Any, digits: int | None) -> list[Any]:
    """``gradcalc minimize``: the recorded path, then where it stopped and why."""
    from rich.text import Text

    names = list(result.point)
    table = render.new_table(f"{result.method} ({result.rule}): the recorded steps")
    for header in ("step", *names, "value", "|gradient|"):
        table.add_column(header, justify="right")
    short = digits or 8  # an overview; --format json or csv has every digit
    for step in result.path:
        cells = [str(step.step), *(format_number(step.point[n], short) for n in names)]
        cells += [format_number(step.value, short), format_number(step.gradient_norm, short)]
        table.add_row(*cells)
    point = ", ".join(f"{n} = {format_number(v, digits)}" for n, v in result.point.items())
    summary = Text()
    summary.append("stopped at ", style="bold")
    summary.append(f"{point}: value {format_number(result.value, digits)}, ")
    norm = format_number(result.gradient_norm, digits)
    summary.append(f"|gradient| {norm} after {counted(result.steps, 'step')}\n")
    summary.append(result.reason, style="green" if result.converged else "yellow")
    return [table, summary]
