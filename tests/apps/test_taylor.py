"""Taylor polynomials (gradcalc.apps.derive.taylor) against textbook answers and sympy's series: the
printed polynomial reads back through our parser to sympy's own ``series``."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc.apps.derive.taylor import taylor
from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from gradcalc.symbolic.crosscheck.crosscheck import to_sympy

x, y = sp.symbols("x y", real=True)

# (expression, centre, order, the polynomial as printed in textbooks, sympy's function)
TEXTBOOK = [
    ("exp(x)sin(x)", "x=0", 5, "x + x^2 + x^3/3 - x^5/30", sp.exp(x) * sp.sin(x)),
    ("cos(x)", "x=0", 6, "1 - x^2/2 + x^4/24 - x^6/720", sp.cos(x)),
    ("ln(x)", "x=1", 4, "(x - 1) - (x - 1)^2/2 + (x - 1)^3/3 - (x - 1)^4/4", sp.log(x)),
    ("sqrt(x)", "x=4", 2, "2 + (x - 4)/4 - (x - 4)^2/64", sp.sqrt(x)),
    ("1/(1 - x)", "x=0", 4, "1 + x + x^2 + x^3 + x^4", 1 / (1 - x)),
    ("sinh(x)", "x=0", 5, "x + x^3/6 + x^5/120", sp.sinh(x)),
    ("x^3", "x=2", 1, "8 + 12(x - 2)", x**3),
]


def _back(text: str):
    graph = lower(parse_program(text))
    return to_sympy(graph)[graph.targets[0]]


@pytest.mark.parametrize(("expression", "at", "order", "printed", "f"), TEXTBOOK)
def test_textbook_taylor_polynomials(expression, at, order, printed, f) -> None:
    result = taylor(expression, [at], order)
    assert result.text == printed
    assert result.status == "agree"
    center = sp.Rational(at.partition("=")[2])
    series = sp.series(f, x, center, order + 1).removeO()
    assert sp.expand(result.polynomial - series) == 0
    assert sp.expand(_back(result.text) - series) == 0


def test_tangent_line_and_plane_equations() -> None:
    assert taylor("x^3", ["x=2"], 1).equation == "y = 8 + 12(x - 2)"
    plane = taylor("x^2 + y^2", ["x=1,y=2"], 1)
    assert plane.equation == "z = 5 + 2(x - 1) + 4(y - 2)"
    assert taylor("x^2 + y^2", ["x=1,y=2"], 2).equation is None


def test_quadratic_approximation_in_two_variables_matches_sympy() -> None:
    result = taylor("exp(x) cos(y)", ["x=0,y=0"], 2)
    assert result.text == "1 + x + x^2/2 - y^2/2"
    f = sp.exp(x) * sp.cos(y)
    # the degree-2 part of the two-variable series, by hand from sympy's derivatives
    h = [[sp.diff(f, a, b).subs({x: 0, y: 0}) for b in (x, y)] for a in (x, y)]
    truth = 1 + x + (h[0][0] * x**2 + 2 * h[0][1] * x * y + h[1][1] * y**2) / 2
    assert sp.expand(result.polynomial - truth) == 0


def test_an_exact_centre_keeps_exact_coefficients() -> None:
    result = taylor("sin(x)", ["x=pi/6"], 2)
    assert result.text == "1/2 + sqrt(3)*(x - pi/6)/2 - (x - pi/6)^2/4"
    assert result.status == "agree"


@pytest.mark.parametrize(
    ("expression", "at", "order", "error", "message"),
    [
        ("x*y", ["x=1,y=1"], 3, InputError, "1 to 2 with several variables"),
        ("x*y", ["x=1"], 1, InputError, "no value given for y"),
        ("x", ["x=1"], 0, InputError, "--order must be 1 to"),
        ("x, x^2", ["x=1"], 1, InputError, "one function"),
        ("x", ["x=1", "x=2"], 1, InputError, "one point"),
        ("ln(x)", ["x=0"], 2, UndefinedError, "log"),
    ],
)
def test_bad_questions(expression, at, order, error, message) -> None:
    with pytest.raises(error, match=message):
        taylor(expression, at, order)


def test_a_second_derivative_missing_at_a_kink_refuses_every_taylor_of_that_order() -> None:
    """max(x,0)^2*y^2 + y at (0, 1): ∂²f/∂x² is 0 from the left, 2 from the right (by hand:
    2*y^2 for x > 0, 0 for x < 0), so no quadratic approximation; the tangent plane exists."""
    with pytest.raises(UndefinedError, match=r"∂²f/∂x² of .* 0 from the left, 2 from the right"):
        taylor("max(x,0)^2*y^2 + y", ["x=0,y=1"], 2)
    assert taylor("max(x,0)^2*y^2 + y", ["x=0,y=1"], 1).text == "1 + (y - 1)"


def test_at_a_kink_with_every_derivative_the_polynomial_is_the_limits() -> None:
    """max(x,0)^2 + min(x,0)^2 is x^2: its Taylor polynomial about 0 is x^2, not sympy's
    Heaviside(0) = 1/2 reading x^2/2."""
    result = taylor("max(x,0)^2 + min(x,0)^2", ["x=0"], 3)
    assert result.text == "x^2" and result.status == "skipped"
