"""symbolic.crosscheck: a disagreement between the tape and sympy is never one with float
rounding -- where the float evaluation of sympy's derivative parts from the tape, the
derivative is evaluated again to 40+ digits before the points count as disagreeing."""

from __future__ import annotations

import json
import math

import numpy as np

from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from gradcalc.symbolic.crosscheck import CheckInput, cross_check


def test_sympys_float_overflow_is_not_a_disagreement(cli, tmp_path) -> None:
    # sympy's d/dx log(1 + e^x) is e^x/(e^x + 1): inf/inf in floats at x = 800; the tape's
    # sigmoid(x) is right (1), and so is the true derivative 1/(1 + e^-x)
    points = tmp_path / "points.csv"
    points.write_text("x\n800\n1\n-800\n", encoding="utf-8")
    result = cli.invoke(
        ["grad", "softplus(x)", "--points", str(points), "--no-tape", "--format", "json"]
    )
    rows = json.loads(result.stdout)
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
