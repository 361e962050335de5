"""Random expressions from the registry: the CLI's gradient equals sympy's, computed
independently (each generated text comes with its own sympy expression, built from the
registry's sympy counterparts, never from gradcalc's parser or cross-check)."""

from __future__ import annotations

import json
import math

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gradcalc.cli import app
from gradcalc.ops import REGISTRY

X, Y = sp.symbols("x y", real=True)
LEAVES = st.sampled_from(
    [("x", X), ("y", Y), ("2", sp.Integer(2)), ("0.5", sp.Rational(1, 2)), ("pi", sp.pi)]
)
# functions defined and smooth on the whole real line
SMOOTH = ["sin", "cos", "tanh", "atan", "sigmoid", "softplus", "erf", "asinh", "exp", "sinh"]


def _unary(child):
    def build(name, part):
        text, expr = part
        op = REGISTRY[name]
        if name in ("exp", "sinh"):  # keep values small: exp(sin(...))
            return f"{name}(sin({text}))", op.sympy(sp, sp.sin(expr))
        return f"{name}({text})", op.sympy(sp, expr)

    return st.builds(build, st.sampled_from(SMOOTH), child)


def _guarded(child):
    """Ops with restricted domains, applied where they are defined."""

    def build(kind, part):
        text, expr = part
        if kind == "log":
            return f"log(1 + ({text})^2)", sp.log(1 + expr**2)
        if kind == "sqrt":
            return f"sqrt(2 + sin({text}))", sp.sqrt(2 + sp.sin(expr))
        return f"acos(tanh({text})/2)", sp.acos(sp.tanh(expr) / 2)

    return st.builds(build, st.sampled_from(["log", "sqrt", "acos"]), child)


def _binary(child):
    def build(kind, left, right):
        (a, ea), (b, eb) = left, right
        if kind == "/":
            return f"({a})/(1 + ({b})^2)", ea / (1 + eb**2)
        if kind == "^":
            return f"({a})^3", ea**3
        if kind == "implicit":
            return f"2({a})({b})", 2 * ea * eb
        symbol = {"+": "+", "-": "-", "*": "*"}[kind]
        return f"({a}) {symbol} ({b})", {"+": ea + eb, "-": ea - eb, "*": ea * eb}[kind]

    return st.builds(build, st.sampled_from(["+", "-", "*", "/", "^", "implicit"]), child, child)


EXPRESSIONS = st.recursive(
    LEAVES,
    lambda child: st.one_of(_unary(child), _guarded(child), _binary(child)),
    max_leaves=8,
)
POINT = st.floats(-2, 2, allow_nan=False).map(lambda v: round(v, 3))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, POINT, POINT)
def test_cli_gradient_equals_sympy_for_random_expressions(expression, x0, y0) -> None:
    text, expr = expression
    result = CliRunner().invoke(
        app, ["grad", text, "--at", f"x={x0},y={y0}", "--format", "json", "--no-tape"]
    )
    subs = {X: sp.Rational(str(x0)), Y: sp.Rational(str(y0))}
    expected = {n: float(sp.diff(expr, s).evalf(30, subs=subs)) for n, s in (("x", X), ("y", Y))}
    assert result.exit_code == 0, (text, result.output)
    out = json.loads(result.stdout)
    for name, value in expected.items():
        assert math.isclose(out["gradient"][name], value, rel_tol=1e-9, abs_tol=1e-12), (
            text,
            name,
            out["gradient"][name],
            value,
        )
    assert out["check"]["status"] in ("agree", "skipped")
