"""core.naming: the one rule that names every ``read as:`` line (function_head), checked
against the reading step's line and against readings of generated texts; and the one rule
that names a derivative, in text and in LaTeX, against the way textbooks write them."""

from __future__ import annotations

import pytest

from gradcalc.core.naming import derivative_label, function_head, label_latex
from gradcalc.lang.intake import read, reading_line


@pytest.mark.parametrize(
    ("read_as", "variables", "name", "head"),
    [
        ("x·y", ["x", "y"], "f", ("f(x, y)", "x·y")),
        ("g = x^3", ["x"], "f", ("g(x)", "x^3")),
        ("y = x^2; z = y^2", ["x"], "f", ("", "y = x^2; z = y^2")),  # a program: as read
        ("x^2 + y^2 = 25", ["x", "y"], "", ("", "x^2 + y^2 = 25")),  # an equation: as read
        ("a·x + b", ["a", "x", "b"], "y", ("y", "a·x + b")),  # a fitted column
        ("7", [], "f", ("f()", "7")),
    ],
)
def test_each_kind_of_reading_is_named_so(read_as, variables, name, head) -> None:
    assert function_head(read_as, variables, name) == head


@pytest.mark.parametrize(
    "text",
    [
        "x*y",
        "g = x^3",
        "h(t) = e^(2t)",
        "g(y, x) = x*y^2",
        "r = x^2; r + 1",
        "f(x)=x",
        "F(r, t) = r, t",
    ],
)
def test_the_reading_step_and_the_rule_say_the_same(text) -> None:
    reading = read(text)
    head, body = function_head(reading.read_as, reading.graph.variables)
    line = reading_line(reading.read_as, reading.graph.variables)
    assert line == (f"read as: {head} = {body}" if head else f"read as: {body}")
    assert reading.heading() == line


def test_a_function_head_names_its_variables_in_its_order() -> None:
    assert read("g(y, x) = x*y^2").heading() == "read as: g(y, x) = x·y^2"
    assert read("x*y^2").heading() == "read as: f(x, y) = x·y^2"


@pytest.mark.parametrize(
    ("text", "function", "line"),
    [
        ("x*y", "f", "read as: f(x, y) = x·y"),
        ("g = x^3", "g", "read as: g(x) = x^3"),
        ("F(r, t) = r*cos(t), r*sin(t)", "F", "read as: F(r, t) = r·cos(t), r·sin(t)"),
        ("r*cos(t), r*sin(t)", "f", "read as: f(r, t) = r·cos(t), r·sin(t)"),
        ("y = x^2; z = y^2", "", "read as: y = x^2; z = y^2"),
    ],
)
def test_the_function_is_the_name_its_heading_gives(text, function, line) -> None:
    reading = read(text)
    assert reading.function == function and reading.heading() == line
    assert not function or line.startswith(f"read as: {function}(")


@pytest.mark.parametrize(
    ("function", "variables", "ordinary", "label", "latex"),
    [  # as a calculus textbook writes each one
        ("f", ["x"], True, "df/dx", r"\frac{d f}{d x}"),
        ("f", ["x"], False, "∂f/∂x", r"\frac{\partial f}{\partial x}"),
        ("g", ["t"] * 3, True, "d³g/dt³", r"\frac{d^{3} g}{d t^{3}}"),
        ("f", ["x", "x"], False, "∂²f/∂x²", r"\frac{\partial^{2} f}{\partial x^{2}}"),
        ("f", ["x", "y"], False, "∂²f/∂x∂y", r"\frac{\partial^{2} f}{\partial x \partial y}"),
        ("f2", ["w1"], False, "∂f2/∂w1", r"\frac{\partial f2}{\partial w1}"),
        ("y", ["x_1"] * 12, True, "d¹²y/dx_1¹²", r"\frac{d^{12} y}{d x_1^{12}}"),
    ],
)
def test_a_derivatives_label_and_its_latex_say_the_same(
    function, variables, ordinary, label, latex
) -> None:
    assert derivative_label(function, variables, ordinary) == label
    assert label_latex(label) == latex


def test_an_id_column_named_like_an_output_column_is_named_as_the_id_column(cli, tmp_path) -> None:
    """--id d/dx clashes with gradcalc's d/dx: the message names the id column (not the
    variables' names, which are x alone)."""
    points = tmp_path / "p.csv"
    points.write_text("d/dx,x\n1,2\n")
    result = cli("grad", "x^2", "--points", str(points), "--id", "d/dx", "--format", "csv")
    assert result.exit_code == 2 and result.stdout == ""
    assert "two columns named d/dx: the --id column d/dx and gradcalc's own" in result.stderr
