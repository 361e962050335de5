"""Deep input at the parser's own limit (MAX_DEPTH levels): every command answers or refuses
in one line -- never an internal error (exit 70) from Python's recursion limit, never an
empty answer with no word why."""

from __future__ import annotations

import sys

import pytest

from gradcalc.cli.depth import FRAMES, deep_stack, refusal
from gradcalc.lang.lexer import MAX_DEPTH

DEEP = "sin(" * MAX_DEPTH + "x" + ")" * MAX_DEPTH
TOWER = "^".join(["x"] * MAX_DEPTH)
#: statements substituted into each other: deeper than the parser's limit for sympy
CHAIN = "; ".join(["a1 = sin(x)", *(f"a{k} = sin(a{k - 1})" for k in range(2, 301)), "a300"])
FAST = ("--check-timeout", "0.5")

COMMANDS = [
    ("explain", DEEP),
    ("explain", DEEP, "--at", "x=0.5"),
    ("explain", CHAIN),  # was endless: sympy's subs of 300 statements, with no budget
    ("diff", DEEP, "--format", "plain", *FAST),
    ("diff", TOWER, *FAST),
    ("taylor", DEEP, "--at", "x=0.5", *FAST),
    ("critical", DEEP, *FAST),
    ("grad", DEEP, "--at", "x=0.5", "--format", "json", *FAST),
    ("grad", DEEP, *FAST),
    ("hessian", DEEP, "--at", "x=0.5", *FAST),
    ("jacobian", TOWER, "--at", "x=0.5", *FAST),
    ("plot", DEEP, "--at", "x=0.5"),
    ("graph", DEEP, "--at", "x=0.5", "--format", "dot"),
]


def test_one_level_more_is_refused_by_the_parser(cli) -> None:
    result = cli("explain", "sin(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1))
    assert result.exit_code == 2 and "nested too deeply (limit 200" in result.stderr


@pytest.mark.slow  # each spends up to its check budget in sympy
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(x for x in a if len(x) < 30))
def test_every_command_answers_at_the_depth_limit(cli, args) -> None:
    result = cli(*args)
    assert result.exit_code in (0, 1, 2, 3), result.stderr[-300:]
    assert "internal error" not in result.stderr
    if result.exit_code == 2:
        assert len(result.stderr.strip().splitlines()) == 1  # a one-line refusal
    else:
        assert result.stdout.strip() or result.stderr.strip()  # an answer, or why not


def test_explain_without_a_point_at_the_limit(cli) -> None:
    # issue 35: exit 70 (RecursionError in sympy's printer); d/dx of the nest is the product
    # of cos(sin^k(x)) for k = 0 .. 199, which the explanation ends with
    result = cli("explain", DEEP)
    assert result.exit_code == 0, result.stderr[-300:]
    assert "cos(x)" in result.stdout and result.stdout.count("cos(") >= MAX_DEPTH


def test_the_stack_is_restored_and_a_deeper_recursion_is_refused_in_one_line() -> None:
    before = sys.getrecursionlimit()

    def down(n: int) -> int:
        return 0 if n == 0 else 1 + down(n - 1)

    with deep_stack():
        assert down(FRAMES // 2) == FRAMES // 2  # past the default limit of 1,000
        with pytest.raises(RecursionError):
            down(FRAMES * 2)
    assert sys.getrecursionlimit() == before
    assert "\n" not in refusal() and f"{FRAMES:,}" in refusal()
