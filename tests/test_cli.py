"""`gradcalc grad` through Typer's CliRunner, against hand-worked answers and sympy."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from gradcalc.cli import app
from gradcalc.errors import ExitCode

runner = CliRunner()


def run(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


def run_json(*args: str):
    result = run(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_headline_example_json() -> None:
    out = run_json("grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3")
    assert out["value"] == 105.0
    assert out["gradient"] == {"w1": 36.0, "w2": 10.0}
    assert out["symbolic"] == {"w1": "6*w1 + 2*w2", "w2": "2*w1"}
    assert out["check"]["status"] == "agree" and out["check"]["agree"] is True
    assert out["warnings"] == []
    ops = [row["op"] for row in out["tape"]]
    assert ops == ["pow", "mul", "mul", "mul", "add"]
    assert [row["adjoint"] for row in out["tape"]][-1] == 1.0


def test_headline_example_table_shows_gradient_symbolic_and_tape() -> None:
    result = run("grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3")
    assert result.exit_code == 0, result.output
    text = result.stdout
    for fragment in ("f = 105", "36", "10", "6*w1 + 2*w2", "2*w1", "✓", "Tape", "w1 ** 2"):
        assert fragment in text


@pytest.mark.parametrize(("x", "slope"), [("5", 75.0), ("7", 147.0)])
def test_seed_cube(x: str, slope: float) -> None:
    assert run_json("grad", "x^3", "--at", f"x={x}")["gradient"] == {"x": slope}


def test_seed_chain_program_and_intermediate_sources() -> None:
    out = run_json("grad", "y = x**2; z = y**2", "--at", "x=3", "--wrt", "x,y")
    assert out["gradient"] == {"x": 108.0, "y": 18.0}
    assert out["check"]["agree"] is True
    out = run_json("grad", "y = x**2; z = y**2", "--at", "x=3", "--of", "y")
    assert out["gradient"] == {"x": 6.0}


def test_reassignment_refers_to_the_previous_value() -> None:
    out = run_json("grad", "c = x + 1; c = c * c; c = c + x", "--at", "x=2")
    # c = (x+1)^2 + x: dc/dx = 2(x+1) + 1 = 7
    assert out["value"] == 11.0 and out["gradient"] == {"x": 7.0}


def test_thirty_squarings_stay_a_chain() -> None:
    program = "; ".join(f"a{i + 1} = a{i}*a{i}" for i in range(30))
    out = run_json("grad", program, "--at", "a0=1", "--no-check")
    assert len(out["tape"]) == 30
    assert out["gradient"] == {"a0": float(2**30)}


def test_every_at_variable_is_a_source_even_unused() -> None:
    result = run("grad", "x*y", "--at", "x=2,y=3,z=4", "--format", "json")
    out = json.loads(result.stdout)
    assert out["gradient"] == {"x": 3.0, "y": 2.0, "z": 0.0}
    assert out["independent"] == ["z"]
    assert any("z is not used" in w for w in out["warnings"])


def test_exact_point_values_and_exact_symbolic_values() -> None:
    out = run_json("grad", "sin(x)", "--at", "x=pi/3")
    assert out["gradient"]["x"] == pytest.approx(0.5, rel=1e-15)
    result = run("grad", "sqrt(x)", "--at", "x=3/4", "--exact")
    assert "sqrt(3)/3" in result.stdout


def test_homework_notation() -> None:
    a = run_json("grad", "2x^2 + 3(x+1)(x-1)", "--at", "x=2")
    # 2x^2 + 3(x^2 - 1): d/dx = 4x + 6x = 20
    assert a["gradient"] == {"x": 20.0}


@pytest.mark.parametrize("name", ["gamma", "beta", "N", "S", "I", "exec", "E"])
def test_sympy_names_are_plain_variables(name: str) -> None:
    out = run_json("grad", f"{name}**2", "--at", f"{name}=3")
    assert out["gradient"] == {name: 6.0}


def test_e_and_pi_are_constants_unless_given() -> None:
    out = run_json("grad", "e*x + pi", "--at", "x=1")
    assert out["gradient"] == {"x": pytest.approx(math.e)}
    out = run_json("grad", "e*x", "--at", "x=1,e=2")
    assert out["gradient"] == {"x": 2.0, "e": 1.0}


def test_several_points_and_csv_and_plain() -> None:
    args = ("grad", "x*y", "--at", "x=1,y=2", "--at", "x=3,y=4")
    out = run_json(*args)
    assert [o["gradient"] for o in out] == [{"x": 2.0, "y": 1.0}, {"x": 4.0, "y": 3.0}]
    csv_out = run(*args, "--format", "csv").stdout.splitlines()
    assert csv_out == ["x,y,value,d/dx,d/dy", "1,2,2,2,1", "3,4,12,4,3"]
    assert run(*args, "--format", "plain").stdout.splitlines() == ["2 1", "4 3"]


def test_points_file_and_stdin(tmp_path) -> None:
    path = tmp_path / "points.csv"
    path.write_text("x,y\n1,2\n3,4\n", encoding="utf-8")
    from_file = run("grad", "x**2*y", "--points", str(path), "--format", "csv").stdout
    from_stdin = run("grad", "x**2*y", "--points", "-", "--format", "csv", stdin=path.read_text())
    assert from_file.splitlines() == ["x,y,value,d/dx,d/dy", "1,2,2,4,1", "3,4,36,24,9"]
    assert from_stdin.stdout == from_file


def test_points_file_in_chunks_gives_the_same_answers(tmp_path, monkeypatch) -> None:
    import gradcalc.points

    rows = "\n".join(f"{i / 7},{-i / 3}" for i in range(1, 41))
    path = tmp_path / "p.csv"
    path.write_text("x,y\n" + rows + "\n")
    whole = run("grad", "sin(x)*y", "--points", str(path), "--format", "json")
    monkeypatch.setattr(gradcalc.points, "CHUNK_ROWS", 7)
    chunked = run("grad", "sin(x)*y", "--points", str(path), "--format", "json")
    assert json.loads(whole.stdout) == json.loads(chunked.stdout)
    assert len(json.loads(chunked.stdout)) == 40


def test_wrt_unknown_name_lists_valid_ones() -> None:
    result = run("grad", "x*y", "--at", "x=1,y=2", "--wrt", "q")
    assert result.exit_code == ExitCode.USAGE
    assert "valid names: x, y" in result.output


@pytest.mark.parametrize(
    ("expr", "point", "fragment"),
    [
        ("log(x - 5)", "x=5", "log(0)"),
        ("log(x)", "x=-1", "x < 0"),
        ("sqrt(x)", "x=-4", "x < 0"),
        ("1/x", "x=0", "division by zero"),
        ("asin(x)", "x=2", "|x| > 1"),
        ("tan(x)", "x=pi/2", "cos(x) = 0"),
        ("abs(x)", "x=0", "corner"),
        ("Max(x, y)", "x=1,y=1", "tie"),
        ("sqrt(x)", "x=0", "infinite slope"),
        ("x**2", "x=1e200", "overflow"),
    ],
)
def test_undefined_points_exit_3_with_the_op_named(expr, point, fragment) -> None:
    result = run("grad", expr, "--at", point)
    assert result.exit_code == ExitCode.UNDEFINED, result.output
    assert fragment in result.stderr


def test_subgradient_gives_the_conventional_value() -> None:
    result = run("grad", "abs(x)", "--at", "x=0", "--subgradient", "--format", "json")
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["gradient"] == {"x": 0.0}
    assert any("subgradient" in w for w in out["warnings"])


def test_bad_points_are_marked_and_the_rest_printed() -> None:
    result = run("grad", "log(x)", "--at", "x=1", "--at", "x=-1", "--at", "x=2", "--format", "json")
    assert result.exit_code == ExitCode.UNDEFINED
    out = json.loads(result.stdout)
    assert [o["gradient"]["x"] for o in out] == [1.0, None, 0.5]
    assert out[1]["undefined"] and "log" in out[1]["undefined"]


def test_json_has_no_colour_codes_and_is_valid_with_nan() -> None:
    result = run("grad", "log(x)", "--at", "x=-1", "--format", "json")
    assert "\x1b[" not in result.stdout
    assert json.loads(result.stdout)["value"] is None


def test_no_tape_and_no_check() -> None:
    out = run_json("grad", "x*x", "--at", "x=2", "--no-tape", "--no-check")
    assert "tape" not in out and out["check"]["status"] == "off"


def test_digits() -> None:
    result = run("grad", "x/3", "--at", "x=1", "--format", "plain", "--digits", "4")
    assert result.stdout.strip() == "0.3333"


def test_usage_errors_exit_2() -> None:
    assert run("grad", "x", "--format", "yaml").exit_code == ExitCode.USAGE
    assert run("grad", "x", "--at", "x").exit_code == ExitCode.USAGE
    assert run("grad", "x", "--at", "x=1", "--at", "y=2").exit_code == ExitCode.USAGE
    assert run("grad", "x+", "--at", "x=1").exit_code == ExitCode.USAGE
