"""How each kind of result is shown in each output format.

A view turns what one command computed for one chunk of points into JSON objects, CSV
rows, plain lines or rich tables. The commands (``gradcalc.cli.commands``) pick the view;
``gradcalc.render.gradient`` holds the shared pieces. Pure: nothing here prints.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from gradcalc.engine.api import (
    DirectionalResult,
    GradResult,
    HessianResult,
    JacobianResult,
)
from gradcalc.render import gradient as render
from gradcalc.render.gradient import CHECK_MARK, at_point, format_number, json_number


class GradView:
    """``gradcalc grad``: one result per target.

    Diagnostic findings are listed under the tables when there are any; with
    ``diagnose`` the plain-words report is printed even when the gradients are healthy.
    """

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

    def tables(self, computed: Any, digits: int | None, tape: bool, several: bool) -> list[Any]:
        """Renderables for the ``table`` format, a blank line after each: one point's
        tables (:meth:`single`), or one table of ``several`` points (:meth:`many`)."""
        parts = self.many(computed, digits) if several else self.single(computed, digits, tape)
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
                line = render.tangent(result)
                parts += [] if line is None else [line]
                parts += self.findings(result)
                parts += self.latex_part(result)
        return parts

    def latex_part(self, result: GradResult) -> list[Any]:
        """With ``latex``: the derivatives as LaTeX lines, ready to paste."""

        return [unwrapped(render.latex_block(result))] if self.latex else []

    def findings(self, result: GradResult) -> list[Any]:
        """The diagnostics under a single point's tables (the report, with ``diagnose``)."""
        from rich.text import Text

        from gradcalc.engine.diagnostics import report

        unhealthy = any(render.at_point(f.mask, 0) for f in result.diagnostics)
        if not (unhealthy or self.diagnose):
            return []
        style = "yellow" if unhealthy else "green"
        return [Text(report(result.diagnostics, result), style=style)]

    def many(self, computed: Any, digits: int | None) -> list[Any]:
        """Renderables for several points."""
        return [
            _read_as(result, render.points_table(result, digits, self.diagnose))
            for result in computed
        ]


def _read_as(result: GradResult, table: Any) -> Any:
    """The "read as" line above a table of many points."""
    from rich.console import Group

    return Group(render.read_as_line(result), table)


def rows_table(title: str, header: list[str], rows: Iterator[list[str]]) -> Any:
    """Several points as a table of the CSV cells (at most MAX_TABLE_ROWS rows)."""
    table = render.new_table(title)
    for column in header:
        table.add_column(column, justify="right")
    for k, row in enumerate(rows):
        if k == render.MAX_TABLE_ROWS:
            break
        table.add_row(*(cell or "undefined" for cell in row))
    return table


class DerivativeView(GradView):
    """``gradcalc grad --order N`` with one source. JSON leaves out the tape: the nested
    tapes' records are the backward passes, not the expression."""

    def many(self, computed: Any, digits: int | None) -> list[Any]:
        header, rows = self.csv_header(computed), self.csv_rows(computed, digits)
        return [_read_as(computed[0], rows_table(computed[0].target, header, rows))]

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
            name = f"d{f}/d{x}" if n == 1 else f"d{_sup(n)}{f}/d{x}{_sup(n)}"
            cells = [name, format_number(value, digits)]
            partial = partials.get(f"d{n}")
            if partials:
                assert partial is not None  # the check covers every order
                exact = partial.exact[0] if partial.exact else None
                cells += [str(partial.derivative), exact or format_number(partial.values, digits)]
            if result.check is not None:
                cells.append(render.check_mark(result.check, partial))
            table.add_row(*cells)
        return [render.headline(result, digits), table, *self.findings(result)]


def _sup(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


class DirectionalView(GradView):
    """``gradcalc grad --direction v``."""

    def many(self, computed: Any, digits: int | None) -> list[Any]:
        header, rows = self.csv_header(computed), self.csv_rows(computed, digits)
        return [_read_as(computed[0], rows_table(computed[0].target, header, rows))]

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


class HessianView(GradView):
    """``gradcalc hessian`` (and ``grad --order 2`` with several sources)."""

    def results(self, computed: Any) -> list[GradResult]:
        return [computed]

    def json(self, computed: HessianResult, k: int, tape: bool) -> list[dict[str, Any]]:
        result = computed
        obj = render.to_json(result, k, tape=False)
        bad = result.reason(k) is not None
        names = result.sources
        matrix = result.matrix.reshape(len(names), len(names), -1)[:, :, k]
        test = result.tests[k]
        partials = result.check.partials if result.check is not None else {}
        obj.update(
            variables=list(names),
            hessian=None if bad else [[json_number(v) for v in row] for row in matrix.tolist()],
            exact_hessian=None
            if bad
            else [[_text_at(t, k) for t in row] for row in result.exact_matrix],
            symbolic=[
                [str(partials[f"{a},{b}"].derivative) if partials else None for b in names]
                for a in names
            ],
            eigenvalues=None if bad else [json_number(e) for e in test.eigenvalues],
            curvature=None if bad else test.curvature,
            classification=None if bad else test.verdict,
            critical_point=None if bad else test.critical,
        )
        if self.latex:
            obj["latex"] = latex_matrix(result)
        return [obj]

    def csv_header(self, computed: HessianResult) -> list[str]:
        names = computed.sources
        entries = [f"d2/d{a}d{b}" for a in names for b in names]
        return [*computed.points.names, "value", *entries, "classification"]

    def csv_rows(self, computed: HessianResult, digits: int | None) -> Iterator[list[str]]:
        result = computed
        n, count = len(result.sources), result.points.count
        bad = result.first_reason >= 0
        columns = [
            render.texts(result.points.arrays[p].reshape(-1), count, digits)
            for p in result.points.names
        ]
        columns.append(
            render.texts(
                result.value.reshape(-1), count, digits, result.value_undefined.reshape(-1)
            )
        )
        flat = _shown(result.shown_matrix, result.matrix).reshape(n * n, -1)
        columns += [render.texts(flat[i], count, digits, bad) for i in range(n * n)]
        columns.append(["" if bad[k] else t.verdict for k, t in enumerate(result.tests)])
        return (list(row) for row in zip(*columns))

    def plain(self, computed: HessianResult, digits: int | None) -> Iterator[str]:
        for row in self.csv_rows(computed, digits):
            entries = row[len(computed.points.names) + 1 : -1]
            yield " ".join(e or "nan" for e in entries)

    def single(self, computed: HessianResult, digits: int | None, tape: bool) -> list[Any]:
        from rich.text import Text

        result = computed
        if result.undefined.any():
            return []
        names = result.sources
        matrix = _shown(result.shown_matrix, result.matrix).reshape(len(names), len(names))
        partials = result.check.partials if result.check is not None else {}
        table = render.new_table(f"Hessian of {result.target}")
        table.add_column("", style="bold")
        for name in names:
            table.add_column(f"∂/∂{name}", justify="right", style="cyan")
        for i, a in enumerate(names):
            cells = [f"∂/∂{a}"]
            for j, b in enumerate(names):
                text = format_number(matrix[i, j], digits)
                exact = _text_at(result.exact_matrix[i][j], 0) if result.exact_matrix else None
                text = exact if self.exact and exact else text
                partial = partials.get(f"{a},{b}")
                if partial is not None and np.any(partial.mismatch):
                    text += " ✗"
                cells.append(text)
            table.add_row(*cells)
        test = result.tests[0]
        summary = Text()
        if result.check is not None:
            agree = result.check.status == "agree"
            mark = CHECK_MARK[result.check.status]
            what = "every entry agrees with" if agree else f"{result.check.status}: compared with"
            summary.append(f"{mark} {what} sympy's hessian\n")
        summary.append(
            "eigenvalues: " + ", ".join(format_number(e, digits or 6) for e in test.eigenvalues)
        )
        summary.append(f"  ({test.curvature})\n")
        shown = result.shown or result.gradient  # exact where the check knows it
        gradient = ", ".join(format_number(shown[n], digits) for n in names)
        summary.append(f"gradient: ({gradient})")
        summary.append(
            " — a critical point\n" if test.critical else " — not zero, so not a critical point\n"
        )
        summary.append("second-derivative test: ")
        summary.append(test.verdict, style="bold")
        parts = [render.headline(result, digits), table, summary]
        if self.latex:
            parts.append(unwrapped(f"H = {latex_matrix(result)}"))
        return parts

    def many(self, computed: HessianResult, digits: int | None) -> list[Any]:
        title = f"Hessian of {computed.target}"
        table = rows_table(title, self.csv_header(computed), self.csv_rows(computed, digits))
        return [_read_as(computed, table)]


def unwrapped(text: str) -> Any:
    """Text that is never wrapped at the terminal's width (LaTeX must paste whole).

    >>> unwrapped(r"\frac{1}{2}").no_wrap
    True
    """
    from rich.text import Text

    return Text(text, no_wrap=True, overflow="ignore")


def latex_matrix(result: HessianResult) -> str:
    """sympy's Hessian as a LaTeX ``pmatrix`` (empty without the symbolic check)."""
    tex = render.latex_derivatives(result)
    if not tex:
        return ""
    names = result.sources
    rows = [" & ".join(tex[f"{a},{b}"] for b in names) for a in names]
    return "\\begin{pmatrix} " + " \\\\ ".join(rows) + " \\end{pmatrix}"


class JacobianView(GradView):
    """``gradcalc jacobian``: several targets, one matrix per point."""

    def results(self, computed: JacobianResult) -> list[GradResult]:
        return computed.rows

    def json(self, computed: JacobianResult, k: int, tape: bool) -> list[dict[str, Any]]:
        rows = computed.rows
        first = rows[0]
        bad = any(row.reason(k) is not None for row in rows)
        matrix = computed.matrix.reshape(len(rows), len(first.sources), -1)[:, :, k]
        exact = [[_text_at(row.exact.get(s, []), k) for s in row.gradient] for row in rows]
        exact_determinant = _text_at(computed.exact_determinant, k)
        determinant = None
        if computed.determinant is not None and not bad:
            determinant = json_number(at_point(computed.determinant, k))
        checks = [render.to_json(row, k, tape=False)["check"] for row in rows]
        diagnostics = [render.diagnostics_json(row, k) for row in rows]
        return [
            {
                "expression": first.expression,
                "read_as": first.read_as,
                "point": render.point_values(first, k),
                "targets": computed.targets,
                "variables": list(first.sources),
                "values": [None if bad else json_number(at_point(row.value, k)) for row in rows],
                "jacobian": None if bad else [[json_number(v) for v in r] for r in matrix.tolist()],
                "determinant": determinant,
                "exact_jacobian": None if bad else exact,
                "exact_determinant": None if bad else exact_determinant,
                **(
                    {"symbolic_determinant": computed.symbolic_determinant}
                    if computed.symbolic_determinant is not None
                    else {}
                ),
                "symbolic": [render.to_json(row, k, tape=False)["symbolic"] for row in rows],
                "check": {
                    "status": _worst(c["status"] for c in checks),
                    "agree": None
                    if any(c["agree"] is None for c in checks)
                    else all(c["agree"] for c in checks),
                    "max_difference": max((c["max_difference"] or 0.0) for c in checks),
                },
                "undefined": next((row.reason(k) for row in rows if row.reason(k)), None),
                "warnings": list(dict.fromkeys(w for row in rows for w in row.warnings)),
                "diagnostics": {
                    "healthy": all(d["healthy"] for d in diagnostics),
                    "findings": [f for d in diagnostics for f in d["findings"]],
                },
            }
        ]

    def csv_header(self, computed: JacobianResult) -> list[str]:
        header = render.csv_header(computed.rows)
        return header + (["determinant"] if computed.determinant is not None else [])

    def csv_rows(self, computed: JacobianResult, digits: int | None) -> Iterator[list[str]]:
        rows = render.csv_rows(computed.rows, digits)
        if computed.determinant is None:
            return rows
        bad = np.any([row.first_reason >= 0 for row in computed.rows], axis=0)
        det = render.texts(
            computed.determinant.reshape(-1), computed.rows[0].points.count, digits, bad
        )
        return ([*row, d] for row, d in zip(rows, det))

    def plain(self, computed: JacobianResult, digits: int | None) -> Iterator[str]:
        return render.plain_lines(computed.rows, digits)

    def single(self, computed: JacobianResult, digits: int | None, tape: bool) -> list[Any]:
        from rich.text import Text

        rows = computed.rows
        if any(row.undefined.any() for row in rows):
            return []
        first = rows[0]
        point = ", ".join(f"{n} = {v}" for n, v in (first.points.exact or [{}])[0].items())
        head = render.read_as_line(first)
        head.append("\n")
        for row in rows:
            head.append(f"{row.target} = ", style="bold")
            value = row.value if row.shown_value is None else row.shown_value
            head.append(f"{format_number(value, digits)}\n")
        head.append(f"at {point}", style="dim")
        table = render.new_table("Jacobian (rows: targets; columns: variables)")
        table.add_column("", style="bold")
        for name in first.sources:
            table.add_column(f"∂/∂{name}", justify="right", style="cyan")
        if first.check is not None:
            table.add_column("check", justify="center")
        for row in rows:
            cells = [f"∂{row.target}"]
            for name, g in (row.shown or row.gradient).items():
                exact = _text_at(row.exact.get(name, []), 0)
                shown = format_number(0.0 if g is None else g, digits)
                cells.append(exact if self.exact and exact else shown)
            if row.check is not None:
                cells.append(render.check_mark(row.check, None))
            table.add_row(*cells)
        parts: list[Any] = [head, table]
        if computed.determinant is not None:
            exact = _text_at(computed.exact_determinant, 0)
            shown = exact if self.exact and exact else format_number(computed.determinant, digits)
            line = f"determinant: {shown}"
            if computed.symbolic_determinant is not None:
                line += f"   (symbolically: {computed.symbolic_determinant})"
            parts.append(Text(line))
        return parts

    def many(self, computed: JacobianResult, digits: int | None) -> list[Any]:
        table = rows_table("Jacobian", self.csv_header(computed), self.csv_rows(computed, digits))
        return [_read_as(computed.rows[0], table)]


def _text_at(texts: list[str | None], k: int) -> str | None:
    """Point ``k``'s exact text from a per-point list (``None`` where unknown)."""
    return texts[k] if k < len(texts) else None


def _exact_at(check: Any, labels: list[str], k: int) -> dict[str, str]:
    """The exact texts of ``labels`` at point ``k``, where the check knows them."""
    from gradcalc.engine.exact import exact_texts

    found = {label: _text_at(exact_texts(check, label), k) for label in labels}
    return {label: text for label, text in found.items() if text is not None}


def _shown(shown: np.ndarray | None, tape: np.ndarray) -> np.ndarray:
    """The numbers to show: exact where known (``shown``), else the tape's."""
    return tape if shown is None else shown


def _worst(statuses: Iterator[str]) -> str:
    order = ["off", "agree", "skipped", "disagree"]
    return max(statuses, key=order.index)


#: One statement that names its function: ``g = x*y`` (the REPL checks ``g`` so).
_DEFINITION = re.compile(r"\s*[A-Za-z][A-Za-z0-9_]*\s*=(?!=)[^;\n=]*")
_VERDICT_MARKS = {True: ("✓", "green"), False: ("✗", "red"), None: ("?", "yellow")}


class VerdictView:
    """``gradcalc check``: one verdict per component of the answer.

    ``read_as`` is the expression as gradcalc read it, ``answers_read_as`` each answer's
    reading (in the verdicts' order), ``warnings`` the ambiguity warnings of both.
    """

    def __init__(
        self,
        expression: str,
        at: list[str] | None,
        latex: bool,
        read_as: str = "",
        answers_read_as: list[str] | None = None,
        warnings: list[str] | None = None,
    ):
        self.expression, self.at, self.latex = expression, at, latex
        self.read_as = read_as
        self.answers_read_as = answers_read_as
        self.warnings = warnings or []

    def json(self, verdicts: list) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "read_as": self.read_as or None,
            "point": self.at[0] if self.at and len(self.at) == 1 else None,
            "verdicts": [
                {
                    "component": v.component,
                    "yours": v.yours,
                    **({"yours_read_as": r} if r is not None else {}),
                    "correct": v.correct,
                    "verdict": v.verdict,
                    "ok": v.ok,
                    "detail": v.detail,
                    "evidence": v.evidence or None,
                    **({"latex": v.latex} if self.latex else {}),
                }
                for v, r in zip(verdicts, self._readings(verdicts))
            ],
            "all_correct": all(v.ok for v in verdicts),
            "warnings": self.warnings,
        }

    def _readings(self, verdicts: list) -> list[str | None]:
        readings: list[str | None] = [None] * len(verdicts)
        return list(self.answers_read_as or readings)

    def records(self, verdicts: list, tape: bool) -> list[dict[str, Any]]:
        return [self.json(verdicts)]

    def csv_header(self, verdicts: list) -> list[str]:
        return ["component", "yours", "correct", "verdict", "ok", "detail"]

    def csv_rows(self, verdicts: list, digits: int | None) -> Iterator[list[str]]:
        """A row per component; ``ok`` is true, false or empty (could not decide)."""
        for v in verdicts:
            ok = "" if v.ok is None else str(v.ok).lower()
            yield [v.component, v.yours, v.correct, v.verdict, ok, v.detail]

    def plain(self, verdicts: list, digits: int | None) -> Iterator[str]:
        """A line per component: its name and the verdict, tab-separated."""
        return (f"{v.component}\t{v.verdict}" for v in verdicts)

    def tables(self, verdicts: list, digits: int | None, tape: bool, several: bool) -> list[Any]:
        return self.table(verdicts)

    def table(self, verdicts: list) -> list[Any]:
        from rich.text import Text

        where = f" at {self.at[0].replace(',', ', ')}" if self.at and len(self.at) == 1 else ""
        named = self.expression if _DEFINITION.fullmatch(self.expression) else None
        function = named or f"f = {self.expression}"  # g = x*y names itself
        heading = Text()
        if self.read_as:  # then the heading names the function only: g, or f
            heading.append("read as: ", style="dim")
            heading.append(f"{self.read_as if named else f'f = {self.read_as}'}\n")
            function = named.split("=")[0].strip() if named else "f"
        for warning in self.warnings:
            heading.append(f"warning: {warning}\n", style="yellow")
        heading.append(f"Checking your derivative of {function}{where}", style="bold")
        table = render.new_table()
        for header in ("", "your answer", "correct", "verdict", "why"):
            table.add_column(header, style="bold" if not header else None)
        for v, reading in zip(verdicts, self._readings(verdicts)):
            mark, colour = _VERDICT_MARKS[v.ok]
            table.add_row(
                v.component,
                v.yours if reading is None else reading,
                v.correct,
                Text(f"{mark} {v.verdict}", style=colour),
                v.detail,
            )
        parts: list[Any] = [heading, table]
        if self.latex:
            parts.append(unwrapped("\n".join(f"{v.latex_name} = {v.latex}" for v in verdicts)))
        return parts


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
    table = render.new_table(f"{result.method}: the path (every recorded step)")
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
    summary.append(
        f"|gradient| {format_number(result.gradient_norm, digits)} after {result.steps} steps\n"
    )
    summary.append(result.reason, style="green" if result.converged else "yellow")
    return [table, summary]


class GraphView:
    """``gradcalc graph``: the op graph of one result as Graphviz DOT, Mermaid or SVG."""

    def dot(self, result: GradResult, digits: int | None) -> str:
        from gradcalc.render.drawing import to_dot

        return to_dot(result, digits=digits)

    def mermaid(self, result: GradResult, digits: int | None) -> str:
        from gradcalc.render.drawing import to_mermaid

        return to_mermaid(result, digits=digits)

    def svg(self, result: GradResult, digits: int | None) -> str:
        from gradcalc.render.graph_svg import to_svg

        return to_svg(result, digits=digits)
