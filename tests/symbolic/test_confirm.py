"""symbolic.crosscheck.confirm: where the exact derivative is 0, the tape's float64 residue
of large terms agrees, and a value beyond that residue is still a disagreement."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import numpy as np
import sympy as sp

from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from gradcalc.symbolic.crosscheck.confirm import RESIDUE_ULPS, largest_term
from gradcalc.symbolic.crosscheck.crosscheck import CheckInput, cross_check

CANCELLING = "5*x^3 + 5*x^2 + 2000*x*y^2 - 12000*x*y + 54005*x/3 - 300*y^3 + 10100*y^2/3 - 121"
EPS = float(np.finfo(float).eps)


def _sympy_gradient(text: str, point: dict[str, Fraction]) -> dict[str, sp.Expr]:
    """The truth: sympy's gradient of the expression (built here, not by gradcalc) there."""
    symbols = {n: sp.Symbol(n) for n in point}
    expr = sp.sympify(text.replace("^", "**"), locals=symbols)
    at = {symbols[n]: sp.Rational(v.numerator, v.denominator) for n, v in point.items()}
    return {n: sp.diff(expr, s).subs(at) for n, s in symbols.items()}


def test_an_exact_zero_summed_from_large_terms_agrees(cli) -> None:
    truth = _sympy_gradient(CANCELLING, {"x": Fraction(-1, 3), "y": Fraction(3)})
    assert truth["x"] == 0 and truth["y"] == 12100
    result = cli.invoke(["grad", CANCELLING, "--at", "x=-1/3,y=3", "--format", "json"])
    answer = json.loads(result.stdout)
    tape = answer["gradient"]["x"]
    assert 1e-12 < abs(tape) <= RESIDUE_ULPS * EPS * 36000  # beyond the fixed slack
    assert answer["exact"] == {"x": "0", "y": "12100"}
    assert answer["check"]["status"] == "agree", answer["check"]
    assert "float64's rounding of the derivative's terms" in answer["check"]["meaning"]
    assert result.exit_code == 0, result.output


def test_a_value_beyond_the_residue_still_disagrees() -> None:
    graph = lower(parse_program(CANCELLING))
    where = CheckInput(
        {"x": np.array(-1 / 3), "y": np.array(3.0)}, [{"x": "-1/3", "y": "3"}], np.zeros((), bool)
    )
    for wrong in (1e-6, -2e-9):  # far above 16 ulps of 36000 (1.3e-10)
        report = cross_check(graph, 0, {"x": np.array(wrong), "y": np.array(12100.0)}, where)
        assert report.status == "disagree", report.meaning()
        assert not report.partials["x"].residue


def test_generated_polynomials_with_a_zero_partial_agree_at_rational_points(cli) -> None:
    # f = g - g_x(P)·x for a random polynomial g with coefficients up to 10^6: ∂f/∂x is
    # exactly 0 at P (sympy says so), and float64 sums terms up to 10^9 to get there
    rng = random.Random(20261207)
    x, y = sp.symbols("x y")
    residues = 0
    for _ in range(30):
        g = sum(
            rng.randint(-(10**6), 10**6) * x ** rng.randint(0, 3) * y ** rng.randint(0, 3)
            for _ in range(5)
        )
        point = {
            "x": Fraction(rng.randint(-9, 9), rng.randint(1, 9)),
            "y": Fraction(rng.randint(-9, 9)),
        }
        at = {x: sp.Rational(point["x"]), y: sp.Rational(point["y"])}
        f = sp.expand(g - sp.diff(g, x).subs(at) * x)
        assert sp.diff(f, x).subs(at) == 0
        text = str(f).replace("**", "^")
        where = f"x={point['x']},y={point['y']}"
        result = cli.invoke(["grad", text, "--at", where, "--format", "json", "--no-tape"])
        answer = json.loads(result.stdout)
        assert answer["exact"]["x"] == "0", (text, where)
        assert answer["exact"]["y"] == str(sp.diff(f, y).subs(at)), (text, where)
        assert answer["check"]["status"] == "agree", (text, where, answer["check"])
        assert result.exit_code == 0, (text, where, result.output)
        residues += abs(answer["gradient"]["x"]) > 1e-12
    assert residues >= 3  # the residue rule, not only the fixed slack, was needed


def test_largest_term_is_the_largest_subexpression_at_the_point() -> None:
    x, y = sp.symbols("x y", real=True)
    at = {x: sp.Rational(-1, 3), y: sp.Integer(3)}
    expr = 2000 * y**2 - 12000 * x * y + sp.Rational(54005, 3)
    each = [abs(float(e.subs(at))) for e in sp.preorder_traversal(expr)]  # (subs: slow, plain)
    assert largest_term(expr, at) == max(each)
    assert abs(max(each) - 48001.67) < 0.01  # the sum itself: 18000 + 12000 + 18001.67
    assert largest_term(sp.sin(x) * 10**9 - 10**9 * sp.sin(x), at) == 0.0  # (sympy: 0)
    piecewise = sp.Piecewise((x * 1e6, x < 0), (x, True))
    assert largest_term(piecewise, at) >= 1e6 / 3
    assert largest_term(sp.Function("u")(x), at) >= 0.0  # (an unknown function: no crash)
