"""A quotient followed by an implicit product: warned with both readings wherever they
differ, quiet wherever the grouping is written out (parentheses, or an explicit ``*``)."""

from __future__ import annotations

import itertools
import math
import random
import re

import pytest

from gradcalc.engine.run.api import grad
from gradcalc.lang.parser import parse_program
from gradcalc.lang.reading import ambiguities

X, Y = 2.5, 0.7  # (every piece below is defined and not ±1 there: the readings differ)


def value(text: str) -> float:
    return float(grad(text, at={"x": X, "y": Y}, check=False).value)


def quotient_warnings(text: str) -> list[str]:
    """The warnings of ``text`` that offer a quotient with a product below: ``N/(D·F)``."""
    found = ambiguities(parse_program(text, ["x", "y"]))
    return [w for w in found if re.search(r"; if you mean [^;]*/\(", w)]


@pytest.mark.parametrize(
    ("typed", "read", "meant", "write", "strict", "other"),
    [
        # the strict reading's value and the other one's at x = 2.5, y = 0.7, by hand
        ("1/(x+1)(x-1)", "(1/(x + 1))·(x - 1)", "1/((x + 1)·(x - 1))", "1/((x+1)(x-1))",
         1.5 / 3.5, 1 / (3.5 * 1.5)),
        ("(x+1)/(x-1)(x+2)", "((x + 1)/(x - 1))·(x + 2)", "(x + 1)/((x - 1)·(x + 2))",
         "(x+1)/((x-1)(x+2))", 3.5 / 1.5 * 4.5, 3.5 / (1.5 * 4.5)),
        ("1/sqrt(x)sin(x)", "(1/sqrt(x))·sin(x)", "1/(sqrt(x)·sin(x))", "1/(sqrt(x)sin(x))",
         math.sin(X) / math.sqrt(X), 1 / (math.sqrt(X) * math.sin(X))),
        ("1/ln(x)x", "(1/ln(x))·x", "1/(ln(x)·x)", "1/(ln(x)x)",
         X / math.log(X), 1 / (math.log(X) * X)),
        ("-2x/(x+1)^2(x-1)^2", "(-2·x/(x + 1)^2)·(x - 1)^2", "-2·x/((x + 1)^2·(x - 1)^2)",
         "-2x/((x+1)^2(x-1)^2)", -5 / 3.5**2 * 1.5**2, -5 / (3.5**2 * 1.5**2)),
        ("1/x^2y", "(1/x^2)·y", "1/(x^2·y)", "1/(x^2y)", Y / X**2, 1 / (X**2 * Y)),
        ("x/(x^2+1)^2(x+1)", "(x/(x^2 + 1)^2)·(x + 1)", "x/((x^2 + 1)^2·(x + 1))",
         "x/((x^2+1)^2(x+1))", X / 7.25**2 * 3.5, X / (7.25**2 * 3.5)),
        # a run of factors is quoted whole; a space does not group
        ("1/(x+1)(x-1)(x+2)", "(1/(x + 1))·(x - 1)·(x + 2)", "1/((x + 1)·(x - 1)·(x + 2))",
         "1/((x+1)(x-1)(x+2))", 1.5 * 4.5 / 3.5, 1 / (3.5 * 1.5 * 4.5)),
        ("1/(x+1) (x-1)", "(1/(x + 1))·(x - 1)", "1/((x + 1)·(x - 1))", "1/((x+1) (x-1))",
         1.5 / 3.5, 1 / (3.5 * 1.5)),
        ("x÷2y", "(x/2)·y", "x/(2·y)", "x/(2y)", X / 2 * Y, X / (2 * Y)),
    ],
)  # fmt: skip
def test_a_product_after_a_quotient_warns_with_both_readings(
    typed, read, meant, write, strict, other
) -> None:
    (warning,) = quotient_warnings(typed)
    assert warning == f"{typed} is read as {read}; if you mean {meant}, write {write}"
    assert value(typed) == pytest.approx(strict)  # the strict reading is what is computed
    assert value(read) == pytest.approx(strict)
    assert value(write) == pytest.approx(other)  # the suggestion gives the other one
    assert value(meant) == pytest.approx(other)


def test_an_exponent_continued_after_a_quotient_warns_both_ways() -> None:
    """1/x^2y: the division (1/(x^2·y)?) and the exponent (x^(2y)?) are both in question."""
    warnings = ambiguities(parse_program("1/x^2y"))
    assert warnings == [
        "1/x^2y is read as (1/x^2)·y; if you mean 1/(x^2·y), write 1/(x^2y)",
        "x^2y is read as x^2·y; if you mean x^(2·y), write x^(2y)",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "(1/(x+1))(x-1)",  # parentheses close the quotient
        "1/((x+1)(x-1))",  # the product is under the bar
        "1/(x+1)*(x-1)",  # an explicit * reads left to right, as on every calculator
        "1/2*x",
        "(x/2)y",
        "((x/2)y)(x+1)",
        "log(x, 2)y",  # (a logarithm to a base is a quotient nobody typed)
        "1/(x y)",
        "(1/x) y",
    ],
)
def test_a_written_out_grouping_is_quiet(text) -> None:
    assert quotient_warnings(text) == []


def test_a_parenthesis_that_closes_the_quotient_ends_the_run() -> None:
    assert quotient_warnings("(1/x y)z") == [
        "1/x y is read as (1/x)·y; if you mean 1/(x·y), write 1/(x y)"
    ]


# --- material not picked by hand: every combination of the pieces ------------------------------

NUMERATORS = {
    "1": 1.0,
    "x": X,
    "2x": 2 * X,
    "(x+1)": X + 1,
    "sin(x)": math.sin(X),
    "-y": -Y,
}
DENOMINATORS = {
    "2": 2.0,
    "x": X,
    "(x+1)": X + 1,
    "sqrt(x)": math.sqrt(X),
    "ln(x)": math.log(X),
    "x^2": X**2,
    "(x-1)^2": (X - 1) ** 2,
    "e^x": math.exp(X),
    "cos(y)": math.cos(Y),
}
FACTORS = {
    "y": Y,
    "x": X,
    "pi": math.pi,
    "(x-1)": X - 1,
    "(y+2)": Y + 2,
    "sin(x)": math.sin(X),
    "sqrt(y)": math.sqrt(Y),
    "e^y": math.exp(Y),
}


def glued(left: str, right: str, rng: random.Random) -> str:
    """``left right`` as an implicit product: a space where the two would be one name."""
    together = (left[-1].isalnum() or left[-1] == "_") and right[0].isalpha()
    return f"{left} {right}" if together or rng.random() < 0.3 else left + right


def test_every_generated_product_after_a_quotient_warns_where_the_readings_differ() -> None:
    rng = random.Random(2024)
    cases = list(itertools.product(NUMERATORS, DENOMINATORS, FACTORS))
    runs = [(n, d, [f]) for n, d, f in cases]
    runs += [(n, d, [f, rng.choice(list(FACTORS))]) for n, d, f in rng.sample(cases, 60)]
    for numerator, denominator, factors in runs:
        text = f"{numerator}/{denominator}"
        for factor in factors:
            text = glued(text, factor, rng)
        below = math.prod(FACTORS[f] for f in factors)
        strict = NUMERATORS[numerator] / DENOMINATORS[denominator] * below
        other = NUMERATORS[numerator] / (DENOMINATORS[denominator] * below)
        assert value(text) == pytest.approx(strict), text  # (Python's truth: the reading)
        warnings = quotient_warnings(text)
        if math.isclose(strict, other):
            continue
        assert len(warnings) == 1, (text, warnings)
        quoted, write = re.fullmatch(r"(.*) is read as .*, write (.*)", warnings[0]).groups()
        assert quoted == text  # (the whole of it: it is all one quotient and its run)
        assert value(write) == pytest.approx(other), (text, write)


def test_no_generated_quotient_with_its_grouping_written_out_warns() -> None:
    rng = random.Random(2025)
    for numerator, denominator, factor in itertools.product(NUMERATORS, DENOMINATORS, FACTORS):
        quotient = f"{numerator}/{denominator}"
        for text in (
            glued(f"({quotient})", factor, rng),
            f"{numerator}/({glued(denominator, factor, rng)})",
            f"{quotient}*{factor}",
            f"{quotient} * {factor}",
        ):
            assert quotient_warnings(text) == [], text


def test_a_long_run_is_warned_once_and_read_in_linear_time() -> None:
    text = "1/x" + " y" * 20_000
    (warning,) = quotient_warnings(text)
    assert warning.startswith("1/x y y y")
