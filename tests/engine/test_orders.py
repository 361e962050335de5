"""Every order over many points, with parts of the expression independent of --wrt.

Each command and the Python API are compared with sympy's derivatives at the same points.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from gradcalc.engine.evaluate.points import parse_at
from gradcalc.engine.run.api import compile_expression, derivatives_at, hessian
from tests.cli.compact import answers

X, Y, Z = sp.symbols("x y z")
# (gradcalc text, the same function built in sympy): some terms do not depend on x
CASES = [
    ("x**2 + y**2", X**2 + Y**2),
    ("x^3*z + y^2 + sin(y)", X**3 * Z + Y**2 + sp.sin(Y)),
    ("exp(2x)*y + log(z)", sp.exp(2 * X) * Y + sp.log(Z)),
    ("sin(x*y) + z^4", sp.sin(X * Y) + Z**4),
]
POINTS = [{"x": 1, "y": 1, "z": 2}, {"x": 2, "y": -1, "z": 3}, {"x": -0.5, "y": 2, "z": 0.5}]
AT = [f"x={p['x']},y={p['y']},z={p['z']}" for p in POINTS]


def truth(expr: sp.Expr, *wrt: sp.Symbol) -> list[float]:
    """sympy's derivative (``wrt`` in order) at each of POINTS, as floats."""
    derived = sp.diff(expr, *wrt)
    return [
        float(derived.evalf(30, subs={X: p["x"], Y: p["y"], Z: p["z"]}))  # exact inputs
        for p in POINTS
    ]


def at_args() -> list[str]:
    return [arg for spec in AT for arg in ("--at", spec)]


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize(("text", "expr"), CASES)
def test_grad_order_over_several_points_matches_sympy(cli, text, expr, order) -> None:
    result = cli("grad", text, "--wrt", "x", "--order", str(order), *at_args(), "--format", "json")
    assert result.exit_code == 0, result.output
    out = answers(result.stdout)
    assert len(out) == len(POINTS)
    for k in range(1, order + 1):
        got = [row["derivatives"][k - 1] if order > 1 else row["gradient"]["x"] for row in out]
        np.testing.assert_allclose(got, truth(expr, *[X] * k), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize(("text", "expr"), CASES)
def test_python_api_order_over_several_points_matches_sympy(text, expr, order) -> None:
    graph = compile_expression(text, ["x", "y", "z"])
    result = derivatives_at(graph, parse_at(AT), "x", order)
    for k in range(1, order + 1):
        np.testing.assert_allclose(
            result.orders[k - 1], truth(expr, *[X] * k), rtol=1e-9, atol=1e-9
        )
    assert result.check.status == "agree"


@pytest.mark.parametrize(("text", "expr"), CASES)
def test_hessian_over_some_variables_at_several_points(cli, text, expr) -> None:
    result = hessian(text, at=AT, wrt=["x", "z"])
    for i, a in enumerate((X, Z)):
        for j, b in enumerate((X, Z)):
            np.testing.assert_allclose(result.matrix[i, j], truth(expr, a, b), atol=1e-9)
    assert result.check.status == "agree"
    cli_result = cli("hessian", text, "--wrt", "x,z", *at_args(), "--format", "csv")
    assert cli_result.exit_code == 0, cli_result.output
    rows = cli_result.stdout.splitlines()[1:]
    got = [[float(cell) for cell in row.split(",")[4:8]] for row in rows]
    expected = [truth(expr, a, b) for a in (X, Z) for b in (X, Z)]
    np.testing.assert_allclose(np.array(got).T, expected, rtol=1e-9, atol=1e-9)


def test_jacobian_with_a_target_independent_of_a_variable_at_several_points(cli) -> None:
    exprs = [X**3 * Z + Y**2, sp.sin(Y)]
    result = cli("jacobian", "x^3*z + y^2, sin(y)", "--wrt", "x,z", *at_args(), "--format", "json")
    assert result.exit_code == 0, result.output
    out = answers(result.stdout)
    for k, row in enumerate(out):
        expected = [[truth(e, v)[k] for v in (X, Z)] for e in exprs]
        np.testing.assert_allclose(row["jacobian"], expected, atol=1e-9)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_check_at_every_order_with_an_independent_term(cli, order) -> None:
    text, expr = CASES[1]
    right = sp.diff(expr, *[X] * order)
    answer = str(right).replace("**", "^")
    result = cli("check", text, "--wrt", "x", "--order", str(order), "--answer", answer)
    assert result.exit_code == 0, result.output
    wrong = cli("check", text, "--wrt", "x", "--order", str(order), "--answer", f"{answer} + 1")
    assert wrong.exit_code == 1, wrong.output


def test_the_issues_crashes_are_answered(cli) -> None:
    result = cli("check", "x**2 + y**2", "--answer", "2", "--wrt", "x", "--order", "2")
    assert result.exit_code == 0, result.output
    assert "equivalent" in result.stdout
    result = cli(
        "grad", "x**2 + y**2", "--wrt", "x", "--order", "2", "--at", "x=1,y=1", "--at", "x=2,y=2"
    )
    assert result.exit_code == 0, result.output
    assert [line.split()[-2] for line in result.stdout.splitlines() if "│" in line] == ["2", "2"]


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_jobs_answer_every_order_at_several_points(order) -> None:
    import io

    from gradcalc.cli.jobs import run_jobs

    lines = [
        json.dumps({"expr": text, "at": point, "wrt": ["x"], "order": order})
        for text, _ in CASES
        for point in POINTS
    ]
    out = io.StringIO()
    assert run_jobs(lines, out) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    for (_, expr), chunk in zip(CASES, [answers[i : i + 3] for i in range(0, 12, 3)]):
        for k in range(1, order + 1):
            got = [a["derivatives"][k - 1] if order > 1 else a["gradient"]["x"] for a in chunk]
            np.testing.assert_allclose(got, truth(expr, *[X] * k), rtol=1e-9, atol=1e-9)
