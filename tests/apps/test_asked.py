"""A wrong answer with --at: shown wrong at the point asked about when it differs there,
and said to be right there when it is (values from sympy, computed in the test)."""

from __future__ import annotations

import random

import pytest
import sympy as sp

from gradcalc.apps.check.check import check_answers

x, y = sp.symbols("x y", real=True)


def _poly(rng: random.Random):
    return sum(rng.randint(-(10**9), 10**9) * x**k for k in range(4)) + x**4 * y + 7


@pytest.mark.parametrize("seed", range(8))
def test_a_wrong_answer_is_shown_at_the_point_asked_when_it_differs_there(seed: int) -> None:
    rng = random.Random(seed)
    f, a, b = _poly(rng), rng.randint(-50, 50), rng.randint(1, 9)
    truth = sp.diff(f, x)
    wrong = truth + rng.randint(1, 10**6)  # wrong everywhere
    text = str(wrong).replace("**", "^")
    verdicts = check_answers(
        str(f).replace("**", "^"), [text, str(sp.diff(f, y))], at=[f"x={a},y={b}"]
    )
    assert verdicts[0].ok is False and verdicts[1].ok is True
    point = {x: a, y: b}
    assert verdicts[0].detail == (
        f"differs at x={a}, y={b}, where you asked: yours {wrong.subs(point)}, "
        f"correct {truth.subs(point)} (exact)"
    )


def test_a_wrong_answer_right_at_the_point_asked_says_so() -> None:
    (verdict,) = check_answers("x^2", ["x + 3"], at=["x=3"])  # 6 = 2·3 there, only there
    assert verdict.ok is False
    assert not verdict.detail.startswith("differs at x=3")
    assert verdict.detail.endswith("(at x=3, where you asked, yours is right: 6)")
