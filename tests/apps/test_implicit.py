"""Implicit differentiation (gradcalc.apps.derive.implicit) against textbook answers, proved equal
by sympy, and the tape's -F_x/F_y at points on the curve; second derivatives against the
explicit branch y(x) differentiated twice by sympy."""

from __future__ import annotations

import random

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


def _curve(rng: random.Random) -> tuple[str, sp.Expr]:
    """y^2 = p(x), p a random polynomial of degree 1..4 with large and small coefficients:
    the equation's text and its upper branch y = sqrt(p(x))."""
    coefficients = [rng.choice([-1, 1]) * rng.choice([1, 3, 7, 10**3, 10**9]) for _ in range(5)]
    degree = rng.randint(1, 4)
    p = sum(c * x**k for k, c in enumerate(coefficients[: degree + 1]))
    text = " + ".join(f"({c})*x^{k}" for k, c in enumerate(coefficients[: degree + 1]))
    return f"y^2 = {text}", sp.sqrt(p)


@pytest.mark.parametrize("seed", range(6))
def test_second_derivatives_against_the_explicit_branch(seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    while checked < 4:
        equation, branch = _curve(rng)
        x0 = sp.Rational(rng.randint(-30, 30), rng.randint(1, 9))
        y0 = branch.subs(x, x0)
        if not (y0.is_real and y0 > 0):
            continue
        truth = sp.diff(branch, x, 2).subs(x, x0)  # y'' of the branch, by sympy directly
        result = implicit(equation, "y", order=2, at=[f"x={x0},y={float(y0)!r}"])
        (entry,) = result.entries
        assert entry.label == "d²y/dx²" and result.verification.status == "verified"
        assert sp.N(entry.expr.subs({x: x0, y: y0}) - truth, 30) == pytest.approx(0, abs=1e-20)
        assert result.values["d²y/dx²"] == pytest.approx(float(truth), rel=1e-6)
        checked += 1


def test_a_second_derivative_reduced_on_the_curve_is_the_textbook_one() -> None:
    result = implicit("x^2 + y^2 = 25", "y", order=2, at=["x=3,y=4"])
    assert sp.simplify(result.entries[0].expr + (x**2 + y**2) / y**3) == 0
    assert "on the curve, d²y/dx² = -25/y^3" in result.notes[0]  # the textbook's -25/y^3
    assert result.values == {"d²y/dx²": pytest.approx(-25 / 64, rel=1e-12)}
    folium = implicit("x^3 + y^3 = 6x y", "y", order=2)  # textbook: -16xy/(y^2 - 2x)^3
    assert "16x*y/(2x - y^2)^3" in folium.notes[0]


@pytest.mark.parametrize(
    ("order", "equation", "dependent", "message"),
    [
        (3, "x^2 + y^2 = 25", "y", "--order 1 or 2"),
        (2, "x^2 + y^2 + z^2 = 1", "z", "choose one with --wrt"),
    ],
)
def test_orders_not_offered_are_refused(order, equation, dependent, message) -> None:
    with pytest.raises(InputError, match=message):
        implicit(equation, dependent, order=order)
    assert implicit("x^2 + y^2 + z^2 = 1", "z", ["x"], order=2).entries[0].label == "∂²z/∂x²"


@pytest.mark.parametrize(
    ("equation", "dependent", "at", "error", "message"),
    [
        ("x^2 + y^2 = 25", "y", ["x=3,y=5"], InputError, "not on the curve"),
        ("x^2 + y^2 = 25", "y", ["x=5,y=0"], UndefinedError, "vertical tangent"),
        ("x^2 + y^2 = 25", "w", [], InputError, "not a variable of the equation"),
        ("xy = 1", "y", [], InputError, r"\(xy\); xy is read as one name.*write x\*y"),
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


def test_values_at_an_exact_point_on_the_curve_are_exact_too() -> None:
    # by hand: -x/y = -3/4 at (3, 4); -25/y^3 = -25/(48 sqrt(6)) at (1, sqrt(24))
    assert implicit("x^2 + y^2 = 25", "y", at=["x=3,y=4"]).exact == {"dy/dx": "-3/4"}
    second = implicit("x^2 + y^2 = 25", "y", order=2, at=["x=1,y=sqrt(24)"])
    assert sp.simplify(sp.sympify(second.exact["d²y/dx²"].replace(" ", "*"))
                       + sp.Rational(25, 48) / sp.sqrt(6)) == 0  # fmt: skip
    # a point on the curve only to float64's precision has a value, but no exact one
    near = implicit("x^2 + y^2 = 25", "y", at=["x=1,y=4.898979485566356"])
    assert near.exact == {} and near.values["dy/dx"] == pytest.approx(-1 / 24**0.5)
