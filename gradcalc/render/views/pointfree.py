"""Render critical points, Taylor polynomials and implicit derivatives: rich tables, JSON,
Markdown and plain lines. Pure functions: nothing here prints or computes.

The results (:mod:`gradcalc.apps.critical.critical`, :mod:`gradcalc.apps.derive.taylor`,
:mod:`gradcalc.apps.derive.implicit`) are read by their fields only.
"""

from __future__ import annotations

from typing import Any

from gradcalc.core.naming import function_head
from gradcalc.core.numbers import format_number
from gradcalc.render.pieces.gradient import json_number
from gradcalc.render.views.derivative import verification_line
from gradcalc.symbolic.translate.notation import user_text

# --- critical points ----------------------------------------------------------------------------


def critical_heading(result: Any) -> str:
    """``f(x, y) = ...`` and how the points were found.

    >>> from types import SimpleNamespace as N
    >>> print(critical_heading(N(variables=("x",), function=None, expression="x^3 - 3x",
    ...       method="exact", points=[1, 2], region={"x": (-5.0, 5.0)})))
    f(x) = x^3 - 3x
    2 critical points, exact (sympy solved ∇f = 0; the list is complete)
    """
    count = len(result.points)
    noun = "critical point" if count == 1 else "critical points"
    if getattr(result, "continua", []):
        noun = f"isolated {noun}"
    if result.method == "exact":
        how = "exact (sympy solved ∇f = 0; the list is complete)"
    else:
        box = ", ".join(
            f"{v} in [{format_number(lo)}, {format_number(hi)}]"
            for v, (lo, hi) in result.region.items()
        )
        how = f"numeric (searched {box})"
    lines = [_function_line(result), f"{count} {noun}, {how}"]
    lines += [f"and {continuum}" for continuum in getattr(result, "continua", [])]
    return "\n".join(lines)


def critical_table(result: Any) -> Any:
    """A rich table: point, value, Hessian, D (two variables), verdict."""
    from rich.table import Table

    table = Table()
    two = len(result.variables) == 2
    for title in ["point", "f", "Hessian", *(["D = fxx·fyy − fxy²"] if two else []), "verdict"]:
        table.add_column(title)
    for p in result.points:
        row = [p.coordinates, format_number(p.value, 10), _matrix(p.hessian)]
        if two:
            row.append(format_number(p.discriminant, 10))
        table.add_row(*row, p.test.verdict)
    return table


def critical_json(result: Any) -> dict[str, Any]:
    """Plain types only: each point with exact coordinates (text) when known."""
    return {
        "expression": result.expression,
        "variables": list(result.variables),
        "method": result.method,
        "region": {v: list(bounds) for v, bounds in result.region.items()},
        "points": [
            {
                "point": {n: json_number(v) for n, v in p.point.items()},
                "exact": None if p.exact is None else {n: user_text(v) for n, v in p.exact.items()},
                "value": json_number(p.value),
                "hessian": [[json_number(h) for h in row] for row in p.hessian],
                "eigenvalues": [json_number(e) for e in p.test.eigenvalues],
                "discriminant": json_number(p.discriminant),
                "verdict": p.test.verdict,
            }
            for p in result.points
        ],
        "continua": list(result.continua),
        "notes": list(result.notes),
    }


def critical_plain(result: Any) -> list[str]:
    """One tab-separated line per point: the coordinates, the value, the verdict."""
    return [
        "\t".join(
            [*(format_number(v) for v in p.point.values()), format_number(p.value), p.test.verdict]
        )
        for p in result.points
    ]


def critical_markdown(result: Any) -> str:
    """A Markdown table of the points."""
    lines = [f"`{line}`" for line in critical_heading(result).splitlines()]
    lines += ["", "| point | f | Hessian | verdict |", "| --- | --- | --- | --- |"]
    lines += [
        f"| {p.coordinates} | {format_number(p.value, 10)} | {_matrix(p.hessian)} "
        f"| {p.test.verdict} |"
        for p in result.points
    ]
    return "\n".join([*lines, *(f"- note: {n}" for n in result.notes)])


def _matrix(matrix: Any) -> str:
    return "[" + "; ".join(", ".join(format_number(h, 10) for h in row) for row in matrix) + "]"


# --- Taylor polynomials --------------------------------------------------------------------------


def taylor_lines(result: Any) -> list[str]:
    """The polynomial (or the tangent's equation), and how it compares with the tape."""
    centre = ", ".join(f"{v} = {t}" for v, t in result.center_text.items())
    name = f"P{result.order}({', '.join(result.variables)})"
    lines = [f"{_function_line(result)}, about {centre}"]
    lines.append(f"{name} = {result.text}")
    if result.equation:
        kind = "tangent line" if len(result.variables) == 1 else "tangent plane"
        lines.append(f"{kind}: {result.equation}")
    lines.append(_taylor_status(result))
    return [*lines, *(f"note: {n}" for n in result.notes)]


def _taylor_status(result: Any) -> str:
    count = len(result.coefficients)
    if result.status == "agree":
        return f"verified: the tape's {count} coefficients (nested tapes) = sympy's exact ones"
    if result.status == "disagree":
        bad = [c for c in result.coefficients if c.agree is False]
        return f"NOT verified: {len(bad)} of {count} coefficients differ from sympy's"
    return "not verified: sympy's exact polynomial was not formed"


def taylor_json(result: Any) -> dict[str, Any]:
    """Plain types only: the polynomial's text and LaTeX, every coefficient both ways."""
    return {
        "expression": result.expression,
        "variables": list(result.variables),
        "center": dict(result.center_text),
        "order": result.order,
        "polynomial": result.text,
        "latex": result.latex,
        "tangent": result.equation,
        "coefficients": [
            {
                "powers": list(c.powers),
                "tape": json_number(c.tape),
                "exact": None if c.exact is None else user_text(c.exact),
                "agree": c.agree,
            }
            for c in result.coefficients
        ],
        "status": result.status,
        "notes": list(result.notes),
    }


# --- implicit derivatives --------------------------------------------------------------------


def implicit_lines(result: Any, latex: bool = False) -> list[str]:
    """The equation, each derivative, its value at the point, the verification."""
    lines = [
        f"on {result.equation}  ({result.dependent} as a function of "
        f"{', '.join(result.independent)})",
        "",
    ]
    for entry in result.entries:
        lines.append(f"{entry.label} = {entry.text}")
        if latex:
            lines.append(f"  LaTeX: {entry.latex}")
    for label, value in (result.values or {}).items():
        exact = result.exact.get(label)
        shown = format_number(value)
        both = f"{exact} ≈ {shown}" if exact is not None and exact != shown else shown
        lines.append(f"at the point: {label} = {both}")
    lines += ["", verification_line(result)]
    return [*lines, *(f"note: {n}" for n in result.notes)]


def implicit_json(result: Any) -> dict[str, Any]:
    """Plain types only."""
    check = result.verification
    return {
        "equation": result.equation,
        "dependent": result.dependent,
        "independent": list(result.independent),
        "derivatives": [
            {"label": e.label, "text": e.text, "latex": e.latex, "sympy": str(e.expr)}
            for e in result.entries
        ],
        "values": None
        if result.values is None
        else {k: json_number(v) for k, v in result.values.items()},
        "exact_values": dict(result.exact),
        "verification": {"status": check.status, "points": check.points, "detail": check.detail},
        "notes": list(result.notes),
    }


# --- views for the command line (see gradcalc.render.output.formats) ------------------------


class CriticalView:
    """``gradcalc critical``: the points as a table, JSON, plain lines or Markdown."""

    def tables(self, result: Any, digits: int | None, tape: bool, several: bool) -> list[Any]:
        notes = "\n".join(f"note: {n}" for n in result.notes)
        table = [critical_table(result)] if result.points else []
        return [critical_heading(result), *table, *([notes] if notes else [])]

    def records(self, result: Any, tape: bool) -> list[dict[str, Any]]:
        return [critical_json(result)]

    def plain(self, result: Any, digits: int | None) -> list[str]:
        return critical_plain(result)

    def markdown(self, result: Any, digits: int | None) -> str:
        return critical_markdown(result)


class TaylorView:
    """``gradcalc taylor``: the polynomial, its LaTeX, JSON with every coefficient."""

    def tables(self, result: Any, digits: int | None, tape: bool, several: bool) -> list[Any]:
        return ["\n".join(taylor_lines(result))]

    def records(self, result: Any, tape: bool) -> list[dict[str, Any]]:
        return [taylor_json(result)]

    def plain(self, result: Any, digits: int | None) -> list[str]:
        return [result.text]

    def latex(self, result: Any, digits: int | None) -> str:
        return result.latex


class ImplicitView:
    """``gradcalc diff --implicit``: dy/dx, its value at the point, the verification."""

    def __init__(self, latex: bool = False):
        self.latex_lines = latex

    def tables(self, result: Any, digits: int | None, tape: bool, several: bool) -> list[Any]:
        return ["\n".join(implicit_lines(result, self.latex_lines))]

    def records(self, result: Any, tape: bool) -> list[dict[str, Any]]:
        return [implicit_json(result)]

    def plain(self, result: Any, digits: int | None) -> list[str]:
        values = result.values or {}
        return [e.text for e in result.entries] + [format_number(v) for v in values.values()]


def _function_line(result: Any) -> str:
    """``f(x, y) = <the text>``, or the text as typed when it names its function itself
    (``g(x) = x^3`` for ``g = x^3``; ``f(x) = x^2`` typed so stays so).

    >>> from types import SimpleNamespace as Result
    >>> _function_line(Result(expression="x^2 + y", variables=["x", "y"]))
    'f(x, y) = x^2 + y'
    >>> _function_line(Result(expression="g = x^3", variables=["x"]))
    'g(x) = x^3'
    >>> _function_line(Result(expression="h(t) = e^t", variables=["t"]))
    'h(t) = e^t'
    """
    head, body = function_head(result.expression, result.variables)
    return f"{head} = {body}" if head else body
