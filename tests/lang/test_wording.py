"""How a warning quotes what was typed: always a balanced piece of the text, as typed."""

from __future__ import annotations

import random
import re

import pytest

from gradcalc.lang.parser import parse_program
from gradcalc.lang.reading import ambiguities
from gradcalc.lang.wording import end, span, start


def balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return False
    return depth == 0


@pytest.mark.parametrize(
    ("text", "first", "stop", "excerpt"),
    [
        ("x/(x^2+1)^2(x+1)", 3, 12, "(x^2+1)^2(x+1)"),  # closes one group, opens another
        ("((a+b)+c)^2(d)", 2, 13, "((a+b)+c)^2(d)"),  # closes two
        ("f(1/(x+1)(x-1))", 4, 12, "(x+1)(x-1)"),  # not the call's own parenthesis
        ("2x + 3", 0, 6, "2x + 3"),
        ("(x)", 1, 3, "(x)"),  # (x) of a closing parenthesis
    ],
)
def test_a_span_takes_every_group_it_touches_whole(text, first, stop, excerpt) -> None:
    assert span(first, stop, text) == excerpt
    assert balanced(excerpt) and excerpt in text


def test_a_subtree_is_found_where_it_was_typed() -> None:
    text = "1/v[0](x+1)"
    product = parse_program(text).statements[0].expr
    denominator = product.left.right  # v[0]
    assert text[start(denominator) : end(denominator, text)] == "v[0]"


def test_the_exponent_warning_quotes_whole_groups() -> None:
    """The finding: x/(x^2+1)^2(x+1) quoted "x^2+1)^2(x+1" for the exponent reading."""
    warnings = ambiguities(parse_program("x/(x^2+1)^2(x+1)"))
    assert "(x^2+1)^2(x+1) is read as (x^2 + 1)^2·(x + 1); if you mean (x^2 + 1)^(2·(x + 1)), " \
        "write (x^2 + 1)^(2(x+1))" in warnings  # fmt: skip


# --- material not picked by hand: random texts of groups, powers, quotients, products ----------

ATOMS = ["x", "y", "2", "3", "pi", "e", "sin(x)", "sqrt(y)", "ln(x)"]


def random_text(rng: random.Random, depth: int = 0) -> str:
    """A random expression of implicit products, quotients, powers and groups (no names glued
    into one: a space goes between two letters)."""
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    kind = rng.choice(["group", "power", "quotient", "product", "product", "sum"])
    left = random_text(rng, depth + 1)
    right = random_text(rng, depth + 1)
    if kind == "group":
        return f"({left})"
    if kind == "power":
        return f"{left}^{rng.choice(['2', '3', 'x', '-1', '(x+1)'])}"
    if kind == "quotient":
        return f"{left}/{right}"
    if kind == "sum":
        return f"{left} + {right}"
    glue = " " if left[-1].isalnum() and right[0].isalnum() else rng.choice(["", " "])
    return f"{left}{glue}{right}"


def test_every_quoted_excerpt_is_balanced_and_typed() -> None:
    rng = random.Random(99)
    seen = 0
    for _ in range(3000):
        text = random_text(rng)
        try:
            program = parse_program(text)
        except Exception:  # (two numbers side by side, a constant too large: not read)
            continue
        for warning in ambiguities(program):
            match = re.match(r"(.*?) is read as .*?; if you mean .*, write (.*)", warning)
            if match is None:  # (a name's warning: it quotes the name)
                continue
            quoted, write = match.groups()
            if "…" in quoted or "…" in write:  # (shortened: a long one is cut)
                continue
            seen += 1
            assert balanced(quoted) and quoted in text, (text, warning)
            assert balanced(write), (text, warning)
    assert seen > 300  # (the material did hold many warnings)
