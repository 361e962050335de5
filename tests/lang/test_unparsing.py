"""Unparsing: only the parentheses needed, and the text parses back to the same tree."""

from __future__ import annotations

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from gradcalc.core.errors import InputError
from gradcalc.core.ops import FUNCTION_NAMES
from gradcalc.lang.syntax import (
    Binary,
    Call,
    Const,
    Name,
    Neg,
    Node,
    Num,
)
from gradcalc.lang.unparsing import unparse
from tests.lang.trees import expr, shape


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("a - (b - c)", "a - (b - c)"),
        ("(a - b) - c", "a - b - c"),
        ("a + (b + c)", "a + (b + c)"),
        ("(-x)^2", "(-x)**2"),
        ("(2^3)^2", "(2**3)**2"),
        ("2^(3^2)", "2**3**2"),
        ("a/(b*c)", "a/(b*c)"),
        ("(a*b)/c", "a*b/c"),
        ("-(a+b)", "-(a + b)"),
        ("-(a*b)", "-(a*b)"),
        ("(-a)*b", "-a*b"),
        ("x^(-y)", "x**-y"),
        ("a*(-b)", "a*-b"),
        ("(x+1)^(y*2)", "(x + 1)**(y*2)"),
        ("Max(a,b,c)", "max(max(a, b), c)"),
        ("log(x, 2)", "log(x)/log(2)"),
        ("2.^.5", "2.**.5"),
    ],
)
def test_unparse_uses_only_the_parentheses_needed(text: str, canonical: str) -> None:
    assert unparse(expr(text)) == canonical
    assert shape(expr(canonical)) == shape(expr(text))


_LEAVES = st.one_of(
    st.integers(0, 10**6).map(lambda n: Num(float(n), str(n), 0)),
    st.floats(0, 1e6, allow_nan=False, allow_infinity=False).map(lambda v: Num(v, repr(v), 0)),
    st.sampled_from(["pi", "E"]).map(lambda name: Const(name, 0)),
    st.sampled_from(["x", "y", "theta", "a1", "gamma"]).map(lambda name: Name(name, 0)),
)


_CALLABLE = sorted({op.name: op for op in FUNCTION_NAMES.values()}.values(), key=lambda o: o.name)


def _calls(operand: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    def call(op):
        count = 2 if op.variadic else op.arity
        return st.tuples(*[operand] * count).map(lambda args: Call(op.name, args, 0))

    return st.sampled_from(_CALLABLE).flatmap(call)


def _extend(operand: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    binary = st.tuples(st.sampled_from(["add", "sub", "mul", "div", "pow"]), operand, operand)
    return st.one_of(
        binary.map(lambda t: Binary(t[0], t[1], t[2], 0)),
        operand.map(lambda o: Neg(o, 0)),
        _calls(operand),
    )


TREES = st.recursive(_LEAVES, _extend, max_leaves=25)


@pytest.mark.slow
@given(TREES)
@settings(max_examples=300, deadline=None)
def test_unparse_round_trips_random_trees(tree: Node) -> None:
    text = unparse(tree)
    try:
        reparsed = expr(text)
    except InputError as error:  # random constants may overflow: refused on purpose
        if error.message.startswith(("constant too large", "exponent too large")):
            reject()
        raise
    assert shape(reparsed) == shape(tree)
    assert unparse(reparsed) == text


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("e^kx", "e^(kx)"),  # (the whole name is the exponent: kx, not k·x)
        ("e^(kx)", "e^(kx)"),
        ("2^sinx", "2^(sinx)"),
        ("e^(k x)", "e^(k·x)"),
        ("2^w1 + e^theta + x^t", "2^w1 + e^theta + x^t"),
    ],
)
def test_a_product_like_name_as_an_exponent_is_read_in_parentheses(text, read) -> None:
    from gradcalc.lang.parser import parse_program

    program = parse_program(text)
    assert unparse(program.statements[0].expr, reading=True) == read
    assert unparse(parse_program(read).statements[0].expr) == unparse(program.statements[0].expr)
