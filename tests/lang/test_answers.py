"""gradcalc.lang.answers: the shape of a written answer -- the way students type vectors,
matrices and sets of points -- with every entry left as text for the parser."""

from __future__ import annotations

import pytest

from gradcalc.core.errors import InputError
from gradcalc.lang.answers import points_of, shape_of


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
