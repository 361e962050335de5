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
from gradcalc.symbolic.translate.notation import coordinate_text, user_text

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
                "exact": None
                if p.exact is None
                else {n: coordinate_text(n, v) for n, v in p.exact.items()},
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
    r"""One tab-separated line per point: the coordinates, the value, the verdict; then one
    line per continuum of critical points: ``continuum``, a tab, its description (a result
    too: never dropped).

    >>> from types import SimpleNamespace as N
    >>> critical_plain(N(points=[], continua=["a continuum of critical points where x = 0"]))
    ['continuum\ta continuum of critical points where x = 0']
    """
    return [
        "\t".join(
            [*(format_number(v) for v in p.point.values()), format_number(p.value), p.test.verdict]
        )
        for p in result.points
    ] + [f"continuum\t{continuum}" for continuum in getattr(result, "continua", [])]


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
    if result.limit is not None:
        return "not verified by the tape: f is undefined at the centre (see the note)"
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
        "limit": None if result.limit is None else user_text(result.limit),
        "notes": list(result.notes),
    }


# --- implicit derivatives --------------------------------------------------------------------


def implicit_lines(result: Any, latex: bool = False) -> list[str]:
    """The equation, each derivative, its value at the point, the verification."""
    lines = [f"on {result.equation}  ({_as_function(result)})", ""]
    for entry in result.entries:
        lines.append(f"{entry.label} = {entry.text}")
        if latex:
            lines.append(f"  LaTeX: {entry.latex}")
    lines += [f"at the point: {line}" for line in _implicit_values(result)]
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


def implicit_markdown(result: Any) -> str:
    """The derivatives as Markdown (each also in LaTeX), their values at the point, the
    verification."""
    lines = [f"## `{result.equation}`  ({_as_function(result)})", ""]
    lines += [f"- {e.label} = `{e.text}`  ($ {e.latex} $)" for e in result.entries]
    lines += [f"- at the point: {line}" for line in _implicit_values(result)]
    lines += ["", f"*{verification_line(result)}*"]
    return "\n".join([*lines, *(f"- note: {n}" for n in result.notes)])


def implicit_latex(result: Any) -> str:
    r"""Each derivative as a line of an ``align*`` environment.

    >>> from types import SimpleNamespace as N
    >>> entry = N(variables=("x", "x"), latex="- \\frac{1}{y}")
    >>> print(implicit_latex(N(dependent="y", independent=("x",), entries=[entry])))
    \begin{align*}
    \frac{d^{2} y}{d x^{2}} &= - \frac{1}{y}
    \end{align*}
    """
    rows = [f"{_implicit_label(result, e.variables)} &= {e.latex}" for e in result.entries]
    return "\n".join([r"\begin{align*}", " \\\\\n".join(rows), r"\end{align*}"])


def _implicit_label(result: Any, variables: tuple[str, ...]) -> str:
    """``dy/dx`` (``∂z/∂x`` with several independent variables) in LaTeX, of any order."""
    d = "d" if len(result.independent) == 1 else r"\partial"
    order = len(variables)
    power = f"^{{{order}}}" if order > 1 else ""
    below = " ".join(
        f"{d} {v}" + (f"^{{{variables.count(v)}}}" if variables.count(v) > 1 else "")
        for v in dict.fromkeys(variables)
    )
    return rf"\frac{{{d}{power} {result.dependent}}}{{{below}}}"


def _as_function(result: Any) -> str:
    return f"{result.dependent} as a function of {', '.join(result.independent)}"


def _implicit_values(result: Any) -> list[str]:
    """``dy/dx = -1`` (exact where known, with its float) for each value at the point."""
    lines = []
    for label, value in (result.values or {}).items():
        exact = result.exact.get(label)
        shown = format_number(value)
        both = f"{exact} ≈ {shown}" if exact is not None and exact != shown else shown
        lines.append(f"{label} = {both}")
    return lines


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

    def markdown(self, result: Any, digits: int | None) -> str:
        return implicit_markdown(result)

    def latex(self, result: Any, digits: int | None) -> str:
        return implicit_latex(result)


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
