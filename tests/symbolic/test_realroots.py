"""Odd roots read as real roots: the reading, and agreement at a point against the real
root computed by hand (Python floats of |b|^(p/q) with the sign put back)."""

from __future__ import annotations

import random

import pytest
import sympy as sp

from gradcalc.apps.check.check import check_answers
from gradcalc.symbolic.decide.realroots import agrees_as_real_root, real_root_reading

x = sp.Symbol("x", real=True)


@pytest.mark.parametrize("seed", range(5))
def test_the_real_reading_is_the_real_root(seed: int) -> None:
    rng = random.Random(seed)
    p, q = rng.choice([1, 2, 4, 8]), rng.choice([3, 5, 7])  # p/q never whole
    b = -rng.randint(2, 10**3)
    real = float(real_root_reading(x ** sp.Rational(p, q)).subs(x, b))
    by_hand = (-1) ** p * abs(b) ** (p / q)  # the real q-th root of b^p (q odd)
    assert real == pytest.approx(by_hand, rel=1e-12)


def test_no_reading_without_an_odd_root() -> None:
    assert real_root_reading(x ** sp.Rational(1, 2) + x**3) is None


def test_agreement_at_a_point() -> None:
    truth = sp.Rational(2, 3) / (sp.sign(x) * sp.Abs(x) ** sp.Rational(1, 3))  # (x^(2/3))'
    assert agrees_as_real_root(sp.Rational(2, 3) * x ** sp.Rational(-1, 3), truth, {x: -27})
    assert not agrees_as_real_root(sp.Rational(1, 3) * x ** sp.Rational(-1, 3), truth, {x: -27})


@pytest.mark.parametrize("p", [1, 2, 4, 5])
def test_a_right_answer_in_powers_is_never_called_wrong_for_a_convention(p: int) -> None:
    # cbrt(x^p) is defined for every x; (p/3) x^((p-3)/3) is its derivative with real roots
    (verdict,) = check_answers(f"cbrt(x^{p})", [f"({p}/3)*x^(({p}-3)/3)"])
    assert verdict.ok is not False, verdict.detail
    (wrong,) = check_answers(f"cbrt(x^{p})", [f"({p + 1}/3)*x^(({p}-3)/3)"])
    assert wrong.ok is False, wrong.detail
