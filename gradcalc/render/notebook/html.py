"""Results in a notebook: the terminal's tables as HTML, and derivatives as LaTeX.

The HTML is made from the very renderables the command line prints (the views of
:mod:`gradcalc.render.views.views`): a rich table becomes a ``<table>``, a panel a titled
``<fieldset>``, text a ``<pre>``; every piece of text is escaped. Importing this module
registers the renderers of the engine's results (:mod:`gradcalc.engine.evaluate.display`).

>>> from rich.table import Table
>>> table = Table(title="f")
>>> table.add_column("x")
>>> table.add_row("<1>")
>>> print(to_html([table]).replace("><", ">\\n<"))
<div class="gradcalc">
<table>
<caption>f</caption>
<thead>
<tr>
<th>x</th>
</tr>
</thead>
<tbody>
<tr>
<td>&lt;1&gt;</td>
</tr>
</tbody>
</table>
</div>
"""

from __future__ import annotations

import html
import io
from collections.abc import Iterable
from typing import Any

from gradcalc.engine.evaluate import display
from gradcalc.engine.evaluate.beyond import (
    DerivativeResult,
    DirectionalResult,
    HessianResult,
    JacobianResult,
)
from gradcalc.engine.run.api import GradResult
from gradcalc.render.pieces import gradient as render
from gradcalc.render.views import matrices, views

_ALIGN = {"right": ' style="text-align:right"', "center": ' style="text-align:center"'}


def to_html(parts: Iterable[Any]) -> str:
    """Rich renderables (tables, panels, groups, text) as one HTML fragment.

    >>> from rich.text import Text
    >>> to_html([Text("a < b")])
    '<div class="gradcalc"><pre>a &lt; b</pre></div>'
    """
    return '<div class="gradcalc">' + "".join(_piece(part) for part in parts) + "</div>"


def _piece(part: Any) -> str:
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table

    if isinstance(part, Table):
        return _table(part)
    if isinstance(part, Panel):
        legend = f"<legend>{_text(part.title)}</legend>" if part.title else ""
        return f"<fieldset>{legend}{_piece(part.renderable)}</fieldset>"
    if isinstance(part, Group):
        return "".join(_piece(p) for p in part.renderables)
    text = _text(part) if isinstance(part, str) or hasattr(part, "plain") else _drawn(part)
    return f"<pre>{text}</pre>"


def _table(table: Any) -> str:
    caption = f"<caption>{_text(table.title)}</caption>" if table.title else ""
    aligns = [_ALIGN.get(column.justify, "") for column in table.columns]
    head = "".join(
        f"<th{align}>{_text(column.header)}</th>" for column, align in zip(table.columns, aligns)
    )
    columns = [list(column.cells) for column in table.columns]
    rows = "".join(
        "<tr>"
        + "".join(f"<td{align}>{_text(cell)}</td>" for cell, align in zip(row, aligns))
        + "</tr>"
        for row in zip(*columns)
    )
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _text(value: Any) -> str:
    """A cell, title or text as escaped HTML (rich ``Text`` by its plain text)."""
    return html.escape(getattr(value, "plain", None) or str(value or ""))


def _drawn(part: Any) -> str:
    """Any other renderable, drawn as the terminal would, escaped."""
    return html.escape(drawn(part))


def drawn(part: Any, width: int = 80) -> str:
    """A renderable drawn as the terminal would (``width`` columns, no colour).

    >>> drawn("a  ") + "|"
    'a|'
    """
    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_jupyter=False)
    console.print(part)
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip("\n").splitlines())


def result_html(result: GradResult | JacobianResult) -> str:
    """A gradient, derivative, Hessian or Jacobian result as HTML: at one point the tables
    ``gradcalc grad`` prints (the gradient beside sympy's derivative with the check mark, and
    the tape), at several one table of the points; then the warnings and where the result is
    undefined.

    >>> from gradcalc import grad
    >>> page = result_html(grad("x^2", at={"x": 3}))
    >>> "<td>2x</td>" in page, "✓" in page, "Tape (adjoint = ∂f/∂row)" in page
    (True, True, True)
    """
    view, computed, first = _view(result)
    if first.points.count == 1:
        parts = view.single(computed, None, True)
    else:
        parts = view.many(computed, None)
    if not parts:  # undefined at its point: the reason follows
        parts = [render.headline(first, None)]
    results = view.results(computed)
    notes = [w for r in results for w in r.warnings if w not in r.read_warnings]  # (shown)
    notes += [s.describe(r.points, r.target) for r in results for s in r.singularities]
    if notes:
        from rich.text import Text

        parts = [*parts, Text("\n".join(dict.fromkeys(notes)))]
    return to_html(parts)


def _view(result: GradResult | JacobianResult) -> tuple[Any, Any, GradResult]:
    """The command line's view of ``result``, what it renders, and its first gradient."""
    if isinstance(result, JacobianResult):
        return matrices.JacobianView(), result, result.rows[0]
    if isinstance(result, HessianResult):
        return matrices.HessianView(), result, result
    kinds = {DerivativeResult: views.DerivativeView, DirectionalResult: views.DirectionalView}
    return kinds.get(type(result), views.GradView)(), [result], result


def result_latex(result: GradResult) -> str | None:
    """sympy's derivatives as display LaTeX (``None`` without the symbolic check).

    >>> from gradcalc import grad
    >>> print(result_latex(grad("x^2*y", at={"x": 1, "y": 2})))
    $$\\begin{aligned}\\frac{\\partial f}{\\partial x} &= 2 x y\\\\
    \\frac{\\partial f}{\\partial y} &= x^{2}\\end{aligned}$$
    """
    if isinstance(result, HessianResult):
        matrix = matrices.latex_matrix(result)
        return f"$$H = {matrix}$$" if matrix else None
    lines = render.latex_block(result).splitlines()
    if not lines:
        return None
    aligned = "\\\\\n".join(line.replace(" = ", " &= ", 1) for line in lines)
    return f"$$\\begin{{aligned}}{aligned}\\end{{aligned}}$$"


display.register("text/html", GradResult, result_html)
display.register("text/html", JacobianResult, result_html)
display.register("text/latex", GradResult, result_latex)
