"""A wrong answer right in another variable order gets a hint, and stays wrong; answers
from sympy in the order the student used (x, y) on functions whose variables first appear
as y, x."""

from __future__ import annotations

import random

import pytest
import sympy as sp

from gradcalc.apps.check.check import check_answers, check_expect

x, y = sp.symbols("x y", real=True)
TERMS = [  # as a student types them, y first
    ("y^2*sin(x)", y**2 * sp.sin(x)),
    ("exp(y)*x^3", sp.exp(y) * x**3),
    ("y/(1 + x^2)", y / (1 + x**2)),
    ("atan(y/x)", sp.atan(y / x)),
    ("y^3 - x", y**3 - x),
]


@pytest.mark.parametrize("seed", range(5))
def test_answers_in_the_students_order_are_wrong_with_a_hint(seed: int) -> None:
    rng = random.Random(seed)
    c = rng.randint(1, 10**9)
    term, f = TERMS[seed]
    text, f = f"{term} + {c}*y*x^2", f + c * y * x**2
    xy = [str(sp.diff(f, v)).replace("**", "^") for v in (x, y)]
    verdicts = check_answers(text, xy)
    assert any(v.ok is False for v in verdicts)
    assert "right in the order x, y" in verdicts.hints[0] and "--wrt x,y" in verdicts.hints[0]
    assert [v.ok for v in check_answers(text, xy, ["x", "y"])] == [True, True]
    point = {x: sp.Rational(rng.randint(1, 9), 2), y: sp.Rational(rng.randint(1, 9), 3)}
    numbers = [str(sp.diff(f, v).subs(point)) for v in (x, y)]
    at = [f"x={point[x]},y={point[y]}"]
    numeric = check_expect(text, at, numbers)
    if numbers[0] != numbers[1]:
        assert "right in the order x, y" in numeric.hints[0]


def test_a_wrong_answer_in_every_order_gets_no_hint() -> None:
    verdicts = check_answers("y^2 + x^3", ["3x^2", "3y"])  # 2y, not 3y
    assert [v.ok for v in verdicts] == [False, False] and verdicts.hints == []
    assert check_answers("y^2 + x^3", ["2y", "3x^2"]).hints == []  # right as asked
    assert check_answers("y^2 + x^3", ["3x^2", "2y"], ["y", "x"]).hints == []  # order chosen


def test_the_hint_reaches_every_format(cli) -> None:
    for output in ("table", "plain", "csv", "json"):
        result = cli("check", "y^2+x", "--at", "x=1,y=3", "--expect", "1, 6", "--format", output)
        assert result.exit_code == 1
        assert "right in the order x, y" in result.stdout + result.stderr, output
