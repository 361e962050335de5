"""The right derivative as shown beside a student's answer: never longer than sympy's own
result, always the same function (independent truth: sympy's simplify of the difference)."""

from __future__ import annotations

import random

import pytest
import sympy as sp

from gradcalc.apps.check.shown import answer_latex, shortest_form
from gradcalc.engine.run.api import compile_expression
from gradcalc.symbolic.crosscheck.crosscheck import to_sympy
from gradcalc.symbolic.translate.notation import user_text

x, y = sp.symbols("x y", real=True)


def _random_rational(rng: random.Random) -> sp.Expr:
    def poly() -> sp.Expr:
        return sum(rng.randint(-(10**9), 10**9) * x ** rng.randint(0, 4) for _ in range(3))

    common = x - rng.randint(1, 9)
    return sp.diff(poly() * common / (poly() * common + 1) + rng.randint(1, 5) * y, x)


@pytest.mark.parametrize("seed", range(6))
def test_the_shown_form_is_never_longer_and_is_the_same_function(seed: int) -> None:
    truth = _random_rational(random.Random(seed))
    shown = shortest_form(truth)
    assert len(shown) <= len(user_text(truth))
    graph = compile_expression(shown)  # read back as a student's text would be
    reread = to_sympy(graph)[graph.targets[0]]
    assert sp.simplify(reread - truth) == 0


def test_a_cancellable_quotient_is_shown_cancelled() -> None:
    assert shortest_form(sp.diff(sp.atan(y / x), x)) == "-y/(x^2 + y^2)"
    assert shortest_form((x**2 - 1) / (x - 1)) == "x + 1"


def test_latex_is_exact_when_there_is_an_exact_answer_else_the_number() -> None:
    assert answer_latex(sp.Rational(1, 3), 0.3333333333333333) == r"\frac{1}{3}"
    assert answer_latex(None, 36.0) == "36"
