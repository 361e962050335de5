"""symbolic.crosscheck.crosscheck: a disagreement between the tape and sympy is never one with float
rounding -- where the float evaluation of sympy's derivative parts from the tape, the
derivative is evaluated again to 40+ digits before the points count as disagreeing."""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest

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


# -- the tolerance rule: relative to sympy's exact (or 50-digit) value, never an absolute
# slack that lets a relatively large error pass. Truth: mpmath at 50 digits.

TESTERS_CANCELLATIONS = [  # (expression, point, d/dx at 50 digits by mpmath)
    (
        "sqrt(x+1)-sqrt(x)",
        "1e15",
        lambda x: 1 / (2 * mpmath.sqrt(x + 1)) - 1 / (2 * mpmath.sqrt(x)),
    ),
    ("sqrt(x^2+1)-x", "1e8", lambda x: x / mpmath.sqrt(x**2 + 1) - 1),
    ("sqrt(x^2+1)-x", "1e5", lambda x: x / mpmath.sqrt(x**2 + 1) - 1),
    ("log(x+1)-log(x)", "1e12", lambda x: 1 / (x + 1) - 1 / x),
]


@pytest.mark.parametrize(("expression", "point", "truth"), TESTERS_CANCELLATIONS)
def test_a_tape_lost_to_cancellation_fails_the_check_and_says_why(
    cli, expression: str, point: str, truth
) -> None:
    result = cli("grad", expression, "--at", f"x={point}", "--format", "json", "--no-tape")
    assert result.exit_code == 1, result.output
    row = json.loads(result.stdout)
    assert row["check"]["status"] == "disagree" and row["check"]["agree"] is False
    with mpmath.workdps(50):
        exact = float(truth(mpmath.mpf(point)))
    tape = row["gradient"]["x"]
    assert abs(tape - exact) > 1e-7 * abs(exact)  # (the tape really is off: independently)
    (words,) = [w for w in row["warnings"] if "float64 lost" in w]
    assert "the tape and sympy disagree: ∂f/∂x" in words and "cancellation" in words
    assert repr(exact).replace("e-0", "e-") in words or f"{exact:.15g}" in words, words


def _cancelling_cases(seed: int, count: int):
    """Seeded cases where float64 cancels: a sum of a cancelling difference of x (scaled by
    a coefficient up to 10^9) and terms in y, independent of x; with mpmath's d/dx."""
    rng = np.random.default_rng(seed)
    forms = [
        (
            "sqrt(x+{a})-sqrt(x)",
            lambda x, a: 1 / (2 * mpmath.sqrt(x + a)) - 1 / (2 * mpmath.sqrt(x)),
        ),
        ("log(x+{a})-log(x)", lambda x, a: 1 / (x + a) - 1 / x),
        ("sqrt(x^2+{a})-x", lambda x, a: x / mpmath.sqrt(x**2 + a) - 1),
    ]
    for _ in range(count):
        text, derivative = forms[int(rng.integers(len(forms)))]
        a, c = int(rng.integers(1, 10)), int(rng.integers(1, 10**9))
        x = int(rng.integers(1, 10)) * 10 ** int(rng.integers(2, 16))
        y = int(rng.integers(-(10**6), 10**6))
        expression = f"{c}*({text.format(a=a)}) + {int(rng.integers(1, 10**9))}*y^2"
        with mpmath.workdps(50):
            exact = float(c * derivative(mpmath.mpf(x), a))
        yield expression, {"x": str(x), "y": str(y)}, exact


def test_the_verdict_is_the_independent_one_on_generated_cancellations() -> None:
    # at each generated point the check disagrees exactly where the tape is more than rtol
    # off mpmath's 50-digit derivative (and agrees elsewhere: both verdicts occur)
    from gradcalc.engine.run.api import grad

    seen = set()
    for expression, point, exact in _cancelling_cases(seed=7, count=10):
        result = grad(expression, at=[",".join(f"{k}={v}" for k, v in point.items())])
        tape = float(result.gradient["x"])
        off = abs(tape - exact) > 1e-7 * abs(exact)
        assert result.check.status == ("disagree" if off else "agree"), (expression, point)
        seen.add(off)
    assert seen == {True, False}


@pytest.mark.parametrize("point", ["1e-10", "1e-6"])
def test_an_exact_value_too_large_to_build_is_checked_at_50_digits(cli, point: str) -> None:
    # d/dx (1+x)^(1/x) at 1e-10: the exact value holds (1 + 10^-10)^(10^10); the check
    # evaluates it to 50 digits instead of giving up, and the tape's -2250 fails
    result = cli("grad", "(1+x)^(1/x)", "--at", f"x={point}", "--format", "plain")
    assert result.exit_code == 1, result.output
    assert "skipped" not in result.stderr and "high-precision value" in result.stderr
    with mpmath.workdps(50):
        exact = mpmath.diff(lambda t: (1 + t) ** (1 / t), mpmath.mpf(point))
    assert f"{float(exact)!r}"[:12] in result.stderr


def test_generated_large_exact_values_get_the_independent_verdict() -> None:
    from gradcalc.engine.run.api import grad

    rng = np.random.default_rng(11)
    for _ in range(6):
        a, k = int(rng.integers(1, 10)), int(rng.integers(4, 12))
        x = f"{int(rng.integers(1, 10))}e-{k}"
        result = grad(f"(1+{a}*x)^(1/x)", at=[f"x={x}"])
        with mpmath.workdps(50):
            exact = float(mpmath.diff(lambda t, a=a: (1 + a * t) ** (1 / t), mpmath.mpf(x)))
        off = abs(float(result.gradient["x"]) - exact) > 1e-7 * abs(exact)
        assert result.check.status == ("disagree" if off else "agree"), (a, x)


def test_a_small_wrong_value_is_no_longer_hidden_by_an_absolute_tolerance() -> None:
    # many points (sympy's derivative in floats): 2e-13*x off by half at one point was
    # within the old absolute 1e-12; confirmed at high precision, it is a disagreement
    graph = lower(parse_program("1e-13*x^2"))
    x = np.linspace(0.5, 3.0, 40)
    tape = 2e-13 * x
    tape[5] *= 1.5
    report = cross_check(graph, 0, {"x": tape}, CheckInput({"x": x}, None, np.zeros(40, bool)))
    assert report.status == "disagree"
    assert np.flatnonzero(report.mismatch).tolist() == [5]


def test_a_point_float64_rounds_agrees_with_the_derivative_at_its_float() -> None:
    # 1.5707963267948966 typed is a decimal: cos there is 1.92e-17; the tape was given its
    # nearest float, where cos is 6.12e-17 (mpmath): the tape is right, and the check says why
    from gradcalc.engine.run.api import grad

    typed = "1.5707963267948966"
    result = grad("sin(x)", at=[f"x={typed}"])
    with mpmath.workdps(50):
        at_float = float(mpmath.cos(mpmath.mpf(float(typed))))
        at_typed = float(mpmath.cos(mpmath.mpf(typed)))
    assert float(result.gradient["x"]) == at_float and abs(at_typed - at_float) > 1e-17
    assert result.check.status == "agree"
    assert "not a float64 number" in result.check.meaning()
    assert float(result.shown["x"]) == pytest.approx(at_typed, rel=1e-15)  # shown: the exact


# -- many points: sympy's derivative in floats cancels as the tape does, so a sample of the
# points that agree in floats is evaluated again to 50 digits. Truth: mpmath at 50 digits.


def _truth(derivative, *args) -> float:
    """A derivative at a float64 point (its exact binary value), by mpmath at 50 digits."""
    with mpmath.workdps(50):
        return float(derivative(*(mpmath.mpf(float(a)) for a in args)))


def test_many_points_where_float64_cancels_fail_the_check_at_the_point_named(cli, tmp_path) -> None:
    # the reproduction: 20 points from a file, x from 1e15 to 2e16, where both the tape and
    # sympy's lambdified derivative cancel sqrt(x+1) against sqrt(x) -- to the same number
    xs = np.geomspace(1e15, 2e16, 20)
    points = tmp_path / "xs.csv"
    points.write_text("x\n" + "".join(f"{float(v)!r}\n" for v in xs), encoding="utf-8")
    derivative = lambda x: 1 / (2 * mpmath.sqrt(x + 1)) - 1 / (2 * mpmath.sqrt(x))  # noqa: E731
    result = cli("grad", "sqrt(x+1)-sqrt(x)", "--points", str(points), "--format", "json")
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout)
    assert out["check"]["status"] == "disagree" and out["check"]["method"] == "float64"
    assert "at high precision" in out["check"]["meaning"]
    truths = [_truth(derivative, x) for x in xs]
    tapes = out["gradient"]["x"]
    off = [abs(t - e) > 1e-7 * abs(e) for t, e in zip(tapes, truths, strict=True)]
    assert all(off)  # (independently: the tape is wrong at every point)
    flagged = [k for k, agree in enumerate(out["agree"]) if agree is False]
    assert flagged and all(off[k] for k in flagged)
    (words,) = [w for w in out["warnings"] if "float64 lost" in w]
    assert "cancellation" in words and "high-precision value" in words
    named = float(words.split("∂f/∂x at x=")[1].split(":")[0])
    k = int(np.flatnonzero(xs == named)[0])  # the point named is one of the file's
    assert k in flagged and repr(truths[k]).replace("e-0", "e-") in words
    csv = cli("grad", "sqrt(x+1)-sqrt(x)", "--points", str(points), "--format", "csv")
    assert csv.exit_code == 1 and "cancellation" in csv.stderr


def _d_sqrt(x, a):
    return 1 / (2 * mpmath.sqrt(x + a)) - 1 / (2 * mpmath.sqrt(x))


def _d_log(x, a):
    return 1 / (x + a) - 1 / x


def _d_cos(x, a):
    return a * mpmath.sin(a * x) / x**2 - 2 * (1 - mpmath.cos(a * x)) / x**3


def _cancelling_batches(seed: int, count: int):
    """Seeded expressions whose d/dx float64 cancels at (nearly) every one of their points,
    with terms in y and z independent of x, coefficients up to 10^9; with mpmath's d/dx."""
    rng = np.random.default_rng(seed)
    forms = [  # (text, d/dx, where float64 loses the digits of d/dx: log10 of x)
        ("sqrt(x+{a})-sqrt(x)", _d_sqrt, (13, 16)),
        ("log(x+{a})-log(x)", _d_log, (12, 15)),
        ("(1-cos({a}*x))/x^2", _d_cos, (-7, -4)),
    ]
    for _ in range(count):
        text, derivative, (low, high) = forms[int(rng.integers(len(forms)))]
        a, c = int(rng.integers(1, 10)), int(rng.integers(1, 10**9))
        n = int(rng.integers(20, 60))
        x = 10.0 ** rng.uniform(low, high, n)
        y, z = rng.uniform(-(10**6), 10**6, n), rng.uniform(-3, 3, n)
        expression = f"{c}*({text.format(a=a)}) + {int(rng.integers(1, 10**9))}*y^2 + sin(z)"
        truths = [c * _truth(derivative, v, a) for v in x]
        yield expression, {"x": x, "y": y, "z": z}, np.array(truths)


def test_generated_cancellations_at_many_points_disagree_where_mpmath_says_so() -> None:
    from gradcalc.engine.run.api import grad

    for expression, points, truths in _cancelling_batches(seed=3, count=8):
        result = grad(expression, at=points)
        tape = np.asarray(result.gradient["x"], dtype=float)
        off = np.abs(tape - truths) > 1e-7 * np.abs(truths)
        assert off.mean() > 0.9, expression  # (the premise, independently: float64 is lost)
        assert result.check.status == "disagree", (expression, result.check.meaning())
        assert off[result.check.mismatch].all(), expression  # every point flagged is wrong
        assert "cancellation" in " ".join(result.warnings)


def test_a_tape_right_everywhere_agrees_and_says_how_many_points_had_50_digits() -> None:
    # x^2*sin(x) at 1,000 random points: the tape is right (mpmath at 50 digits); the check
    # agrees, and its meaning names the sample evaluated at high precision
    from gradcalc.engine.run.api import grad

    x = np.random.default_rng(17).uniform(-1e3, 1e3, 1000)
    result = grad("x^2*sin(x)", at={"x": x})
    derivative = lambda t: 2 * t * mpmath.sin(t) + t**2 * mpmath.cos(t)  # noqa: E731
    for k in (0, 999, *range(1, 999, 97)):
        truth = _truth(derivative, x[k])
        assert abs(float(result.gradient["x"][k]) - truth) <= 1e-7 * abs(truth)
    assert result.check.status == "agree" and result.check.method == "float64"
    meaning = result.check.meaning()
    assert meaning.startswith("agrees within rtol 1e-7 at 1,000 points (16 of them at high")
    assert "the rest with sympy's derivative evaluated in floats, not a proof" in meaning


def test_a_few_points_from_a_file_are_each_checked_at_high_precision(cli, tmp_path) -> None:
    points = tmp_path / "points.csv"
    points.write_text("x,y\n0.5,2\n3,-1\n1e8,7\n", encoding="utf-8")
    out = json.loads(cli("grad", "x^3*y", "--points", str(points), "--format", "json").stdout)
    assert out["check"]["status"] == "agree"
    assert "each at high precision" in out["check"]["meaning"]
    for (x, y), gradient in zip([(0.5, 2), (3, -1), (1e8, 7)], out["gradient"]["x"], strict=True):
        assert gradient == pytest.approx(3 * x**2 * y, rel=1e-15)  # (exact: Python's floats)


def test_when_the_samples_time_is_spent_the_check_says_so() -> None:
    # the sample's share of --check-timeout spent by earlier chunks of the same request:
    # no point is sampled; the verdict is the floats', and the meaning says why
    from gradcalc.core.budget import request

    graph = lower(parse_program("x^3"))
    x = np.linspace(0.5, 3.0, 40)
    where = CheckInput({"x": x}, None, np.zeros(40, dtype=bool), timeout=5.0)
    with request(symbolic=None) as budget:
        key = ("gradient", 0, ("x",))
        graph.cache["sampled", key] = {"request": budget, "spent": 1.0}  # (a fifth of 5 s)
        report = cross_check(graph, 0, {"x": 3 * x**2}, where)
    assert report.status == "agree" and report.sampled == 0
    assert "none at high precision: the time for it" in report.meaning()
