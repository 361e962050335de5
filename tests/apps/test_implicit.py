"""Implicit differentiation (gradcalc.apps.derive.implicit) against textbook answers, proved equal
by
sympy, and the tape's -F_x/F_y at points on the curve."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc.apps.derive.implicit import implicit
from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.engine.run.api import grad

x, y, z = sp.symbols("x y z", real=True)

# (equation, dependent, textbook answers per independent variable, a point, the slopes there)
TEXTBOOK = [
    ("x^2 + y^2 = 25", "y", [-x / y], "x=3,y=4", [-0.75]),
    ("x^3 + y^3 = 6x y", "y", [(2 * y - x**2) / (y**2 - 2 * x)], "x=3,y=3", [-1.0]),
    ("x y = 1", "y", [-y / x], "x=2,y=0.5", [-0.25]),
    ("x^2 + x y + y^2 = 7", "y", [-(2 * x + y) / (x + 2 * y)], "x=1,y=2", [-0.8]),
    ("x^2 + y^2 + z^2 = 1", "z", [-x / z, -y / z], "x=0,y=0.6,z=0.8", [0.0, -0.75]),
]


@pytest.mark.parametrize(("equation", "dependent", "answers", "at", "values"), TEXTBOOK)
def test_textbook_implicit_derivatives(equation, dependent, answers, at, values) -> None:
    result = implicit(equation, dependent, at=[at])
    assert len(result.entries) == len(answers)
    for entry, answer in zip(result.entries, answers):
        assert sp.simplify(entry.expr - answer) == 0, (entry.text, answer)
    assert result.verification.status == "verified"
    assert list(result.values.values()) == pytest.approx(values, rel=1e-12, abs=1e-12)


def test_the_simplified_form_is_the_textbook_one() -> None:
    assert implicit("x^2 + y^2 = 25", "y").entries[0].text == "-x/y"


@pytest.mark.parametrize(
    ("equation", "dependent", "at", "error", "message"),
    [
        ("x^2 + y^2 = 25", "y", ["x=3,y=5"], InputError, "not on the curve"),
        ("x^2 + y^2 = 25", "y", ["x=5,y=0"], UndefinedError, "vertical tangent"),
        ("x^2 + y^2 = 25", "w", [], InputError, "not a variable of the equation"),
        ("x^2 + y^2", "y", [], InputError, "not an equation"),
        ("y = 2", "y", [], InputError, "no variable besides y"),
        ("x^2 + y^2 = 25", "y", ["x=3"], InputError, "no value given for y"),
    ],
)
def test_bad_questions(equation, dependent, at, error, message) -> None:
    with pytest.raises(error, match=message):
        implicit(equation, dependent, at=at)


def test_an_equation_given_to_grad_points_to_implicit_differentiation() -> None:
    with pytest.raises(InputError, match="diff --implicit y"):
        grad("x^2 + y^2 = 25", at={"x": 3, "y": 4})
