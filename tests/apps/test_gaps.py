"""An answer equal to the derivative except where, as typed, it is undefined at single
points: ✗ with the point, and the derivative there as sympy computes it in the test."""

from __future__ import annotations

import json

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc.apps.check.check import check_answers
from gradcalc.apps.check.check_implicit import check_implicit
from gradcalc.core.errors import ExitCode

x, y = sp.symbols("x y", real=True)


@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.integers(-(10**9), 10**9), min_size=2, max_size=5),
    st.integers(-(10**6), 10**6),
    st.integers(1, 4),
)
def test_a_cancelled_factor_fails_at_its_zero(coefficients, a: int, order: int) -> None:
    f = sum(c * x**k for k, c in enumerate(coefficients)) + x ** (order + 2) + 7
    truth = sp.diff(f, x, order)
    answer = f"({truth})*(x - ({a}))/(x - ({a}))".replace("**", "^")
    (verdict,) = check_answers(str(f).replace("**", "^"), [answer], order=order)
    if verdict.verdict == "could not decide":  # (a busy machine: sympy's solve ran out of
        # time; never a pass then -- once it was, "equivalent")
        assert "sympy could not solve" in verdict.detail and "(in time)" in verdict.detail
        return
    assert verdict.verdict == "not equivalent", verdict.detail
    expected = truth.subs(x, a)
    assert verdict.detail.startswith(f"differs at x={a}: yours undefined, correct ")
    shown = verdict.detail.split("correct ")[1].split(";")[0]
    assert sp.Rational(shown) == expected
    assert "elsewhere sympy proves the difference is 0" in verdict.detail


@pytest.mark.parametrize(
    ("expression", "answer", "point"),
    [
        ("x^2", "2x^3/x^2", "x=0"),
        ("x^2", "2x + 0/(x^2 - 2)", "x=sqrt(2)"),
        ("x^2", "2x + 0*tan(x)", "x=pi/2"),
        ("sin(x)", "cos(x)*x/x", "x=0"),
        ("e^x", "e^x * ln(e^x)/x", "x=0"),
    ],
)
def test_holes_found_exactly_where_sampling_never_lands(expression, answer, point) -> None:
    (verdict,) = check_answers(expression, [answer])
    assert verdict.ok is False and verdict.evidence == "domain"
    assert verdict.detail.startswith(f"differs at {point}: yours undefined")


@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        ("x^(1/3)", "x^(1/3)/(3x)"),  # f'(0) does not exist: no hole is a witness
        ("sqrt(x)", "sqrt(x)/(2x)"),
        ("ln(x^2)", "2/x"),  # f itself undefined at 0
        ("abs(x)", "x/abs(x)"),  # a corner at 0
        ("tan(x)", "1/cos(x)^2"),  # the derivative's poles are the answer's
        ("(x^2 - 9)/(x - 3)", "1"),  # yours defined where f is not: a pass
    ],
)
def test_a_hole_where_the_derivative_does_not_exist_is_no_witness(expression, answer) -> None:
    (verdict,) = check_answers(expression, [answer])
    assert verdict.verdict == "equivalent", verdict.detail


def test_several_variables_the_hole_is_on_a_line_and_the_point_names_all() -> None:
    fx, fy = check_answers("x^2*y", {"x": "2x^2 y/x", "y": "x^2"})
    assert fx.ok is False and fy.ok is True
    point = fx.detail.split(":")[0].removeprefix("differs at ")
    values = dict(part.split("=") for part in point.split(", "))
    assert values["x"] == "0" and sp.Rational(values["y"]) != 0
    (only,) = check_answers("x^3*y", {"y": "x^4/x"})  # (yours has no y: f's is fixed)
    assert only.ok is False and ", y=" in only.detail


def test_a_hessian_entry_with_a_hole() -> None:
    verdicts = check_answers("x^2*y + y^3", ["[[2y, 2x], [2x*(x - 1)/(x - 1), 6y]]"])
    assert [v.ok for v in verdicts] == [True, True, False, True]
    assert verdicts[2].detail.startswith("differs at x=1")


def test_the_cli_exits_1_and_json_carries_the_point(cli) -> None:
    out = cli("check", "x^2", "--answer", "2x*(x-3)/(x-3)", "--format", "json")
    assert out.exit_code == ExitCode.CHECK_FAILED
    (verdict,) = json.loads(out.stdout)["verdicts"]
    assert verdict["ok"] is False
    assert verdict["detail"].startswith("differs at x=3: yours undefined, correct 6")


# --- implicit derivatives: holes on the curve ------------------------------------------


def _on_circle(point: str) -> dict:
    values = dict(part.split("=") for part in point.split(", "))
    return {name: _exact(text) for name, text in values.items()}


def _exact(text: str):
    """A point's coordinate as gradcalc writes it (2 sqrt(6), pi/2), read back by sympy in
    the test (text gradcalc wrote, not a user's)."""
    return sp.sympify(text.replace(" sqrt", "*sqrt"))


@pytest.mark.parametrize(
    "answer",
    ["-x/y + 0/(x - 4)", "-x*(y - 1)/(y*(y - 1))", "-x/y + 0*tan(x)", "-x/y + 0/(x - y)"],
)
def test_an_implicit_answer_with_a_hole_on_the_curve_fails_there(answer: str) -> None:
    (verdict,) = check_implicit("x^2 + y^2 = 25", "y", [answer])
    assert verdict.ok is False and verdict.evidence == "domain", verdict.detail
    where, rest = verdict.detail.removeprefix("differs at ").split(": yours undefined, correct ")
    point = _on_circle(where)
    assert sp.simplify(point["x"] ** 2 + point["y"] ** 2 - 25) == 0  # on the curve
    assert sp.simplify(_exact(rest.split(";")[0]) - (-point["x"] / point["y"])) == 0


@pytest.mark.parametrize(
    ("equation", "answer"),
    [
        ("x^2 + y^2 = 25", "-x*y/(25 - x^2)"),  # its holes (y = 0) are the derivative's
        ("x*y = 1", "-y/x"),  # x = 0 is not on the curve
        ("y^3 = x", "1/(3y^2)"),
        # holes at singular points of the curve (F_x = F_y = 0): dy/dx does not exist there,
        # and -F_x/F_y is 0/0, not the 0 that substituting x first would make of it
        ("y^2 = x^3", "3x^2/(2y)"),
        ("y^2 = x^2", "x/y"),
        ("y^2 = x^3 + x^2", "(3x^2 + 2x)/(2y)"),
        ("y^3 - x^2 y = 0", "2x y/(3y^2 - x^2)"),
        ("(x^2+y^2)^2 = 2(x^2-y^2)", "x(1 - x^2 - y^2)/(y(1 + x^2 + y^2))"),
    ],
)
def test_an_implicit_answer_whose_holes_are_off_the_curve_passes(equation, answer) -> None:
    (verdict,) = check_implicit(equation, "y", [answer])
    assert verdict.ok is True, verdict.detail


@pytest.mark.parametrize(
    "answer",
    ["2x + 0/(x - cos(x))", "2x + 0/(x - exp(-x))", "2x*(x - cos(x))/(x - cos(x))"],
)
def test_a_hole_sympy_cannot_solve_for_is_no_pass(answer: str) -> None:
    # each answer is 2x where defined, but undefined where x = cos(x) (x ≈ 0.739) or
    # x = exp(-x) (≈ 0.567), which sympy's solveset leaves as a ConditionSet
    zero = sp.solveset(x - sp.cos(x), x, sp.S.Reals)
    assert isinstance(zero, sp.ConditionSet)
    (verdict,) = check_answers("x^2", [answer])
    assert verdict.verdict == "could not decide", verdict.detail
    assert "sympy could not solve" in verdict.detail


def test_a_hole_on_a_curve_sympy_cannot_solve_for_is_no_pass() -> None:
    verdicts = check_implicit("x^2 + y^2 = 25", "y", ["-x/y + 0/(x - cos(x))"])
    assert [v.verdict for v in verdicts] == ["could not decide"], verdicts[0].detail
