"""``gradcalc.apps.explain.explain``: the forward pass, the reverse pass with numbers, the gradient
and the
symbolic derivative rule by rule, checked against the tape, sympy and hand computations."""

from __future__ import annotations

import io
import re

import pytest
import sympy as sp
from rich.console import Console

from gradcalc import grad
from gradcalc.apps.explain.explain import Explanation, explain
from gradcalc.apps.explain.explain_render import to_latex, to_markdown, to_rich
from gradcalc.core.errors import InputError, UndefinedError

SEED = "y = x**2; z = y**2"
HEADLINE = "3*w1**2+2*w1*w2"


def text_of(e: Explanation) -> str:
    console = Console(record=True, width=100, file=io.StringIO())
    console.print(to_rich(e))
    return console.export_text()


def lines_of(rendered: str) -> list[str]:
    """The rendered lines with panel borders and surrounding blanks removed."""
    return [line.strip("│ ").rstrip() for line in rendered.splitlines()]


def tape_adjoints(e: Explanation, expression: str, at, wrt=None) -> dict[str, float]:
    """The tape's own adjoints, by the explanation's names (records matched by index)."""
    result = grad(expression, at=at, wrt=wrt, check=False)
    adjoints = {
        step.name: float(result.tape[step.index - 1].adjoint)
        for step in e.forward
        if result.tape[step.index - 1].adjoint is not None
    }
    adjoints.update({s: float(g) for s, g in result.gradient.items() if g is not None})
    return adjoints


def x_symbol(name: str = "x") -> sp.Symbol:
    return sp.Symbol(name, real=True)


# --- the seed chain: y = x², z = y² at x = 3 -----------------------------------------------


def test_the_seed_chain_step_by_step() -> None:
    e = explain(SEED, at={"x": 3})
    assert [(s.index, s.name, s.value) for s in e.forward] == [(1, "y", 9.0), (2, "z", 81.0)]
    assert [(s.name, s.adjoint) for s in e.reverse] == [("z", 1.0), ("y", 18.0), ("x", 108.0)]
    assert e.gradient == {"x": 108.0}
    (derivation,) = e.derivations
    assert derivation.expanded == 4 * x_symbol() ** 3


def test_the_seed_chain_in_markdown_line_by_line() -> None:
    md = to_markdown(explain(SEED, at={"x": 3})).splitlines()
    expected = [
        "1. `y = x^2 = 3^2 = 9`",
        "2. `z = y^2 = 9^2 = 81`",
        "1. `adjoint(z) = 1` (seed)",
        "2. `adjoint(y) = ∂z/∂y · adjoint(z) = 2·y · 1 = 2·9 · 1 = 18`",
        "3. `adjoint(x) = ∂y/∂x · adjoint(y) = 2·x · 18 = 2·3 · 18 = 108`",
        "- `∂z/∂x = 108`",
        "1. `d/dx [y] = 2x` (power rule; `y = x^2`)",
        "2. `d/dx [z] = 4x*y` (power rule with the chain rule; `z = y^2`)",
        "Result: `∂z/∂x = 4x*y = 4x^3`",
    ]
    positions = [md.index(line) for line in expected]
    assert positions == sorted(positions)


def test_the_seed_chain_as_text() -> None:
    lines = lines_of(text_of(explain(SEED, at={"x": 3})))
    expected = [
        "#1  y = x^2 = 3^2 = 9",
        "#2  z = y^2 = 9^2 = 81",
        "adjoint(z) = 1   (seed)",
        "adjoint(y) = ∂z/∂y · adjoint(z) = 2·y · 1 = 2·9 · 1 = 18",
        "adjoint(x) = ∂y/∂x · adjoint(y) = 2·x · 18 = 2·3 · 18 = 108",
        "∂z/∂x = 108",
        "d/dx [y] = 2x   (power rule; y = x^2)",
    ]
    positions = [lines.index(line) for line in expected]
    assert positions == sorted(positions)
    assert "\x1b[" not in text_of(explain(SEED, at={"x": 3}))


def test_the_seed_chain_with_respect_to_the_intermediate() -> None:
    e = explain(SEED, at={"x": 3}, wrt=["y"])
    assert e.gradient == {"y": 18.0}
    assert [(s.name, s.adjoint) for s in e.reverse] == [("z", 1.0), ("y", 18.0)]
    (derivation,) = e.derivations
    assert derivation.result == 2 * x_symbol("y")
    assert [step.rule for step in derivation.steps] == ["power rule"]


# --- the headline: 3·w1² + 2·w1·w2 at (5, 3) -----------------------------------------------


def test_the_headline_reverse_pass_is_the_tapes() -> None:
    at = {"w1": 5, "w2": 3}
    e = explain(HEADLINE, at=at)
    tape = tape_adjoints(e, HEADLINE, at)
    explained = {step.name: step.adjoint for step in e.reverse}
    assert explained.keys() == tape.keys()
    for name, adjoint in tape.items():
        assert explained[name] == pytest.approx(adjoint, rel=1e-12), name
    assert e.gradient == {"w1": 36.0, "w2": 10.0}


def test_the_headline_w1_adjoint_is_a_sum_of_two_terms() -> None:
    e = explain(HEADLINE, at={"w1": 5, "w2": 3})
    (w1,) = [step for step in e.reverse if step.name == "w1"]
    assert [(t.consumer, t.slope, t.consumer_adjoint) for t in w1.terms] == [
        ("#1", 10.0, 3.0),  # d(w1**2)/dw1 = 2*w1 = 10, times adjoint(#1) = 3
        ("#3", 2.0, 3.0),  # d(2*w1)/dw1 = 2, times adjoint(#3) = w2 = 3
    ]
    assert sum(t.contribution for t in w1.terms) == w1.adjoint == 36.0
    assert (
        "`adjoint(w1) = ∂#1/∂w1 · adjoint(#1) + ∂#3/∂w1 · adjoint(#3)"
        " = 2·w1 · 3 + 2 · 3 = 2·5 · 3 + 2 · 3 = 36`"
    ) in to_markdown(e)
    assert "- `∂f/∂w1 = 36`" in to_markdown(e)
    assert "- `∂f/∂w2 = 10`" in to_markdown(e)


@pytest.mark.parametrize(
    ("expression", "at", "wrt"),
    [
        ("x*sin(x)", {"x": 0.7}, None),
        ("sin(x)/x", {"x": 1.3}, None),
        ("exp(x**2)", {"x": -0.4}, None),
        ("x**x", {"x": 1.7}, None),
        ("a = x*y; b = a + x; c = a*b - y/b", {"x": 1.5, "y": -2}, None),
        ("a = x*y; b = a + x; c = a*b - y/b", {"x": 1.5, "y": -2}, ["a", "y"]),
        ("y = x+1; w = y; y = x*2; z = w*y", {"x": 3}, None),
        ("x = x + 1; z = x*x", {"x": 3}, None),
        ("atan2(x, y) + Max(x, 2*y) - sqrt(x)", {"x": 1, "y": 2}, None),
        ("2*pi*x + x - x", {"x": 0.25}, None),
    ],
)
def test_every_explained_adjoint_is_the_tapes(expression, at, wrt) -> None:
    e = explain(expression, at=at, wrt=wrt)
    tape = tape_adjoints(e, expression, at, wrt)
    explained = {step.name: step.adjoint for step in e.reverse}
    assert explained.keys() == tape.keys()
    for name, adjoint in tape.items():
        assert explained[name] == adjoint, name  # the total shown is the tape's own
    for step in e.reverse[1:]:  # ... and the sum of the terms shown, but for rounding
        summed = sum(t.contribution for t in step.terms)
        assert step.adjoint == pytest.approx(summed, rel=1e-12, abs=1e-15)


def test_a_sum_whose_last_digit_depends_on_the_order_shows_the_tapes_total() -> None:
    # summed left to right, the three terms give 5.21980231773974; the tape, 5.219802317739739
    e = explain("ln(x)*x^2 + asin(x/3)", at={"x": 2})
    result = grad("ln(x)*x^2 + asin(x/3)", at={"x": 2})
    assert e.reverse[-1].adjoint == result.gradient["x"] == e.gradient["x"]
    assert to_markdown(e).count(repr(float(result.gradient["x"]))) >= 2  # adjoint and gradient


def test_the_reverse_pass_is_written_in_the_reading_notation() -> None:
    text = to_markdown(explain("ln(x)*x^2 + asin(x/3) + abs(x)^3", at={"x": 2}))
    reverse = text.split("## Reverse pass")[1].split("##")[0]
    assert "**" not in reverse and "log(" not in reverse and "Abs(" not in reverse
    assert "1/sqrt(1 - #4^2)" in reverse and "1/x" in reverse
    rules = text.split("## Symbolic derivative")[1]
    assert "derivative of ln" in rules or "d/du ln(u)" in rules


def test_a_rebound_statement_name_does_not_hide_the_first_value() -> None:
    # the tape calls both statement results "y" and writes z = y·y
    e = explain("y = x+1; w = y; y = x*2; z = w*y", at={"x": 3})
    md = to_markdown(e)
    assert "`w = x + 1 = 3 + 1 = 4`" in md
    assert "`z = w·y = 4·6 = 24`" in md
    assert "`adjoint(w) = ∂z/∂w · adjoint(z) = y · 1 = 6 · 1 = 6`" in md
    assert e.gradient == {"x": 14.0}


def test_negative_numbers_are_parenthesised() -> None:
    md = to_markdown(explain("x**2", at={"x": -3}))
    assert "`#1 = x^2 = (-3)^2 = 9`" in md
    assert "= 2·x · 1 = 2·(-3) · 1 = -6`" in md


def test_a_negative_argument_and_an_unnamed_record_are_written_once() -> None:
    """exp(-w1^2) at 1: the local derivative exp(#2) at #2 = -1 reads exp(-1), not
    exp((-1)); a record no statement names starts its line with its number once
    (``#1 = w1^2``), a named one keeps both (``#1  y = ...``)."""
    lines = lines_of(text_of(explain("exp(-w1**2)", at={"w1": 1})))
    assert "#1 = w1^2 = 1^2 = 1" in lines
    assert any("= exp(#2) · 1 = exp(-1) · 1 =" in line for line in lines), lines
    assert not any("((" in line or "#1  #1" in line for line in lines)
    assert "#1  y = x^2 = 3^2 = 9" in lines_of(text_of(explain(SEED, at={"x": 3})))


# --- the symbolic derivative, rule by rule --------------------------------------------------

RULES = [
    ("x*sin(x)", "x*sin(x)", "product rule"),
    ("sin(x)/x", "sin(x)/x", "quotient rule"),
    ("exp(x**2)", "exp(x**2)", "chain rule: d/du exp(u) = exp(u)"),
    ("sin(x**3)", "sin(x**3)", "chain rule: d/du sin(u) = cos(u)"),
    ("x**3", "x**3", "power rule"),
    ("2**x", "2**x", "exponential rule"),
    ("x**x", "x**x", "logarithmic differentiation"),
    ("x**2 + x", "x**2 + x", "sum rule"),
    ("x**2 - x", "x**2 - x", "difference rule"),
    ("3*x**2", "3*x**2", "constant multiple rule"),
    ("-sin(x)", "-sin(x)", "negation rule"),
    ("y = x**2; z = sin(y)*y", "sin(x**2)*x**2", "product rule"),
]


@pytest.mark.parametrize(("expression", "reference", "rule"), RULES)
def test_rules_are_named_and_the_result_is_sympys(expression, reference, rule) -> None:
    e = explain(expression, at={"x": 0.8})
    (derivation,) = e.derivations
    assert rule.split(":")[0] in [step.rule for step in derivation.steps]
    assert f"({rule}" in to_markdown(e)
    x = x_symbol()
    truth = sp.diff(sp.sympify(reference, locals={"x": x}), x)
    final = derivation.result if derivation.expanded is None else derivation.expanded
    assert sp.simplify(final - truth) == 0


def test_one_derivation_per_source() -> None:
    e = explain(HEADLINE, at={"w1": 5, "w2": 3})
    w1, w2 = sp.symbols("w1 w2", real=True)
    assert [d.source for d in e.derivations] == ["w1", "w2"]
    assert [d.result for d in e.derivations] == [6 * w1 + 2 * w2, 2 * w1]
    rules = [s.rule for s in e.derivations[1].steps]
    assert rules == ["constant rule", "constant rule", "constant multiple rule", "sum rule"]


def test_an_unused_variable_is_independent() -> None:
    e = explain("3*w1**2", at={"w1": 1, "q": 2})
    assert e.gradient == {"w1": 6.0, "q": None}
    assert "∂f/∂q = 0 (f does not depend on q)" in to_markdown(e)
    assert e.derivations[1].result == 0


def test_a_derivative_too_large_to_print_is_described() -> None:
    program = "a0 = x; " + "; ".join(f"a{k + 1} = sin(a{k}) + a{k}/2" for k in range(30))
    e = explain(program, at={"x": 0.5})
    assert "too large to show" in to_markdown(e)
    assert "too large to show" in to_latex(e)
    assert balanced(to_latex(e))


# --- the renderers ---------------------------------------------------------------------------


def balanced(latex: str) -> bool:
    """Are the unescaped braces and the \\left/\\right pairs balanced?"""
    depth = 0
    for brace in re.findall(r"(?<!\\)[{}]", latex):
        depth += 1 if brace == "{" else -1
        if depth < 0:
            return False
    return depth == 0 and latex.count(r"\left") == latex.count(r"\right")


@pytest.mark.parametrize(
    ("expression", "at"),
    [(SEED, {"x": 3}), (HEADLINE, {"w1": 5, "w2": 3}), ("atan2(x, y)*1e-9", {"x": 1, "y": 2})],
)
def test_latex_has_an_align_per_section_and_balanced_braces(expression, at) -> None:
    e = explain(expression, at=at)
    latex = to_latex(e)
    sections = 3 + len(e.derivations)
    assert latex.count(r"\begin{align*}") == latex.count(r"\end{align*}") == sections
    assert balanced(latex)
    assert re.search(r"(?<!\\)#", latex.split("\n", 1)[1]) is None  # every # is escaped


def test_the_seed_chain_in_latex() -> None:
    latex = to_latex(explain(SEED, at={"x": 3}))
    assert r"y &= x^{2} = 3^{2} = 9 \\" in latex
    assert (
        r"\operatorname{adjoint}\left(y\right) &= \frac{\partial z}{\partial y} \cdot "
        r"\operatorname{adjoint}\left(z\right) = 2 \cdot y \cdot 1 = 2 \cdot 9 \cdot 1 = 18"
    ) in latex
    assert r"\frac{\partial z}{\partial x} &= 108" in latex
    assert r"\text{power rule}" in latex


def test_markdown_has_the_section_headings() -> None:
    md = to_markdown(explain(HEADLINE, at=["w1=5,w2=3"]))
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Forward pass",
        "## Reverse pass",
        "## Gradient",
        "## Symbolic derivative, rule by rule",
    ]
    assert md.startswith("# Explaining `f(w1, w2) = 3·w1^2 + 2·w1·w2` at w1=5, w2=3")  # as read


# --- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("expression", "at"), [("log(x)", {"x": -1}), ("1/x", ["x=0"])])
def test_an_undefined_point_raises(expression, at) -> None:
    with pytest.raises(UndefinedError):
        explain(expression, at=at)


@pytest.mark.parametrize("at", [{"x": [1.0, 2.0]}, ["x=1", "x=2"]])
def test_several_points_are_refused(at) -> None:
    with pytest.raises(InputError, match="one point"):
        explain("x**2", at=at)


def test_several_targets_are_refused() -> None:
    with pytest.raises(InputError, match="one target"):
        explain("r*cos(t), r*sin(t)", at={"r": 1, "t": 0})


def test_explain_command_formats_and_errors(cli) -> None:

    panel = cli.invoke(["explain", "y = x^2; z = y^2", "--at", "x=3"])
    assert panel.exit_code == 0
    assert "adjoint(y) = ∂z/∂y · adjoint(z) = 2·y · 1 = 2·9 · 1 = 18" in panel.stdout
    markdown = cli.invoke(["explain", "x*sin(x)", "--at", "x=1", "--format", "markdown"])
    assert "## Reverse pass" in markdown.stdout and "product rule" in markdown.stdout
    latex = cli.invoke(["explain", "x*sin(x)", "--at", "x=1", "--format", "latex"])
    assert latex.stdout.count("\\begin{align*}") == latex.stdout.count("\\end{align*}") > 0
    assert cli.invoke(["explain", "x", "--at", "x=1", "--at", "x=2"]).exit_code == 2
    assert cli.invoke(["explain", "log(x)", "--at", "x=-1"]).exit_code == 3


# --- without a point: the derivation and the simplified result ------------------------------


@pytest.mark.parametrize(("expression", "reference", "rule"), RULES)
def test_without_a_point_the_rules_and_the_simplified_result_are_sympys(
    expression, reference, rule
) -> None:
    e = explain(expression, at=None)
    (derivation,) = e.derivations
    assert rule.split(":")[0] in [step.rule for step in derivation.steps]
    x = x_symbol()
    truth = sp.diff(sp.sympify(reference, locals={"x": x}), x)
    assert sp.simplify(e.simplified["x"].expr - truth) == 0
    markdown = to_markdown(e)
    assert "Forward pass" not in markdown and "Reverse pass" not in markdown
    assert "Simplified: `simplified: ∂" in markdown


def test_without_a_point_the_quotient_rule_result_is_simplified() -> None:
    e = explain("x/(x+1)", at=None)
    assert e.point is None and e.forward == [] and e.gradient == {}
    assert "simplified: ∂f/∂x = 1/(x + 1)^2   (factor)" in to_markdown(e)
    assert r"\frac{1}{\left(x + 1\right)^{2}}" in to_latex(e)
