"""A graph as sympy expressions (symbolic/translate/convert.py): tensor programs, with variables
expanded into object arrays of scalar symbols, against the tape; and the size caps -- an
exact power at a point is refused before it is built, from the sizes of its operands (a power
of huge integers runs in C, past any deadline).

The processes below run under a CPU cap of 60 s: without the estimate, each would spend
minutes of CPU inside one integer power and end on that cap (exit 2), not answer.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from gradcalc import Tape, Variable, grad
from gradcalc.core.errors import UndefinedError
from gradcalc.engine.evaluate.evaluate import run_graph
from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from gradcalc.symbolic.translate.convert import MAX_EXACT_DIGITS, ExactTooLarge, exact_at, to_sympy

GRADCALC = [sys.executable, "-c", "from gradcalc.cli.app import main; main()"]
TIMEOUT = 300  # seconds: a bound on a stalled process, never a measure of speed
x, y = sp.symbols("x y", real=True)
NEAR_ONE = sp.Rational(10**19 + 1, 10**19)  # x = 1.0000000000000000001: 64 bits a side


def gradcalc(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*GRADCALC, "--max-cpu", "60", *args], capture_output=True, text=True, timeout=TIMEOUT
    )


@pytest.mark.parametrize(
    "expr",
    [
        (x**999) ** 999,
        x**998001,
        1 / (x + y) ** 5000,
        2**x,
        (x * y) ** (x + 7),
        x ** sp.Rational(1, 3) + x**4000,
    ],
)
def test_an_exact_power_too_long_is_refused_before_it_is_built(expr) -> None:
    point = {x: NEAR_ONE, y: sp.Integer(10) ** 29}
    if expr == 2**x:
        point = {x: sp.Integer(10) ** 29}  # 2^(10^29): an exponent read from the point
    with pytest.raises(ExactTooLarge, match=f"{MAX_EXACT_DIGITS:,} digits"):
        exact_at(expr, point)


@given(
    st.integers(-6, 6),
    st.integers(0, 40),
    st.fractions(min_value=-1000, max_value=1000, max_denominator=1000),
    st.fractions(min_value=-1000, max_value=1000, max_denominator=1000),
)
def test_what_fits_is_sympys_own_value(a: int, n: int, u, v) -> None:
    expr = (x + a) ** n * y - x / (y**2 + 1) + (x * y) ** 3
    point = {x: sp.Rational(u.numerator, u.denominator), y: sp.Rational(v.numerator, v.denominator)}
    assert exact_at(expr, point) == expr.subs(point)


def test_grad_at_a_long_exact_point_checks_at_50_digits_and_answers() -> None:
    done = gradcalc(
        "grad", "(x^999)^999", "--at", "x=1.0000000000000000001", "--check-timeout", "600",
        "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["gradient"] == {"x": 998001.0}  # 999 * 999 * x^998000, x = 1.0
    check = json.loads(done.stdout)["check"]  # the exact value would have over 4,000 digits
    assert check["status"] == "agree" and "50-digit" in check["meaning"], check


def test_check_against_a_huge_power_decides_or_says_it_could_not() -> None:
    done = gradcalc("check", "x^2", "--answer", "(x^999)^999", "--format", "json")
    assert done.returncode == 1, done.stderr  # never right, never a crash or the CPU cap
    (verdict,) = json.loads(done.stdout)["verdicts"]
    assert verdict["ok"] is not True


def symbols(name: str, shape: tuple[int, ...]) -> np.ndarray:
    flat = [sp.Symbol(f"{name}_{i}", real=True) for i in range(int(np.prod(shape)))]
    return np.array(flat, dtype=object).reshape(shape)


def test_a_layer_expanded_into_scalar_symbols_agrees_with_the_tape() -> None:
    text = "h = tanh(X @ W + b); loss = mean(softmax(h)[0]^2) + 0.5*sum(W^2)"
    graph = lower(parse_program(text))
    rng = np.random.default_rng(2)
    values = {"X": rng.normal(size=(3, 2)), "W": rng.normal(size=(2, 2)), "b": rng.normal(size=2)}
    expanded = {name: symbols(name, value.shape) for name, value in values.items()}
    cut = {graph.variable_node(name): array for name, array in expanded.items()}
    loss = to_sympy(graph, cut)[graph.targets[0]]
    subs = {s: sp.Float(v, 30) for n in values for s, v in zip(expanded[n].flat, values[n].flat)}

    leaves = {name: Variable(value) for name, value in values.items()}
    with Tape() as tape:
        target = run_graph(graph, leaves)[graph.targets[0]]
    grad_w = tape.gradient(target, leaves["W"]).value

    assert abs(float(loss.evalf(30, subs=subs)) - float(target)) <= 1e-15 * abs(float(target))
    exact = [float(sp.diff(loss, s).evalf(30, subs=subs)) for s in expanded["W"].flat]
    np.testing.assert_allclose(grad_w.ravel(), exact, rtol=1e-12)


# --- a node undefined for every value of the variables -----------------------------------

UNDEFINED_EVERYWHERE = ["x^2 + 1/(x - x)", "(0*y)^-2 + y", "1/(1/(x - x)) + x^2", "x/(x - x)"]
UNDEFINED_EVERYWHERE += ["(x - x)/(x - x) + x", "log(x - x) * x", "x*(y - y)^-3"]


@pytest.mark.parametrize("text", UNDEFINED_EVERYWHERE)
def test_a_node_undefined_for_every_value_is_refused(text) -> None:
    """sympy simplifies such a node to zoo or NaN and would carry on (1/zoo is 0, the
    derivative of zoo is 0): a check of a student's answer then said ✓ to "2x" for
    1/(1/(x - x)) + x^2, which is undefined everywhere."""
    graph = lower(parse_program(text))
    with pytest.raises(UndefinedError, match="undefined"):
        to_sympy(graph)
    # independent truth: the tape, without sympy, finds it undefined at every point tried
    for value in (-2.5, -1.0, 0.5, 3.0):
        with pytest.raises(UndefinedError, match="tape #"):
            grad(text, at=[{"x": value, "y": value}], check=False)


@pytest.mark.parametrize(
    "text", ["x/(x - 1)", "0^x", "log(x)", "1/x + tan(x)", "x^-2", "(x - 1)^-1"]
)
def test_a_node_undefined_somewhere_is_not_refused(text) -> None:
    graph = lower(parse_program(text))
    expr = to_sympy(graph)[graph.targets[0]]
    assert not expr.has(sp.zoo, sp.nan)


def test_check_never_accepts_an_answer_for_a_function_undefined_everywhere(cli) -> None:
    done = cli("check", "1/(1/(x - x)) + x^2", "--answer", "2x")
    assert done.exit_code == 3, done.output
    assert "1/(x - x) is undefined for every x" in done.output and "✓" not in done.output


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("atanh(2^tan(pi)) + x", "infinity (oo)"),  # atanh(1): tan(pi) is -1.2e-16 in floats
        ("x - atanh(-2^sin(pi))", "minus infinity (-oo)"),  # atanh(-1)
        ("atanh(cos(2*pi)) * x", "infinity (oo)"),  # cos(2pi) is 1 exactly, in floats too
    ],
)
def test_a_node_infinite_in_exact_arithmetic_is_refused(text, what) -> None:
    """Found by fuzzing (seed 49): float64 rounds tan(pi) to -1.2e-16, so 2^tan(pi) is
    0.9999999999999999 and atanh of it 18.7 -- a finite value and derivative the tape
    reports, where exactly atanh(1) is infinite and f is defined nowhere. sympy says oo: the
    node is refused as undefined (exit 3), not compared and called a failed check."""
    graph = lower(parse_program(text))
    with pytest.raises(UndefinedError, match=rf"undefined everywhere: .*{re.escape(what)}"):
        to_sympy(graph)


def test_an_infinite_limit_inside_a_variable_expression_is_not_refused() -> None:
    """``atanh(x)`` has no infinite node: only constants can be infinite at conversion."""
    graph = lower(parse_program("atanh(x) + exp(600)*x + 1/(x - 1)"))
    expr = to_sympy(graph)[graph.targets[0]]
    assert not expr.has(sp.oo, -sp.oo, sp.zoo)
