"""Textbook-style derivative exercises with right and wrong answers, put to `gradcalc check`.

    python benchmarks/exercises.py                 # 600 + 200 exercises (several minutes)
    python benchmarks/exercises.py --count 50 --pointfree 20 --seed 7 --show 5

Each exercise is a function written as sympy prints it -- a polynomial in 1-4 variables,
a product or a composition of exp/log/trig/roots, a quotient -- with random integer
coefficients up to 10^6, and a question: the gradient, the first to third derivative in
one variable, or the Hessian. Its right answer is sympy's derivative (as printed, expanded
or factored); its wrong answers are that answer with one term changed (a coefficient
+-1, a relative 1e-9, a dropped term, a flipped sign). Nothing here uses gradcalc, so the
truth is independent of what is checked.

Point-free answers (``--pointfree``, 200 by default) are typed the way students type (``^``,
``2x``, spaces or none): a gradient as a vector (``[a, b]``, ``(a, b)``, ``<a, b>``), a Hessian
as a matrix, the set of critical points of a function built with known ones, dy/dx of a
polynomial curve (right also in a form equal to it only on the curve). Their wrong answers:
an entry changed, two swapped, a critical point missing, an extra one, a coordinate off by
one or of the wrong sign, dy/dx with the wrong sign, upside down or off by one.

Prints the counts: right answers accepted, wrong answers rejected, undecided, crashes
(goals: 100%, 100%, under 1%, 0). Exit status 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

import sympy as sp

NAMES = ("x", "y", "z", "w")
SYMBOLS = [sp.Symbol(n, real=True) for n in NAMES]
BIG = 10**6


@dataclass
class Exercise:
    """One question: differentiate ``expression`` (``order``, ``wrt``: None for the
    gradient or the Hessian); ``right`` answers it, each of ``wrong`` does not."""

    kind: str
    expression: str
    order: int
    wrt: str | None
    right: list[str]
    wrong: list[list[str]] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)  # --critical, --implicit y

    def args(self, answers: list[str]) -> list[str]:
        """The `gradcalc check` arguments for ``answers``."""
        args = ["check", self.expression, "--answer", ", ".join(answers), "--format", "json"]
        if self.order > 1:
            args += ["--order", str(self.order)]
        if self.wrt:
            args += ["--wrt", self.wrt]
        return args + self.flags


def _coefficient(rng: random.Random) -> int:
    size = rng.choice([9, 99, 999, BIG])
    return rng.choice([-1, 1]) * rng.randint(1, size)


def _polynomial(rng: random.Random, symbols: list, terms: int, degree: int) -> sp.Expr:
    total = sp.Integer(0)
    for _ in range(terms):
        monomial = sp.Mul(*(s ** rng.randint(0, degree) for s in symbols))
        total += _coefficient(rng) * monomial
    return total


def _inner(rng: random.Random, symbols: list) -> sp.Expr:
    """A small argument for an outer function: a*x + b, or x*y, or x^2 + c."""
    s = rng.choice(symbols)
    return rng.choice(
        [
            rng.randint(1, 9) * s + rng.randint(-9, 9),
            s * rng.choice(symbols),
            s**2 + rng.randint(1, 9),
        ]
    )


def _outer(rng: random.Random, argument: sp.Expr) -> sp.Expr:
    """exp, log, a trig function or a root of ``argument``, kept in its domain: log and
    roots of a positive argument."""
    name = rng.choice(["exp", "log", "sin", "cos", "tan", "sqrt", "cbrt", "atan", "exp2"])
    positive = argument**2 + 1
    return {
        "exp": sp.exp(argument / rng.randint(1, 9)),
        "exp2": sp.exp(-(argument**2)),
        "log": sp.log(positive),
        "sin": sp.sin(argument),
        "cos": sp.cos(argument),
        "tan": sp.tan(argument / (argument**2 + 1)),  # |.| <= 1/2: away from the poles
        "sqrt": sp.sqrt(positive),
        "cbrt": positive ** sp.Rational(1, 3),
        "atan": sp.atan(argument),
    }[name]


def _function(rng: random.Random, kind: str, symbols: list) -> sp.Expr:
    if kind == "polynomial":
        return _polynomial(rng, symbols, rng.randint(2, 5), rng.randint(1, 4))
    if kind == "product":
        return _polynomial(rng, symbols, 1, 2) * _outer(rng, _inner(rng, symbols))
    if kind == "composition":
        return _coefficient(rng) * _outer(rng, _outer(rng, _inner(rng, symbols)))
    if kind == "quotient":
        low = _polynomial(rng, symbols[:1], 1, 2)
        return _polynomial(rng, symbols, 2, 2) / (low**2 + rng.randint(1, 99))
    # sum of a polynomial and a product
    return _polynomial(rng, symbols, 2, 3) + _polynomial(rng, symbols, 1, 1) * _outer(
        rng, _inner(rng, symbols)
    )


KINDS = ("polynomial", "product", "composition", "quotient", "mixed")


def _form(rng: random.Random, expr: sp.Expr) -> sp.Expr:
    """The right answer as a student might write it: as is, expanded or factored."""
    choice = rng.choice(["as is", "as is", "expand", "factor"])
    if choice == "expand":
        return sp.expand(expr)
    if choice == "factor" and len(str(expr)) < 300:
        return sp.factor(expr)
    return expr


def _wrong(rng: random.Random, truth: sp.Expr) -> sp.Expr:
    """``truth`` with one term changed (never to the same function)."""
    terms = sp.Add.make_args(truth)  # (as sympy keeps them: no expansion, no blow-up)
    term = rng.choice(terms)
    rest = term.as_coeff_Mul()[1]
    change = rng.choice(["coefficient", "relative", "dropped", "sign"])
    if change == "dropped" and len(terms) > 1:
        return truth - term
    if change == "relative":
        return truth + rng.choice([-1, 1]) * term / 10**9
    if change == "sign":
        return truth - 2 * term
    return truth + rng.choice([-1, 1]) * rest


def generate(count: int, seed: int = 2026) -> list[Exercise]:
    """``count`` exercises, the same for the same seed.

    >>> len(generate(5, seed=1))
    5
    """
    rng = random.Random(seed)
    exercises = []
    while len(exercises) < count:
        kind = KINDS[len(exercises) % len(KINDS)]
        symbols = SYMBOLS[: rng.randint(1, 4)]
        expr = _function(rng, kind, symbols)
        used = [s for s in symbols if s in expr.free_symbols]
        if not used:
            continue
        question = rng.choice(["gradient", "gradient", "order", "order", "hessian"])
        if question == "hessian" and len(used) <= 3:
            truths = [sp.diff(expr, a, b) for a in used for b in used]
            order, wrt = 2, ",".join(str(s) for s in used)
        elif question == "order":
            variable = rng.choice(used)
            order, wrt = rng.randint(1, 3), str(variable)
            truths = [sp.diff(expr, variable, order)]
        else:
            order, wrt = 1, ",".join(str(s) for s in used)
            truths = [sp.diff(expr, s) for s in used]
        right = [sp.sstr(_form(rng, t)) for t in truths]
        wrong: list[list[str]] = []
        for _ in range(6):
            if len(wrong) == 2:
                break
            k = rng.randrange(len(truths))
            changed = _wrong(rng, truths[k])
            if sp.expand(changed - truths[k]) == 0:
                continue
            wrong.append([*right[:k], sp.sstr(changed), *right[k + 1 :]])
        texts = ", ".join(right + [a for answers in wrong for a in answers])
        if not wrong or len(texts) > 20_000 or re.search(r"\d{31}", texts):  # parser limits
            continue
        exercises.append(Exercise(kind, sp.sstr(expr), order, wrt, right, wrong))
    return exercises


# --- point-free answers: vectors, matrices, critical points, implicit curves ----------------

POINTFREE = ("vector", "matrix", "critical", "implicit")


def student(text: str, rng: random.Random) -> str:
    """sympy's text typed the way students type: ``^``, ``2x`` for ``2*x``, spaces or none."""
    text = text.replace("**", "^")
    text = re.sub(r"(?<![\w.^/])(\d+)\*(?=[a-z(])", r"\1", text)  # 2*x -> 2x
    return text.replace(" ", "") if rng.random() < 0.3 else text


def _bracketed(rng: random.Random, entries: list[str]) -> str:
    opening, closing = rng.choice([("[", "]"), ("(", ")"), ("<", ">"), ("[ ", " ]")])
    return opening + rng.choice([", ", ",", " , "]).join(entries) + closing


def _matrix_text(rng: random.Random, rows: list[list[str]]) -> str:
    if rng.random() < 0.5:
        return "[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]"
    return "[" + "; ".join(", ".join(row) for row in rows) + "]"


def _swapped(entries: list[sp.Expr]) -> list[sp.Expr] | None:
    """Two different components swapped (a student's mix-up), or None."""
    for i in range(len(entries)):
        for j in range(i + 1, len(entries)):
            if sp.expand(entries[i] - entries[j]) != 0:
                changed = list(entries)
                changed[i], changed[j] = changed[j], changed[i]
                return changed
    return None


def _vector_exercise(rng: random.Random, kind: str) -> Exercise | None:
    """A gradient as a vector, or a Hessian as a matrix; wrong: one entry changed, two
    swapped."""
    symbols = SYMBOLS[: rng.randint(2, 3)]
    expr = _function(rng, rng.choice(KINDS), symbols)
    used = [s for s in symbols if s in expr.free_symbols]
    if len(used) < 2:
        return None
    wrt = ",".join(str(s) for s in used)
    n = len(used)
    if kind == "vector":
        truths = [sp.diff(expr, s) for s in used]
    else:  # a matrix answers the Hessian by itself (no --order)
        truths = [sp.diff(expr, a, b) for a in used for b in used]

    def write(entries: list[sp.Expr]) -> str:
        texts = [student(sp.sstr(e), rng) for e in entries]
        if kind == "vector":
            return _bracketed(rng, texts)
        return _matrix_text(rng, [texts[i * n : (i + 1) * n] for i in range(n)])

    wrong = []
    k = rng.randrange(len(truths))
    changed = _wrong(rng, truths[k])
    if sp.expand(changed - truths[k]) != 0:
        wrong.append([write([*truths[:k], changed, *truths[k + 1 :]])])
    swapped = _swapped(truths)
    if swapped is not None:
        wrong.append([write(swapped)])
    right = [write(truths)]
    if not wrong or len(right[0]) > 5000 or re.search(r"\d{31}", right[0]):
        return None
    return Exercise(kind, sp.sstr(expr), 1, wrt, right, wrong)


def _critical_exercise(rng: random.Random) -> Exercise | None:
    """f(x, y) built with known critical points: f_x = a (x - p)(x - q) (x - r)^e,
    f_y = b (y - s)(y - t)^e'; wrong: a point missing, a point that is not critical, a
    coordinate off by one, a sign flipped."""
    x, y = SYMBOLS[:2]
    roots_x = rng.sample(range(-6, 7), rng.randint(1, 3))
    roots_y = rng.sample(range(-6, 7), rng.randint(1, 2))
    fx = rng.choice([1, 2, 3, -1, -2]) * sp.Mul(*(x - p for p in roots_x))
    fy = rng.choice([1, 2, 5, -1, -3]) * sp.Mul(*(y - p for p in roots_y))
    expr = sp.expand(sp.integrate(fx, x) + sp.integrate(fy, y))
    points = sorted((p, q) for p in roots_x for q in roots_y)
    solved = sp.solve([sp.diff(expr, x), sp.diff(expr, y)], [x, y], dict=True)
    assert sorted((int(s[x]), int(s[y])) for s in solved) == points  # the truth, by sympy too

    def write(chosen: list[tuple[int, int]]) -> str:
        shuffled = list(chosen)
        rng.shuffle(shuffled)
        spacing = rng.choice([", ", ",", " , "])
        body = spacing.join(f"({p}{spacing}{q})" for p, q in shuffled)
        return "{" + body + "}" if rng.random() < 0.7 else body

    wrong = []
    if len(points) > 1:
        wrong.append([write(points[1:])])  # one missing
    extra = (max(roots_x) + 1, roots_y[0])  # not critical: f_x != 0 there
    wrong.append([write([*points, extra])])
    k = rng.randrange(len(points))
    shifted = (points[k][0], points[k][1] + rng.choice([-1, 1]))
    if shifted not in points:
        wrong.append([write([*points[:k], shifted, *points[k + 1 :]])])
    if points[k][0] != 0 and (-points[k][0], points[k][1]) not in points:
        wrong.append([write([*points[:k], (-points[k][0], points[k][1]), *points[k + 1 :]])])
    text = student(sp.sstr(expr), rng)
    return Exercise("critical", text, 1, None, [write(points)], wrong, ["--critical"])


def _implicit_exercise(rng: random.Random) -> Exercise | None:
    """dy/dx on a polynomial curve F(x, y) = c: right as -F_x/F_y, or a form equal to it
    only on the curve; wrong: its sign, a coefficient off by one, upside down -- each only
    where it differs from dy/dx on the curve, not just as a formula. Curves whose F - c
    factors (``8xy - 543295x = 0`` is the lines x = 0 and y = 543295/8, on which dy/dx is 0
    and so is its negative) are left out: "differs on the curve" is decided here by
    divisibility, which holds for an irreducible F - c."""
    x, y = SYMBOLS[:2]
    left = _polynomial(rng, [x, y], rng.randint(2, 4), rng.randint(1, 3))
    if sp.diff(left, y) == 0 or sp.diff(left, x) == 0:
        return None
    c = rng.randint(-20, 20)
    _, factors = sp.factor_list(left - c)
    if len(factors) != 1 or factors[0][1] != 1:
        return None
    fx, fy = sp.diff(left, x), sp.diff(left, y)
    truth = -fx / fy
    on_curve = (-fx + rng.choice([1, -1, 2]) * (left - c)) / fy  # = truth where left = c
    right_form = rng.choice([truth, on_curve, sp.cancel(truth)])
    wrong_forms = [fx / fy, -fy / fx, (-fx + 1) / fy]
    answers = [student(sp.sstr(e), rng) for e in [right_form, *wrong_forms]]
    if any(len(a) > 3000 for a in answers):
        return None
    equation = f"{student(sp.sstr(left), rng)} = {c}"
    wrong = [[a] for a, e in zip(answers[1:], wrong_forms) if _differs_on(left - c, e - truth)]
    return Exercise("implicit", equation, 1, None, [answers[0]], wrong, ["--implicit", "y"])


def _differs_on(curve: sp.Expr, difference: sp.Expr) -> bool:
    """Whether ``difference`` (a rational function) is not 0 on the irreducible curve
    ``curve = 0``: its numerator is not a multiple of ``curve``.

    >>> x, y = SYMBOLS[:2]
    >>> _differs_on(x**2 + y**2 - 25, (x**2 + y**2 - 25) / y), _differs_on(x**2 + y**2 - 25, x / y)
    (False, True)
    """
    numerator, _ = sp.fraction(sp.cancel(difference))
    return sp.div(numerator, curve, *SYMBOLS[:2])[1] != 0


def generate_pointfree(count: int, seed: int = 2026) -> list[Exercise]:
    """``count`` exercises whose answers are point-free objects: a gradient vector, a
    Hessian matrix, a set of critical points, dy/dx of an implicit curve.

    >>> [e.kind for e in generate_pointfree(4, seed=1)]
    ['vector', 'matrix', 'critical', 'implicit']
    """
    rng = random.Random(seed)
    exercises: list[Exercise] = []
    while len(exercises) < count:
        kind = POINTFREE[len(exercises) % len(POINTFREE)]
        if kind in ("vector", "matrix"):
            made = _vector_exercise(rng, kind)
        elif kind == "critical":
            made = _critical_exercise(rng)
        else:
            made = _implicit_exercise(rng)
        if made is not None:
            exercises.append(made)
    return exercises


def judge(exercise: Exercise, answers: list[str], invoke) -> str:
    """``accepted``, ``rejected``, ``undecided``, ``refused`` (exit 2: an input error)
    or ``crash`` for one answer."""
    result = invoke(exercise.args(answers))
    escaped = result.exception is not None and not isinstance(result.exception, SystemExit)
    if escaped or result.exit_code not in (0, 1, 2):
        return "crash"
    if result.exit_code == 2:
        return "refused"
    verdicts = [v["ok"] for v in json.loads(result.stdout)["verdicts"]]
    if all(ok is True for ok in verdicts):
        return "accepted"
    if False in verdicts:
        return "rejected"
    return "undecided"


def cli_invoker():
    """Run `gradcalc` in this process (as the tests do)."""
    from typer.testing import CliRunner

    from gradcalc.cli.app import app

    runner = CliRunner()
    return lambda args: runner.invoke(app, args)


def run(exercises: list[Exercise], show: int = 0) -> dict[str, Counter]:
    """Put every right and wrong answer to `gradcalc check`; counts per kind of answer."""
    invoke = cli_invoker()
    counts = {"right": Counter(), "wrong": Counter()}
    shown = 0
    for exercise in exercises:
        for label, answers, goal in [("right", exercise.right, "accepted")] + [
            ("wrong", w, "rejected") for w in exercise.wrong
        ]:
            outcome = judge(exercise, answers, invoke)
            counts[label][outcome] += 1
            if outcome != goal and shown < show:
                shown += 1
                args = " ".join(repr(a) if " " in a else a for a in exercise.args(answers))
                print(f"{label} answer {outcome}: gradcalc {args}")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=600, help="exercises (default: 600)")
    parser.add_argument("--seed", type=int, default=2026, help="random seed (default: 2026)")
    parser.add_argument("--show", type=int, default=20, help="misjudged answers to print")
    parser.add_argument(
        "--pointfree",
        type=int,
        default=200,
        help="exercises with point-free answers: vectors, matrices, critical points, "
        "implicit curves (default: 200)",
    )
    options = parser.parse_args(argv)
    start = time.perf_counter()
    exercises = generate(options.count, options.seed)
    exercises += generate_pointfree(options.pointfree, options.seed)
    counts = run(exercises, options.show)
    seconds = time.perf_counter() - start
    right, wrong = counts["right"], counts["wrong"]
    n_right, n_wrong = sum(right.values()), sum(wrong.values())
    undecided = right["undecided"] + wrong["undecided"]
    crashes = right["crash"] + wrong["crash"]
    kinds = Counter(e.kind for e in exercises)
    print(f"{len(exercises)} exercises ({', '.join(f'{n} {k}' for k, n in kinds.items())}),")
    print(f"{n_right} right and {n_wrong} wrong answers, in {seconds:.0f} s")
    lines = [
        ("right answers accepted", right["accepted"], n_right, "100%"),
        ("wrong answers rejected", wrong["rejected"], n_wrong, "100%"),
        ("undecided", undecided, n_right + n_wrong, "< 1%"),
        ("crashes", crashes, n_right + n_wrong, "0"),
    ]
    for label, n, total, goal in lines:
        print(f"  {label:24} {n:5} of {total:5}  {100 * n / max(total, 1):6.2f}%  (goal {goal})")
    refused = right["refused"] + wrong["refused"]
    print(f"  {'wrong answers accepted':24} {wrong['accepted']:5}")
    print(f"  {'refused as input errors':24} {refused:5}")
    met = (
        right["accepted"] == n_right
        and wrong["rejected"] == n_wrong
        and undecided < 0.01 * (n_right + n_wrong)
        and crashes == 0
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
