"""Point-free derivatives (gradcalc.apps.derive.diff, gradcalc.symbolic.crosscheck.simplify and
.notation)
against independent truth: textbook answers written here directly in sympy, sympy's own
derivative of expressions built from the registry's sympy counterparts (never from our
parser), and gradcalc's tape at random points (the verification must find a planted error).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings

from gradcalc.apps.derive import diff
from gradcalc.apps.derive.diff import differentiate
from gradcalc.core.errors import InputError
from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, time_limit, to_sympy
from gradcalc.symbolic.crosscheck.simplify import combined_powers, length, simplest
from gradcalc.symbolic.translate.notation import user_text
from tests.test_properties import _derivative, budget, registry_trees

x, y, r, t = sp.symbols("x y r t", real=True)


def proved_equal(a, b, seconds: float = 20) -> bool:
    """sympy proves a - b = 0 (CheckTimeout past ``seconds``)."""
    with time_limit(seconds):
        return sp.simplify(a - b) == 0


# (expression, options, expected derivatives row-major: textbook answers)
TEXTBOOK = [
    ("x^2*sin(x)", {}, [2 * x * sp.sin(x) + x**2 * sp.cos(x)]),
    ("x^x", {}, [x**x * (sp.log(x) + 1)]),
    ("sqrt(1 - x^2)", {}, [-x / sp.sqrt(1 - x**2)]),
    ("ln(cos(x))", {}, [-sp.tan(x)]),
    ("(x^2 + 1)/(x - 1)", {}, [(x**2 - 2 * x - 1) / (x - 1) ** 2]),
    ("exp(x)sin(x)", {"order": 5}, [-4 * sp.exp(x) * (sp.sin(x) + sp.cos(x))]),
    ("atan(x)", {"order": 2}, [-2 * x / (1 + x**2) ** 2]),
    ("x^3 - 3x + y^2", {}, [3 * x**2 - 3, 2 * y]),
    ("x^4 + y^4 - 4x y", {"kind": "hessian"}, [12 * x**2, -4, -4, 12 * y**2]),
    ("x^2 y + y^3", {"order": 2}, [2 * y, 2 * x, 2 * x, 6 * y]),
    ("r*cos(t), r*sin(t)", {}, [sp.cos(t), -r * sp.sin(t), sp.sin(t), r * sp.cos(t)]),
    ("sin(x y)", {"wrt": ["y"]}, [x * sp.cos(x * y)]),
    ("y = x^2; z = y^2", {}, [4 * x**3]),
]


@pytest.mark.parametrize(("expression", "options", "expected"), TEXTBOOK)
def test_textbook_derivatives(expression, options, expected) -> None:
    result = differentiate(expression, **options)
    assert len(result.entries) == len(expected)
    for entry, truth in zip(result.entries, expected):
        assert proved_equal(entry.expr, truth), (entry.label, entry.expr, truth)
    assert result.verification.status == "verified", result.verification


def test_textbook_forms_are_the_simplified_ones() -> None:
    """What a student reads: the simplified text, not sympy's expanded sum."""
    texts = {
        "x/(x+1)": "1/(x + 1)^2",
        "exp(x)sin(x)": "(sin(x) + cos(x))*exp(x)",
        "x^3 - 3x": "3x^2 - 3",
    }
    for expression, text in texts.items():
        assert differentiate(expression).entries[0].text == text


def test_jacobian_determinant_of_polar_coordinates_is_r() -> None:
    result = differentiate("r*cos(t), r*sin(t)")
    assert result.kind == "jacobian" and result.shape == (2, 2)
    assert proved_equal(result.determinant.expr, r)


def test_verification_finds_a_wrong_simplification(monkeypatch) -> None:
    """A rewrite that changes the mathematics is caught by the tape, with a witness point."""
    from gradcalc.symbolic.crosscheck.simplify import Simplified

    def wrong(expr, seconds):
        return Simplified(expr + sp.Rational(1, 1000) * x, "a broken rewrite")

    monkeypatch.setattr(diff, "simplest", wrong)
    result = differentiate("x^2")
    assert result.verification.status == "differs"
    assert "df/dx differs at x=" in result.verification.detail
    assert result.ok is False


def test_too_few_points_of_the_domain_is_not_called_verified() -> None:
    result = differentiate("acos(x/100 + 1.095)")  # defined for x in [-209.5, -9.5]
    assert result.verification.status == "unverified"
    assert "random points are in the domain" in result.verification.detail


@pytest.mark.parametrize(
    ("expression", "options", "message"),
    [
        ("3 + 4", {}, "has no variables"),
        ("x*y", {"order": 3}, "--order 3 with several variables"),
        ("x, y", {"kind": "hessian"}, "ask for the Jacobian"),
        ("x", {"order": 0}, "--order must be 1 or more"),
        ("x*y", {"wrt": ["z"]}, "z"),
    ],
)
def test_bad_questions_are_input_errors(expression, options, message) -> None:
    with pytest.raises(InputError, match=message):
        differentiate(expression, **options)


@pytest.mark.slow
def test_a_huge_expression_gets_an_answer_with_a_budget_note() -> None:
    """10,000 terms: differentiated, not simplified (a note says why), never a hang."""
    text = " + ".join(f"{k}x^{k % 7}" for k in range(1, 10_001))
    result = differentiate(text, budget=2.0)
    note = " ".join(result.notes)
    assert result.entries or "budget exceeded" in note
    if result.entries:
        assert "simplification skipped" in note or "ran out" in note


def test_deep_nesting_gets_an_answer_or_a_budget_note() -> None:
    text = "x"
    for _ in range(30):
        text = f"sin({text} + x^2)"
    result = differentiate(text, budget=2.0)
    assert result.entries or any("budget exceeded" in n for n in result.notes)
    assert result.verification.status != "differs"


def test_simplest_says_when_its_budget_ran_out() -> None:
    expr = sp.diff(sp.prod([sp.sin(x + k) + sp.cos(k * x) for k in range(1, 9)]), x)
    best = simplest(expr, 0.2)
    assert not best.complete and "ran out" in best.note
    assert length(best.expr) <= length(expr)


def _back(text: str):
    graph = lower(parse_program(text))
    return to_sympy(graph)[graph.targets[0]]


def _numerically_equal(a, b) -> bool:
    rng = np.random.default_rng(1)
    compared = 0
    for _ in range(12):
        subs = {
            x: sp.Rational(round(rng.uniform(0.1, 2), 3)),
            y: sp.Rational(round(rng.uniform(-2, 2), 3)),
        }
        va, vb = complex(a.evalf(30, subs=subs)), complex(b.evalf(30, subs=subs))
        if not (np.isfinite(va) and np.isfinite(vb)) or va.imag or vb.imag:
            continue
        compared += 1
        if not np.isclose(va.real, vb.real, rtol=1e-12, atol=1e-12):
            return False
    return True


@pytest.mark.slow
@settings(max_examples=budget(8, 200), deadline=None)
@given(registry_trees(leaves=4))
def test_random_registry_derivatives_are_short_equivalent_and_verified(tree) -> None:
    """Never longer than sympy's raw derivative, equal to sympy's derivative of the
    independently built expression, its text reads back to the same value, and the tape
    never disagrees."""
    text, expr = tree
    assume(expr.free_symbols)
    result = differentiate(text, budget=2.0)
    assert result.verification.status != "differs", (text, result.verification)
    for entry in result.entries:
        assert length(entry.expr) <= length(combined_powers(entry.raw))
        truth = _derivative(expr, sp.Symbol(entry.variables[0], real=True))
        truth = truth.replace(sp.DiracDelta, lambda *a: sp.S.Zero)
        try:
            same = proved_equal(entry.expr, truth, 3)
        except CheckTimeout:
            same = False
        assert same or _numerically_equal(entry.expr, truth), (text, entry.expr, truth)
        assert _numerically_equal(_back(entry.text), entry.expr), (text, entry.text)


@pytest.mark.parametrize(
    "expr",
    [
        2 * x * sp.sin(x**2),
        -2 * x / (x + 1) ** 2,
        x**2 * y / 3,
        sp.exp(x) * sp.log(x) + sp.E,
        2 * sp.sqrt(x) * (x + 1),
        1 / (x + 1),
        sp.Abs(x) ** sp.Rational(1, 3) * sp.sign(x),
        sp.Heaviside(x) * x,
        x ** (-2),
        sp.Rational(3, 2) * x,
    ],
)
def test_user_text_reads_back_to_the_same_expression(expr) -> None:
    assert _numerically_equal(_back(user_text(expr)), expr), user_text(expr)


def test_an_answer_sympy_cannot_evaluate_is_unverified_not_a_crash(monkeypatch) -> None:
    from gradcalc.symbolic.crosscheck.simplify import Simplified

    f = sp.Function("g")
    monkeypatch.setattr(
        diff, "simplest", lambda expr, seconds: Simplified(sp.Derivative(f(x**2), x), "bad")
    )
    result = differentiate("x^2")
    assert result.verification.status == "unverified"
    assert "could not be evaluated" in result.verification.detail


def test_the_derivative_of_a_step_of_anything_is_zero_off_its_jumps() -> None:
    result = differentiate("sgn(acos(tanh(abs(4x^2 - x))/2))")
    assert result.entries[0].text == "0"
    assert result.verification.status == "verified"


@pytest.mark.parametrize(
    "text",
    [  # sympy's printer rewrote cot's whole argument (tanh as -1j*tan(1j*u)) for numpy, and
        # numpy's arctan2 refused the complex number: "could not be evaluated (TypeError)"
        "arctan(Abs(Abs(cot((2 + tanh(atan2(y, (2 + tanh(x)))))))))",
        "arctan(Abs(Abs(cot((2 + tanh(atan2(x, (2 + tanh(x)))))))))",
        "sech(tanh(x) + 1) + sec(tanh(x) + 2) + csc(tanh(x) + 1) + cot(tanh(x) + 2)",
    ],
)
def test_reciprocal_trig_of_hyperbolic_arguments_is_verified(text: str) -> None:
    result = differentiate(text, budget=60.0)
    assert result.verification.status == "verified", result.verification.detail


def test_the_function_line_names_every_variable_though_only_some_are_differentiated() -> None:
    from gradcalc.render.views.derivative import function_line

    result = differentiate("x^2*y", ["y"])
    assert [e.label for e in result.entries] == ["∂f/∂y"]
    assert function_line(result) == "f(x, y) = x^2*y"  # not f(y) = x^2*y


def repeated_bases(expr: sp.Expr) -> list[sp.Expr]:
    """The bases that appear in two factors of one product (``x`` in ``n*x^n/x``)."""
    repeated = []
    for node in sp.preorder_traversal(expr):
        if node.is_Mul:
            bases = [factor.as_base_exp()[0] for factor in node.args if not factor.is_number]
            repeated += [base for base in set(bases) if bases.count(base) > 1]
    return repeated


@pytest.mark.parametrize("seed", range(8))
def test_a_symbolic_power_is_differentiated_as_a_textbook_writes_it(seed: int) -> None:
    """Generated sums of powers with symbolic exponents (coefficients to 10^9, a term free
    of x): each shown derivative, read back by gradcalc's parser, is sympy's, with every
    base once per product (``n*x^(n - 1)``, never sympy's ``n*x^n/x``). sympy's simplify
    does not rewrite x^n/x for a real x, so the two are compared at x > 0, where it does."""
    import random

    rng = random.Random(seed)
    n = sp.Symbol("n", real=True)
    coefficients = [rng.randint(1, 10**9) for _ in range(3)]
    k = rng.randint(-3, 3)
    f = coefficients[0] * x ** (n + k) + coefficients[1] * x**n * y ** rng.randint(1, 4)
    f += coefficients[2] * y**n
    text = str(f).replace("**", "^")
    result = differentiate(text, budget=10.0)
    assert result.verification.status == "verified", result.verification.detail
    for entry in result.entries:
        truth = sp.diff(f, sp.Symbol(entry.variables[0], real=True))
        shown = _back(entry.text)
        positive = {x: sp.Symbol("x", positive=True), y: sp.Symbol("y", positive=True)}
        assert proved_equal(shown.subs(positive), truth.subs(positive)), (text, entry.text)
        assert not repeated_bases(shown), (text, entry.text)


@pytest.mark.parametrize(
    ("expression", "real"),
    [
        ("(-2)^x", False),  # real at integer x only: sympy's (-2)^x*(log(2) + I*pi)
        ("0^x", False),  # sympy's 0^x*log(0): nan
        ("(-3)^(x^2) + x", False),
        ("2^x", True),  # 2^x*log(2), by hand
        ("x^x", True),
    ],
)
def test_a_derivative_with_no_real_formula_is_not_printed(cli, expression, real) -> None:
    """diff never prints nan, zoo or I as a derivative with exit 0: where sympy's formula
    is not real, it says so (exit 1, as for no formula); real ones are printed as ever."""
    result = differentiate(expression)
    assert (result.entries != []) is real
    done = cli("diff", expression, "--format", "plain")
    if real:
        assert done.exit_code == 0 and "nan" not in done.stdout and "I" not in done.stdout
        return
    assert done.exit_code == 1 and "no real formula" in done.stderr, done.output
    assert "df/dx =" not in done.stdout
