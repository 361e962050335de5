"""How each app's result is shown: a view per kind (a check's verdicts, a fit, a minimum,
an explanation, the catalog of ops), each giving what the output formats need (the
registry: :mod:`gradcalc.render.output.formats`). Pure: nothing here prints.

>>> from gradcalc.render.output.formats import supported
>>> supported(FitView), supported(ExplainView)
(('table', 'json', 'csv', 'plain'), ('table', 'markdown', 'latex'))
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gradcalc.core.numbers import format_number
from gradcalc.render.views.optimizers import fit_tables, minimum_tables


class FitView:
    """``gradcalc fit``: the parameters with their standard errors, and the fit's quality."""

    def records(self, result: Any, tape: bool) -> list[dict[str, Any]]:
        from gradcalc.apps.optimize.fit import to_json

        return [to_json(result)]

    def csv_header(self, result: Any) -> list[str]:
        return ["parameter", "value", "stderr"]

    def csv_rows(self, result: Any, digits: int | None) -> Iterator[list[str]]:
        for name, value in result.params.items():
            yield [name, format_number(value, digits), format_number(result.stderr[name], digits)]

    def plain(self, result: Any, digits: int | None) -> Iterator[str]:
        """One line: the fitted values, space-separated, in ``--params`` order."""
        yield " ".join(format_number(value, digits) for value in result.params.values())

    def tables(self, result: Any, digits: int | None, tape: bool, several: bool) -> list[Any]:
        return fit_tables(result, digits)


class MinimumView:
    """``gradcalc minimize``: the recorded path, then where it stopped and why."""

    def records(self, result: Any, tape: bool) -> list[dict[str, Any]]:
        from gradcalc.apps.optimize.minimize import to_json

        return [to_json(result)]

    def csv_header(self, result: Any) -> list[str]:
        from gradcalc.apps.optimize.minimize import path_rows

        return path_rows(result)[0]

    def csv_rows(self, result: Any, digits: int | None) -> list[list[Any]]:
        """The path: a row per recorded step (every digit)."""
        from gradcalc.apps.optimize.minimize import path_rows

        return path_rows(result)[1]

    def plain(self, result: Any, digits: int | None) -> Iterator[str]:
        """One line: where it stopped, the variables' values space-separated."""
        yield " ".join(format_number(value, digits) for value in result.point.values())

    def tables(self, result: Any, digits: int | None, tape: bool, several: bool) -> list[Any]:
        return minimum_tables(result, digits)


class ExplainView:
    """``gradcalc explain``: the steps as a rich panel, Markdown or LaTeX."""

    def tables(self, steps: Any, digits: int | None, tape: bool, several: bool) -> list[Any]:
        from gradcalc.apps.explain.explain_render import to_rich

        return [to_rich(steps)]

    def markdown(self, steps: Any, digits: int | None) -> str:
        from gradcalc.apps.explain.explain_render import to_markdown

        return to_markdown(steps)

    def latex(self, steps: Any, digits: int | None) -> str:
        from gradcalc.apps.explain.explain_render import to_latex

        return to_latex(steps)


class CatalogView:
    """``gradcalc ops``: the functions, operators and constants, their rules and domains."""

    ascii_json = False  # the rules' ∂ and the domains' ≤ as they are

    def records(self, entries: list, tape: bool) -> list[Any]:
        from gradcalc.apps.catalog import to_json

        return [to_json(entries)]

    def csv_header(self, entries: list) -> list[str]:
        return ["name", "kind", "also", "derivative", "domain"]

    def csv_rows(self, entries: list, digits: int | None) -> Iterator[list[str]]:
        for item in entries:
            rules = "; ".join(item.rules) or f"= {item.value!r}"
            yield [item.name, item.kind, " ".join(item.spellings), rules, item.domain_text()]

    def plain(self, entries: list, digits: int | None) -> list[str]:
        from gradcalc.apps.catalog import plain_lines

        return plain_lines(entries)

    def tables(self, entries: list, digits: int | None, tape: bool, several: bool) -> list[Any]:
        from gradcalc.apps.catalog import tables

        return tables(entries)


class TrainingView:
    """``gradcalc minimize`` of a tensor program: the loss before and after, the path, and
    the layer report before the first step and after the last."""

    def records(self, result: Any, tape: bool) -> list[dict[str, Any]]:
        from gradcalc.apps.optimize.train import to_json

        return [to_json(result)]

    def tables(self, result: Any, digits: int | None, tape: bool, several: bool) -> list[Any]:
        from gradcalc.render.pieces.gradient import read_as_text
        from gradcalc.render.views.tensors import gradient_table, inputs_table, report_parts

        before, after = result.before, result.after
        loss = f"{format_number(before.value, digits)} → {format_number(after.value, digits)}"
        return [
            read_as_text(before.read_as),
            inputs_table(before),
            f"{result.method}, lr {format_number(result.lr)}, {result.steps:,} steps: "
            f"{before.target} {loss}",
            result.reason,
            "",
            "before training:",
            *report_parts(before.layers, digits),
            "",
            "after training:",
            gradient_table(after, digits),
            *report_parts(after.layers, digits),
            "",
        ]
