"""Through the command line: "read as" in every output, the ambiguity warnings, and
expressions that start with '-' (read as the expression by every command)."""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from tests.cli.compact import answers


def run(cli, *args: str):
    return cli.invoke(list(args), terminal_width=100)


# --- read as -----------------------------------------------------------------------------------


def test_check_stopped_by_an_error_first_says_how_it_read_the_expression(cli) -> None:
    """xe^x read as a function of xe and x: the error (two answers needed) is what that
    reading implies, and the warning that explains it came only with a result."""
    args = ("check", "xe^x", "--answer", "e^x + x e^x")
    table = run(cli, *args)
    assert table.exit_code == 2
    assert table.stdout.splitlines() == [
        "read as: f(xe, x) = xe^x",
        "warning: xe is read as one name, a variable; if you mean x·e, write x*e (or x e)",
    ]
    assert "2 needed, in this order: ∂f/∂xe, ∂f/∂x" in table.stderr
    as_json = run(cli, *args, "--format", "json")  # stdout: the error's JSON document alone
    assert json.loads(as_json.stdout)["error"]["exit_code"] == 2
    assert "warning: xe is read as one name" in as_json.stderr
    undefined = run(cli, "check", "ln(x)", "--at", "x=-1", "--expect", "1")
    assert undefined.exit_code == 3 and undefined.stdout == "read as: f(x) = ln(x)\n"


@pytest.mark.parametrize(
    "args",
    [
        ("grad", "x/2y", "--at", "x=1,y=2"),
        ("grad", "x/2y", "--at", "x=1,y=2", "--at", "x=2,y=3"),
        ("grad", "x/2y", "--at", "x=1,y=2", "--order", "2", "--wrt", "x"),
        ("hessian", "x/2y", "--at", "x=1,y=2"),
        ("hessian", "x/2y", "--at", "x=1,y=2", "--at", "x=2,y=3"),
        ("jacobian", "x/2y, y", "--at", "x=1,y=2"),
        ("jacobian", "x/2y, y", "--at", "x=1,y=2", "--at", "x=2,y=3"),
        ("explain", "x/2y", "--at", "x=1,y=2"),
        ("check", "x/2y", "--answer", "y/2, x/2"),
        ("check", "x/2y", "--at", "x=1,y=2", "--expect", "1, 0.5"),
    ],
)
def test_every_table_starts_with_how_the_expression_was_read(cli, args) -> None:
    result = run(cli, *args)
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith("read as: ") and "(x/2)·y" in first, result.stdout
    warning = "x/2y is read as (x/2)·y; if you mean x/(2·y), write x/(2y)"
    assert warning in result.output.replace("\n", " ").replace("  ", " ") or warning in (
        result.stdout + result.stderr
    )


@pytest.mark.parametrize(
    ("output", "heading"),
    [
        ("table", "read as: f(x, y) = abs(x)·y\n"),
        ("markdown", "read as: f(x, y) = abs(x)·y\n\n"),
        ("latex", "% read as: f(x, y) = abs(x)·y\n"),
    ],
)
def test_explain_shows_how_it_read_the_input_before_an_undefined_point(cli, output, heading):
    """explain exited 3 with stdout empty where grad first prints its read-as line: abs has a
    corner at x=0 (one-sided ∂f/∂x = -y, +y: -2, 2 at y=2, by hand)."""
    args = ("abs(x)*y", "--at", "x=0,y=2")
    result = run(cli, "explain", *args, "--format", output)
    assert result.exit_code == 3
    assert result.stdout == heading
    assert "-2 from the left, 2 from the right" in result.stderr
    assert run(cli, "grad", *args).stdout.startswith("read as: f(x, y) = abs(x)·y\n")


def test_explain_at_an_undefined_point_shows_the_readings_warnings_too(cli) -> None:
    warned = run(cli, "explain", "x/2y*log(x)", "--at", "x=0,y=2")  # ln(0): undefined
    assert warned.exit_code == 3
    assert warned.stdout.splitlines() == [
        "read as: f(x, y) = (x/2)·y·ln(x)",
        "warning: x/2y is read as (x/2)·y; if you mean x/(2·y), write x/(2y)",
    ]


@pytest.mark.parametrize(
    "args",
    [
        ("grad", "x/2y", "--at", "x=1,y=2"),
        ("hessian", "x/2y", "--at", "x=1,y=2"),
        ("jacobian", "x/2y, y", "--at", "x=1,y=2"),
        ("check", "x/2y", "--answer", "y/2, x/2"),
    ],
)
def test_json_has_read_as_and_the_warning(cli, args) -> None:
    result = run(cli, *args, "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["read_as"].startswith("(x/2)·y")
    assert any(w.startswith("x/2y is read as (x/2)·y") for w in out["warnings"])


def test_the_issues_misreading_is_shown_not_silent(cli) -> None:
    # e^2x is e²·x: its derivative is e², so "2e^(2x)" is not it -- but the student sees why
    result = run(cli, "check", "e^2x", "--answer", "2e^(2x)")
    assert result.exit_code == 1
    assert result.stdout.startswith("read as: f(x) = e^2·x\n")
    assert "if you mean e^(2·x), write e^(2x)" in result.stdout
    assert "2·e^(2·x)" in result.stdout  # the answer, as read
    right = run(cli, "check", "e^(2x)", "--answer", "2e^(2x)")
    assert right.exit_code == 0, right.output
    assert "warning" not in right.output


@pytest.mark.parametrize(
    ("typed", "other", "x", "strict_derivative", "other_derivative"),
    [  # d/dx at x = 4 of each reading, by hand
        ("x^1/2", "x^(1/2)", 4, 0.5, 0.25),
        ("1/2x", "1/(2x)", 4, 0.5, -1 / 32),
        ("e^2x", "e^(2x)", 0, math.e**2, 2.0),
        ("x^3/2", "x^(3/2)", 4, 24.0, 3.0),
    ],
)
def test_each_warning_names_a_spelling_that_gives_the_other_reading(
    cli, typed, other, x, strict_derivative, other_derivative
) -> None:
    result = run(cli, "grad", typed, "--at", f"x={x}", "--format", "plain")
    assert result.exit_code == 0
    assert float(result.stdout) == pytest.approx(strict_derivative)
    assert f"write {other}" in result.stderr
    again = run(cli, "grad", other, "--at", f"x={x}", "--format", "plain")
    assert float(again.stdout) == pytest.approx(other_derivative)
    assert again.stderr == ""


def test_pasted_unicode_math_is_read_as_ascii(cli) -> None:
    result = run(cli, "grad", "3x² − 2πx", "--at", "x=1", "--format", "json", "--no-tape")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["read_as"] == "3·x^2 - 2·pi·x"
    assert out["gradient"]["x"] == pytest.approx(6 - 2 * math.pi)
    halved = run(cli, "grad", "x÷2 + x⁴", "--at", "x=1", "--format", "json", "--no-tape")
    assert json.loads(halved.stdout)["read_as"] == "x/2 + x^4"
    assert json.loads(halved.stdout)["gradient"]["x"] == pytest.approx(0.5 + 4)
    refused = run(cli, "grad", "x∶2", "--at", "x=1")
    assert refused.exit_code == 2 and "U+2236" in refused.output


# --- expressions starting with '-' ---------------------------------------------------------------

F, X, Y = sp.symbols("f x y")
MINUS = [
    ("-f*x + y", -F * X + Y),
    ("-x", -X),
    ("-floor(x) + x^2", -2 + X**2),  # floor(x) is 2 near x = 2.5
    ("-e^x", -sp.exp(X)),
    ("-x^2*y", -(X**2) * Y),
]
POINT = {F: sp.Rational(3, 2), X: sp.Rational(5, 2), Y: 2}
AT = "f=1.5,x=2.5,y=2"


@pytest.mark.parametrize(("text", "expr"), MINUS)
def test_grad_reads_a_leading_minus_as_the_expression(cli, text, expr) -> None:
    result = run(cli, "grad", text, "--at", AT, "--wrt", "x", "--format", "plain")
    assert result.exit_code == 0, result.output
    assert float(result.stdout) == pytest.approx(float(sp.diff(expr, X).subs(POINT)))


@pytest.mark.parametrize(("text", "expr"), MINUS)
def test_every_command_reads_a_leading_minus_as_the_expression(cli, text, expr) -> None:
    hessian = run(cli, "hessian", text, "--at", AT, "--wrt", "x", "--format", "plain")
    assert hessian.exit_code == 0, hessian.output
    assert float(hessian.stdout) == pytest.approx(float(sp.diff(expr, X, X).subs(POINT)))
    jacobian = run(cli, "jacobian", f"{text}, x", "--at", AT, "--wrt", "x", "--format", "json")
    assert jacobian.exit_code == 0, jacobian.output
    value = json.loads(jacobian.stdout)["jacobian"][0][0]
    assert value == pytest.approx(float(sp.diff(expr, X).subs(POINT)))
    explain = run(cli, "explain", text, "--at", AT, "--wrt", "x")
    assert explain.exit_code == 0, explain.output
    assert re.match(r"read as: f\([a-z, ]+\) = -", explain.stdout), explain.stdout
    answer = str(sp.diff(expr, X)).replace("**", "^")
    if "floor" not in text:  # (floor's derivative is 0 only almost everywhere)
        check = run(cli, "check", text, "--wrt", "x", "--answer", answer)
        assert check.exit_code == 0, check.output


def test_a_leading_minus_works_before_and_after_options_and_after_double_dash(cli) -> None:
    for args in (
        ("grad", "-f*x", "--at", "f=2,x=3", "--format", "plain"),
        ("grad", "--at", "f=2,x=3", "--format", "plain", "-f*x"),
        ("grad", "--at", "f=2,x=3", "--format", "plain", "--", "-f*x"),
    ):
        result = run(cli, *args)
        assert result.exit_code == 0, result.output
        assert result.stdout.split() == ["-3", "-2"]


def test_format_has_no_short_option_left_to_collide(cli) -> None:
    result = run(cli, "check", "-f**4*t**3 + 241*f", "--wrt", "f", "--answer", "-4f^3*t^3 + 241")
    assert result.exit_code == 0, result.output


# --- the issue's examples as real processes (exit codes) -----------------------------------------


def gradcalc(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "from gradcalc.cli.app import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("check", "x**2 + y**2", "--answer", "2", "--wrt", "x", "--order", "2"), 0),
        (
            (
                "grad",
                "x**2 + y**2",
                "--wrt",
                "x",
                "--order",
                "2",
                "--at",
                "x=1,y=1",
                "--at",
                "x=2,y=2",
            ),
            0,
        ),
        (("check", "-f**4*t**3 + 241*f", "--answer", "-4f^3 t^3 + 241", "--wrt", "f"), 0),
        (("grad", "-f*x + y", "--at", "f=1,x=2,y=3", "--format", "plain"), 0),
        (("check", "e^2x", "--answer", "2e^(2x)"), 1),
    ],
)
def test_the_issues_examples_exit_as_documented(args, code) -> None:
    done = gradcalc(*args)
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


def test_minimize_and_fit_tables_start_with_how_the_text_was_read(cli) -> None:
    minimized = run(cli, "minimize", "(x-1)^2 + 2y^2", "--from", "x=0,y=1")
    assert minimized.stdout.startswith("read as: f(x, y) = (x - 1)^2 + 2·y^2\n"), minimized.output
    data = str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "line.csv")
    fitted = run(cli, "fit", "a*x + 1/2b", data, "--params", "a,b")
    assert fitted.stdout.startswith("read as: y = a·x + (1/2)·b\n"), fitted.output
    # a table carries the warning beside the reading, a script's format on stderr
    warning = "warning: 1/2b is read as (1/2)·b; if you mean 1/(2·b), write 1/(2b)"
    assert fitted.stdout.splitlines()[1] == warning
    plain = run(cli, "fit", "a*x + 1/2b", data, "--params", "a,b", "--format", "plain")
    assert warning in plain.stderr and warning not in plain.stdout


def test_answers_without_a_point_start_with_how_the_text_was_read(cli) -> None:
    for args in (("grad", "x/2y"), ("diff", "x/2y", "--wrt", "x"), ("hessian", "x/2y")):
        result = run(cli, *args)
        assert result.exit_code == 0, result.output
        first, second = result.stdout.splitlines()[:2]
        assert first == "read as: f(x, y) = (x/2)·y", result.stdout
        assert second == "warning: x/2y is read as (x/2)·y; if you mean x/(2·y), write x/(2y)"


@pytest.mark.parametrize(
    "args",
    [
        ("grad", "x/2y", "--at", "x=1,y=2"),
        ("grad", "x/2y", "--at", "x=1,y=2", "--at", "x=2,y=3"),
        ("grad", "x/2y", "--at", "x=1,y=2", "--order", "2", "--wrt", "x"),
        ("grad", "x/2y", "--at", "x=1,y=2", "--direction", "1,1"),
        ("hessian", "x/2y", "--at", "x=1,y=2"),
        ("hessian", "x/2y", "--at", "x=1,y=2", "--at", "x=2,y=3"),
        ("jacobian", "x/2y, y", "--at", "x=1,y=2"),
        ("jacobian", "x/2y, y", "--at", "x=1,y=2", "--at", "x=2,y=3"),
        ("grad", "x/2y", "--at", "x=1,y=0"),  # undefined: the reading alone, then the reason
        ("hessian", "x/2y + 1/y", "--at", "x=1,y=0"),
        ("jacobian", "x/2y, 1/y", "--at", "x=1,y=0"),
    ],
)
def test_a_tables_warnings_stand_under_its_reading_not_on_stderr(cli, args) -> None:
    warning = "warning: x/2y is read as (x/2)·y; if you mean x/(2·y), write x/(2y)"
    table = run(cli, *args)
    assert table.exit_code in (0, 3), table.output
    first, second = table.stdout.splitlines()[:2]
    assert first.startswith("read as: ") and second == warning, table.stdout
    assert table.stdout.count(warning) == 1 and warning not in table.stderr, table.output
    # a script's formats: plain keeps stdout for numbers, JSON has the field (and stderr)
    plain = run(cli, *args, "--format", "plain")
    assert warning not in plain.stdout and plain.stderr.count(warning) == 1, plain.output
    done = run(cli, *args, "--format", "json")
    first_object = answers(done.stdout)[0]
    assert warning.removeprefix("warning: ") in first_object["warnings"]
    assert done.stderr.count(warning) == 1, done.output


def test_a_table_written_to_a_file_keeps_its_warnings_on_stderr(cli, tmp_path) -> None:
    points = tmp_path / "points.csv"
    points.write_text("x,y\n1,2\n2,3\n")
    out = tmp_path / "out.csv"
    done = run(cli, "grad", "x/2y", "--points", str(points), "--out", str(out))
    assert done.exit_code == 0, done.output
    assert "write x/(2y)" in done.stderr and done.stdout == ""


# --- values: --at and --expect are warned about as the expression is -----------------------


@pytest.mark.parametrize("output", ["table", "plain", "json", "csv"])
def test_a_value_read_otherwise_is_warned_about_in_every_format(cli, output) -> None:
    rng = random.Random(11)
    for _ in range(3):
        k, m = rng.randint(1, 9), rng.randint(2, 10**6)
        constant, number = rng.choice([("pi", math.pi), ("e", math.e)])
        text = f"{k}/{m}{constant}"
        warning = f"{text} is read as ({k}/{m})·{constant}; if you mean {k}/({m}·{constant})"
        point = cli("grad", "x^2/2", "--at", f"x={text}", "--format", output, "--no-check")
        assert point.exit_code == 0
        assert warning in point.stdout + point.stderr
        if output == "json":
            assert json.loads(point.stdout)["value"] == pytest.approx((k / m * number) ** 2 / 2)
        expect = cli("check", "x^2/2", "--at", "x=1", "--expect", text, "--format", output)
        assert expect.exit_code == 1  # (k/m)·pi is not 1, the documented reading judged
        assert warning in expect.stdout + expect.stderr
        if output == "json":
            assert any(warning in w for w in json.loads(expect.stdout)["warnings"])


def test_the_reported_half_pi_values_are_warned_about(cli) -> None:
    at = cli("check", "x^2", "--at", "x=1/2pi", "--expect", "1/pi")
    assert at.exit_code == 1 and "warning: 1/2pi is read as (1/2)·pi" in at.stdout
    expect = cli("check", "x^2/(4 pi)", "--at", "x=1", "--expect", "1/2pi", "--format", "plain")
    assert "yours is 1.570796327" in expect.stdout
    assert "warning: 1/2pi is read as (1/2)·pi" in expect.stderr


# --- function notation, the function's own name, scientific notation: every format ------------


@pytest.mark.parametrize("output", ["table", "plain", "json", "csv"])
def test_function_notation_own_name_and_scientific_notation_warn_in_every_format(
    cli, output
) -> None:
    rng = random.Random(23)
    for _ in range(2):
        mantissa, exponent = rng.randint(2, 99), rng.randint(1, 6)
        g, f, t = rng.randint(2, 10**9), rng.randint(-9, 9), rng.randint(1, 9)
        text = f"g(t) + f*t + {mantissa}e-{exponent}t"
        at = f"f={f},g={g},t={t}"
        result = cli("grad", text, "--at", at, "--format", output, "--no-check")
        assert result.exit_code == 0, result.output
        said = re.sub(r"\s+", " ", result.stdout + result.stderr)  # (a table wraps lines)
        for warning in (
            "g(t) is read as g·t, a product; gradcalc has no unknown functions",
            "f is a variable here, and f is also the name of the function",
            f"{mantissa}e-{exponent}t is read as ",
            f"if you mean {mantissa}e - {exponent}t, write {mantissa}*e - {exponent}t",
        ):
            assert warning in said, (output, warning, said)
        if output == "json":
            gradient = json.loads(result.stdout)["gradient"]
            truth = sp.Integer(g) + f + sp.Rational(mantissa, 10**exponent)  # d/dt, by hand
            assert gradient["t"] == pytest.approx(float(truth), rel=1e-15)


@pytest.mark.parametrize("output", ["table", "plain", "json", "csv"])
def test_a_power_after_a_superscript_is_refused_in_every_format(cli, output) -> None:
    result = cli("grad", "x²^3", "--at", "x=2", "--format", output)
    assert result.exit_code == 2
    assert "x²^3 is ambiguous: for (x²)^3 write (x^2)^3; for x^(2^3) write x^(2^3)" in (
        result.stderr
    )
