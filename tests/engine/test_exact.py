"""Exact where exact is known: the symbolic check's exact values replace floating-point noise.

Truth is sympy's exact value at the exactly given point, and Python's nearest float to it.
"""

from __future__ import annotations

import json
import re

import pytest
import sympy as sp


def run(cli, *args: str):
    result = cli.invoke(list(args), terminal_width=100)
    return result


def cli_json(cli, *args: str):
    result = run(cli, *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_an_exact_zero_is_shown_as_zero_and_is_not_vanishing(cli) -> None:
    assert float(sp.cos(sp.pi / 2)) != 0.0 or sp.cos(sp.pi / 2) == 0  # sympy: exactly 0
    out = cli_json(cli, "grad", "sin(x)", "--at", "x=pi/2", "--no-tape")
    assert out["gradient"]["x"] == pytest.approx(6.123233995736766e-17)  # the tape's float, kept
    assert out["exact"] == {"x": "0"}
    assert out["diagnostics"] == {"healthy": True, "findings": []}
    assert run(cli, "grad", "sin(x)", "--at", "x=pi/2", "--format", "plain").stdout == "0\n"
    csv = run(cli, "grad", "sin(x)", "--at", "x=pi/2", "--at", "x=pi/3", "--format", "csv").stdout
    assert csv.splitlines()[1:] == [
        "1.5707963267948966,1,0",
        "1.0471975511965976,0.8660254037844386,0.5",
    ]
    table = run(cli, "grad", "sin(x)", "--at", "x=pi/2").stdout
    assert "vanishing" not in table and "Not healthy" not in table


def test_the_tape_is_kept_where_the_point_is_not_exact(cli) -> None:
    # 1.5707963267948966 is a decimal, not pi/2: cos of it is truly 6.1e-17, and stays so
    out = cli_json(cli, "grad", "sin(x)", "--at", "x=1.5707963267948966", "--no-tape")
    assert out["exact"].get("x") != "0"
    assert float(out["gradient"]["x"]) == pytest.approx(6.123233995736766e-17)


def test_jacobian_entries_are_the_nearest_floats_of_the_exact_values(cli) -> None:
    args = ("jacobian", "r*cos(t), r*sin(t)", "--at", "r=1,t=pi/3")
    table = run(cli, *args).stdout
    assert "0.5000000000000001" not in table
    assert re.search(r"│ ∂f1 │ +0\.5 │", table), table
    csv = run(cli, *args, "--format", "csv").stdout.splitlines()[1].split(",")
    assert [float(v) for v in csv[3:5]] == [float(sp.cos(sp.pi / 3)), -float(sp.sin(sp.pi / 3))]
    assert csv[-1] == "1"  # the determinant, r = 1
    out = cli_json(cli, *args)
    assert out["jacobian"][0][0] == pytest.approx(0.5)  # the tape's floats
    assert out["exact_jacobian"] == [["1/2", "-sqrt(3)/2"], ["sqrt(3)/2", "1/2"]]
    assert out["exact_determinant"] == "1" and out["determinant"] == 1.0


def test_jacobian_exact_shows_the_exact_matrix_and_determinant(cli) -> None:
    args = ("jacobian", "r*cos(t), r*sin(t)", "--wrt", "r,t", "--at", "r=2,t=pi/3", "--exact")
    table = run(cli, *args).stdout
    for text in ("1/2", "-sqrt(3)", "sqrt(3)/2", "determinant: 2", "symbolically: r"):
        assert text in table, table
    out = cli_json(cli, *args)
    assert out["symbolic_determinant"] == "r"
    assert out["exact_determinant"] == "2"


def test_hessian_exact_shows_exact_entries(cli) -> None:
    # f = y sin(x): f_xx = -y sin(x), f_xy = cos(x), f_yy = 0; at (pi/3, 2)
    args = ("hessian", "sin(x)*y", "--at", "x=pi/3,y=2")
    out = cli_json(cli, *args)
    assert out["exact_hessian"] == [["-sqrt(3)", "1/2"], ["1/2", "0"]]
    assert out["hessian"][0][1] == pytest.approx(0.5)
    table = run(cli, *args, "--exact").stdout
    assert "-sqrt(3)" in table and "1/2" in table
    csv = run(cli, *args, "--format", "csv").stdout.splitlines()[1].split(",")
    assert [float(v) for v in csv[3:7]] == [-float(sp.sqrt(3)), 0.5, 0.5, 0.0]


def test_higher_orders_show_exact_values(cli) -> None:
    csv = run(cli, "grad", "sin(x)", "--order", "3", "--at", "x=pi/2", "--format", "csv").stdout
    assert csv.splitlines()[1] == "1.5707963267948966,1,0,-1,0"
    out = cli_json(cli, "grad", "sin(x)", "--order", "3", "--at", "x=pi/2")
    assert out["exact_derivatives"] == ["0", "-1", "0"]
    assert out["diagnostics"]["healthy"] is True


def test_the_hessians_gradient_is_exact_too(cli) -> None:
    # f = y sin(x) at (pi, 1): the gradient (y cos(x), sin(x)) is (-1, 0) exactly
    out = cli_json(cli, "hessian", "sin(x)*y", "--at", "x=pi,y=1")
    assert out["exact"] == {"x": "-1", "y": "0"}
    assert out["diagnostics"]["healthy"] is True
    assert "gradient: (-1, 0)" in run(cli, "hessian", "sin(x)*y", "--at", "x=pi,y=1").stdout


VALUES = [  # (expression, point, sympy's f at the point, whether the number says it all)
    ("x^2*sin(x)", "x=pi/3", lambda x: x**2 * sp.sin(x), False),
    ("exp(50*x)", "x=1", lambda x: sp.exp(50 * x), False),
    ("log(x)", "x=2", sp.log, False),
    ("x^3", "x=1/3", lambda x: x**3, False),  # 1/27 is no float
    ("sqrt(x)", "x=2/9", sp.sqrt, False),
    ("x^2", "x=1/2", lambda x: x**2, True),  # 0.25
    ("3*x^2 + 2*x", "x=-7", lambda x: 3 * x**2 + 2 * x, True),  # 133
]


@pytest.mark.parametrize(("expression", "point", "f", "plain"), VALUES)
def test_the_value_is_exact_where_the_point_is(cli, expression, point, f, plain) -> None:
    """The value's exact text is sympy's f at the exact point: in JSON (``exact_value``),
    beside the number in the table's heading unless the number says it already, and as the
    tangent line's constant term."""
    x = sp.nsimplify(point.split("=")[1], [sp.pi])
    truth = f(x)
    out = cli_json(cli, "grad", expression, "--at", point, "--no-tape")
    assert sp.simplify(sp.sympify(out["exact_value"]) - truth) == 0  # (sympy's own text back)
    assert out["value"] == pytest.approx(float(truth), rel=1e-15)
    lines = run(cli, "grad", expression, "--at", point, "--no-tape").stdout.splitlines()
    assert lines[1].endswith(f"(exact: {out['exact_value']})") != plain, lines[1]
    tangent = next(line for line in lines if line.startswith("tangent line: y = "))
    constant = tangent.removeprefix("tangent line: y = ").split(" ")[0]
    assert "." not in constant and "e+" not in constant, tangent  # exact, not the tape's float


def test_the_value_is_not_claimed_exact_without_an_exact_point(cli) -> None:
    """A decimal point (1.0471975511965976, not pi/3) or --no-check: no exact value."""
    decimal = cli_json(cli, "grad", "x^2", "--at", "x=0.1", "--no-tape")
    assert decimal["exact_value"] == "1/100"  # 0.1 as typed is exactly 1/10
    unchecked = cli_json(cli, "grad", "x^2", "--at", "x=pi/3", "--no-check", "--no-tape")
    assert unchecked["exact_value"] is None
    many = cli_json(cli, "grad", "x^2", "--at", "x=pi/3", "--at", "x=0.5")
    assert many["exact_value"] == ["pi^2/9", "1/4"]
