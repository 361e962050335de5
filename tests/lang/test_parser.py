"""The expression parser: hostile text is refused fast with a caret in the right place, and
well-formed text gives the intended tree, which ``unparse`` writes back faithfully."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from gradcalc.core.errors import InputError
from gradcalc.core.ops import FUNCTION_NAMES
from gradcalc.lang.parser import (
    MAX_DEPTH,
    Binary,
    Call,
    Const,
    Name,
    Neg,
    Node,
    Num,
    children,
    parse_constant,
    parse_program,
    postorder,
    unparse,
)
from tests.hostile_inputs import HOSTILE


def expr(text: str, variables: tuple[str, ...] = ()) -> Node:
    """The tree of a text's last statement."""
    return parse_program(text, variables).statements[-1].expr


def shape(node: Node) -> tuple:
    """A tree as nested tuples, without columns (iterative, so it copes with deep trees)."""
    done: list[tuple] = []
    for item in postorder(node):
        count = len(children(item))
        operands = tuple(done[len(done) - count :])
        del done[len(done) - count :]
        fields = tuple(
            getattr(item, f.name)
            for f in dataclasses.fields(item)
            if f.name not in ("column", "args", "left", "right", "operand")
        )
        done.append((type(item).__name__, *fields, operands))
    return done[0]


def refusal(text: str, variables: tuple[str, ...] = ()) -> InputError:
    with pytest.raises(InputError) as caught:
        parse_program(text, variables)
    return caught.value


# --- hostile input ---------------------------------------------------------------------------


def _label(case: tuple[str, str]) -> str:
    text = case[0]
    return ascii(text if len(text) <= 40 else f"{text[:20]}...({len(text)} chars)")


@pytest.mark.parametrize(("text", "fragment"), HOSTILE, ids=[_label(c) for c in HOSTILE])
def test_hostile_input_is_refused_with_a_caret_on_the_culprit(text: str, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_program(text)
    error = caught.value
    assert fragment in error.message
    assert "\n" not in error.message
    assert error.text == text
    assert 0 <= error.column < len(text)
    line, caret = error.render().split("\n")[-2:]
    assert caret.strip() == "^"
    culprit = text[error.column]
    shown = culprit if culprit.isprintable() else "�"  # invisible characters are not echoed
    assert line[caret.index("^")] == shown  # the caret sits under the culprit


def test_hostile_list_is_broad() -> None:
    assert len(HOSTILE) >= 45
    assert len({text for text, _ in HOSTILE}) == len(HOSTILE)


@pytest.mark.parametrize("text", ["(" * 100_000, "-" * 100_000 + "x", "+-" * 50_000 + "x"])
def test_nesting_bombs_are_refused_at_the_limit(text: str) -> None:
    error = refusal(text)  # at the limit's column: the rest of the text is never read
    assert "nested too deeply" in error.message
    assert error.column == MAX_DEPTH


def test_nesting_at_the_limit_is_fine() -> None:
    text = "(" * MAX_DEPTH + "x" + ")" * MAX_DEPTH
    assert shape(expr(text)) == shape(expr("x"))
    assert "nested too deeply" in refusal("(" + text + ")").message


def test_unicode_lookalike_is_named() -> None:
    error = refusal("2*\u0445")
    assert error.message.startswith("character U+0445 (CYRILLIC SMALL LETTER HA) is not allowed")
    assert error.column == 2


def test_empty_program() -> None:
    for text in ["", "  ", " ; \n ;"]:
        error = refusal(text)
        assert error.message.startswith("empty program")
        assert error.column == 0


def test_variables_must_be_names_that_are_not_functions() -> None:
    for bad in ["sin", "2x", "a b", "__x", "not"]:
        with pytest.raises(InputError):
            parse_program("1", [bad])


# --- columns ---------------------------------------------------------------------------------


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


# --- trees -----------------------------------------------------------------------------------


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


def test_constants_and_variables() -> None:
    assert expr("pi") == Const("pi", 0)
    assert expr("e") == Const("E", 0)
    assert expr("E") == Const("E", 0)
    assert expr("e", ("e",)) == Name("e", 0)
    assert expr("pi", ("pi",)) == Name("pi", 0)
    program = parse_program("e = e + 1; e")  # assigned: a variable from then on, not before
    assert program.statements[0].expr.left == Const("E", 4)
    assert program.statements[1].expr == Name("e", 11)
    for word in ["gamma", "beta", "N", "S", "I", "exec", "eval", "lambda", "import", "E1"]:
        assert expr(word) == Name(word, 0)


def test_pi_and_functions_cannot_be_assigned() -> None:
    assert "cannot assign to 'pi'" in refusal("pi = 3; pi").message
    assert "cannot assign to 'exp'" in refusal("exp = 3").message


def test_unknown_function_spelling_is_a_variable_when_declared() -> None:
    assert shape(expr("sinn(x)", ("sinn",))) == shape(expr("sinn*x"))
    assert shape(expr("k(x + 1)")) == shape(expr("k*(x + 1)"))  # not close to any function


def test_programs_reassignment_and_free_variables() -> None:
    program = parse_program("c = c + b\nd = c*y; c = d - x\n\nd + c + z")
    assert [s.target for s in program.statements] == ["c", "d", "c", None]
    assert program.free_variables == ("c", "b", "y", "x", "z")
    assert [s.column for s in program.statements] == [0, 10, 19, 30]


def test_a_program_may_end_with_an_assignment() -> None:
    program = parse_program("y = x**2; z = y**2")
    assert [s.target for s in program.statements] == ["y", "z"]
    assert program.free_variables == ("x",)


def test_comma_separated_outputs() -> None:
    program = parse_program("r*cos(t), r*sin(t)")
    assert [(s.target, s.column) for s in program.statements] == [(None, 0), (None, 10)]
    assert [unparse(s.expr) for s in program.statements] == ["r*cos(t)", "r*sin(t)"]
    assert program.free_variables == ("r", "t")


def test_undefined_constants_are_left_to_the_evaluator() -> None:
    for text in ["log(-1)", "1/0", "0^-1", "log(0)", "sqrt(-1)", "1/0 + 1", "x^(1/0)"]:
        parse_program(text)


def test_parse_constant() -> None:
    assert unparse(parse_constant("pi/4")) == "pi/4"
    assert unparse(parse_constant("1/3")) == "1/3"
    assert parse_constant("sqrt(2)") == Call("sqrt", (Num(2.0, "2", 5),), 0)
    assert parse_constant("-1e-3") == Neg(Num(1e-3, "1e-3", 1), 0)
    assert unparse(parse_constant("2e")) == "2*E"


@pytest.mark.parametrize(
    ("text", "fragment", "column"),
    [
        ("x+1", "cannot contain the variable 'x'", 0),
        ("1 + sin(t)", "cannot contain the variable 't'", 8),
        ("a = 1", "not an assignment", 0),
        ("1, 2", "not a list", 3),
    ],
)
def test_parse_constant_refuses_anything_but_a_value(text: str, fragment: str, column: int) -> None:
    with pytest.raises(InputError) as caught:
        parse_constant(text)
    assert fragment in caught.value.message
    assert caught.value.column == column


# --- unparse and traversal -------------------------------------------------------------------


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


def test_postorder_visits_children_left_to_right_before_parents() -> None:
    order = [unparse(node) for node in postorder(expr("f1 - Max(a, b*c)"))]
    assert order == ["f1", "a", "b", "c", "b*c", "max(a, b*c)", "f1 - max(a, b*c)"]


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


_PIECES = ["x", "y2", "2", ".5", "1e3", "e", "pi", "sin", "Max", "log", "atan2", "sinn"]
_PIECES += ["+", "-", "*", "/", "**", "^", "(", ")", ",", "=", ";", "\n", " ", "."]
_SOUP = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


@pytest.mark.slow
@given(st.one_of(_SOUP, st.text(max_size=30)))
@settings(max_examples=500, deadline=None)
def test_any_text_parses_or_is_refused_with_a_caret_inside_it(text: str) -> None:
    try:
        program = parse_program(text)
    except InputError as error:
        assert error.text == text
        assert 0 <= error.column <= max(len(text) - 1, 0)
        assert "\n" not in error.message
        return
    if all(statement.target is None for statement in program.statements):
        for statement in program.statements:  # each output unparses to the same tree
            assert shape(expr(unparse(statement.expr))) == shape(statement.expr)


# --- size --------------------------------------------------------------------------------------


def generated(n: int) -> str:
    """``x1*sin(x2) + x2*sin(x3) + ... + xn*sin(x1)``: n terms, n variables, about 20n chars."""
    return " + ".join(f"x{i}*sin(x{i % n + 1})" for i in range(1, n + 1))


def test_a_ten_thousand_term_expression_parses() -> None:
    # its speed is benchmarks/scenario_scaling.py's business, not a wall-clock assertion here
    text = generated(10_000)
    assert len(text) > 180_000
    program = parse_program(text)
    assert program.free_variables == tuple(f"x{i}" for i in range(1, 10_001))
    assert unparse(program.statements[0].expr) == text


def test_long_statement_chains_parse() -> None:
    text = "a0 = x\n" + "".join(f"a{i} = a{i - 1}*a{i - 1}\n" for i in range(1, 3000)) + "a2999"
    program = parse_program(text)
    assert len(program.statements) == 3001
    assert program.free_variables == ("x",)


# --- tensors -----------------------------------------------------------------------------------


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


def test_tensor_ops_are_never_folded_as_constants() -> None:
    """``2 @ 3`` has no value as numbers: it is left to the evaluator, which names the shapes."""
    from gradcalc import grad
    from gradcalc.core.errors import ShapeError

    assert unparse(expr("2 @ 3 + x")) == "2@3 + x"
    with pytest.raises(ShapeError, match=r"matmul cannot take shapes \(\) and \(\)"):
        grad("2 @ 3 + x", at={"x": 1})
