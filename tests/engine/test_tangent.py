"""The tangent without sympy, against calculus: the line's text, read back by gradcalc's own
parser, is f(a) + f'(a)(x - a) at random x (f' by hand); and ``--no-check`` in every format
never imports sympy (checked in a fresh process, ``'sympy' in sys.modules``)."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradcalc.engine.judge.tangent import tangent_text
from gradcalc.engine.run.api import grad

coefficients = st.integers(-9, 9)
centres = st.decimals(min_value=-50, max_value=50, places=3, allow_nan=False)


@given(coefficients, coefficients, coefficients, centres, st.floats(-100, 100))
def test_line_is_the_first_order_taylor_polynomial(a, b, c, centre, x) -> None:
    # f = a x^2 + b x + c: f(t) and f'(t) = 2 a t + b, exactly in rationals
    t = Fraction(centre)
    value, slope = a * t * t + b * t + c, 2 * a * t + b
    line = tangent_text("y", float(value), {"x": float(slope)}, {"x": str(centre)})
    assert line is not None and line.startswith("y = ")
    rhs = line[len("y = ") :] or "0"
    got = grad(rhs, at={"x": x}, check=False).value if "x" in rhs else float(grad(rhs).value)
    want = float(value) + float(slope) * (x - float(t))
    assert float(got) == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_same_text_as_with_the_check() -> None:
    from gradcalc.engine.judge.tangent import tangent

    for expression, point in [("x^3", "x=2"), ("x^2 + y^2", "x=1,y=-2"), ("x/4", "x=3")]:
        unchecked = tangent(grad(expression, at=[point], check=False))
        checked = tangent(grad(expression, at=[point]))
        assert unchecked is not None and checked is not None
        assert unchecked.split(" = ")[0] == checked.split(" = ")[0]
        if expression != "x/4":  # (sympy writes the exact slope 1/4 as "(x - 3)/4")
            assert unchecked == checked


def test_a_centre_sympy_must_write_gives_no_line() -> None:
    assert tangent_text("y", 1.0, {"x": 1.0}, {"x": "pi/4"}) is None


NO_SYMPY = (
    "import sys\n"
    "from gradcalc.cli.app import run\n"
    "code = run(sys.argv[1:])\n"
    "print('SYMPY', 'sympy' in sys.modules, code, file=sys.stderr)\n"
)


@pytest.mark.parametrize("output", ["table", "json", "csv", "plain"])
@pytest.mark.parametrize(
    "args",
    [
        ("grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3"),
        ("grad", "x^3", "--at", "x=2"),
        ("grad", "sin(x)*y", "--at", "x=1,y=2", "--at", "x=2,y=3"),
        ("hessian", "x^2*y", "--at", "x=1,y=2"),
        ("jacobian", "u = r*cos(t); v = r*sin(t)", "--at", "r=1,t=0.5"),
    ],
)
def test_no_check_imports_no_sympy(args, output: str) -> None:
    command = [sys.executable, "-c", NO_SYMPY, *args, "--no-check", "--format", output]
    done = subprocess.run(command, capture_output=True, text=True)
    last = done.stderr.strip().splitlines()[-1]
    assert last == "SYMPY False 0", done.stderr


def test_the_line_starts_from_the_value_and_slope_the_table_shows() -> None:
    # f's exact value here is too long to write, so the line shows a number: the exact
    # value's nearest float (as the table does), not the tape's float64 result. Truth: mpmath
    import mpmath

    from gradcalc.engine.judge.tangent import tangent

    result = grad("sqrt(x+1)-sqrt(x) + 1/(x+3)", at=["x=1234567"])
    with mpmath.workdps(50):
        x = mpmath.mpf(1234567)
        value = float(mpmath.sqrt(x + 1) - mpmath.sqrt(x) + 1 / (x + 3))
        slope = float(1 / (2 * mpmath.sqrt(x + 1)) - 1 / (2 * mpmath.sqrt(x)) - 1 / (x + 3) ** 2)
    assert float(result.shown_value) == value and float(result.shown["x"]) == slope
    line = tangent(result)
    assert line is not None
    assert line.replace("\n", "").startswith(f"tangent line: y = {value!r}"), line
    assert f"{slope!r}"[1:12] in line and float(result.value) != value  # (the tape differs)


@pytest.mark.parametrize(
    ("expression", "at", "line"),
    [
        ("x^3", "x=1e100", "tangent line: y = 1e300 + 3e200(x - 1e100)"),
        ("sqrt(x)", "x=1e-320", "tangent line: y = 1e-160 + 5e159(x - 1e-320)"),
    ],
)
def test_a_tangent_at_a_huge_or_tiny_point_is_written_short(cli, expression, at, line) -> None:
    # the float 1e300 was written as the 301 digits of its binary expansion, and the
    # centre 1e100 as 101 digits; the truth: (10^100)^3 = 10^300, 3·(10^100)^2 = 3·10^200
    checked = cli("grad", expression, "--at", at, "--no-tape")
    assert line in " ".join(checked.stdout.split()), checked.stdout
    # without sympy, the tape's numbers (1e-320 is a subnormal: sqrt's 9.99994e-161)
    tape = cli("grad", expression, "--at", at, "--no-tape", "--no-check").stdout
    (written,) = [w for w in tape.split("\n\n") if w.startswith("tangent line")]
    assert len(written) < 100 and f"(x - {at[2:]})" in written, written
