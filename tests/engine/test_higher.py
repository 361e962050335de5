"""Hessians, Jacobians, N-th and directional derivatives: against textbook answers and sympy."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings

from gradcalc import hessian, jacobian
from gradcalc.core.errors import ExitCode
from gradcalc.engine.evaluate.points import parse_at
from gradcalc.engine.run.api import Options, compile_expression, derivatives_at
from gradcalc.symbolic.crosscheck.crosscheck import to_sympy
from tests.cli.compact import answers
from tests.test_properties import EXPRESSIONS, POINT, X, Y


def cli_json(cli, *args: str):
    result = cli(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, POINT, POINT)
def test_hessian_of_random_expressions_equals_sympys(expression, x0, y0) -> None:
    text, expr = expression
    subs = {X: sp.Rational(str(x0)), Y: sp.Rational(str(y0))}
    expected = [[float(sp.diff(expr, a, b).evalf(30, subs=subs)) for b in (X, Y)] for a in (X, Y)]
    result = hessian(text, at={"x": x0, "y": y0}, wrt=["x", "y"])
    np.testing.assert_allclose(result.matrix, expected, rtol=1e-8, atol=1e-10, err_msg=text)
    assert result.check.status in ("agree", "skipped")


@pytest.mark.parametrize(
    ("expr", "point", "matrix", "verdict"),
    [
        ("x^2 + y^2", "x=0,y=0", [[2, 0], [0, 2]], "local minimum"),
        ("x^2 - y^2", "x=0,y=0", [[2, 0], [0, -2]], "saddle point"),
        ("-x^2 - 3y^2 + x*y", "x=0,y=0", [[-2, 1], [1, -6]], "local maximum"),
        # Rosenbrock: f_xx = 2 - 400(y - x^2) + 800x^2, f_xy = -400x, f_yy = 200
        ("(1-x)^2 + 100(y-x^2)^2", "x=1,y=1", [[802, -400], [-400, 200]], "local minimum"),
        ("x^4 + y^2", "x=0,y=0", [[0, 0], [0, 2]], "inconclusive"),  # (a minimum, unproven)
        ("x^2 + y^2", "x=1,y=0", [[2, 0], [0, 2]], "not a critical point"),
    ],
)
def test_textbook_second_derivative_tests(cli, expr, point, matrix, verdict) -> None:
    out = cli_json(cli, "hessian", expr, "--at", point)
    assert out["hessian"] == matrix
    assert out["classification"] == out["second_derivative_test"] == verdict
    assert out["variables"] == ["x", "y"]
    assert out["critical_point"] == (verdict != "not a critical point")
    assert out["check"]["agree"] is True
    assert sorted(out["eigenvalues"]) == pytest.approx(sorted(np.linalg.eigvalsh(matrix)))


def test_hessian_table_reads_like_the_test(cli) -> None:
    result = cli("hessian", "x^2 - y^2", "--at", "x=0,y=0")
    assert result.exit_code == 0
    for fragment in ("Hessian of f", "eigenvalues: -2, 2", "saddle point", "critical point", "✓"):
        assert fragment in result.stdout


def test_hessian_at_several_points_csv_and_plain(cli) -> None:
    args = ("hessian", "x^3*y", "--at", "x=1,y=2", "--at", "x=-1,y=0")
    lines = cli(*args, "--format", "csv").stdout.splitlines()
    # f_xx = 6xy, f_xy = 3x^2, f_yy = 0
    assert lines == [
        "x,y,value,d2/dxdx,d2/dxdy,d2/dydx,d2/dydy,classification",
        "1,2,2,12,3,3,0,not a critical point",
        "-1,0,0,0,3,3,0,not a critical point",
    ]
    assert cli(*args, "--format", "plain").stdout.splitlines() == ["12 3 3 0", "0 3 3 0"]


def test_grad_order_2_with_several_sources_is_the_hessian(cli) -> None:
    assert cli_json(cli, "grad", "x^2*y", "--at", "x=1,y=3", "--order", "2")["hessian"] == [
        [6, 2],
        [2, 0],
    ]


@pytest.mark.parametrize(("order", "expected"), [(1, 75), (2, 30), (3, 6), (4, 0)])
def test_nth_derivative_of_x_cubed(cli, order: int, expected: float) -> None:
    result = cli("grad", "x^3", "--at", "x=5", "--order", str(order), "--format", "plain")
    assert result.stdout == f"{expected}\n"


def test_nth_derivative_json_and_table(cli) -> None:
    out = cli_json(cli, "grad", "exp(2x)", "--at", "x=0.5", "--order", "3")
    assert out["order"] == 3
    assert out["derivatives"] == pytest.approx([2 * math.e, 4 * math.e, 8 * math.e], rel=1e-14)
    assert out["derivative"] == out["derivatives"][-1]
    assert out["check"]["agree"] is True
    table = cli("grad", "sin(x)", "--at", "x=1", "--order", "4").stdout
    assert "d⁴f/dx⁴" in table and "sin(x)" in table


def test_fourth_derivative_of_sine_is_sine_at_many_points(cli) -> None:
    points = [f"x={v}" for v in (0.1, 0.7, 2.5)]
    args = ["grad", "sin(x)", "--order", "4", "--format", "plain"]
    for p in points:
        args += ["--at", p]
    values = [float(v) for v in cli(*args).stdout.split()]
    assert values == pytest.approx([math.sin(0.1), math.sin(0.7), math.sin(2.5)], rel=1e-14)


def test_directional_derivative(cli) -> None:
    # grad(x^2 + y^2) at (1, 2) = (2, 4); along (1, 2)/sqrt(5): 10/sqrt(5)
    out = cli_json(cli, "grad", "x^2 + y^2", "--at", "x=1,y=2", "--direction", "1,2")
    assert out["directional_derivative"] == pytest.approx(10 / math.sqrt(5), rel=1e-15)
    assert out["direction"] == pytest.approx({"x": 1 / math.sqrt(5), "y": 2 / math.sqrt(5)})
    assert out["check"]["agree"] is True
    args = ("grad", "x^2 + y^2", "--at", "x=1,y=2", "--direction", "1,2", "--no-normalize")
    assert cli(*args, "--format", "plain").stdout == "10\n"


def test_jacobian_of_polar_to_cartesian_has_determinant_r(cli) -> None:
    out = cli_json(cli, "jacobian", "r*cos(t), r*sin(t)", "--at", "r=2,t=0.5")
    c, s = math.cos(0.5), math.sin(0.5)
    assert out["targets"] == ["f1", "f2"] and out["variables"] == ["r", "t"]
    np.testing.assert_allclose(out["jacobian"], [[c, -2 * s], [s, 2 * c]], rtol=1e-15)
    assert out["determinant"] == pytest.approx(2.0, rel=1e-15)
    assert out["check"]["agree"] is True


def test_jacobian_of_a_program_with_of_and_many_points(cli) -> None:
    program = "u = x*y; v = x + y^2"
    result = jacobian(
        program, at={"x": np.array([1.0, 2.0]), "y": np.array([3.0, 4.0])}, of=["u", "v"]
    )
    # d(u, v)/d(x, y) = [[y, x], [1, 2y]]: det = 2y^2 - x
    np.testing.assert_array_equal(result.determinant, [17.0, 30.0])
    lines = cli("jacobian", program, "--of", "u,v", "--at", "x=1,y=3", "--format", "csv").stdout
    assert lines.splitlines()[1] == "1,3,3,3,1,10,1,6,17"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("grad", "x*y", "--at", "x=1,y=2", "--order", "3"), "takes one source"),
        (("hessian", "y = x^2; z = y^2", "--at", "x=1", "--wrt", "y"), "with respect to variables"),
        (("hessian", "x, x^2", "--at", "x=1"), "takes one target"),
        (("grad", "x*y", "--at", "x=1,y=2", "--direction", "1"), "1 components for 2 variables"),
        (("grad", "x*y", "--at", "x=1,y=2", "--direction", "0,0"), "non-zero"),
        (("grad", "x*y", "--at", "x=1,y=2", "--direction", "a,1"), "--direction"),
        (("grad", "x", "--at", "x=1", "--direction", "1", "--order", "2"), "do not go together"),
    ],
)
def test_usage_errors(cli, args, fragment) -> None:
    result = cli(*args)
    assert result.exit_code == ExitCode.USAGE, result.output
    assert fragment in result.stderr


@pytest.mark.parametrize(
    ("command", "expr", "point"),
    [
        ("hessian", "abs(x) + y^2", "x=0,y=1"),
        ("hessian", "sqrt(x)*y", "x=0,y=1"),
        ("jacobian", "log(x), x", "x=0"),
    ],
)
def test_undefined_points_exit_3(cli, command, expr, point) -> None:
    result = cli(command, expr, "--at", point)
    assert result.exit_code == ExitCode.UNDEFINED, result.output


@pytest.mark.parametrize(
    ("expr", "op", "truth"),
    [
        ("sqrt(x)*y^3", "sqrt(x)", sp.sqrt(X) * Y**3),
        ("y^4 - log(x)*y^2", "ln(x)", Y**4 - sp.log(X) * Y**2),
        ("acosh(x)*sin(y)", "acosh(x)", sp.acosh(X) * sp.sin(Y)),
    ],
)
@pytest.mark.parametrize("order", [2, 3, 4])
def test_f_undefined_by_a_variable_not_differentiated_by_is_undefined_at_every_order(
    cli, expr, op, truth, order
) -> None:
    # f is undefined at x = -1 whatever it is differentiated by: d^n f/dy^n there was printed
    # as a number (0, exit 1, "float64 rounded past a singularity") because the nested tapes
    # watched y alone and never recorded the op outside its domain (fuzz seed 604)
    args = ["--at", "x=-1,y=0.7", "--at", "x=3,y=0.7", "--wrt", "y"]
    for command in (["grad", expr, "--order", str(order)], ["hessian", expr]):
        result = cli(*command, *args, "--format", "json")
        assert result.exit_code == ExitCode.UNDEFINED, result.output
        assert f"{op} is undefined at x=-1, y=0.7" in result.stderr
        if command[0] == "grad":  # the point where f is defined keeps its right answer
            expected = sp.diff(truth, Y, order).evalf(30, subs={X: 3, Y: sp.Rational(7, 10)})
            good = answers(result.stdout)[1]["derivatives"][-1]
            assert math.isclose(good, float(expected), rel_tol=1e-12, abs_tol=1e-12), good
    run = hessian(expr, at={"x": [-1.0, 3.0], "y": [0.7, 0.7]}, wrt=["y"], strict=False)
    assert run.undefined.tolist() == [True, False]


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_a_kink_no_variable_differentiated_by_reaches_stops_no_order(cli, order) -> None:
    # floor(x) has a jump at x = 1 and abs(x - 1) a corner, but d^n f/dy^n never uses their
    # slopes: it is a number (exit 0), sympy's derivative at the exact point. By x it stops
    # (exit 3), as it should
    expr = "floor(x)*y^3 + abs(x - 1)*exp(y) + exp(x*y)"
    truth = sp.floor(X) * Y**3 + sp.Abs(X - 1) * sp.exp(Y) + sp.exp(X * Y)
    at = ["--at", "x=1,y=0.5", "--at", "x=2.5,y=-1"]
    result = cli("grad", expr, *at, "--wrt", "y", "--order", str(order), "--format", "json")
    assert result.exit_code == 0, result.output
    rows = answers(result.stdout)
    for row, (x, y) in zip(rows, [(1, sp.Rational(1, 2)), (sp.Rational(5, 2), -1)], strict=True):
        expected = sp.diff(truth, Y, order).evalf(30, subs={X: x, Y: y})
        got = row["derivatives"][-1] if order > 1 else row["gradient"]["y"]
        assert math.isclose(got, float(expected), rel_tol=1e-12), (order, row)
    by_x = cli("grad", expr, *at, "--wrt", "x", "--order", str(order), "--format", "json")
    assert by_x.exit_code == ExitCode.UNDEFINED, by_x.output
    assert "not differentiable at x=1, y=0.5" in by_x.stderr
    if order == 2:
        run = hessian(expr, at={"x": [1.0, 2.5], "y": [0.5, -1.0]}, wrt=["y"], strict=False)
        assert run.undefined.tolist() == [False, False]
        for k, (x, y) in enumerate([(1, sp.Rational(1, 2)), (sp.Rational(5, 2), -1)]):
            expected = sp.diff(truth, Y, 2).evalf(30, subs={X: x, Y: y})
            assert math.isclose(float(np.ravel(run.matrix)[k]), float(expected), rel_tol=1e-12)


SMOOTH = [  # smooth at the point, where powers x^2 -> x^1 -> x^0 -> 0 x^-1 once made NaN
    ("atan(x)", "0"),
    ("atan(x)", "1"),
    ("atan(x)", "-1e-8"),
    ("exp(-x^2)", "0"),
    ("1/(1 + x^2)", "0"),
    ("sqrt(1 + x^2)", "0"),
    ("log(1 + x^2)", "0"),
    ("x^5", "0"),
    ("x^2*cos(x)", "0"),
    ("asinh(x)", "0"),
    ("erf(x)", "0"),
    ("cosh(x^3)", "0"),
    ("x*atan(x)", "0"),
    ("tanh(x)", "0"),
]


@pytest.mark.parametrize(("expression", "at"), SMOOTH)
def test_orders_one_to_six_of_smooth_functions_at_awkward_points(expression, at) -> None:
    graph = compile_expression(expression)
    f = to_sympy(graph)[graph.targets[0]]
    x = sp.Symbol("x", real=True)
    for order in range(1, 7):
        result = derivatives_at(graph, parse_at([f"x={at}"]), "x", order, Options(check=False))
        truth = float(sp.diff(f, x, order).subs(x, sp.Rational(at)).evalf(30))
        got = float(np.asarray(result.derivative).reshape(-1)[0])
        assert got == pytest.approx(truth, rel=1e-7, abs=1e-9), (expression, at, order)


def test_the_issues_atan_example_through_the_command_line(cli) -> None:
    result = cli("grad", "atan(x)", "--at", "x=0", "--order", "5", "--format", "plain")
    assert result.exit_code == ExitCode.OK, result.output
    assert float(result.stdout) == 24.0  # d^5/dx^5 atan(x) at 0 = 4! = 24
