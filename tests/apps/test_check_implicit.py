"""`gradcalc check EQUATION --implicit y`: dy/dx judged on the curve, against sympy's
-F_x/F_y on textbook curves and on generated polynomial curves, with answers equal to it
only on the curve (right) and the usual slips (wrong): the sign, upside down, a coefficient
off by one, the partial derivatives swapped."""

from __future__ import annotations

import json
import random

import pytest
import sympy as sp

from gradcalc.apps.check.check_implicit import check_implicit
from gradcalc.core.errors import ExitCode, InputError

x, y = sp.symbols("x y", real=True)


def typed(expr) -> str:
    return sp.sstr(expr).replace("**", "^")


@pytest.mark.parametrize(
    ("equation", "answer"),
    [
        ("x^2 + y^2 = 25", "-x/y"),
        ("x^2 + y^2 = 25", "-x y/(25 - x^2)"),  # equal on the circle only
        ("x^3 + y^3 = 6x y", "(2y - x^2)/(y^2 - 2x)"),
        ("x y = 1", "-y/x"),
        ("x y = 1", "-1/x^2"),  # y = 1/x on the curve
        ("sin(x y) = x/2", "(1/2 - y cos(x y))/(x cos(x y))"),
    ],
)
def test_textbook_answers_are_right(equation: str, answer: str) -> None:
    (verdict,) = check_implicit(equation, "y", [answer])
    assert verdict.ok is True, verdict.detail


@pytest.mark.parametrize(
    ("equation", "answer"),
    [
        ("x^2 + y^2 = 25", "x/y"),
        ("x^2 + y^2 = 25", "-y/x"),
        ("x^3 + y^3 = 6x y", "(2y - x^2)/(y^2 - x)"),
        ("x y = 1", "y/x"),
        ("sin(x y) = x/2", "(1 - y cos(x y))/(x cos(x y))"),
    ],
)
def test_slips_are_wrong_with_a_point_of_the_curve(equation: str, answer: str) -> None:
    (verdict,) = check_implicit(equation, "y", [answer])
    assert verdict.ok is False, verdict.detail
    assert "on the curve" in verdict.detail


@pytest.mark.parametrize("seed", range(10))
def test_generated_curves(seed: int) -> None:
    rng = random.Random(seed)
    left = sum(
        rng.choice([-1, 1])
        * rng.randint(1, 10 ** rng.randint(1, 6))
        * x ** rng.randint(0, 3)
        * y ** rng.randint(1, 3)
        for _ in range(rng.randint(2, 4))
    ) + rng.randint(1, 9) * x ** rng.randint(1, 2)
    c = rng.randint(-20, 20)
    fx, fy = sp.diff(left, x), sp.diff(left, y)
    equation = f"{typed(left)} = {c}"
    truth = -fx / fy
    for right in (truth, (-fx + 2 * (left - c)) / fy, sp.cancel(truth)):
        (verdict,) = check_implicit(equation, "y", [typed(right)])
        assert verdict.ok is True, (equation, right, verdict.detail)
    for wrong in (fx / fy, -fy / fx, (-fx + 1) / fy, (-fx) / (fy + 1)):
        if sp.cancel(wrong - truth) == 0:
            continue
        (verdict,) = check_implicit(equation, "y", [typed(wrong)])
        assert verdict.ok is not True, (equation, wrong, verdict.detail)  # never accepted
        assert verdict.ok is False, (equation, wrong, verdict.detail)


def test_a_surface_has_one_answer_per_variable() -> None:
    verdicts = check_implicit("x^2 + y^2 + z^2 = 25", "z", ["[-x/z, -y/z]"])
    assert [(v.component, v.ok) for v in verdicts] == [("∂z/∂x", True), ("∂z/∂y", True)]


def test_an_answer_undefined_on_part_of_the_curve_is_never_equivalent() -> None:
    # y^3 = x has points with x < 0, where x^(2/3) (the principal power) and sqrt(x) are
    # undefined: these answers were "equivalent", from the points with x > 0 alone
    for answer in ["1/(3 x^(2/3))", "1/(3 sqrt(x)^(4/3))"]:
        (verdict,) = check_implicit("y^3 = x", "y", [answer])
        assert verdict.verdict == "could not decide", (answer, verdict)
        assert "undefined on the curve at x=-" in verdict.detail
    # a wrong answer is still found wrong, and the right one right
    assert check_implicit("y^3 = x", "y", ["-1/(3 x^(2/3))"])[0].verdict == "not equivalent"
    assert check_implicit("y^3 = x", "y", ["1/(3y^2)"])[0].verdict == "equivalent"


@pytest.mark.parametrize("answer", ["-x/sqrt(y)^2", "-x/y + 0*ln(y)", "-x/(sqrt(y)*sqrt(y))"])
def test_a_proof_on_sympys_form_does_not_hide_the_answers_domain(answer: str) -> None:
    """sympy reads sqrt(y)^2 as y and 0*ln(y) as 0, and proved these equal to -x/y; as
    typed, each is undefined on the half of the circle where y < 0 (and -x/y is not)."""
    (verdict,) = check_implicit("x^2 + y^2 = 25", "y", [answer])
    assert verdict.verdict == "could not decide", verdict
    assert "undefined on the curve at" in verdict.detail and "y≈-" in verdict.detail


@pytest.mark.parametrize(
    "answer", ["-x/y + 0*sqrt(4.5 - x)", "-x/y + 0*sqrt(3.5 - x)", "-x/y + 0*ln(x + 4.9)"]
)
def test_a_domain_missing_only_near_the_curves_ends_is_found(answer: str) -> None:
    """The points fixed x in [-3, 3] (or far out, off the circle): where the answer is
    undefined, 3.5 < x <= 5 or x < -4.9, was never met, and it was ✓ equivalent."""
    (verdict,) = check_implicit("x^2 + y^2 = 25", "y", [answer])
    assert verdict.verdict == "could not decide", verdict
    assert "undefined on the curve at" in verdict.detail


@pytest.mark.parametrize(
    ("equation", "answer"),
    [
        ("y^2 + e^x = 10", "-e^x/(2y) + 0*sqrt(2 - x)"),  # undefined for 2 < x <= ln 10
        ("x^2 + y^2 = 25", "-x/y + 0*sqrt(25 - x^2)"),  # defined on it: but no proof of that
    ],
)
def test_an_answer_whose_domain_sympy_drops_is_not_called_equivalent(equation, answer) -> None:
    """sympy reads 0*sqrt(2 - x) as 0: the points tried on y^2 + e^x = 10 (a curve not
    polynomial in x) miss the arc 2 < x <= ln 10 where the answer as typed is undefined, so
    agreement there proves nothing; where the argument sympy dropped is defined on the whole
    curve (25 - x^2 = y^2), gradcalc cannot tell either, and says so."""
    (verdict,) = check_implicit(equation, "y", [answer])
    assert verdict.verdict == "could not decide", verdict
    assert "sympy reads your answer without sqrt(" in verdict.detail


@pytest.mark.parametrize("answer", ["-x/abs(y)^2*y", "-x y/(25 - x^2)", "(-x/y)^1"])
def test_an_answer_that_keeps_its_domain_keeps_its_proof(answer: str) -> None:
    (verdict,) = check_implicit("x^2 + y^2 = 25", "y", [answer])
    assert verdict.verdict == "equivalent", verdict


def test_a_curve_polynomial_in_y_with_inexact_coefficients_is_sampled() -> None:
    # sin(x) makes the coefficients of this polynomial in y inexact: no point of the curve
    # was found ("agrees at only 0 points"), and a wrong answer was "could not decide"
    curve = "x^2 + x*y + 3x + 3y^2 - 8y + sin(x) = 3"
    wrong = check_implicit(curve, "y", ["(2x + y + cos(x) + 3)/(x + 6y - 8)"])[0]
    assert wrong.verdict == "not equivalent", wrong
    right = check_implicit(curve, "y", ["-(2x + y + cos(x) + 3)/(x + 6y - 8)"])[0]
    assert right.verdict == "equivalent", right


def test_input_errors() -> None:
    with pytest.raises(InputError, match="1 needed"):
        check_implicit("x^2 + y^2 = 25", "y", ["-x/y", "2"])
    with pytest.raises(InputError, match="not a variable of the equation"):
        check_implicit("x^2 + y^2 = 25", "y", ["-x/w"])
    with pytest.raises(InputError, match="not an equation"):
        check_implicit("x^2 + y^2", "y", ["-x/y"])


def test_the_command_line(cli) -> None:
    result = cli("check", "x^2 + y^2 = 25", "--implicit", "y", "--answer", "-x/y")
    assert result.exit_code == ExitCode.OK, result.output
    assert result.stdout.startswith("read as: x^2 + y^2 = 25")
    assert "Checking your dy/dx on the curve" in result.stdout
    wrong = cli("check", "x^2+y^2=25", "--implicit", "y", "--answer", "x/y", "--format", "json")
    assert wrong.exit_code == ExitCode.CHECK_FAILED
    (verdict,) = json.loads(wrong.stdout)["verdicts"]
    assert verdict["evidence"] == "high precision" and verdict["correct"] == "-x/y"


def test_an_answer_headed_as_on_paper_is_read() -> None:
    """dy/dx = -x/y was refused ('only a single name can be assigned ... is for gradcalc
    diff --implicit y'), though check reads df/dx = ... heads elsewhere."""
    assert check_implicit("x^2 + y^2 = 25", "y", ["dy/dx = -x/y"])[0].verdict == "equivalent"
    assert check_implicit("x^2 + y^2 = 25", "y", ["y' = x/y"])[0].verdict == "not equivalent"
    sphere = check_implicit("x^2 + y^2 + z^2 = 25", "z", ["dz/dy = -y/z", "dz/dx = -x/z"])
    assert [(v.component, v.verdict) for v in sphere] == [
        ("∂z/∂x", "equivalent"),
        ("∂z/∂y", "equivalent"),
    ]
    with pytest.raises(InputError, match=r"with respect to z; asked for: with respect to x"):
        check_implicit("x^2 + y^2 = 25", "y", ["dy/dz = 1"])
