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
