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
        ("ln(x)", ["x=0"], 2, UndefinedError, "ln"),
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


# -- the tape's coefficients judged by the check's one rule: relative, no absolute slack ----


def _generated(seed: int) -> tuple[str, str, int, object]:
    """A function, a centre, an order and sympy's form: coefficients from 10^9 down to
    e^-30, centres float64 cannot hold (pi/4, 1/3), terms without the variable."""
    import random

    rng = random.Random(seed)
    a, c = rng.choice([1, 3, 10**9, -7]), rng.choice([0, 5, -(10**9)])
    kind = rng.choice(["exp", "sin", "poly", "log"])
    centre = rng.choice(["-30", "pi/4", "1/3", "2"] if kind != "log" else ["1/3", "2", "pi/4"])
    text, f = {
        "exp": (f"{a}*exp(x) + {c}", a * sp.exp(x) + c),
        "sin": (f"{a}*sin(3x) + {c}", a * sp.sin(3 * x) + c),
        "poly": (f"{a}*x^4 - x^2 + {c}", a * x**4 - x**2 + c),
        "log": (f"{a}*log(x) + {c}", a * sp.log(x) + c),
    }[kind]
    return text, f"x={centre}", rng.randint(1, 4), f


@pytest.mark.parametrize("seed", range(16))
def test_generated_polynomials_agree_with_sympys_series(seed: int) -> None:
    text, at, order, f = _generated(seed)
    result = taylor(text, [at], order)
    center = _back(at.partition("=")[2])
    assert sp.simplify(result.polynomial - sp.series(f, x, center, order + 1).removeO()) == 0
    assert result.status == "agree", (text, at, order)


def test_a_tiny_coefficient_wrong_in_sign_is_a_disagreement(monkeypatch) -> None:
    """exp(x) at -30: every coefficient is about 9.4e-14, within 1e-12 of its negative."""
    import gradcalc.apps.derive.taylor as module

    computed = module._tape_coefficients

    def flipped(*args):
        coefficients = computed(*args)
        return {k: -value if k == (2,) else value for k, value in coefficients.items()}

    assert taylor("exp(x)", ["x=-30"], 2).status == "agree"
    monkeypatch.setattr(module, "_tape_coefficients", flipped)
    result = taylor("exp(x)", ["x=-30"], 2)
    assert result.status == "disagree"
    assert [c.agree for c in result.coefficients] == [True, True, False]


# -- a removable singularity: f undefined at the centre, with a limit there -----------------


def _removable(seed: int) -> tuple[str, int, object]:
    """``kind`` about x = a, undefined there (0/0), and its extension's Taylor polynomial by
    hand from the textbook series (u = x - a): (x² - a²)/(x - a) = x + a = 2a + u;
    sin(ku)/u = k - k³u²/6 + k⁵u⁴/120; (e^(ku) - 1)/u = k + k²u/2 + k³u²/6 + k⁴u³/24."""
    import random

    rng = random.Random(seed)
    a, k = rng.choice([0, 1, -3, 10**9]), rng.choice([1, 2, -5])
    u = x - a
    kind = rng.choice(["quotient", "sine", "exp"])
    text, full = {
        "quotient": (f"(x^2 - ({a})^2)/(x - ({a}))", 2 * a + u),
        "sine": (f"sin({k}(x - ({a})))/(x - ({a}))", k - k**3 * u**2 / 6 + k**5 * u**4 / 120),
        "exp": (
            f"(exp({k}(x - ({a}))) - 1)/(x - ({a}))",
            k + k**2 * u / 2 + sp.Rational(k**3, 6) * u**2 + sp.Rational(k**4, 24) * u**3,
        ),
    }[kind]
    order = rng.randint(1, 4) if kind != "quotient" else rng.randint(1, 2)
    truncated = sum(
        (sp.Poly(sp.expand(full.subs(x, x + a)), x).coeff_monomial(x**d) * u**d)
        for d in range(order + 1)
    )
    return text, a, order, truncated


@pytest.mark.parametrize("seed", range(12))
def test_a_removable_singularity_gives_the_extended_functions_polynomial(seed: int) -> None:
    text, a, order, truth = _removable(seed)
    result = taylor(text, [f"x={a}"], order)
    assert sp.expand(result.polynomial - truth) == 0, (text, order, result.text)
    assert result.status == "skipped" and result.limit == truth.subs(x, a)
    assert "removable singularity" in result.notes[0]
    assert all(c.tape != c.tape for c in result.coefficients)  # (NaN: the tape has none)


def test_a_removable_singularity_at_an_order_past_the_nested_tapes_budget() -> None:
    """sin(x)/x at 0, order 12: the nested tapes would pass their records' budget (and are
    not needed where f is undefined); the answer is the textbook series, sum of
    (-1)^k x^(2k)/(2k+1)!. Where f is defined (sin(x)/(x + 1)), the budget still refuses."""
    result = taylor("sin(x)/x", ["x=0"], 12)
    truth = sum((-1) ** k * x ** (2 * k) / sp.factorial(2 * k + 1) for k in range(7))
    assert sp.expand(result.polynomial - truth) == 0 and result.status == "skipped"
    with pytest.raises(InputError, match="tape records"):
        taylor("sin(x)/(x + 1)", ["x=0"], 12)


@pytest.mark.parametrize(
    ("expression", "at"),
    [
        ("1/x", "x=0"),  # no finite limit
        ("x^2/x^3", "x=0"),
        ("sin(sqrt(x))/sqrt(x)", "x=0"),  # undefined left of 0 as gradcalc reads sqrt
        ("x*log(x^2)/x", "x=0"),  # log(x^2): -infinity
        ("abs(x)/x", "x=0"),  # -1 from the left, 1 from the right
        ("x^(5/2)", "x=0"),  # defined at 0 (its third derivative is missing there)
        ("sin(x)/x + y", "x=0,y=1"),  # several variables
    ],
)
def test_without_a_finite_two_sided_limit_there_is_no_polynomial(expression, at) -> None:
    with pytest.raises(UndefinedError):
        taylor(expression, [at], 3 if expression == "x^(5/2)" else 2)


@pytest.mark.parametrize(
    ("expression", "at", "order", "said"),
    [
        # 0.1 + 0.2 - 0.3 is 5.6e-17 in float64: the tape divides by it and gets numbers
        ("1/(x - 0.1 - 0.2 + 0.3)", "x=0", 2, "f is undefined at x=0"),
        ("cbrt(x - 0.1 - 0.2 + 0.3) + x", "x=0", 2, "derivative of order 1 is undefined"),
        ("x/sin(pi*y)", "x=1,y=1", 2, "f is undefined at x=1, y=1"),  # (sin(float pi) ≠ 0)
    ],
)
def test_where_float64_rounded_past_a_singularity_the_polynomial_is_undefined(
    expression, at, order, said
) -> None:
    graph = lower(parse_program(expression))
    exact = dict(p.split("=") for p in at.split(","))
    f = to_sympy(graph)[graph.targets[0]]
    point = {sp.Symbol(n, real=True): sp.sympify(v) for n, v in exact.items()}
    derivative = sp.diff(f, x, 1 if "order 1" in said else 0)
    assert not derivative.subs(point).is_finite  # the truth: no such number
    with pytest.raises(UndefinedError, match="float64 rounded past the singularity") as error:
        taylor(expression, [at], order)
    assert said in str(error.value)


def test_a_removable_singularity_float64_rounded_past_is_extended_by_its_limit() -> None:
    shifted = "(x - 0.1 - 0.2 + 0.3)"
    result = taylor(f"sin{shifted}/{shifted}", ["x=0"], 4)
    assert _back(result.text) == sp.series(sp.sin(x) / x, x, 0, 5).removeO()
    assert result.limit == 1


@pytest.mark.parametrize(
    ("expression", "order"),
    [("x*atan(1/x)", 1), ("x*atan(1/x)", 2), ("x^2*atan(1/x)", 2), ("x*tanh(1/x)", 1)],
)
def test_an_extension_whose_sides_differ_has_no_polynomial(expression: str, order: int) -> None:
    # f tends to 0 from both sides, but its extension's derivative of this order has
    # different one-sided values (the truth: sympy's limits of the difference quotients of
    # the one below, here); the series from the right alone gave pi*x/2, exit 0
    f = _back(expression)
    h = sp.Symbol("h", positive=True)
    differ = False
    for k in range(1, order + 1):  # (the extension's derivatives below k are 0 at 0, here)
        below = sp.diff(f, x, k - 1)
        sides = [sp.limit(below.subs(x, s * h) / (s * h), h, 0) for s in (1, -1)]
        differ = differ or sides[0] != sides[1]
    assert differ
    with pytest.raises(UndefinedError):
        taylor(expression, ["x=0"], order)


@pytest.mark.parametrize("expression", ["sin(1/x)", "x*sin(1/x)", "x*cos(1/x)"])
def test_an_oscillating_singularity_is_undefined_not_a_crash(expression: str) -> None:
    with pytest.raises(UndefinedError):
        taylor(expression, ["x=0"], 2)
