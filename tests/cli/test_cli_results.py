"""Results as every format shows them, against independent truth: JSON parses (numpy types
included), a check that did not run never says "agree", an answer that is not a number is
never printed with exit 0, and an overflowing derivative is "overflows float64", exit 3."""

from __future__ import annotations

import json
import random
import re
import shlex
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from gradcalc.core.errors import ExitCode
from tests.cli.compact import per_point


def test_taylor_json_of_two_variables_parses(cli) -> None:
    result = cli("taylor", "x*y", "--at", "x=1,y=2", "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    # x*y about (1, 2): 2 + 2(x-1) + (y-2) + (x-1)(y-2), by hand
    want = {(0, 0): 2, (1, 0): 2, (0, 1): 1, (2, 0): 0, (1, 1): 1, (0, 2): 0}
    assert {tuple(c["powers"]): c["tape"] for c in out["coefficients"]} == want


@pytest.mark.parametrize("at", ["x=-1", "x=0"])
def test_check_at_an_undefined_point_is_not_agree(cli, at: str) -> None:
    result = cli("grad", "log(x)", "--at", at, "--format", "json")
    assert result.exit_code == ExitCode.UNDEFINED
    check = json.loads(result.stdout)["check"]
    assert check["status"] in ("skipped", "undefined") and check["agree"] is None


def test_undefined_point_among_many_is_undefined_not_agree(cli, tmp_path) -> None:
    points = tmp_path / "p.csv"
    points.write_text("x\n-1\n2\n")
    result = cli("grad", "log(x)", "--points", str(points), "--format", "json")
    out = per_point(json.loads(result.stdout))
    assert [o["check"]["status"] for o in out] == ["undefined", "agree"]
    assert out[1]["gradient"]["x"] == 0.5  # d/dx log(x) = 1/x
    assert result.exit_code == ExitCode.UNDEFINED


@pytest.mark.parametrize("output", ["table", "plain", "json"])
def test_implicit_equation_that_determines_nothing_is_undefined(cli, output: str) -> None:
    # F = (x + y) - (x + y) = 0: dF/dy = 0 everywhere, dy/dx = 0/0
    result = cli("diff", "x+y=x+y", "--implicit", "y", "--format", output)
    assert result.exit_code == ExitCode.UNDEFINED
    assert "nan" not in result.stdout.lower()
    assert "does not determine y" in result.stderr


def _exponents() -> list[int]:
    rng = random.Random(35)
    return [150, 154, 155, 200, 300, *rng.sample(range(1, 320), 6)]


@pytest.mark.parametrize("e", _exponents())
def test_derivative_of_reciprocal_overflows_only_past_float64(cli, e: int) -> None:
    # d/dx 1/x = -1/x^2, exactly in rationals from the float64 x itself
    x = float(f"1e-{e}")
    exact = -1 / Fraction(x) ** 2
    result = cli("grad", "1/x", "--at", f"x=1e-{e}", "--format", "json")
    out = json.loads(result.stdout)
    if abs(exact) > sys.float_info.max:
        assert result.exit_code == ExitCode.UNDEFINED, result.output
        assert "overflows float64" in result.stderr
        assert "check failed" not in result.stderr and "rounded past" not in result.stderr
        assert out["gradient"]["x"] is None and out["check"]["status"] != "agree"
    else:
        assert result.exit_code == ExitCode.OK, result.output
        assert out["gradient"]["x"] == pytest.approx(float(exact), rel=1e-15)


def test_overflow_table_says_overflow_not_failed_check(cli) -> None:
    result = cli("grad", "1/x", "--at", "x=1e-200")
    assert result.exit_code == ExitCode.UNDEFINED
    assert "∂f/∂x overflows float64 at x=1e-200" in result.stderr
    assert "-inf" not in result.stdout


@pytest.mark.parametrize("output", ["plain", "markdown"])
def test_plain_and_documents_keep_the_notes(cli, output: str) -> None:
    # d/dx (x^2 - 20x) = 2x - 20 = 0 at x = 10, outside -5..5: the table says so, and so
    # must every other format (the answer lines hold no note: stderr does)
    table = cli("critical", "x^2-20x", "--in", "x=-5..5")
    other = cli("critical", "x^2-20x", "--in", "x=-5..5", "--format", output)
    note = "1 exact critical point(s) outside the region"
    assert note in table.stdout
    assert note in other.stderr and other.exit_code == table.exit_code == 0


def test_plain_says_when_a_formula_is_not_verified(cli) -> None:
    # sqrt(-1 - x^2) is real nowhere: no point of the domain to verify on
    table = cli("diff", "sqrt(-1-x^2)")
    plain = cli("diff", "sqrt(-1-x^2)", "--format", "plain")
    line = "not verified: only 0 of 96 random points are in the domain"
    assert line in table.stdout and line in plain.stderr


@pytest.mark.parametrize("e", [100, 102, 103, 110, *random.Random(7).sample(range(1, 300), 4)])
@pytest.mark.parametrize("how", [("hessian",), ("grad", "--order", "2")])
def test_second_derivative_overflow_is_undefined_not_a_failed_check(cli, e: int, how) -> None:
    # d²/dx² 1/x = 2/x^3, exactly in rationals from the float64 x
    x = float(f"1e-{e}")
    exact = 2 / Fraction(x) ** 3
    result = cli(how[0], "1/x", "--at", f"x=1e-{e}", *how[1:], "--format", "plain")
    if exact > sys.float_info.max:
        assert result.exit_code == ExitCode.UNDEFINED, result.output
        assert "overflows float64" in result.stderr and "rounded past" not in result.stderr
    else:
        assert result.exit_code == ExitCode.OK, result.output
        assert float(result.stdout.split()[-1]) == pytest.approx(float(exact), rel=1e-12)


def _documented_undefined() -> list[str]:
    """The commands docs/exit-codes.md's by-command table gives for exit code 3."""
    text = (Path(__file__).parents[2] / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    examples = []
    for line in text[text.index("## By command") :].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if line.startswith("| `") and len(cells) == 4:
            examples += re.findall(r'`([a-z]+ "[^`]*)`', cells[3])
    return examples


def test_the_exit_code_table_has_examples_of_code_3() -> None:
    assert {e.split()[0] for e in _documented_undefined()} >= {"grad", "graph", "fit", "minimize"}


@pytest.mark.parametrize("example", _documented_undefined())
def test_each_documented_code_3_is_what_the_command_exits_with(cli, example: str) -> None:
    result = cli(*shlex.split(example))
    assert result.exit_code == ExitCode.UNDEFINED, (example, result.output)
