"""apps.coverage: a pass without proof must have sampled every piece and every magnitude.

Generated material: answers right except on one piece, the piece placed anywhere from 10^-3
to 10^6 (random sign and magnitude), in one or two variables and at order 1 to 3, must never
pass; answers right but written piecewise differently must pass or stay undecided, never be
called wrong. The truth is the textbook derivative (by hand here), independent of gradcalc.
"""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest
import sympy as sp

from gradcalc.apps.check import coverage
from gradcalc.apps.check.check import check_answers
from gradcalc.engine.run.api import compile_expression
from gradcalc.symbolic.decide.decision import Decision

#: (expression, its derivative by hand, the variables, order): right answers to spoil.
QUESTIONS = [
    ("x^3", ["3*x^2"], 1),
    ("x^2*y + y^3", ["2*x*y", "x^2 + 3*y^2"], 1),
    ("sin(x)*y", ["cos(x)*y", "sin(x)"], 1),
    ("x^4", ["12*x^2"], 2),
    ("x^5 + x", ["60*x^2"], 3),
]

#: A wrong piece: 0 where x (or x*y) is below a, not 0 above it.
SPOILERS = [
    "step({v} - {a})",
    "relu({v} - {a})",
    "max(0, {v} - {a})",
    "(abs({v} - {a}) + {v} - {a})/7",
    "sign({v} - {a}) + 1",
    "-min(0, {a} - {v})",
]


def _place(rng: random.Random) -> str:
    """A switch anywhere from 10^-3 to 10^6 in size, either sign, 4 significant digits."""
    value = rng.choice([-1, 1]) * 10 ** rng.uniform(-3, 6)
    return f"({float(f'{value:.4g}')!r})"


@pytest.mark.parametrize("seed", range(14))
def test_an_answer_wrong_on_one_piece_never_passes(seed: int) -> None:
    rng = random.Random(seed)
    expression, right, order = QUESTIONS[seed % len(QUESTIONS)]
    spoiled = rng.randrange(len(right))
    variable = "x" if "y" not in expression or rng.random() < 0.5 else "x*y"
    wrong = rng.choice(SPOILERS).format(v=variable, a=_place(rng))
    answers = [f"{text} + {wrong}" if k == spoiled else text for k, text in enumerate(right)]
    verdicts = check_answers(expression, answers, order=order)
    assert verdicts[spoiled].ok is not True, (answers, verdicts[spoiled].detail)
    assert verdicts[spoiled].basis != "sampled"


#: (expression, a right answer written piecewise differently), a switch at {a}.
REWRITTEN = [
    ("relu(x - {a})^2", "2*(x - {a})*step(x - {a})"),
    ("relu(x - {a})^2", "(x - {a}) + abs(x - {a})"),
    ("x*abs(x - {a})", "abs(x - {a}) + x*sign(x - {a})"),
    ("max(x, {a})^2", "2*max(x, {a})*step(x - {a})"),
    ("abs(x*y - {a})", "y*sign(x*y - {a})", "x*(x*y - {a})/abs(x*y - {a})"),
    ("min(x, {a})*x", "min(x, {a}) + x*step({a} - x)"),
]


@pytest.mark.parametrize("seed", range(8))
def test_a_right_answer_written_piecewise_is_never_called_wrong(seed: int) -> None:
    rng = random.Random(100 + seed)
    expression, *answers = REWRITTEN[seed % len(REWRITTEN)]
    a = _place(rng)
    verdicts = check_answers(expression.format(a=a), [t.format(a=a) for t in answers])
    assert all(v.ok is not False for v in verdicts), [v.detail for v in verdicts]


@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        ("x^2", "2*x + step(x - 1000)"),
        ("x^2", "2*x + relu(x - 1000)"),
        ("x^2", "2*x + max(0, x - 150)"),
        ("x^2", "2*x + floor(x^2/10^12)"),  # 0 while |x| < 10^6
        ("x^2*y", ["2*x*y + step(x*y - 300000)", "x^2"]),
    ],
)
def test_the_issue_examples_are_wrong(expression, answer) -> None:
    answers = answer if isinstance(answer, list) else [answer]
    assert any(v.ok is False for v in check_answers(expression, answers))


def test_a_floor_that_cannot_be_told_apart_is_undecided() -> None:
    """floor(x^2/10^30) is 0 for |x| < 10^15: far beyond the magnitudes sampled."""
    (verdict,) = check_answers("x^2", ["2*x + floor(x^2/10^30)"])
    assert verdict.ok is None and "infinitely many" in verdict.detail


@pytest.mark.parametrize("seed", range(10))
def test_a_turn_hidden_in_a_radicand_is_found_at_any_scale(seed: int) -> None:
    """sqrt(x^2 + 2a·x + a^2) is |x + a|, whose derivative is -1 left of -a and 1 right of
    it (by hand), for a from 10^-2 to 10^12 of either sign: the answers 1 and -1 are each
    wrong on one side and never pass; sign(x + a) and (x + a)/abs(x + a) are right and are
    never called wrong."""
    rng = random.Random(seed)
    a = rng.choice([-1, 1]) * int(10 ** rng.uniform(-2, 12) * 1000) / 1000 or 1
    radicand = f"x^2 + 2*({a!r})*x + ({a!r})^2"
    wrong = (
        check_answers(f"sqrt({radicand})", ["1"])[0],
        check_answers(f"sqrt({radicand})", ["-1"])[0],
    )
    assert all(v.ok is False for v in wrong), [v.detail for v in wrong]
    right = check_answers(f"sqrt({radicand})", [f"sign(x + ({a!r}))"])[0]
    assert right.ok is not False, right.detail


def test_a_pass_says_where_it_was_sampled() -> None:
    """A sampled pass (decided so here) is tested across magnitudes, and says where."""
    decision = Decision("equivalent", "high precision", "no proof, but equal ...")
    x = sp.Symbol("x", real=True)
    graph = compile_expression("x^2")
    answer = compile_expression("2*x")
    out, where = coverage.cover(decision, answer, graph, (2 * x, 2 * x), [x], [])
    low, high, smallest = (float(v) for v in re.findall(r"[-0-9.e+]+(?=[ )])", where)[-3:])
    assert out.ok is True and low < -1e5 and high > 1e6 and smallest < 0.01, where


def test_json_says_proven_or_sampled() -> None:
    from gradcalc.lang.intake import read
    from gradcalc.render.views.verdicts import VerdictView

    proven = check_answers("x^2", ["2*x"])
    record = VerdictView("x^2", None, False, read("x^2")).json(proven)["verdicts"][0]
    assert record["basis"] == "proven" and "sampled_at" not in record
    wrong = check_answers("x^2", ["2*x + step(x - 1000)"])
    record = json.loads(json.dumps(VerdictView("x^2", None, False, read("x^2")).json(wrong)))
    assert record["verdicts"][0]["basis"] == "disproven"


def test_magnitude_points_span_every_decade_both_signs() -> None:
    points = coverage.magnitude_points(np.random.default_rng(1), ["x", "y"])
    for values in points.values():
        decades = {int(np.floor(np.log10(abs(v)))) for v in values}
        assert decades == set(coverage.DECADES) and (values < 0).any() and (values > 0).any()


def test_switch_points_lie_on_either_side_of_a_curved_switch() -> None:
    x, y = sp.symbols("x y", real=True)
    bases = {"x": np.array([2.0] * 6), "y": np.array([3.0] * 6)}
    near = coverage.switch_points([x * y - 1000], [x, y], bases)
    sides = np.sign(near["x"] * near["y"] - 1000)
    assert {-1.0, 1.0} <= set(sides.tolist())


# functions defined only where x > 0 (sympy: not real for every x < 0), by hand
HALF_LINE = ["ln(x)", "sqrt(x)", "x^(3/2)", "x^(1/4)", "x*ln(x)"]


@pytest.mark.parametrize("seed", range(6))
def test_an_answer_that_differs_only_outside_the_domain_is_equivalent(seed: int) -> None:
    rng = random.Random(seed)
    c = rng.choice([1, 3, 10**9])
    f = f"{c}*{rng.choice(HALF_LINE)} + {rng.randint(1, 10**9)}*x^{rng.randint(1, 4)}"
    truth = str(sp.diff(sp.sympify(f.replace("^", "**").replace("ln", "log")), "x"))
    truth = truth.replace("**", "^").replace("log", "ln")
    (inside_only,) = check_answers(f, [f"{truth} + {rng.randint(1, 9)}*step(-x)"])
    assert inside_only.ok is True and "outside f's domain (proved)" in inside_only.detail, f
    (wrong,) = check_answers(f, [f"{truth} + step(x - {rng.randint(1, 50)})"])
    assert wrong.ok is False, f


def test_a_piece_inside_the_domain_is_still_judged() -> None:
    # x^3 and ln(x^2) are defined for x < 0: an answer off there is wrong
    assert check_answers("x^3", ["3x^2 + step(-x)"])[0].ok is False
    assert check_answers("ln(x^2)", ["2/abs(x)"])[0].ok is False  # 2/x, not 2/|x|
    (right,) = check_answers("ln(x)", ["1/abs(x)"])  # 1/|x| = 1/x wherever ln is defined
    assert right.ok is True and right.basis == "proven"


@pytest.mark.parametrize(
    ("function", "answer"),
    [
        ("Min(x^2, 4)", "2x*step(2-abs(x))"),
        ("Min(x^2, 4)", "2x*step(2-x)*step(x+2)"),
        ("Max(x^2, 4)", "2x*step(abs(x)-2)"),
    ],
)
def test_a_piece_that_holds_nowhere_needs_no_test(function: str, answer: str) -> None:
    # the difference's pieces include x^2 > 4 inside -2 < x < 2, which holds nowhere: the
    # check said "could not decide: no test point could be evaluated where (x**2 - 4 > 0) &
    # ...". The truth: the answer is f' off the switches (sympy, at 200 points, here).
    x = sp.Symbol("x", real=True)
    names = {"x": x, "Min": sp.Min, "Max": sp.Max, "step": sp.Heaviside, "abs": sp.Abs}
    f = sp.sympify(function.replace("^", "**"), locals=names)
    mine = sp.sympify(answer.replace("^", "**").replace("2x", "2*x"), locals=names)
    rng = random.Random(7)
    for value in (sp.Rational(rng.randint(-900, 900), 100) for _ in range(200)):
        if abs(value) != 2:
            assert mine.subs(x, value) == sp.diff(f, x).subs(x, value)
    (verdict,) = check_answers(function, [answer])
    assert verdict.verdict == "equivalent", verdict.detail
