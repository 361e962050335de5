"""symbolic.translate.shapes: expressions that differ only in their numbers share one symbolic
derivative
in a ``--jobs`` stream -- and a shared derivative is never served for a different expression.

Each derivative a stream gives is compared with sympy's derivative of that expression alone
(outside any stream), exactly at rational points; near-identical expressions (one number or
one variable name changed, a number moved into an exponent, two equal numbers or one) follow
each other in one stream, so a derivative cached for the first would be served for the second.
"""

from __future__ import annotations

import io
import json
import re
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from gradcalc.cli.jobs import run_jobs
from gradcalc.core.errors import UndefinedError
from gradcalc.engine.evaluate.points import parse_at
from gradcalc.engine.run.api import Options, compile_expression, gradient_at
from gradcalc.symbolic.crosscheck.crosscheck import symbolic_gradient
from gradcalc.symbolic.translate.shapes import (
    Shapes,
    _Exact,
    shape_of,
    shared_gradient,
    shared_value,
    sharing,
)
from tests.symbolic.readback import read_back

NUMBERS = st.sampled_from(["0.5", "1.3", "2", "2.0", "3", "0.25", "7.5", "1", "0"])
VARIABLES = st.sampled_from(["x", "y", "z"])
UNARY = ("sin", "exp", "log", "sqrt", "tanh", "abs")


@st.composite
def expressions(draw, depth: int = 3, leaf: bool = True) -> str:
    """A small expression over x, y, z with numbers in many places (no bare leaf at the top
    with ``leaf=False``)."""
    if depth == 0 or (leaf and draw(st.booleans())):
        return draw(st.one_of(NUMBERS, VARIABLES))
    kind = draw(st.sampled_from(["+", "-", "*", "/", "^", "call"]))
    left = draw(expressions(depth - 1))
    if kind == "call":
        return f"{draw(st.sampled_from(UNARY))}({left})"
    if kind == "^":
        return f"({left})^{draw(st.sampled_from(['2', '3', '0.5', 'x']))}"
    return f"({left}){kind}({draw(expressions(depth - 1))})"


def mutations(text: str) -> list[str]:
    """The expression with one number changed, or one variable renamed (every such one)."""
    found = []
    for old, new in (("1.3", "1.4"), ("2", "5"), ("0.5", "0.75"), ("7.5", "7.25"), ("3", "1")):
        changed = re.sub(rf"(?<![0-9.]){re.escape(old)}(?![0-9.])", new, text, count=1)
        if changed != text:
            found.append(changed)
    for old, new in (("x", "y"), ("y", "z"), ("z", "x")):
        changed = re.sub(rf"\b{old}\b", new, text, count=1)
        if changed != text:
            found.append(changed)
    return found


def own_gradient(text: str, names: tuple[str, ...]) -> dict[str, sp.Expr]:
    """sympy's derivatives of the expression alone, no stream (nothing shared)."""
    with sharing(None):
        return symbolic_gradient(compile_expression(text, names), 0, list(names))


POINTS = [
    {"x": sp.Rational(3, 7), "y": sp.Rational(5, 4), "z": sp.Rational(9, 5)},
    {"x": sp.Rational(11, 3), "y": sp.Rational(2, 9), "z": sp.Rational(7, 2)},
]


def assert_same_function(shared: sp.Expr, own: sp.Expr, where: str) -> None:
    """Equal at rational points (exactly, or to 40 digits where not rational)."""
    for point in POINTS:
        symbols = {sp.Symbol(n, real=True): v for n, v in point.items()}
        a, b = shared.xreplace(symbols), own.xreplace(symbols)
        if a.is_Rational and b.is_Rational:
            assert a == b, where
            continue
        na, nb = complex(a.evalf(40)), complex(b.evalf(40))
        if na != na or nb != nb:  # NaN: undefined there; both must be
            assert na != na and nb != nb, where
            continue
        assert abs(na - nb) <= 1e-30 * max(1.0, abs(nb)), where


@given(expressions(leaf=False))
def test_a_shared_derivative_is_the_expressions_own(text: str) -> None:
    names = ("x", "y", "z")
    texts = [text, *mutations(text)]
    store = Shapes()
    with sharing(store):
        for each in texts:
            graph = compile_expression(each, names)
            try:
                shared = shared_gradient(graph, 0, list(names)) or symbolic_gradient(
                    graph, 0, list(names)
                )
            except (ValueError, ZeroDivisionError, UndefinedError):  # 0.5/0: refused
                continue
            try:
                own = own_gradient(each, names)
            except UndefinedError:  # log(0): undefined everywhere, the tape refuses it too
                continue
            for name in names:
                assert_same_function(shared[name], own[name], f"d/d{name} {each}")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("1.3*x^2 + 0.9*x*y", "1.3*x^2 + 0.9*x*z"),  # one variable name
        ("1.3*x^2 + 0.9*x*y", "1.3*x^3 + 0.9*x*y"),  # an exponent (never shared)
        ("2*x + 2*y", "2*x + 3*y"),  # one number, or two equal ones
        ("2.5*x + 1", "2.5*x + 2"),  # 1 is never a symbol
        ("x*y + 2.5", "x - y + 2.5"),  # another operation
        ("sin(1.5*x)", "cos(1.5*x)"),
    ],
)
def test_near_identical_expressions_have_different_shapes(first: str, second: str) -> None:
    names = ("x", "y", "z")
    a, b = (shape_of(compile_expression(t, names)) for t in (first, second))
    assert a is None or b is None or a[0] != b[0]


def test_expressions_that_differ_in_numbers_share_one_shape() -> None:
    names = ("x", "y")
    a, b = (shape_of(compile_expression(t, names)) for t in ("1.3*x^2+0.9*x*y", "2.8*x^2+7*x*y"))
    assert a is not None and b is not None and a[0] == b[0]
    store = Shapes()
    with sharing(store):
        first = shared_gradient(compile_expression("1.3*x^2+0.9*x*y", names), 0, ["x", "y"])
        second = shared_gradient(compile_expression("2.8*x^2+7*x*y", names), 0, ["x", "y"])
    assert len(store.entries) == 1
    x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
    half = sp.Rational(9, 10)
    assert first == {"x": sp.Rational(13, 5) * x + half * y, "y": half * x}
    assert second == {"x": sp.Rational(28, 5) * x + 7 * y, "y": 7 * x}


def stream(lines: list[str]) -> list[dict]:
    out = io.StringIO()
    run_jobs(lines, out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


EXACT = {"pi/6": sp.pi / 6}


def test_a_stream_answers_each_job_with_its_own_derivative_and_exact_values() -> None:
    jobs = [
        ("1.3*x^2+0.9*x*y", {"x": "1.66", "y": "0.279"}),
        ("1.3*x^2+0.8*x*y", {"x": "1.66", "y": "0.279"}),
        ("1.3*x^2+0.9*x*z", {"x": "1.66", "z": "0.279"}),
        ("2.5*sin(x)*y", {"x": "0.5", "y": "2"}),
        ("1.5*sin(x)*y", {"x": "pi/6", "y": "2"}),
        ("1.5*sin(x)*y", {"x": "1/3", "y": "2"}),
    ]
    answers = stream([json.dumps({"expr": e, "at": at}) for e, at in jobs])
    assert [a["check"]["status"] for a in answers] == ["agree"] * len(jobs)
    assert answers[0]["symbolic"] == {"x": "13x/5 + 9y/10", "y": "9x/10"}
    assert answers[1]["symbolic"] == {"x": "13x/5 + 4y/5", "y": "4x/5"}
    assert answers[2]["symbolic"] == {"x": "13x/5 + 9z/10", "z": "9x/10"}
    for (text, at), answer in zip(jobs, answers):
        names = tuple(at)
        own = own_gradient(text, names)
        point = {sp.Symbol(n, real=True): EXACT.get(v) or sp.Rational(v) for n, v in at.items()}
        for name in names:
            exact = own[name].xreplace(point)
            assert answer["gradient"][name] == pytest.approx(float(exact), rel=1e-14)
            if name in answer["exact"]:  # where given, it is the exact value
                assert sp.simplify(read_back(answer["exact"][name]) - exact) == 0
            elif exact.is_Rational:  # a rational value is always given
                pytest.fail(f"no exact value for d/d{name} {text}")
    # at pi/6 the exact value simplifies and is given: 1.5*cos(pi/6)*2 = 3*sqrt(3)/2
    assert answers[4]["exact"] == {"x": "3 sqrt(3)/2", "y": "3/4"}


def test_a_disagreement_is_never_found_with_a_shared_derivative() -> None:
    """A (deliberately) wrong shared derivative is caught: the check falls back to the
    expression's own derivative, which agrees with the tape."""
    store = Shapes()
    names = ("x", "y")
    with sharing(store):
        shared_gradient(compile_expression("1.3*x^2+0.9*x*y", names), 0, ["x", "y"])
    (shape,) = store.entries.values()
    x = sp.Symbol("x", real=True)
    shape.derivatives[0, "x"] = shape.derivatives[0, "x"] + x  # corrupt it
    store.given.clear()
    with sharing(store):
        graph = compile_expression("1.7*x^2+0.3*x*y", names)
        (result,) = gradient_at(graph, parse_at(["x=2,y=3"]), None, Options(strict=False))
    assert result.check is not None and result.check.status == "agree"
    assert str(result.check.partials["x"].derivative) == "17*x/5 + 3*y/10"


@given(expressions(leaf=False), st.sampled_from(["x", "y", "z"]))
def test_shared_values_are_the_exact_values(text: str, source: str) -> None:
    """In a stream, a value at a point of plain numbers is computed from the shared shape:
    exactly (a fraction) for a rational function, else to 30 digits -- either way the value
    of the expression's own derivative there."""
    names = ("x", "y", "z")
    point = {"x": "0.375", "y": "1.25", "z": "2.5"}
    exact_point = {sp.Symbol(n, real=True): sp.Rational(v) for n, v in point.items()}
    graph = compile_expression(text, names)
    with sharing(Shapes()):
        try:
            shared_gradient(graph, 0, [source])
        except (ValueError, ZeroDivisionError):
            return
        found = shared_value(graph, 0, source, point)
    if found is None:  # no shape (no number to share) or not evaluable there: sympy's path
        return
    own = own_gradient(text, names)[source].xreplace(exact_point)
    if isinstance(found, Fraction):
        assert sp.Rational(found.numerator, found.denominator) == own, text
        return
    value = complex(own.evalf(40))
    if found != found:  # NaN: not a real number there
        assert value != value or value.imag != 0 or not own.is_finite, text
        return
    assert value.imag == 0 and abs(found - value.real) <= 1e-14 * max(1.0, abs(value.real)), text


@pytest.mark.parametrize(
    "text", ["sum(2.5*v)", "2.5*v[0] + v[1]", "sum(1.5*X, axis=0)[0]", "dot(v, v)*0.5"]
)
def test_tensor_expressions_are_never_shared(text: str) -> None:
    assert shape_of(compile_expression(text, ("v", "X"))) is None


def test_a_shared_power_is_sized_before_it_is_built() -> None:
    """(x^999)^999 at a 20-digit x: the shared rational derivative would be a power of
    about 10^8 bits, computed in C past any deadline; it is refused before it is built and
    each job of the shape is checked at 50 digits instead (x rounds to 1.0: d/dx = c*998001)."""
    jobs = [
        json.dumps({"expr": f"{c}*(x^999)^999", "at": {"x": "1.0000000000000000001"}})
        for c in ("2.5", "3.5")
    ]
    for c, answer in zip((2.5, 3.5), stream(jobs)):
        assert answer["check"]["status"] == "agree", answer["check"]
        assert "50-digit" in answer["check"]["meaning"], answer["check"]
        assert answer["gradient"]["x"] == pytest.approx(c * 998001, rel=1e-12)


@given(
    st.fractions(min_value=-20, max_value=20, max_denominator=12),
    st.fractions(min_value=-20, max_value=20, max_denominator=12),
)
def test_a_rational_function_is_evaluated_as_sympy_evaluates_it(a: Fraction, b: Fraction) -> None:
    """The exact evaluator (numerators and denominators reduced once, at the end) gives
    sympy's value, and refuses (ZeroDivisionError) where sympy's is undefined."""
    x, y = sp.symbols("x y", real=True)
    expr = (3 * x**2 / (1 + x) - y**-2 + sp.Rational(7, 3) * x * y) ** 3 + 1 / (x - y)
    exact = _Exact(expr, [x, y])
    want = expr.xreplace({x: sp.Rational(a.numerator, a.denominator), y: sp.Rational(str(b))})
    if not want.is_finite:
        with pytest.raises(ZeroDivisionError):
            exact([a, b])
    else:
        got = exact([a, b])
        assert sp.Rational(got.numerator, got.denominator) == want
