"""Notebook display: every result type as HTML (and LaTeX / Markdown where it has them).

Content is compared with independent truth (derivatives by hand, sympy); validity by
parsing with the standard library's HTML parser: only known tags, each closed in order.
"""

from __future__ import annotations

import html.parser
import re

import numpy as np
import pytest
import sympy as sp

from gradcalc import grad, hessian, jacobian
from gradcalc.apps.check.check import check_answers, check_expect
from gradcalc.apps.explain.explain import explain
from gradcalc.apps.optimize.fit import fit
from gradcalc.apps.optimize.minimize import minimize
from gradcalc.engine.evaluate.points import parse_at
from gradcalc.engine.run.api import compile_expression, derivatives_at, directional_at
from gradcalc.render.notebook.html import to_html
from tests.symbolic.readback import read_back

TAGS = {"div", "pre", "table", "caption", "thead", "tbody", "tr", "th", "td", "fieldset", "legend"}


class _Checker(html.parser.HTMLParser):
    """Collects the cells' text and fails on unknown, unclosed or misnested tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.cells: list[str] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        assert tag in TAGS, tag
        for name, value in attrs:
            assert name in ("class", "style"), name
            assert "<" not in (value or "")
        self.open.append(tag)
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, (self.open, tag)
        self.open.pop()
        if tag in ("td", "th"):
            self.cells.append("".join(self._cell or []))
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parsed(page: str) -> _Checker:
    """Parse ``page``; it must be one balanced ``<div class="gradcalc">``."""
    assert page.startswith('<div class="gradcalc">') and page.endswith("</div>")
    checker = _Checker()
    checker.feed(page)
    checker.close()
    assert checker.open == [], checker.open
    return checker


def rows(page: str) -> list[list[str]]:
    """The table rows of ``page`` as lists of cell texts."""
    found = []
    for row in re.findall(r"<tr>(.*?)</tr>", page):
        found.append([parsed_cell(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)])
    return found


def parsed_cell(cell: str) -> str:
    import html

    return html.unescape(cell)


def test_grad_html_shows_the_gradient_the_check_and_the_tape() -> None:
    w1, w2 = sp.symbols("w1 w2", real=True)
    f = 3 * w1**2 + 2 * w1 * w2
    truth = {str(s): sp.diff(f, s) for s in (w1, w2)}
    page = grad("3*w1**2+2*w1*w2", at={"w1": 5, "w2": 3})._repr_html_()
    checker = parsed(page)
    table = rows(page)
    assert table[0] == ["∂f/∂", "tape", "symbolic (sympy)", "exact", "check"]
    for name, row in zip(("w1", "w2"), table[1:3]):
        exact = truth[name].subs({w1: 5, w2: 3})
        assert row[0] == name
        assert float(row[1]) == float(exact) and row[3] == str(exact)
        assert sp.simplify(read_back(row[2]) - truth[name]) == 0
        assert row[4] == "✓"
    assert "Tape (adjoint = ∂f/∂row)" in "".join(checker.text)
    tape_rows = [r for r in table if r[1:2] == ["add"]]
    assert tape_rows and float(tape_rows[0][3]) == float(f.subs({w1: 5, w2: 3}))


def test_a_disagreement_or_skipped_check_is_not_shown_as_a_tick() -> None:
    page = grad("x^2", at={"x": 3}, check=False)._repr_html_()
    parsed(page)
    assert "✓" not in page and "check" not in page


def test_many_points_are_one_table_with_a_check_column() -> None:
    xs = np.array([0.5, 1.0, 2.0])
    page = grad("x^3", at={"x": xs})._repr_html_()
    parsed(page)
    table = rows(page)
    assert table[0] == ["x", "value", "∂/∂x", "check"]
    for x, row in zip(xs, table[1:]):
        assert float(row[1]) == pytest.approx(x**3, rel=1e-15)
        assert float(row[2]) == pytest.approx(3 * x**2, rel=1e-15)
        assert row[3] == "✓"


def test_an_undefined_point_shows_why() -> None:
    page = grad("log(x)", at={"x": [-1.0, 2.0]}, strict=False)._repr_html_()
    checker = parsed(page)
    assert "ln is undefined for negative numbers" in "".join(checker.text)
    assert rows(page)[1][1:3] == ["undefined", "undefined"]


@pytest.mark.parametrize("at", [{"x": 1.0, "y": 2.0}, {"x": 1.0, "y": 0.0}])
def test_a_misreading_is_warned_once_under_the_reading(at) -> None:
    page = grad("x/2y + 1/y", at=at, strict=False)._repr_html_()
    text = "".join(parsed(page).text)
    warning = "warning: x/2y is read as (x/2)·y; if you mean x/(2·y), write x/(2y)"
    assert text.count(warning) == 1, text
    assert text.index("read as: f(x, y) = (x/2)·y") < text.index(warning)


def test_hessian_html_and_latex() -> None:
    x, y = sp.symbols("x y")
    truth = sp.hessian(x**2 * y, (x, y)).subs({x: 1, y: 2})
    result = hessian("x**2*y", at={"x": 1, "y": 2})
    page = result._repr_html_()
    checker = parsed(page)
    table = rows(page)
    values = [[float(c) for c in row[1:]] for row in table[1:]]
    assert values == [[float(v) for v in row] for row in truth.tolist()]
    assert "✓ every entry agrees with sympy's hessian" in "".join(checker.text)
    assert result._repr_latex_() == "$$H = \\begin{pmatrix} 2 y & 2 x \\\\ 2 x & 0 \\end{pmatrix}$$"


def test_jacobian_html_has_the_matrix_and_the_determinant() -> None:
    r, t = sp.symbols("r t")
    truth = sp.Matrix([r * sp.cos(t), r * sp.sin(t)]).jacobian([r, t]).subs({r: 2, t: 0.5})
    page = jacobian("r*cos(t), r*sin(t)", at={"r": 2, "t": 0.5})._repr_html_()
    checker = parsed(page)
    table = rows(page)
    for got, want in zip(table[1:], truth.tolist()):
        assert [float(c) for c in got[1:3]] == pytest.approx([float(v) for v in want], rel=1e-14)
        assert got[3] == "✓"
    determinant = re.search(r"determinant: (\S+)", "".join(checker.text)).group(1)
    assert float(determinant) == pytest.approx(float(truth.det()), rel=1e-14)


def test_derivative_and_directional_html() -> None:
    graph = compile_expression("x^4", ["x"])
    result = derivatives_at(graph, parse_at(["x=2"]), "x", 3)
    page = result._repr_html_()
    parsed(page)
    table = rows(page)
    assert [float(row[1]) for row in table[1:]] == [4 * 8, 12 * 4, 24 * 2]
    assert all(row[-1] == "✓" for row in table[1:])

    graph = compile_expression("x^2 + y^2", ["x", "y"])
    along = directional_at(graph, parse_at(["x=1,y=2"]), [3.0, 4.0])
    page = along._repr_html_()
    checker = parsed(page)
    value = re.search(r"along \(0\.6, 0\.8\): (\S+)", "".join(checker.text)).group(1)
    assert float(value) == pytest.approx(2 * 0.6 + 4 * 0.8, rel=1e-15)


def test_grad_latex_is_sympys_derivative() -> None:
    tex = grad("x^2*y", at={"x": 1, "y": 2})._repr_latex_()
    assert tex.startswith("$$\\begin{aligned}") and tex.endswith("\\end{aligned}$$")
    assert "&= 2 x y" in tex and "&= x^{2}" in tex
    assert grad("x^2", at={"x": 1}, check=False)._repr_latex_() is None


def test_check_verdicts_html() -> None:
    right = check_expect("x^2*y", ["x=1,y=2"], ["4", "1"])
    page = right._repr_html_()
    checker = parsed(page)
    text = "".join(checker.text)
    assert text.startswith("read as: f(x, y) = x^2·y\nChecking your derivative of f at x=1, y=2")
    assert [row[3] for row in rows(page)[1:]] == ["✓ correct", "✓ correct"]
    wrong = check_answers("x^2", ["3*x"])
    page = wrong._repr_html_()
    parsed(page)
    assert rows(page)[1][:4] == ["df/dx", "3*x", "2x", "✗ not equivalent"]


def test_explain_html_and_markdown() -> None:
    e = explain("y = x^2; z = y^2", at={"x": 3})
    page = e._repr_html_()
    checker = parsed(page)
    legends = re.findall(r"<legend>(.*?)</legend>", page)
    assert legends == [
        "Forward pass",
        "Reverse pass",
        "Gradient",
        "Symbolic derivative, rule by rule",
    ]
    assert "∂z/∂x = 108" in "".join(checker.text)  # 4 x^3 at 3
    assert e._repr_markdown_().startswith("# Explaining z in `y = x^2; z = y^2` at x=3")


def test_fit_html() -> None:
    data = {"x": np.array([0.0, 1, 2, 3]), "y": np.array([1.0, 3, 5, 7])}
    page = fit("a*x + b", data, ["a", "b"])._repr_html_()
    checker = parsed(page)
    params = {row[0]: float(row[1]) for row in rows(page)[1:]}
    assert params == pytest.approx({"a": 2.0, "b": 1.0}, abs=1e-9)
    assert "n = 4 points" in "".join(checker.text)


def test_minimize_html() -> None:
    result = minimize("(x-1)^2 + (y+2)^2", ["x=0,y=0"], method="gd", lr=0.1)
    page = result._repr_html_()
    checker = parsed(page)
    assert rows(page)[0] == ["step", "x", "y", "value", "|gradient|"]
    text = "".join(checker.text)
    stop = re.search(r"stopped at x = (\S+), y = (\S+):", text)
    assert float(stop.group(1)) == pytest.approx(1, abs=1e-9)
    assert float(stop.group(2).rstrip(",")) == pytest.approx(-2, abs=1e-9)


def test_every_text_is_escaped() -> None:
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    table = Table(title="<b>title</b>")
    table.add_column('a"&<')
    table.add_row("<script>alert(1)</script>")
    page = to_html([table, Panel(Text("</pre><i>"), title="<x>"), "<y>"])
    checker = parsed(page)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert rows(page) == [['a"&<'], ["<script>alert(1)</script>"]]
    expected = ["<b>title</b>", 'a"&<', "<script>alert(1)</script>", "<x>", "</pre><i>", "<y>"]
    assert checker.text == expected  # every text came through as text, none as a tag
