"""gradcalc.lang.answers: the shape of a written answer -- the way students type vectors,
matrices and sets of points -- with every entry left as text for the parser."""

from __future__ import annotations

import re

import pytest

from gradcalc.core.errors import InputError
from gradcalc.lang.answers import answer_form, one_group, points_of, shape_of


@pytest.mark.parametrize(
    ("text", "kind", "rows"),
    [
        ("2x, 2y", "list", [["2x", "2y"]]),
        ("[2x,2y]", "vector", [["2x", "2y"]]),
        ("[ 2x , 2y ]", "vector", [["2x", "2y"]]),
        ("(2x, 2y)", "vector", [["2x", "2y"]]),
        ("<2x, 2y>", "vector", [["2x", "2y"]]),
        ("[x, atan2(y, x)]", "vector", [["x", "atan2(y, x)"]]),
        ("(x + 1)", "list", [["(x + 1)"]]),  # an expression in parentheses, not a vector
        ("(x+1)*2, 3", "list", [["(x+1)*2", "3"]]),
        ("[[2, 0], [0, 2]]", "matrix", [["2", "0"], ["0", "2"]]),
        ("[2, 0; 0, 2]", "matrix", [["2", "0"], ["0", "2"]]),
        ("[(1, 2), (3, 4)]", "matrix", [["1", "2"], ["3", "4"]]),
        ("[1,2],[3,4]", "matrix", [["1", "2"], ["3", "4"]]),
        ("[[2x], [2y]]", "matrix", [["2x"], ["2y"]]),
    ],
)
def test_shapes_as_students_type_them(text: str, kind: str, rows: list) -> None:
    shape = shape_of(text)
    assert (shape.kind, [list(row) for row in shape.rows]) == (kind, rows)


def test_several_answer_options_are_entries_or_the_rows_of_a_matrix() -> None:
    assert shape_of(["2x", "2y"]).entries == ["2x", "2y"]
    assert shape_of(["[2, 0]", "[0, 2]"]).kind == "matrix"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2", "never closed"),
        ("(1]", "closes nothing open"),
        ("1,,2", "an empty entry"),
        ("[[1, 2], [3]]", "different lengths"),
        ("{(1, 0)}", "sets of points answer check --critical"),
    ],
)
def test_malformed_answers_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        shape_of(text)


@pytest.mark.parametrize(
    ("text", "points"),
    [
        ("{(1,0), (-1, 0)}", [("1", "0"), ("-1", "0")]),
        ("(1, 0), (-1, 0)", [("1", "0"), ("-1", "0")]),  # braces optional
        ("{ (sqrt(3)/3 , 0) }", [("sqrt(3)/3", "0")]),
        ("{[1, 2]}", [("1", "2")]),
        ("{1, -1}", [("1",), ("-1",)]),  # one variable
        ("{}", []),
        ("none", []),
    ],
)
def test_sets_of_points(text: str, points: list) -> None:
    assert list(points_of(text)) == points


@pytest.mark.parametrize(
    ("answers", "order", "form"),
    [
        (["2x*y", "x^2"], 1, ["2x*y", "x^2"]),
        (["x = 2x*y", "y=x^2"], 1, {"x": "2x*y", "y": "x^2"}),
        (["df/dx = 2x*y", "df/dy = x^2"], 1, {"x": "2x*y", "y": "x^2"}),
        (["∂f/∂x = 2x*y", "∂ f / ∂ y = x^2"], 1, {"x": "2x*y", "y": "x^2"}),
        (["dy/dx = 3x^2"], 1, {"x": "3x^2"}),
        (["df/dx = 2x*y, df/dy = x^2"], 1, {"x": "2x*y", "y": "x^2"}),  # one list, headed
        (["d/dt = -sin(t)"], 1, {"t": "-sin(t)"}),
        (["f'(x) = 3x^2"], 1, ["3x^2"]),
        (["f' = 3x^2"], 1, ["3x^2"]),
        (["g''(t) = 6t"], 2, ["6t"]),
        (["y'''=6"], 3, ["6"]),
        (["d^2y/dx^2 = 6x"], 2, ["6x"]),
        (["d2f/dx2 = 6x"], 2, ["6x"]),
        (["d^3 f / d x^3 = 6"], 3, ["6"]),
        (["dy/dx2 = 3x2^2"], 1, {"x2": "3x2^2"}),  # a variable x2, not an order
        (["x==1"], 1, ["x==1"]),  # not an answer head: left for the parser to refuse
    ],
)
def test_answers_as_students_head_them(answers, order, form) -> None:
    assert answer_form(answers, order) == form


@pytest.mark.parametrize(
    ("answers", "order", "message"),
    [
        (["f''(x) = 6x"], 1, "f'' is the second derivative, but the question asks for the "
         "first one: add --order 2"),
        (["f'(x) = 3x^2"], 2, "f' is the first derivative, but the question asks for the "
         "second one: --order is 2"),
        (["df/dx = 2x*y", "x^2"], 1, "give every --answer as name=expr (or df/dx = expr)"),
        (["d^2y/dx^2 = 6x"], 1, "d^2y/dx^2 is the second derivative, but the question asks "
         "for the first one: add --order 2"),
        (["dy/dx = 6x"], 2, "dy/dx is the first derivative, but the question asks for the "
         "second one: --order is 2 (write d2y/dx2 = ... or y''(x) = ...)"),
        (["∂f/∂x = 6x"], 3, "∂f/∂x is the first derivative, but the question asks for the "
         "third one: --order is 3 (write d3f/dx3 = ... or f'''(x) = ...)"),
        (["d/dt = 6t"], 4, "--order is 4 (write d4f/dt4 = ...)"),
        (["x = 2y", "x = 3"], 1, "x is answered twice ('x = 2y' and 'x = 3'): give each "
         "derivative once"),
        (["x = 2y, x = 2y"], 1, "x is answered twice"),
        (["df/dx = 2y", "x = 2y"], 1, "x is answered twice ('df/dx = 2y' and 'x = 2y')"),
    ],
)  # fmt: skip
def test_an_answer_head_that_says_another_question_is_refused(answers, order, message) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        answer_form(answers, order)


@pytest.mark.parametrize(
    ("text", "one"),
    [
        ("(4, 1)", True),
        ("<4, 1>", True),
        ("[[2, 0], [0, 2]]", True),
        ("(1/3)*2, 4", False),
        ("(1) + (2)", False),
        ("4, 1", False),
        ("[4] , [1]", False),
    ],
)
def test_one_group(text: str, one: bool) -> None:
    assert one_group(text) is one


def test_one_group_refuses_unbalanced_brackets() -> None:
    with pytest.raises(InputError, match="'\\(' in '\\(4, 1' is never closed"):
        one_group("(4, 1")
