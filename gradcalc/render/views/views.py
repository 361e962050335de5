"""How a gradient is shown in each output format: ``grad`` (its views for ``--order`` and
``--direction`` too) and ``graph``. The matrices (``hessian``, ``jacobian``) are in
:mod:`gradcalc.render.views.matrices`, ``check``'s verdicts in
:mod:`gradcalc.render.views.verdicts`.

A view turns what one command computed for one chunk of points into JSON objects, CSV
rows, plain lines or rich tables. The commands (``gradcalc.cli.commands``) pick the view;
``gradcalc.render.pieces.gradient`` holds the shared pieces. Pure: nothing here prints.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from gradcalc.core.naming import derivative_label
from gradcalc.core.numbers import format_number
from gradcalc.engine.run.api import GradResult
from gradcalc.render.pieces import gradient as render
from gradcalc.render.pieces.gradient import at_point, json_number

if TYPE_CHECKING:  # (a plain gradient does not make the classes beyond it)
    from gradcalc.engine.evaluate.beyond import DirectionalResult


class GradView:
    """``gradcalc grad``: one result per target.

    Diagnostic findings are listed under the tables when there are any; with
    ``diagnose`` the plain-words report is printed even when the gradients are healthy.
    """

    #: JSON of many points without ``columns``: the fields that depend on the expression
    #: only, written once (:class:`~gradcalc.render.output.formats.Json`).
    shared: tuple[str, ...] = (
        "expression",
        "read_as",
        "target",
        "targets",
        "variables",
        "independent",
        "symbolic",
        "symbolic_determinant",
        "order",
        "direction",
    )

    def __init__(self, diagnose: bool = False, latex: bool = False, exact: bool = False):
        self.diagnose, self.latex, self.exact = diagnose, latex, exact

    def results(self, computed: Any) -> list[GradResult]:
        """The gradient results inside what was computed (for warnings and exit codes)."""
        return list(computed)

    def json(self, computed: Any, k: int, tape: bool) -> list[dict[str, Any]]:
        """The JSON objects for point ``k`` (with ``latex``: sympy's derivatives in LaTeX)."""
        objects = [render.to_json(result, k, tape) for result in computed]
        if self.latex:
            for result, obj in zip(self.results(computed), objects):
                obj["latex"] = render.latex_derivatives(result)
        return objects

    def records(self, computed: Any, tape: bool) -> list[dict[str, Any]]:
        """The JSON objects of every point (for the ``json`` format)."""
        count = self.results(computed)[0].points.count
        return [obj for k in range(count) for obj in self.json(computed, k, tape)]

    def columns(self, computed: Any) -> dict[str, Any]:
        """Many points for compact JSON: one chunk's columns (joined by :meth:`joined`)."""
        from gradcalc.render.output.compact import chunk_columns

        return chunk_columns(self.results(computed))

    @staticmethod
    def joined(chunks: list[dict[str, Any]]) -> dict[str, Any]:
        """The chunks' columns as one compact JSON object."""
        from gradcalc.render.output.compact import merged

        return merged(chunks)

    def tables(self, computed: Any, digits: int | None, tape: bool, several: bool) -> list[Any]:
        """Renderables for the ``table`` format, a blank line after each: one point's
        tables (:meth:`single`), or one table of ``several`` points (:meth:`many`)."""
        parts = self.many(computed, digits) if several else self.single(computed, digits, tape)
        if not parts:  # undefined at its point (the reason is on stderr): the reading alone
            parts = [render.reading(self.results(computed)[0])]
        return [shown for part in parts for shown in (part, "")]

    def csv_header(self, computed: Any) -> list[str]:
        return render.csv_header(computed)

    def csv_rows(self, computed: Any, digits: int | None) -> Iterator[list[str]]:
        return render.csv_rows(computed, digits)

    def plain(self, computed: Any, digits: int | None) -> Iterator[str]:
        return render.plain_lines(computed, digits)

    def single(self, computed: Any, digits: int | None, tape: bool) -> list[Any]:
        """Renderables for one point."""
        parts: list[Any] = []
        for result in computed:
            if not result.undefined.any():  # else the reason is on stderr; nan would hide it
                parts += render.gradient_tables(result, digits, tape)
                parts += [] if result.tangent is None else [result.tangent]
                parts += self.findings(result)
                parts += self.latex_part(result)
        return parts

    def latex_part(self, result: GradResult) -> list[Any]:
        """With ``latex``: the derivatives as LaTeX lines, ready to paste."""

        return [unwrapped(render.latex_block(result))] if self.latex else []

    def findings(self, result: GradResult) -> list[Any]:
        """The diagnostics under a single point's tables (the report, with ``diagnose``)."""
        from rich.text import Text

        from gradcalc.engine.evaluate.diagnostics import report

        here = [f for f in result.diagnostics if render.at_point(f.mask, 0)]
        unhealthy = any(not f.settled for f in here)
        if not (here or self.diagnose):
            return []
        style = "yellow" if unhealthy else "green"
        return [Text(report(result.diagnostics, result), style=style)]

    def many(self, computed: Any, digits: int | None) -> list[Any]:
        """Renderables for several points."""
        return [
            with_reading(result, render.points_table(result, digits, self.diagnose))
            for result in computed
        ]


def with_reading(result: GradResult, table: Any) -> Any:
    """The "read as" line (and its warnings) above a table of many points."""
    from rich.console import Group

    return Group(render.reading(result), table)


def rows_table(title: str, header: list[str], rows: Iterator[list[str]]) -> Any:
    """Several points as a table of the CSV cells (at most MAX_TABLE_ROWS rows)."""
    table = render.new_table(title)
    for column in header:  # (numbers never fold: too wide a table is stacked)
        table.add_column(column, justify="right", no_wrap=True)
    for k, row in enumerate(rows):
        if k == render.MAX_TABLE_ROWS:
            break
        table.add_row(*(cell or "undefined" for cell in row))
    return table


class DerivativeView(GradView):
    """``gradcalc grad --order N`` with one source. JSON leaves out the tape: the nested
    tapes' records are the backward passes, not the expression."""

    columns = None  # type: ignore[assignment]  # (JSON: an object per point, with every order)

    def many(self, computed: Any, digits: int | None) -> list[Any]:
        header, rows = self.csv_header(computed), self.csv_rows(computed, digits)
        return [with_reading(computed[0], rows_table(computed[0].target, header, rows))]

    def json(self, computed: Any, k: int, tape: bool) -> list[dict[str, Any]]:
        objects = super().json(computed, k, tape=False)
        for result, obj in zip(computed, objects):
            bad = result.reason(k) is not None
            orders = [None if bad else json_number(at_point(d, k)) for d in result.orders]
            obj.update(order=result.order, derivative=orders[-1], derivatives=orders)
            labels = [f"d{n}" for n in range(1, result.order + 1)]
            exact = _exact_at(result.check, labels, k)
            obj["exact_derivatives"] = None if bad else [exact.get(label) for label in labels]
        return objects

    def csv_header(self, computed: Any) -> list[str]:
        (result,) = computed
        x = result.sources[0]
        higher = [f"d{n}/d{x}{n}" for n in range(2, result.order + 1)]
        return [*render.csv_header(computed), *higher]

    def csv_rows(self, computed: Any, digits: int | None) -> Iterator[list[str]]:
        (result,) = computed
        bad = result.first_reason >= 0
        orders = result.shown_orders or result.orders  # exact where the check knows it
        extra = [render.texts(d.reshape(-1), result.points.count, digits, bad) for d in orders[1:]]
        for row, *more in zip(render.csv_rows(computed, digits), *extra):
            yield [*row, *more]

    def plain(self, computed: Any, digits: int | None) -> Iterator[str]:
        (result,) = computed
        bad = result.first_reason >= 0
        last = (result.shown_orders or result.orders)[-1]
        return iter(render.texts(last.reshape(-1), result.points.count, digits, bad, "nan"))

    def single(self, computed: Any, digits: int | None, tape: bool) -> list[Any]:

        (result,) = computed
        if result.undefined.any():
            return []
        x, f = result.sources[0], result.target
        table = render.new_table()
        table.add_column("derivative", style="bold")
        table.add_column("tape", justify="right", style="cyan")
        partials = result.check.partials if result.check is not None else {}
        if partials:
            table.add_column("symbolic (sympy)")
            table.add_column("exact", justify="right")
        if result.check is not None:
            table.add_column("check", justify="center")
        for n, value in enumerate(result.orders, start=1):
            name = derivative_label(f, [x] * n, ordinary=True)
            cells = [name, format_number(value, digits)]
            partial = partials.get(f"d{n}")
            if partials:
                assert partial is not None  # the check covers every order
                exact = partial.exact[0] if partial.exact else None
                shown = exact or format_number(partial.values, digits)
                cells += [result.check.derivative_texts[f"d{n}"], shown]
            if result.check is not None:
                cells.append(render.check_mark(result.check, partial))
            table.add_row(*cells)
        return [render.headline(result, digits), table, *self.findings(result)]


class DirectionalView(GradView):
    """``gradcalc grad --direction v``."""

    columns = None  # type: ignore[assignment]  # (JSON: an object per point, with the directional derivative)

    def many(self, computed: Any, digits: int | None) -> list[Any]:
        header, rows = self.csv_header(computed), self.csv_rows(computed, digits)
        return [with_reading(computed[0], rows_table(computed[0].target, header, rows))]

    def json(self, computed: Any, k: int, tape: bool) -> list[dict[str, Any]]:
        objects = super().json(computed, k, tape)
        for result, obj in zip(computed, objects):
            bad = result.reason(k) is not None
            value = None if bad else json_number(at_point(result.directional, k))
            obj.update(direction=result.direction, directional_derivative=value)
        return objects

    def csv_header(self, computed: Any) -> list[str]:
        return [*render.csv_header(computed), "directional"]

    def csv_rows(self, computed: Any, digits: int | None) -> Iterator[list[str]]:
        (result,) = computed
        along = self._texts(result, digits, "")
        for row, extra in zip(render.csv_rows(computed, digits), along):
            yield [*row, extra]

    def plain(self, computed: Any, digits: int | None) -> Iterator[str]:
        (result,) = computed
        return iter(self._texts(result, digits, "nan"))

    @staticmethod
    def _texts(result: DirectionalResult, digits: int | None, filler: str) -> list[str]:
        bad = result.first_reason >= 0
        return render.texts(
            result.directional.reshape(-1), result.points.count, digits, bad, filler
        )

    def single(self, computed: Any, digits: int | None, tape: bool) -> list[Any]:
        from rich.text import Text

        parts = super().single(computed, digits, tape)
        (result,) = computed
        if parts:
            vector = ", ".join(format_number(u, digits) for u in result.direction.values())
            line = Text(f"directional derivative along ({vector}): ")
            line.append(format_number(result.directional, digits), style="bold cyan")
            if result.check is not None:
                line.append(
                    f"  {render.check_mark(result.check, result.check.partials.get('direction'))}"
                )
            parts.insert(2, line)
        return parts


def unwrapped(text: str) -> Any:
    """Text that is never wrapped at the terminal's width (LaTeX must paste whole).

    >>> unwrapped(r"\frac{1}{2}").no_wrap
    True
    """
    from rich.text import Text

    return Text(text, no_wrap=True, overflow="ignore")


def text_at(texts: list[str | None], k: int) -> str | None:
    """Point ``k``'s exact text from a per-point list (``None`` where unknown).

    >>> text_at(["1/2", None], 0), text_at(["1/2"], 3)
    ('1/2', None)
    """
    return texts[k] if k < len(texts) else None


def _exact_at(check: Any, labels: list[str], k: int) -> dict[str, str]:
    """The exact texts of ``labels`` at point ``k``, where the check knows them."""
    from gradcalc.engine.judge.exact import exact_texts

    found = {label: text_at(exact_texts(check, label), k) for label in labels}
    return {label: text for label, text in found.items() if text is not None}


class GraphView:
    """``gradcalc graph``: the op graph of one result as Graphviz DOT, Mermaid or SVG."""

    def dot(self, result: GradResult, digits: int | None) -> str:
        from gradcalc.render.drawings.drawing import to_dot

        return to_dot(result, digits=digits)

    def mermaid(self, result: GradResult, digits: int | None) -> str:
        from gradcalc.render.drawings.drawing import to_mermaid

        return to_mermaid(result, digits=digits)

    def svg(self, result: GradResult, digits: int | None) -> str:
        from gradcalc.render.drawings.graph_svg import to_svg

        return to_svg(result, digits=digits)
