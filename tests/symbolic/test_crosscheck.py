"""symbolic.crosscheck.crosscheck: a disagreement between the tape and sympy is never one with float
rounding -- where the float evaluation of sympy's derivative parts from the tape, the
derivative is evaluated again to 40+ digits before the points count as disagreeing."""

from __future__ import annotations

import json
import math

import numpy as np

from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from gradcalc.symbolic.crosscheck.crosscheck import CheckInput, cross_check
from tests.cli.compact import per_point


def test_sympys_float_overflow_is_not_a_disagreement(cli, tmp_path) -> None:
    # sympy's d/dx log(1 + e^x) is e^x/(e^x + 1): inf/inf in floats at x = 800; the tape's
    # sigmoid(x) is right (1), and so is the true derivative 1/(1 + e^-x)
    points = tmp_path / "points.csv"
    points.write_text("x\n800\n1\n-800\n", encoding="utf-8")
    result = cli.invoke(
        ["grad", "softplus(x)", "--points", str(points), "--no-tape", "--format", "json"]
    )
    rows = per_point(json.loads(result.stdout))
    assert [row["check"]["status"] for row in rows] == ["agree"] * 3, result.output
    expected = [1.0, 1 / (1 + math.exp(-1)), 0.0]  # (e^-800 is below the smallest float)
    for row, value in zip(rows, expected):
        assert math.isclose(row["gradient"]["x"], value, rel_tol=1e-15)
    assert result.exit_code == 0


def test_a_wrong_tape_value_is_still_a_disagreement() -> None:
    graph = lower(parse_program("x^3"))
    x = np.linspace(0.5, 3.0, 40)  # more points than the exact path takes: lambdify
    tape = 3 * x**2
    tape[7] *= 1 + 1e-6  # a wrong "tape" value, far above rounding
    where = CheckInput({"x": x}, None, np.zeros(x.shape, dtype=bool))
    report = cross_check(graph, 0, {"x": tape}, where)
    assert report.status == "disagree"
    assert np.flatnonzero(report.mismatch).tolist() == [7]


def test_a_value_mpmath_cannot_hold_skips_the_check_with_a_note() -> None:
    # d/dx = tanh(exp(3^30)): mpmath's tanh shifts by 2^47 bits (MemoryError), both where
    # the exact value is computed (one point) and where a float mismatch is confirmed to
    # 40 digits (many points); either way the check is skipped, saying why, never a crash
    graph = lower(parse_program("tanh(exp(z^30))*x"))
    one = CheckInput(
        {"x": np.array(0.5), "z": np.array(3.0)}, [{"x": "0.5", "z": "3"}], np.zeros((), bool)
    )
    many = CheckInput(
        {"x": np.full(20, 0.5), "z": np.full(20, 3.0)}, None, np.zeros(20, dtype=bool)
    )
    for where, tape in ((one, np.array(0.9)), (many, np.full(20, 0.9))):
        report = cross_check(graph, 0, {"x": tape}, where)
        assert report.status == "skipped", report
        assert "out of reach (MemoryError)" in report.note


def test_a_derivative_sympy_writes_as_0_over_0_is_checked_against_its_limit(cli, tmp_path) -> None:
    # sympy's d/dx (x - 1/2)^e is e*(x - 1/2)^e/(x - 1/2): 0/0 at x = 1/2, where the
    # derivative e*(x - 1/2)^(e - 1) is 0 (from the right; the left is not real). The tape's
    # 0 is right: the check compares it with the limit, never calls it a failure
    at_one = cli.invoke(["grad", "(x-0.5)^e", "--at", "x=0.5", "--format", "json"])
    assert at_one.exit_code == 0, at_one.output
    row = json.loads(at_one.stdout)
    assert row["check"]["status"] == "agree"
    assert row["gradient"] == {"x": 0.0}
    assert any("0/0" in w and "limit" in w and "one side" in w for w in row["warnings"])
    table = cli.invoke(["grad", "(x-0.5)^e", "--at", "x=0.5", "--no-tape"])
    assert "limit 0" in table.stdout and "✓" in table.stdout, table.output
    # many points (sympy's derivative in floats, confirmed at high precision): the same
    points = tmp_path / "points.csv"
    points.write_text("x\n0.5\n1\n0.75\n", encoding="utf-8")
    many = cli.invoke(["grad", "(x-0.5)^e", "--points", str(points), "--format", "json"])
    assert many.exit_code == 0, many.output
    rows = per_point(json.loads(many.stdout))
    expected = [0.0, math.e * 0.5 ** (math.e - 1), math.e * 0.25 ** (math.e - 1)]
    for row, value in zip(rows, expected, strict=True):
        assert row["check"]["status"] == "agree"
        assert math.isclose(row["gradient"]["x"], value, rel_tol=1e-14)
    # several variables: d/dx x^e*y is e*x^e*y/x, 0/0 at x = 0
    two = cli.invoke(["grad", "x^e*y", "--at", "x=0,y=2", "--format", "plain"])
    assert (two.exit_code, two.stdout.split()) == (0, ["0", "0"]), two.output


def test_a_wrong_tape_value_at_a_0_over_0_point_is_still_a_disagreement() -> None:
    graph = lower(parse_program("(x-0.5)^e"))
    exact = CheckInput({"x": np.array(0.5)}, [{"x": "0.5"}], np.zeros((), dtype=bool))
    report = cross_check(graph, 0, {"x": np.array(1e-6)}, exact)
    assert report.status == "disagree" and "limit" in report.note
    x = np.linspace(0.5, 3.0, 40)  # lambdify, and the 0/0 point confirmed at high precision
    tape = math.e * (x - 0.5) ** (math.e - 1)
    tape[0] = 1e-6
    where = CheckInput({"x": x}, None, np.zeros(x.shape, dtype=bool))
    report = cross_check(graph, 0, {"x": tape}, where)
    assert report.status == "disagree"
    assert np.flatnonzero(report.mismatch).tolist() == [0]
