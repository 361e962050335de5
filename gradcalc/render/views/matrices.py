"""How a matrix of derivatives is shown in each output format: the Hessian (``hessian``,
``grad --order 2`` with several sources) and the Jacobian (``jacobian``). Pure: nothing here
prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from gradcalc.core.numbers import format_number
from gradcalc.engine.evaluate.beyond import HessianResult, JacobianResult
from gradcalc.engine.judge.exact import exact_texts
from gradcalc.engine.run.api import GradResult
from gradcalc.render.pieces import gradient as render
from gradcalc.render.pieces.gradient import CHECK_MARK, at_point, json_number
from gradcalc.render.views.views import GradView, rows_table, text_at, unwrapped, with_reading


class HessianView(GradView):
    """``gradcalc hessian`` (and ``grad --order 2`` with several sources)."""

    columns = None  # type: ignore[assignment]  # (JSON: an object per point, with its matrix)

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
        texts = result.check.derivative_texts if result.check is not None else {}
        obj.update(
            variables=list(names),
            hessian=None if bad else [[json_number(v) for v in row] for row in matrix.tolist()],
            exact_hessian=None
            if bad
            else [[text_at(t, k) for t in row] for row in result.exact_matrix],
            symbolic=[[texts[f"{a},{b}"] if partials else None for b in names] for a in names],
            eigenvalues=None if bad else [json_number(e) for e in test.eigenvalues],
            curvature=None if bad else test.curvature,
            classification=None if bad else result.verdict(k),
            second_derivative_test=None if bad else test.verdict,
            lowest_order=None if bad else _lowest_order(result, k),
            critical_point=None if bad else test.critical,
            critical_within_rounding=None if bad else test.within_rounding,
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
            render.texts(result.points.arrays[p].reshape(-1), count, None)  # (in full)
            for p in result.points.names
        ]
        columns.append(
            render.texts(
                result.value.reshape(-1), count, digits, result.value_undefined.reshape(-1)
            )
        )
        flat = _shown(result.shown_matrix, result.matrix).reshape(n * n, -1)
        columns += [render.texts(flat[i], count, digits, bad) for i in range(n * n)]
        columns.append(["" if bad[k] else result.verdict(k) for k in range(len(result.tests))])
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
                exact = text_at(result.exact_matrix[i][j], 0) if result.exact_matrix else None
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
        gradient = ", ".join(_component(result, shown, n, digits) for n in names)
        summary.append(f"gradient: ({gradient})")
        if test.within_rounding:  # a float gradient, not known exactly: say how it was judged
            summary.append(" — zero to within rounding (not known exactly), a critical point\n")
        elif test.critical:
            summary.append(" — a critical point\n")
        else:
            summary.append(" — not zero, so not a critical point\n")
        summary.append("second-derivative test: ")
        summary.append(test.verdict, style="bold")
        decided = _lowest_order(result, 0)
        if decided is not None:
            summary.append("\nterms of lowest order: ")
            summary.append(decided["verdict"], style="bold")
            summary.append(f" ({decided['reason']})")
        parts = [render.headline(result, digits), table, summary]
        if self.latex:
            parts.append(unwrapped(f"H = {latex_matrix(result)}"))
        return parts

    def many(self, computed: HessianResult, digits: int | None) -> list[Any]:
        title = f"Hessian of {computed.target}"
        table = rows_table(title, self.csv_header(computed), self.csv_rows(computed, digits))
        return [with_reading(computed, table)]


def _component(result: HessianResult, shown: Any, name: str, digits: int | None) -> str:
    """A gradient component as shown: its exact text where float64 rounds it to 0 and it
    is not (``exp(-800)``), else the number -- sympy's where the check disputes the tape's
    (the tape's 0 at x = 0.57735... for x^3 - x: -2.2e-16)."""
    number = format_number(shown[name], digits)
    partial = None if result.check is None else result.check.partials.get(name)
    if partial is not None and partial.mismatch is not None and bool(np.any(partial.mismatch)):
        number = format_number(partial.values.reshape(-1)[0], digits)
    exact = text_at(exact_texts(result.check, name), 0)
    return exact if number == "0" and exact not in (None, "0") else number


def _once(findings: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each finding once: the targets of a Jacobian share one tape, so each row's
    diagnostics see its records.

    >>> _once([{"kind": "kink", "message": "m"}, {"kind": "kink", "message": "m"}])
    [{'kind': 'kink', 'message': 'm'}]
    """
    out: list[dict[str, Any]] = []
    for finding in findings:
        if finding not in out:
            out.append(finding)
    return out


def _lowest_order(result: HessianResult, k: int) -> dict[str, str] | None:
    """The verdict and reason of the terms of lowest order at point ``k``, where they
    decided an inconclusive test (else None)."""
    decided = result.lowest_order[k] if k < len(result.lowest_order) else None
    return None if decided is None else {"verdict": decided.verdict, "reason": decided.reason}


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

    columns = None  # type: ignore[assignment]  # (JSON: an object per point, with its matrix)

    def results(self, computed: JacobianResult) -> list[GradResult]:
        return computed.rows

    def json(self, computed: JacobianResult, k: int, tape: bool) -> list[dict[str, Any]]:
        rows = computed.rows
        first = rows[0]
        bad = any(row.reason(k) is not None for row in rows)
        matrix = computed.matrix.reshape(len(rows), len(first.sources), -1)[:, :, k]
        exact = [[text_at(row.exact.get(s, []), k) for s in row.gradient] for row in rows]
        exact_determinant = text_at(computed.exact_determinant, k)
        determinant = None
        if computed.determinant is not None and not bad:
            determinant = json_number(at_point(computed.determinant, k))
        checks = [render.check_json(row, k, row.reason(k)) for row in rows]
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
                "symbolic": [{} if r.check is None else r.check.derivative_texts for r in rows],
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
                    "findings": _once(f for d in diagnostics for f in d["findings"]),
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
        head = render.reading(first)
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
                exact = text_at(row.exact.get(name, []), 0)
                shown = format_number(0.0 if g is None else g, digits)
                cells.append(exact if self.exact and exact else shown)
            if row.check is not None:
                cells.append(render.check_mark(row.check, None))
            table.add_row(*cells)
        parts: list[Any] = [head, table]
        if computed.determinant is not None:
            exact = text_at(computed.exact_determinant, 0)
            shown = exact if self.exact and exact else format_number(computed.determinant, digits)
            line = f"determinant: {shown}"
            if computed.symbolic_determinant is not None:
                line += f"   (symbolically: {computed.symbolic_determinant})"
            parts.append(Text(line))
        return parts

    def many(self, computed: JacobianResult, digits: int | None) -> list[Any]:
        table = rows_table("Jacobian", self.csv_header(computed), self.csv_rows(computed, digits))
        return [with_reading(computed.rows[0], table)]


def _shown(shown: np.ndarray | None, tape: np.ndarray) -> np.ndarray:
    """The numbers to show: exact where known (``shown``), else the tape's."""
    return tape if shown is None else shown


def _worst(statuses: Iterator[str]) -> str:
    order = ["off", "agree", "skipped", "undefined", "disagree"]
    return max(statuses, key=order.index)
