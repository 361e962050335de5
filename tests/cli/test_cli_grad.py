"""`gradcalc grad` through the shared `cli` fixture, against hand-worked answers and sympy."""

from __future__ import annotations

import json
import math

import pytest

from gradcalc.core.errors import ExitCode
from tests.cli.compact import per_point


def run_json(cli, *args: str):
    result = cli(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_headline_example_json(cli) -> None:
    out = run_json(cli, "grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3")
    assert out["value"] == 105.0
    assert out["gradient"] == {"w1": 36.0, "w2": 10.0}
    assert out["symbolic"] == {"w1": "6 w1 + 2 w2", "w2": "2 w1"}
    assert out["check"]["status"] == "agree" and out["check"]["agree"] is True
    assert out["warnings"] == []
    ops = [row["op"] for row in out["tape"]]
    assert ops == ["pow", "mul", "mul", "mul", "add"]
    assert [row["adjoint"] for row in out["tape"]][-1] == 1.0


def test_headline_example_table_shows_gradient_symbolic_and_tape(cli) -> None:
    result = cli("grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3")
    assert result.exit_code == 0, result.output
    text = result.stdout
    for fragment in ("f = 105", "36", "10", "6 w1 + 2 w2", "2 w1", "✓", "Tape", "w1^2"):
        assert fragment in text


def _tape_rows(table: str) -> list[list[str]]:
    """The cells of the tape table's numbered rows (``#``, op, computes, value, adjoint)."""
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in table.splitlines()]
    return [cells for cells in rows if len(cells) == 5 and cells[0].isdigit()]


def test_the_tape_computes_column_is_written_as_the_read_as_line_writes_it(cli) -> None:
    """ln for log, ^ for a power, · for a product: each record of the tape as the read-as
    line writes the same operation (the op column keeps the registry's names); JSON keeps its
    formula field as it was."""
    text = "ln(x)*x^2+asin(x/3)"
    table = cli("grad", text, "--at", "x=2").stdout
    read_as = table.splitlines()[0].removeprefix("read as: f(x) = ")
    assert read_as == "ln(x)·x^2 + asin(x/3)"
    rows = _tape_rows(table)
    assert [cells[1] for cells in rows] == ["log", "pow", "mul", "div", "asin", "add"]
    computes = [cells[2] for cells in rows]
    assert computes[:2] == read_as.split(" + ")[0].split("·")  # ln(x), x^2
    assert computes[2:] == ["#1·#2", "x/3", "asin(#4)", "#3 + #5"]
    tape = run_json(cli, "grad", text, "--at", "x=2")["tape"]
    assert [row["formula"] for row in tape][:3] == ["log(x)", "x ** 2", "#1 * #2"]


@pytest.mark.parametrize(
    ("text", "point"),
    [("ln(x)*x^2+asin(x/3)", "x=2"), ("cos(x)^2", "x=pi/2"), ("x^2*y", "x=0.1,y=3")],
)
def test_the_headings_f_is_the_tapes_last_row(cli, text: str, point: str) -> None:
    """One value of f on the screen: the heading's is the tape's (its last row, and JSON's
    value), not the exact value's nearest float, which differs in the last digits at x=2
    (3.5023163784667477) and is 0 at pi/2; the exact value stands beside it."""
    table = cli("grad", text, "--at", point).stdout
    heading = next(line for line in table.splitlines() if line.startswith("at "))
    shown = heading.split("f = ")[1].split()[0]
    last = _tape_rows(table)[-1]
    assert float(shown) == float(last[3]) == run_json(cli, "grad", text, "--at", point)["value"]
    assert "(exact: " in heading


@pytest.mark.parametrize(("x", "slope"), [("5", 75.0), ("7", 147.0)])
def test_seed_cube(cli, x: str, slope: float) -> None:
    assert run_json(cli, "grad", "x^3", "--at", f"x={x}")["gradient"] == {"x": slope}


def test_seed_chain_program_and_intermediate_sources(cli) -> None:
    out = run_json(cli, "grad", "y = x**2; z = y**2", "--at", "x=3", "--wrt", "x,y")
    assert out["gradient"] == {"x": 108.0, "y": 18.0}
    assert out["check"]["agree"] is True
    out = run_json(cli, "grad", "y = x**2; z = y**2", "--at", "x=3", "--of", "y")
    assert out["gradient"] == {"x": 6.0}


def test_reassignment_refers_to_the_previous_value(cli) -> None:
    out = run_json(cli, "grad", "c = x + 1; c = c * c; c = c + x", "--at", "x=2")
    # c = (x+1)^2 + x: dc/dx = 2(x+1) + 1 = 7
    assert out["value"] == 11.0 and out["gradient"] == {"x": 7.0}


def test_thirty_squarings_stay_a_chain(cli) -> None:
    program = "; ".join(f"a{i + 1} = a{i}*a{i}" for i in range(30))
    out = run_json(cli, "grad", program, "--at", "a0=1", "--no-check")
    assert len(out["tape"]) == 30
    assert out["gradient"] == {"a0": float(2**30)}


def test_every_at_variable_is_a_source_even_unused(cli) -> None:
    result = cli("grad", "x*y", "--at", "x=2,y=3,z=4", "--format", "json")
    out = json.loads(result.stdout)
    assert out["gradient"] == {"x": 3.0, "y": 2.0, "z": 0.0}
    assert out["independent"] == ["z"]
    assert any("z is not used" in w for w in out["warnings"])


def test_exact_point_values_and_exact_symbolic_values(cli) -> None:
    out = run_json(cli, "grad", "sin(x)", "--at", "x=pi/3")
    assert out["gradient"]["x"] == pytest.approx(0.5, rel=1e-15)
    result = cli("grad", "sqrt(x)", "--at", "x=3/4", "--exact")
    assert "sqrt(3)/3" in result.stdout


def test_homework_notation(cli) -> None:
    a = run_json(cli, "grad", "2x^2 + 3(x+1)(x-1)", "--at", "x=2")
    # 2x^2 + 3(x^2 - 1): d/dx = 4x + 6x = 20
    assert a["gradient"] == {"x": 20.0}


@pytest.mark.parametrize("name", ["gamma", "beta", "N", "S", "I", "exec", "E"])
def test_sympy_names_are_plain_variables(cli, name: str) -> None:
    out = run_json(cli, "grad", f"{name}**2", "--at", f"{name}=3")
    assert out["gradient"] == {name: 6.0}


def test_e_and_pi_are_constants_unless_given(cli) -> None:
    out = run_json(cli, "grad", "e*x + pi", "--at", "x=1")
    assert out["gradient"] == {"x": pytest.approx(math.e)}
    out = run_json(cli, "grad", "e*x", "--at", "x=1,e=2")
    assert out["gradient"] == {"x": 2.0, "e": 1.0}


def test_several_points_and_csv_and_plain(cli) -> None:
    args = ("grad", "x*y", "--at", "x=1,y=2", "--at", "x=3,y=4")
    out = per_point(run_json(cli, *args))
    assert [o["gradient"] for o in out] == [{"x": 2.0, "y": 1.0}, {"x": 4.0, "y": 3.0}]
    csv_out = cli(*args, "--format", "csv").stdout.splitlines()
    assert csv_out == ["x,y,value,d/dx,d/dy", "1,2,2,2,1", "3,4,12,4,3"]
    assert cli(*args, "--format", "plain").stdout.splitlines() == ["2 1", "4 3"]


@pytest.mark.parametrize("output", ["json", "csv", "table", "plain"])
def test_a_points_files_ambiguous_cell_is_warned_in_every_format(cli, tmp_path, output) -> None:
    path = tmp_path / "points.csv"
    path.write_text("x\n1/2pi\n2\n")
    result = cli("grad", "sin(x)", "--points", str(path), "--format", output)
    warning = "points file, column x: 1/2pi is read as (1/2)·pi; if you mean 1/(2·pi)"
    assert result.exit_code == 0 and warning in result.stderr, result.output
    if output == "json":
        assert any(warning in w for w in json.loads(result.stdout)["warnings"])


def test_points_file_and_stdin(cli, tmp_path) -> None:
    path = tmp_path / "points.csv"
    path.write_text("x,y\n1,2\n3,4\n", encoding="utf-8")
    from_file = cli("grad", "x**2*y", "--points", str(path), "--format", "csv").stdout
    from_stdin = cli("grad", "x**2*y", "--points", "-", "--format", "csv", stdin=path.read_text())
    assert from_file.splitlines() == ["x,y,value,d/dx,d/dy", "1,2,2,4,1", "3,4,36,24,9"]
    assert from_stdin.stdout == from_file


def test_points_file_in_chunks_gives_the_same_answers(cli, tmp_path, monkeypatch) -> None:
    import gradcalc.io.files

    rows = "\n".join(f"{i / 7},{-i / 3}" for i in range(1, 41))
    path = tmp_path / "p.csv"
    path.write_text("x,y\n" + rows + "\n")
    whole = cli("grad", "sin(x)*y", "--points", str(path), "--format", "json")
    monkeypatch.setattr(gradcalc.io.files, "CHUNK_ROWS", 7)
    chunked = cli("grad", "sin(x)*y", "--points", str(path), "--format", "json")
    assert json.loads(whole.stdout) == json.loads(chunked.stdout)  # (one object, joined)
    assert len(per_point(json.loads(chunked.stdout))) == 40


def test_wrt_unknown_name_lists_valid_ones(cli) -> None:
    result = cli("grad", "x*y", "--at", "x=1,y=2", "--wrt", "q")
    assert result.exit_code == ExitCode.USAGE
    assert "valid names: x, y" in result.output


@pytest.mark.parametrize(
    ("expr", "point", "fragment"),
    [
        ("log(x - 5)", "x=5", "ln(0)"),
        ("log(x)", "x=-1", "negative numbers"),
        ("sqrt(x)", "x=-4", "negative numbers"),
        ("1/x", "x=0", "division by zero"),
        ("asin(x)", "x=2", "outside [-1, 1]"),
        ("tan(x)", "x=pi/2", "cosine is 0"),
        ("abs(x)", "x=0", "corner"),
        ("Max(x, y)", "x=1,y=1", "tie"),
        ("sqrt(x)", "x=0", "infinite slope"),
        ("x**2", "x=1e200", "overflow"),
    ],
)
def test_undefined_points_exit_3_with_the_op_named(cli, expr, point, fragment) -> None:
    result = cli("grad", expr, "--at", point)
    assert result.exit_code == ExitCode.UNDEFINED, result.output
    assert fragment in result.stderr


def test_subgradient_gives_the_conventional_value(cli) -> None:
    result = cli("grad", "abs(x)", "--at", "x=0", "--subgradient", "--format", "json")
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["gradient"] == {"x": 0.0}
    assert any("subgradient" in w for w in out["warnings"])


def test_bad_points_are_marked_and_the_rest_printed(cli) -> None:
    result = cli("grad", "log(x)", "--at", "x=1", "--at", "x=-1", "--at", "x=2", "--format", "json")
    assert result.exit_code == ExitCode.UNDEFINED
    out = per_point(json.loads(result.stdout))
    assert [o["gradient"]["x"] for o in out] == [1.0, None, 0.5]
    assert out[1]["undefined"] and "ln is undefined" in out[1]["undefined"]


def test_json_has_no_colour_codes_and_is_valid_with_nan(cli) -> None:
    result = cli("grad", "log(x)", "--at", "x=-1", "--format", "json")
    assert "\x1b[" not in result.stdout
    assert json.loads(result.stdout)["value"] is None


def test_no_tape_and_no_check(cli) -> None:
    out = run_json(cli, "grad", "x*x", "--at", "x=2", "--no-tape", "--no-check")
    assert "tape" not in out and out["check"]["status"] == "off"


def test_digits(cli) -> None:
    result = cli("grad", "x/3", "--at", "x=1", "--format", "plain", "--digits", "4")
    assert result.stdout.strip() == "0.3333"


def test_usage_errors_exit_2(cli) -> None:
    assert cli("grad", "x", "--format", "yaml").exit_code == ExitCode.USAGE
    assert cli("grad", "x", "--at", "x").exit_code == ExitCode.USAGE
    assert cli("grad", "x", "--at", "x=1", "--at", "y=2").exit_code == ExitCode.USAGE
    assert cli("grad", "x+", "--at", "x=1").exit_code == ExitCode.USAGE


def test_a_wrong_gradient_rule_is_caught_by_the_check(cli, monkeypatch) -> None:
    import dataclasses

    import gradcalc.core.ops as ops

    rule = (lambda g, ans, x: g * ans,)  # sin's made to give sin, in both of its forms
    wrong = dataclasses.replace(ops.REGISTRY["sin"], grads=rule, array_grads=rule)
    monkeypatch.setitem(ops.REGISTRY, "sin", wrong)
    result = cli("grad", "sin(x) + y", "--at", "x=1,y=2")
    assert result.exit_code == ExitCode.CHECK_FAILED
    assert "✗" in result.stdout and "disagree" in result.stderr
    out = json.loads(cli("grad", "sin(x)", "--at", "x=1", "--format", "json").stdout)
    assert out["check"] == {
        "status": "disagree",
        "agree": False,
        "max_difference": out["check"]["max_difference"],
        "method": "exact values",
        "rtol": 1e-7,
        "points": 1,
        "meaning": "differs by more than rtol 1e-7 at 1 of 1 points (with sympy's exact values)",
    }
    assert out["check"]["max_difference"] == pytest.approx(abs(math.sin(1) - math.cos(1)))


def test_the_symbolic_check_gives_up_after_its_time_budget(cli) -> None:
    terms = " + ".join(f"x{i}*sin(x{i + 1})" for i in range(1, 400))
    point = ",".join(f"x{i}=0.{i}" for i in range(1, 401))
    result = cli(
        "grad", terms, "--at", point, "--format", "json", "--no-tape", "--check-timeout", "0.05"
    )
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["check"]["status"] == "skipped"
    assert any("symbolic check skipped" in w for w in out["warnings"])
    assert out["gradient"]["x2"] == pytest.approx(math.sin(0.3) + 0.1 * math.cos(0.2))


def test_many_points_are_checked_with_lambdify(cli, tmp_path) -> None:
    rows = "\n".join(f"{i / 10},{(i % 7) / 3}" for i in range(1, 101))
    path = tmp_path / "p.csv"
    path.write_text("x,y\n" + rows + "\n")
    out = json.loads(
        cli(
            "grad", "atan2(y, x) * erf(x)", "--points", str(path), "--format", "json", "--no-tape"
        ).stdout
    )
    assert len(per_point(out)) == 100 and all(o["check"]["agree"] for o in per_point(out))


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("", "empty"),
        ("x,y\n", "no rows"),
        ("x,y\n1,2\n3\n", "row 3: 1 value for 2 columns"),
        ("x,y\n1,abc\n", "row 2, column y: 'abc' is not a number"),
        ("x,y\n1,2\n\n3,1.2.3\n", "row 4, column y: '1.2.3' is not a number"),
        ("x,y\n1,2\n3,1-2\n", "row 3, column y: '1-2' is not a number"),
        ("x,y\n1,,\n", "row 2: 3 values for 2 columns"),
        ("x,y\n1, \n", "row 2, column y: the cell is empty"),
        ("x,y\n1,nan\n", "row 2, column y: 'nan' is not a finite number"),
        ("x,y\n1,1e999\n", "out of range"),
        (
            "x,1y\n1,2\n",
            "the points file has no column y (its columns: x; 1 cell that is not a name)",
        ),
        ("x,x\n1,2\n", "repeated"),
    ],
)
def test_bad_points_files_name_the_row_and_column(cli, tmp_path, content, fragment) -> None:
    path = tmp_path / "p.csv"
    path.write_text(content)
    result = cli("grad", "x*y", "--points", str(path))
    assert result.exit_code == ExitCode.USAGE
    assert fragment in result.stderr


def test_points_file_with_bom_and_windows_line_endings(cli, tmp_path) -> None:
    path = tmp_path / "p.csv"
    path.write_bytes("\ufeffx,y\r\n1,2\r\n".encode())
    assert cli("grad", "x*y", "--points", str(path), "--format", "plain").stdout == "2 1\n"


def test_missing_points_file_and_missing_values(cli) -> None:
    assert "cannot read points file" in cli("grad", "x", "--points", "nope.csv").stderr
    result = cli("grad", "x*y", "--at", "x=1")
    assert result.exit_code == ExitCode.USAGE and "no value given for y" in result.stderr


def test_expression_from_a_file_and_from_stdin(cli, tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("y = x^2\nz = y^2\n")
    assert cli("--file", "grad", f"@{path}", "--at", "x=3", "--format", "plain").stdout == "108\n"
    assert cli("grad", "-", "--at", "x=3", "--format", "plain", stdin="x^3").stdout == "27\n"


def test_error_caret_points_at_the_offending_column(cli) -> None:
    result = cli("grad", "2x + sinn(x)", "--at", "x=1")
    lines = result.stderr.splitlines()
    assert "did you mean 'sin'" in lines[0]
    assert lines[2].index("^") - lines[1].index("2") == "2x + sinn(x)".index("sinn")


def test_several_targets_share_one_csv_row_per_point(cli) -> None:
    args = ("grad", "r*cos(t), r*sin(t)", "--at", "r=2,t=0", "--at", "r=1,t=pi/2")
    lines = cli(*args, "--format", "csv", "--digits", "6").stdout.splitlines()
    assert lines[0] == "r,t,f1,df1/dr,df1/dt,f2,df2/dr,df2/dt"
    # x = r cos t, y = r sin t: (cos t, -r sin t) and (sin t, r cos t)
    assert lines[1] == "2,0,2,1,0,0,0,2"
    # cos(pi/2) is 0 exactly: the check's exact value, not the tape's 6.12323e-17
    assert lines[2].split(",")[3:5] == ["0", "-1"]
    assert cli(*args, "--format", "plain", "--digits", "6").stdout.splitlines()[:2] == [
        "1 0",
        "0 2",
    ]


def test_a_statement_the_target_does_not_use_cannot_make_it_undefined(cli) -> None:
    out = run_json(cli, "grad", "y = log(x); z = x^2", "--at", "x=-1")
    assert out["gradient"] == {"x": -2.0} and out["undefined"] is None
    assert cli("grad", "y = log(x); z = x^2", "--at", "x=-1", "--of", "y").exit_code == 3


def test_only_the_disagreeing_component_is_marked_wrong(cli, monkeypatch) -> None:
    import dataclasses

    import gradcalc.core.ops as ops

    rule = (lambda g, ans, x: g * ans,)  # sin's made to give sin, in both of its forms
    wrong = dataclasses.replace(ops.REGISTRY["sin"], grads=rule, array_grads=rule)
    monkeypatch.setitem(ops.REGISTRY, "sin", wrong)
    rows = cli("grad", "sin(x) + y", "--at", "x=1,y=2", "--no-tape").stdout.splitlines()
    x_row = next(line for line in rows if line.startswith("│ x "))
    y_row = next(line for line in rows if line.startswith("│ y "))
    assert "✗" in x_row and "✓" in y_row


@pytest.mark.parametrize(
    ("expr", "fragment"),
    [
        ("x + csc(pi)", "csc(pi) is undefined (it has no variables)"),
        ("x * log10(0.5 - pi)", "log10 is undefined for negative numbers"),
        ("x + 1/0", "division by zero"),
        ("x^2 + sqrt(-1)", "sqrt(-1) is undefined"),
    ],
)
def test_an_undefined_constant_subexpression_is_reported_not_hidden(cli, expr, fragment) -> None:
    # found by fuzz/fuzz_cli.py: constants are off the tape, so they are checked on their own
    result = cli("grad", expr, "--at", "x=0.5")
    assert result.exit_code == ExitCode.UNDEFINED, result.output
    assert fragment in result.stderr


def test_a_constant_kink_does_not_matter(cli) -> None:
    assert run_json(cli, "grad", "x*abs(0) + x*relu(0)", "--at", "x=2")["gradient"] == {"x": 0.0}


def test_a_singularity_float64_rounded_past_is_undefined_with_the_reason(cli) -> None:
    # sin(pi) is 1.2e-16 in float64 but exactly 0: 1/sin(x) has no derivative at x=pi
    result = cli("grad", "z/(sin(x)*(e+e))", "--at", "x=pi,z=3", "--format", "plain")
    assert result.exit_code == ExitCode.UNDEFINED
    assert "float64 rounded past the singularity" in result.stderr
    # without a variable in it, sin(pi) is 0 at every point: undefined everywhere
    everywhere = cli("grad", "z/(sin(pi)*(e+e))", "--at", "z=3", "--format", "plain")
    assert everywhere.exit_code == ExitCode.UNDEFINED
    assert "is undefined for every z" in everywhere.stderr


def test_files_that_are_not_utf8_say_so(cli, tmp_path) -> None:
    """A cell read that is not UTF-8 is named by its row and column; a text read whole (an
    expression file) is refused whole."""
    path = tmp_path / "latin1.csv"
    path.write_bytes("x,y\n1,2\n3,\xe9\n".encode("latin-1"))
    result = cli("grad", "x*y", "--points", str(path))
    assert result.exit_code == ExitCode.USAGE
    assert "row 3, column y: the cell is not UTF-8 text (byte 0xe9" in result.stderr
    assert "is not UTF-8 text" in cli("--file", "grad", f"@{path}", "--at", "x=1,y=2").stderr
    fitted = cli("fit", "a*x", str(path), "--params", "a").stderr
    assert "data file row 3, column y: the cell is not UTF-8 text" in fitted


def test_the_check_of_many_points_says_it_is_float_agreement_not_a_proof(cli, tmp_path) -> None:
    points = tmp_path / "points.csv"
    points.write_text("x,y\n" + "".join(f"{k / 7},{1 - k / 9}\n" for k in range(20)))
    table = cli("grad", "x^2*sin(y)", "--points", str(points))
    assert table.exit_code == ExitCode.OK, table.output
    assert "check: the tape agrees within rtol 1e-7 at 20 points (16 of them at" in table.stdout
    assert "not a proof" in table.stdout
    out = json.loads(cli("grad", "x^2*sin(y)", "--points", str(points), "--format", "json").stdout)
    check = out["check"]  # (compact JSON: said once for every point)
    assert (check["method"], check["rtol"], check["points"]) == ("float64", 1e-7, 20)
    assert "not a proof" in check["meaning"]
    few = json.loads(cli("grad", "x^2*sin(y)", "--at", "x=1,y=2", "--format", "json").stdout)
    assert few["check"]["method"] == "exact values"


@pytest.mark.parametrize(
    ("args", "made"),
    [
        (["--at", "x=1,y=2"], 1),  # the table of one point shows it
        (["--at", "x=1,y=2", "--order", "2"], 0),  # the Hessian's view does not
        (["--at", "x=1,y=2", "--format", "json"], 0),
        (["--at", "x=1,y=2", "--at", "x=2,y=3"], 0),  # nor a table of several points
        (["--at", "x=1,y=2", "--direction", "1,1"], 1),  # beside the directional derivative
    ],
)
def test_the_tangent_is_made_only_where_it_is_shown(cli, monkeypatch, args, made) -> None:
    from gradcalc.engine.judge import judge

    calls: list[object] = []
    made_tangent = judge.tangent
    monkeypatch.setattr(
        judge, "tangent", lambda result: calls.append(result) or made_tangent(result)
    )
    done = cli("grad", "x^2*y", *args)
    assert done.exit_code == 0, done.output
    assert len(calls) == made
    assert ("tangent plane: z = 2 + 4(x - 1) + (y - 2)" in done.stdout) == bool(made)


def test_a_check_mark_beside_two_different_numbers_says_why(cli) -> None:
    # 1.5707963267948966 is not a float64 number: the tape gets its nearest float64, where
    # d/dx sec(x) is 2.667e32; at the decimal typed it is 2.70e33 (sympy, here, at 40 digits)
    import sympy as sp

    x = sp.Rational("1.5707963267948966")
    at_typed = sp.N((sp.sin(x) / sp.cos(x) ** 2), 40)
    at_float = sp.N((sp.sin(x) / sp.cos(x) ** 2).subs(x, sp.Rational(1.5707963267948966)), 40)
    assert abs(at_typed / at_float - 1) > 1  # the two points' derivatives differ tenfold
    answer = run_json(cli, "grad", "1/cos(x)", "--at", "x=1.5707963267948966")
    assert math.isclose(answer["gradient"]["x"], float(at_float), rel_tol=1e-7)
    result = cli("grad", "1/cos(x)", "--at", "x=1.5707963267948966", "--no-tape")
    assert result.exit_code == 0, result.output
    caption = result.stdout[result.stdout.index("check: the tape") :]
    assert "not a float64 number" in caption and "nearest float64" in caption
    # where the two numbers are the same, no caption
    plain = cli("grad", "x^2", "--at", "x=0.5", "--no-tape")
    assert "check: the tape" not in plain.stdout


def test_a_pole_within_float64_rounding_says_so(cli) -> None:
    result = cli("grad", "tan(x)", "--at", "x=1.5707963267948966")
    assert result.exit_code == ExitCode.UNDEFINED
    assert "its argument is pi/2 + k·pi to float64's precision" in result.stderr
