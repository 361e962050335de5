"""The messages a newcomer met (issue 18): each mistake gets the fix in one line, exit 2."""

from __future__ import annotations

import pytest


def refused(result, message: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    first = result.stderr.splitlines()[0]
    assert first.startswith("gradcalc: ") and message in first, first
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("at", "message"),
    [
        ("x=1,5", "use a dot for decimals: x=1.5"),
        ("x=1,000", "x=1.000, or write thousands without a comma: x=1000"),  # (two readings)
        ("x=-1, 25,y=2", "use a dot for decimals: x=-1.25"),
        ("x=1 y=2", "separate pairs with commas: --at x=1,y=2"),
        ("x=1;y=2", "separate pairs with commas: --at x=1,y=2"),
        ("x=1;  y=2", "separate pairs with commas: --at x=1,y=2"),
        ("x==1,y=2", "one = gives a value: --at x=1"),  # an equation's == (it echoed x==1)
    ],
)
def test_at_typos(cli, at, message) -> None:
    refused(cli("grad", "x*y", "--at", at), message)


def test_one_point_split_over_two_at_options(cli) -> None:
    result = cli("grad", "x*y", "--at", "x=1", "--at", "y=2")
    refused(result, "each --at is one point: write --at x=1,y=2")


def test_two_points_naming_different_variables_are_still_refused_as_such(cli) -> None:
    refused(
        cli("grad", "x*y", "--at", "x=1,y=2", "--at", "x=1,z=2"),
        "every --at must name the same variables",
    )


def test_case_hint(cli) -> None:
    refused(cli("grad", "x*y", "--at", "X=1,y=2"), "names are case-sensitive: you gave X, not x")


@pytest.mark.parametrize("module", ["math", "np", "numpy", "sympy"])
def test_drop_the_module_prefix(cli, module) -> None:
    refused(cli("grad", f"2*{module}.sin(x)", "--at", "x=1"), f"drop `{module}.`")


def test_an_undefined_value_is_bad_input_not_an_undefined_result(cli) -> None:
    result = cli("grad", "x^2", "--at", "x=pi/0")
    refused(result, "division by zero")
    # while a defined value where the function is undefined stays exit 3
    assert cli("grad", "log(x)", "--at", "x=-1").exit_code == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["grad", "x^2", "-at", "x=1"], "no such option -at; did you mean --at x=1?"),
        (["grad", "x*y", "--x=1,y=2"], "no such option --x; did you mean --at x=1,y=2?"),
        (["grad", "x^2", "--x=pi/4"], "did you mean --at x=pi/4?"),
        (["hessian", "x*y", "--at", "x=1,y=1", "-wrt", "x"], "did you mean --wrt x?"),
        (["grad", "x^2", "--at", "x=1", "--formt=json"], "did you mean --format?"),
        (["diff", "x^2", "--steps"], "the steps are a command of their own: gradcalc explain"),
    ],
)
def test_option_typos(cli, args, message) -> None:
    result = cli(*args)  # (click's usage error, as main() prints it: one line and a hint)
    assert result.exit_code == 2 and result.stdout == ""
    assert "Error: no such option" in result.stderr and message in result.stderr, result.stderr


@pytest.mark.parametrize("args", [["grad", "x^2", "--bogus"], ["--bogus", "grad", "x^2"]])
def test_an_option_like_no_other_gets_no_guess(capsys, args) -> None:
    """--bogus is nothing like --out: the dashes every option shares make no likeness."""
    from gradcalc.cli.app import run

    assert run(args) == 2
    said = capsys.readouterr().err
    assert said.startswith("gradcalc: no such option --bogus\n"), said


def test_a_negative_expression_is_still_an_expression(cli) -> None:
    result = cli("grad", "-at", "--at", "at=2", "--format", "plain")
    assert result.exit_code == 0 and result.stdout == "-1\n"


@pytest.mark.parametrize("fmt", ["JSON", "Json", "CSV", "Plain"])
def test_format_in_any_case(cli, fmt) -> None:
    result = cli("grad", "x^2", "--at", "x=3", "--format", fmt, "--no-tape")
    lower = cli("grad", "x^2", "--at", "x=3", "--format", fmt.lower(), "--no-tape")
    assert result.exit_code == 0 and result.stdout == lower.stdout


@pytest.mark.parametrize(
    "flag",
    [("--wide",), ("--no-color",), ("--color",), ("--max-cpu", "30"), ("--timeout=20",)],
)
def test_global_option_after_the_command_says_where_it_goes(cli, flag: tuple[str, ...]) -> None:
    result = cli("grad", "x^2", "--at", "x=1", *flag)
    assert result.exit_code == 2
    typed = " ".join(flag)  # with its value, as typed
    assert f"{flag[0].split('=')[0]} is a global option: it goes before the command: " in (
        result.stderr
    )
    assert f"gradcalc {typed} grad ..." in result.stderr
    assert cli(*flag, "grad", "x^2", "--at", "x=1").exit_code == 0  # where it goes, it works
