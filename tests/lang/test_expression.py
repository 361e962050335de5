"""The expression parser: Python's precedence, implicit multiplication, calls, keywords and
indexing give the intended tree, and a broken expression is refused at the right column."""

from __future__ import annotations

import pytest

from gradcalc.core.ops import FUNCTION_NAMES
from gradcalc.lang.parser import parse_program
from gradcalc.lang.syntax import (
    Binary,
    Call,
    Name,
    Neg,
    Num,
)
from gradcalc.lang.unparsing import unparse
from tests.lang.trees import expr, refusal, shape


def test_columns_are_offsets_into_the_original_text() -> None:
    tree = expr("2x^y")  # implicit '*' at the 'x', '^' as a power
    assert isinstance(tree, Binary)
    assert (tree.op, tree.column) == ("mul", 1)
    assert (tree.right.op, tree.right.column) == ("pow", 2)


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("2x^y + 3 4", 9),  # after implicit multiplication and '^'
        ("2(x+1))", 6),  # unmatched ')' after implicit multiplication
        ("2x ^ (10^9)", 3),  # the exponent check points at the '^' typed
        ("x^2^2^2^2", 1),  # 2^16 as an exponent: the outermost '^'
        ("a = 1\nb = 2x^(10^9)", 12),  # offsets run through the whole text
        ("a = 1\r\nb = sin\r\nb", 11),
        ("\tx\t+\t*", 5),
        ("  sinn(x)", 2),
    ],
)
def test_error_columns(text: str, column: int) -> None:
    assert refusal(text).column == column


def test_render_shows_the_line_of_a_multiline_program() -> None:
    rendered = refusal("a = 1\nb = sin\nb").render().split("\n")
    assert rendered[1:] == ["  b = sin", "      ^"]


@pytest.mark.parametrize(
    ("text", "explicit"),
    [
        ("-x^2", "-(x**2)"),
        ("2^3^2", "2**(3**2)"),
        ("2^-1", "2**(-1)"),
        ("x**-y", "x**(-y)"),
        ("-x*y", "(-x)*y"),
        ("2^-x*y", "(2**(-x))*y"),
        ("a - b - c", "(a - b) - c"),
        ("a/b/c", "(a/b)/c"),
        ("a + b*c^d", "a + (b*(c**d))"),
        ("--x", "-(-x)"),
        ("+x", "x"),
        ("x^+2", "x**2"),
        ("x ^ y", "x ** y"),
        ("2*x^-y^z", "2*(x**(-(y**z)))"),
    ],
)
def test_precedence_and_associativity_follow_python(text: str, explicit: str) -> None:
    assert shape(expr(text)) == shape(expr(explicit))


def test_unary_minus_binds_looser_than_power() -> None:
    tree = expr("-x^2")
    assert isinstance(tree, Neg)
    assert isinstance(tree.operand, Binary)
    assert tree.operand.op == "pow"


@pytest.mark.parametrize(
    ("text", "explicit"),
    [
        ("2x", "2*x"),
        ("2 x", "2*x"),
        ("2sin(x)", "2*sin(x)"),
        ("2(x+1)", "2*(x+1)"),
        ("(x+1)(x-1)", "(x+1)*(x-1)"),
        ("x(x+1)", "x*(x+1)"),
        ("2pi", "2*pi"),
        ("x y", "x*y"),
        ("2e", "2*e"),
        ("2ex", "2*ex"),
        ("2e3x", "2e3*x"),
        ("2x^2", "2*x**2"),
        ("sin(x)cos(x)", "sin(x)*cos(x)"),
        ("pi r^2", "pi*r**2"),
        ("1/2x", "(1/2)*x"),
        ("x sin(x)", "x*sin(x)"),
    ],
)
def test_implicit_multiplication(text: str, explicit: str) -> None:
    assert shape(expr(text)) == shape(expr(explicit))
    assert unparse(expr(text)) == unparse(expr(explicit))


@pytest.mark.parametrize(
    ("text", "value"),
    [("12", 12.0), ("1.5", 1.5), (".5", 0.5), ("2.", 2.0), ("1e-3", 1e-3), ("2E+5", 2e5)],
)
def test_number_literals_keep_their_text(text: str, value: float) -> None:
    assert expr(text) == Num(value, text, 0)


def test_function_names_map_to_registry_keys() -> None:
    assert expr("Abs(x)") == Call("abs", (Name("x", 4),), 0)
    assert shape(expr("ln(x)")) == shape(expr("log(x)"))
    assert shape(expr("arctan(x)")) == shape(expr("atan(x)"))


@pytest.mark.parametrize("name", sorted(FUNCTION_NAMES))
def test_every_function_name_parses_to_its_op(name: str) -> None:
    op = FUNCTION_NAMES[name]
    count = 2 if op.variadic else op.arity
    tree = expr(f"{name}({', '.join(['x'] * count)})")
    assert isinstance(tree, Call)
    assert tree.op == op.name
    assert op.name in FUNCTION_NAMES  # so that unparse's canonical spelling parses back


def test_log_with_two_arguments_is_a_change_of_base() -> None:
    tree = expr("log(x, 2)")
    assert shape(tree) == shape(expr("log(x)/log(2)"))
    assert tree == Binary(
        "div", Call("log", (Name("x", 4),), 0), Call("log", (Num(2.0, "2", 7),), 0), 0
    )


def test_variadic_calls_fold_left() -> None:
    assert shape(expr("Max(a, b, c)")) == shape(expr("max(max(a, b), c)"))
    assert shape(expr("min(a, b, c, d)")) == shape(expr("min(min(min(a, b), c), d)"))


@pytest.mark.parametrize(
    ("text", "canonical", "reading"),
    [
        ("X @ W + b", "X@W + b", "X @ W + b"),
        ("a*X @ W", "a*X@W", "(a·X) @ W"),  # left to right, as in Python, the grouping shown
        ("X @ W/2", "X@W/2", "(X @ W)/2"),
        ("sum(X, axis=0)", "sum(X, axis=0)", "sum(X, axis=0)"),
        ("softmax(z, axis = -1)", "softmax(z, axis=-1)", "softmax(z, axis=-1)"),
        ("max(v)", "amax(v)", "amax(v)"),  # one argument: the reduction, and read as such
        ("Max(X, axis=1)", "amax(X, axis=1)", "amax(X, axis=1)"),
        ("max(x, y)", "max(x, y)", "max(x, y)"),  # two: elementwise, as before
        ("v[0] + X[1, -1]", "v[0] + X[1, -1]", "v[0] + X[1, -1]"),
        ("-v[0]^2", "-v[0]**2", "-(v[0]^2)"),  # indexing binds tightest
        ("(a + b)[2]", "(a + b)[2]", "(a + b)[2]"),
        ("2v[1]", "2*v[1]", "2·v[1]"),
    ],
)
def test_tensor_syntax_reads_as_python_would(text: str, canonical: str, reading: str) -> None:
    from gradcalc.lang.reading import read_as

    program = parse_program(text)
    assert unparse(program.statements[-1].expr) == canonical
    assert read_as(program) == reading
    again = parse_program(canonical).statements[-1].expr
    assert unparse(again) == canonical


def test_axis_and_index_are_parameters_of_the_call() -> None:
    tree = expr("sum(X, axis=-1)")
    assert isinstance(tree, Call) and tree.op == "sum" and tree.params == (("axis", -1),)
    index = expr("v[2, -1]")
    assert isinstance(index, Call) and index.op == "index"
    assert index.params == (("index", (2, -1)),) and index.args == (Name("v", 0),)
    assert expr("X @ W").op == "matmul"


@pytest.mark.parametrize("seed", range(8))
def test_a_missing_operator_before_a_number_shows_the_product_and_it_computes(seed: int) -> None:
    """``x 2^(x-1)``: the error shows the text with ``*`` put in, and that text computes the
    product meant (truth: Python's floats)."""
    import math
    import random

    from gradcalc import grad
    from gradcalc.core.errors import InputError
    from gradcalc.lang.parser import parse_program

    rng = random.Random(seed)
    left, value = rng.choice([("x", 1.5), ("sin(x)", math.sin(1.5)), ("(x + 1)", 2.5)])
    k, p = rng.randint(2, 10**9), rng.randint(1, 4)
    typed = f"{left} {k}^{p}"
    with pytest.raises(InputError) as error:
        parse_program(typed)
    suggested = error.value.message.split(", as in ")[1]
    assert suggested == f"{left}*{k}^{p}"
    computed = float(grad(suggested, at={"x": 1.5}, check=False).value)
    assert math.isclose(computed, value * k**p, rel_tol=1e-12)


@pytest.mark.parametrize("typed", ["2 3", "1.2.3", "x2 3", "y = x 2; y"])
def test_no_product_is_suggested_after_a_digit_or_in_a_program(typed: str) -> None:
    from gradcalc.core.errors import InputError
    from gradcalc.lang.parser import parse_program

    with pytest.raises(InputError, match="missing operator") as error:
        parse_program(typed)
    assert ", as in " not in error.value.message
