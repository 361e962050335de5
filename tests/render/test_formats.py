"""Output formats as a registry: every format a command's --help offers works, the new
csv and plain outputs of check, fit, minimize and ops carry the right numbers, and a format
added to the registry reaches every command whose view has what it needs."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
import typer.main

from gradcalc.cli.app import app
from gradcalc.core.errors import ExitCode
from gradcalc.render.output import formats

LINE = "x,y\n0,1\n1,3\n2,5\n3,7\n"  # exactly y = 2x + 1

# one ordinary question per command that has --format
QUESTIONS = {
    "grad": ["x^2*y", "--at", "x=1,y=2"],
    "hessian": ["x^2*y", "--at", "x=1,y=2"],
    "jacobian": ["x*y, x+y", "--at", "x=1,y=2"],
    "check": ["x^2*y", "--at", "x=1,y=2", "--expect", "4,1"],
    "explain": ["x^2", "--at", "x=3"],
    "graph": ["x*y", "--at", "x=1,y=2"],
    "minimize": ["(x-1)^2", "--from", "x=0", "--lr", "0.25"],
    "fit": ["a*x + b", "-", "--params", "a,b"],
    "ops": ["sin"],
    "diff": ["x^2*y"],
    "critical": ["x^2 + y^2"],
    "taylor": ["exp(x)", "--at", "x=0"],
}


def offered(command: str) -> tuple[str, ...]:
    """The --format choices as the command's --help shows them."""
    click_command = typer.main.get_command(app).commands[command]
    (option,) = [p for p in click_command.params if "--format" in getattr(p, "opts", ())]
    return tuple(option.type.choices)


def test_every_command_with_a_format_is_asked_here() -> None:
    group = typer.main.get_command(app)
    with_format = {
        name
        for name, command in group.commands.items()
        if any("--format" in getattr(p, "opts", ()) for p in command.params)
    }
    assert with_format == set(QUESTIONS)


@pytest.mark.parametrize(
    ("command", "output"),
    [(command, output) for command in QUESTIONS for output in offered(command)],
)
def test_every_offered_format_is_accepted(cli, command: str, output: str) -> None:
    result = cli(command, *QUESTIONS[command], "--format", output, stdin=LINE)
    assert result.exit_code == ExitCode.OK, result.output
    assert result.stdout.strip()
    assert "--format" not in result.stderr


def test_scripts_get_csv_and_plain_from_every_command_that_answers_with_numbers() -> None:
    for command in ("grad", "hessian", "jacobian", "check", "minimize", "fit", "ops"):
        assert {"table", "json", "csv", "plain"} <= set(offered(command)), command


def test_check_csv_and_plain_give_each_components_verdict(cli) -> None:
    # d(x^2 y)/dx = 2xy = 4 and d/dy = x^2 = 1 at (1, 2): 4 is right, 3 is wrong
    args = ["check", "x^2*y", "--at", "x=1,y=2", "--expect", "4,3"]
    table = list(csv.DictReader(io.StringIO(cli(*args, "--format", "csv").stdout)))
    assert [(r["yours"], r["correct"], r["ok"]) for r in table] == [
        ("4", "4", "true"),
        ("3", "1", "false"),
    ]
    plain = cli(*args, "--format", "plain")
    assert plain.exit_code == ExitCode.CHECK_FAILED
    lines = [line.split("\t") for line in plain.stdout.splitlines()]
    assert [fields[1] for fields in lines] == ["correct", "wrong"]
    assert [fields[2] for fields in lines] == [r["detail"] for r in table]  # the why, kept
    assert lines[1][2] == "yours is 3, the derivative is 1"


def test_fit_csv_and_plain_give_the_line_through_the_data(cli) -> None:
    args = ["fit", "a*x + b", "-", "--params", "a,b"]
    rows = list(csv.DictReader(io.StringIO(cli(*args, "--format", "csv", stdin=LINE).stdout)))
    assert [r["parameter"] for r in rows] == ["a", "b"]
    assert [float(r["value"]) for r in rows] == pytest.approx([2.0, 1.0], abs=1e-9)
    plain = cli(*args, "--format", "plain", stdin=LINE).stdout.split()
    assert [float(v) for v in plain] == pytest.approx([2.0, 1.0], abs=1e-9)


def test_minimize_plain_gives_where_it_stopped(cli) -> None:
    # (x-1)^2 + (y+2)^2 has its minimum at (1, -2)
    args = ["(x-1)^2 + (y+2)^2", "--from", "x=0,y=0", "--lr", "0.25"]
    result = cli("minimize", *args, "--format", "plain")
    assert result.exit_code == ExitCode.OK
    assert [float(v) for v in result.stdout.split()] == pytest.approx([1.0, -2.0], abs=1e-6)


def test_ops_csv_rows_match_its_json(cli) -> None:
    rows = list(csv.DictReader(io.StringIO(cli("ops", "sin", "^", "--format", "csv").stdout)))
    entries = json.loads(cli("ops", "sin", "^", "--format", "json").stdout)
    assert [r["name"] for r in rows] == [e["name"] for e in entries] == ["sin", "**"]
    assert "cos(x)" in rows[0]["derivative"]
    assert rows[1]["also"] == "^"


def test_several_targets_at_one_point_are_one_json_array(cli) -> None:
    result = cli("grad", "y = x^2; z = x^3", "--of", "y,z", "--at", "x=2", "--format", "json")
    answers = json.loads(result.stdout)  # was an array without its closing bracket
    assert [a["gradient"]["x"] for a in answers] == [4.0, 12.0]  # 2x and 3x^2 at 2


def test_a_registered_format_reaches_every_view_that_has_what_it_needs(cli, monkeypatch) -> None:
    class Tsv(formats.OutputFormat):
        name, needs = "tsv", ("csv_header", "csv_rows")

        def write(self, view, data, sink) -> None:
            rows = [view.csv_header(data), *view.csv_rows(data, sink.digits)]
            sink.out.write("".join("\t".join(map(str, row)) + "\n" for row in rows))

    monkeypatch.setitem(formats.FORMATS, "tsv", Tsv())
    assert "tsv" in offered("grad") and "tsv" in offered("ops")
    assert "tsv" not in offered("explain") and "tsv" not in offered("graph")
    result = cli("grad", "x^2*y", "--at", "x=3,y=2", "--format", "tsv")
    header, row = (line.split("\t") for line in result.stdout.splitlines())
    assert dict(zip(header, row))["d/dx"] == "12"  # 2xy at (3, 2)
    assert math.isclose(float(dict(zip(header, row))["d/dy"]), 9)  # x^2


def test_a_format_a_view_cannot_give_is_an_input_error() -> None:
    with pytest.raises(Exception, match="no --format csv here"):
        formats.choose(object(), "csv")


def test_hessian_says_in_every_format_what_decided_the_point(cli) -> None:
    # x^4 - y^4 at 0: the Hessian is 0, the terms of lowest order make it a saddle point
    args = ["hessian", "x^4 - y^4", "--at", "x=0,y=0"]
    table = cli(*args)
    text = " ".join(table.stdout.split())  # (as folded to the terminal's width)
    assert table.exit_code == ExitCode.OK
    assert "second-derivative test: inconclusive" in text
    assert "terms of lowest order: saddle point (f − f(p) begins with x^4 - y^4" in text
    data = json.loads(cli(*args, "--format", "json").stdout)
    assert data["classification"] == "saddle point"
    assert data["second_derivative_test"] == "inconclusive"
    assert data["lowest_order"]["verdict"] == "saddle point"
    rows = cli("hessian", "x^4", "--at", "x=0", "--at", "x=1", "--format", "csv").stdout
    assert rows.splitlines()[1:] == ["0,0,0,local minimum", "1,1,12,not a critical point"]


@pytest.mark.parametrize("command", ["grad", "hessian", "jacobian"])
def test_digits_round_the_answers_never_the_points(cli, command: str) -> None:
    # --digits 1 wrote x = 25.5 as 3e+01: a re-read CSV named the wrong points
    points = ["25.5", "-99.95", "0.99951"]
    at = [a for p in points for a in ("--at", f"x={p}")]
    expression = "x^3, 2x" if command == "jacobian" else "x^3"
    out = cli(command, expression, *at, "--digits", "1", "--format", "csv", "--no-check")
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert [r["x"] for r in rows] == points
    assert any("e+" in value for r in rows for value in r.values())  # (the answers rounded)


def test_hessian_shows_a_gradient_below_float64_exactly(cli) -> None:
    out = cli("hessian", "exp(x)+y^2", "--at", "x=-800,y=0")
    text = " ".join(out.stdout.split())
    assert "gradient: (exp(-800), 0) — not zero, so not a critical point" in text
    data = json.loads(cli("hessian", "exp(x)+y^2", "--at", "x=-800,y=0", "--format", "json").stdout)
    assert data["critical_point"] is False and data["classification"] == "not a critical point"


def test_a_jacobian_point_lists_each_finding_once(cli) -> None:
    # both targets' rows share one tape: sqrt's kink at (0, 0) was listed twice
    args = ["jacobian", "sqrt(x^2+y^2), x*y", "--at", "x=0,y=0", "--at", "x=1,y=1"]
    data = json.loads(cli(*args, "--format", "json").stdout)
    findings = data["per_point"][0]["diagnostics"]["findings"]
    assert [f["kind"] for f in findings] == ["kink"]


@pytest.mark.parametrize("width", [40, 60, 80, 100])
@pytest.mark.parametrize(
    ("expression", "at"),
    [("erf(x)", "x=6"), ("erf(x)*sin(y)^3*exp(x*y)", "x=6,y=0.3"), ("1/x", "x=3e-7")],
)
def test_a_table_never_folds_a_number(cli, width: int, expression: str, at: str) -> None:
    # at 80 columns the tape's 2.6173012392492645e-16 was folded before e-16 (read: 2.6),
    # and the exact 2 exp(-36)/sqrt(pi) before exp (read: 2)
    args = ["grad", expression, "--at", at]
    data = json.loads(cli(*args, "--format", "json").stdout)
    table = cli(*args, env={"COLUMNS": str(width)}).stdout
    words = set(table.replace("│", " ").replace("┃", " ").split())
    for name, value in data["gradient"].items():
        assert repr(value) in words, (name, value, table)
    for text in data["exact"].values():
        if text and " " in text:  # (a short exact value with a space: all on one line)
            assert text in table, (text, table)


@pytest.mark.parametrize("width", [40, 60, 80, 100, 120])
@pytest.mark.parametrize("command", ["grad", "hessian", "jacobian"])
def test_a_table_of_many_points_never_folds_or_crops_a_number(cli, width: int, command: str):
    # at 80 columns grad's ∂ columns folded 0.013450173977888719 over four lines, and the
    # point column 123.456 over two (read: 123.4); and rich cropped unfolding columns
    expression = "exp(x)*sin(y)*z^3/7, x*y" if command == "jacobian" else "exp(x)*sin(y)*z^3/7"
    points = ["x=1.5,y=2.25,z=0.3", "x=-3.7,y=1e-5,z=123.456", "x=10,y=0.1,z=-2"]
    args = [command, expression, *(a for p in points for a in ("--at", p))]
    rows = list(csv.DictReader(io.StringIO(cli(*args, "--format", "csv").stdout)))
    table = cli(*args, env={"COLUMNS": str(width)}).stdout
    words = set(table.replace("│", " ").replace("┃", " ").split())
    numbers = [v for row in rows for v in row.values() if v and v[-1].isdigit()]
    assert len(numbers) >= 21
    for value in numbers:
        assert value in words, (value, table)


@pytest.mark.parametrize("many", [False, True])
def test_no_format_gives_a_number_for_any_component_at_an_undefined_point(cli, many) -> None:
    # at x = -1, ln(x) is undefined: JSON gave the independent y's derivative as 0.0 there,
    # while plain printed nan and CSV an empty cell
    at = ["--at", "x=-1,y=2"] + (["--at", "x=2,y=1"] if many else [])
    args = ["grad", "log(x)", *at, "--wrt", "x,y"]
    data = json.loads(cli(*args, "--format", "json").stdout)
    gradient = data["gradient"]
    first = {n: (v[0] if many else v) for n, v in gradient.items()}
    assert first == {"x": None, "y": None}, gradient
    if many:
        assert gradient == {"x": [None, 0.5], "y": [None, 0.0]}
    rows = list(csv.DictReader(io.StringIO(cli(*args, "--format", "csv").stdout)))
    assert rows[0]["d/dx"] == rows[0]["d/dy"] == ""
