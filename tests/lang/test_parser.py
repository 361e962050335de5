"""The program parser: statements, assignments and outputs, names that are variables or
constants, values, and constant folding; texts of any size and shape parse or are refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc.core.errors import InputError
from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_constant, parse_program
from gradcalc.lang.syntax import (
    Call,
    Const,
    Name,
    Neg,
    Num,
)
from gradcalc.lang.unparsing import unparse
from tests.lang.trees import expr, refusal, shape


def test_empty_program() -> None:
    for text in ["", "  ", " ; \n ;"]:
        error = refusal(text)
        assert error.message.startswith("empty program")
        assert error.column == 0


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


def test_tensor_ops_are_never_folded_as_constants() -> None:
    """``2 @ 3`` has no value as numbers: it is left to the evaluator, which names the shapes."""
    from gradcalc import grad
    from gradcalc.core.errors import ShapeError

    assert unparse(expr("2 @ 3 + x")) == "2@3 + x"
    with pytest.raises(ShapeError, match=r"matmul cannot take shapes \(\) and \(\)"):
        grad("2 @ 3 + x", at={"x": 1})


@pytest.mark.parametrize(
    ("typed", "rest", "variable"),
    [
        ("d/dx x^2", "x^2", "x"),
        ("d/dx(x^2)", "x^2", "x"),
        ("d / dt (sin(t) + 1)", "sin(t) + 1", "t"),
        ("d/dw1 3*w1**2", "3*w1**2", "w1"),
        ("d/dx 2", "2", "x"),
    ],
)
def test_leibniz_notation_is_refused_with_what_to_write(typed, rest, variable) -> None:
    with pytest.raises(InputError) as refused:
        parse_program(typed)
    assert str(refused.value) == (
        f"d/d{variable} is derivative notation, and gradcalc differentiates for you: write the "
        f"function alone ({rest}) and say the variable with --wrt {variable}"
    )
    assert parse_program(rest).free_variables in ((), (variable,))  # what it says to write works


@pytest.mark.parametrize("text", ["d/dx", "d/dx + 1", "d/dx*y", "y = d/dx; y", "dd/dx x", "d/x y"])
def test_a_ratio_of_names_d_and_dx_is_no_derivative_notation(text) -> None:
    assert "d" in " ".join(parse_program(text).free_variables)  # read, not refused


# --- function heads: f(x, y) = ..., as students write a function -------------------------


@pytest.mark.parametrize(
    ("text", "name", "parameters", "body"),
    [
        ("f(x) = x^2", "f", ("x",), "x**2"),
        ("g(y, x) = x*y^2", "g", ("y", "x"), "x*y**2"),
        ("h(t)=e^(2t)", "h", ("t",), "E**(2*t)"),
        ("f(x, y) = x", "f", ("x", "y"), "x"),  # y declared, unused: its gradient is 0
    ],
)
def test_a_function_head_is_the_function_with_its_variables(text, name, parameters, body) -> None:
    program = parse_program(text)
    assert program.parameters == parameters
    (statement,) = program.statements
    assert statement.target == name and unparse(statement.expr) == body
    graph = lower(program)
    assert graph.variables == parameters and graph.target_names == (name,)


def test_a_function_head_with_a_list_is_a_vector_function() -> None:
    program = parse_program("f(r, t) = r*cos(t), r*sin(t)")
    assert [s.target for s in program.statements] == [None, None]
    assert program.parameters == ("r", "t") and program.name == "f"


@pytest.mark.parametrize(("head", "outputs"), [("F", ("F1", "F2")), ("f", ("f1", "f2"))])
def test_a_vector_function_names_its_outputs_after_its_head(head, outputs) -> None:
    graph = lower(parse_program(f"{head}(r, t) = r*cos(t), r*sin(t)"))
    assert graph.target_names == outputs
    assert graph.read_as == f"{head} = r·cos(t), r·sin(t)"


def test_a_list_without_a_head_is_f1_f2() -> None:
    program = parse_program("r*cos(t), r*sin(t)")
    assert program.name == "" and lower(program).target_names == ("f1", "f2")


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("f(x) = a*x", "f(x) = ... uses a as well: name every variable, f(x, a) = ...", 0),
        ("f(x, x) = x", "x is named twice in f(x, x)", 5),
        ("f(2) = 3", "a function head names its variables: write f(x, y) = ...", 2),
        ("f(x,) = x", "a name is missing after ','", 3),
        ("f(x) =", "'=' needs an expression after it", 5),
        ("f(x) = x; g = 2", "f(x) = ... defines the whole function: write it alone", 10),
        ("f(sin) = 1", "'sin' is a built-in name and cannot be a variable of f(sin)", 2),
        ("sin(x) = 1", "cannot assign to 'sin': it is a function", 0),
        ("pi(x) = x", "cannot assign to 'pi': it is a constant", 0),
    ],
)
def test_a_bad_function_head_is_refused_where_it_is_wrong(text, message, column) -> None:
    with pytest.raises(InputError) as refused:
        parse_program(text)
    assert refused.value.message.startswith(message)
    assert refused.value.column == column


@pytest.mark.parametrize(
    ("text", "base"),
    [("log2(x)", "2"), ("log_2(x)", "2"), ("log_b(x)", "b"), ("log_16(x^2)", "16")],
)
def test_a_logarithm_to_a_base_says_how_to_write_it(text, base) -> None:
    with pytest.raises(InputError) as refused:
        parse_program(text)
    assert f"the logarithm to base {base} is log(x, {base})" in refused.value.message
    assert refused.value.column == 0


def test_a_head_whose_body_glues_a_named_variable_into_a_name_says_so() -> None:
    """f(x) = e^(kx): kx is one name; the fix (k*x, and k named) is offered first, and the
    fixed text then reads as the function meant (sympy's derivative of e^(k x))."""
    import random

    import sympy as sp

    from gradcalc.engine.run.api import grad

    with pytest.raises(InputError) as refused:
        parse_program("f(x) = e^(kx)")
    assert refused.value.message == (
        "f(x) = ... uses kx as well: kx is one name: if you mean k*x, write k*x and name "
        "every variable, f(x, k) = ...; else f(x, kx) = ..."
    )
    with pytest.raises(InputError) as growth:
        parse_program("P(t) = P0 e^(rt)")
    assert "rt is one name: if you mean r*t, write r*t and name every variable, P(t, P0, r)" in (
        growth.value.message
    )
    rng = random.Random(3)
    for _ in range(6):
        letter = rng.choice("abckmnpqrs")
        variable = rng.choice("xtuz")
        with pytest.raises(InputError) as glued:
            parse_program(f"g({variable}) = e^({letter}{variable}) + {variable}")
        assert f"write {letter}*{variable} and name every variable, g({variable}, {letter})" in (
            glued.value.message
        )
        fixed = f"g({variable}, {letter}) = e^({letter}*{variable}) + {variable}"
        point = {variable: rng.uniform(-1, 1), letter: rng.uniform(-2, 2)}
        v, k = sp.symbols(f"{variable} {letter}")
        truth = sp.diff(sp.exp(k * v) + v, v).subs({v: point[variable], k: point[letter]})
        value = grad(fixed, at=point, check=False).gradient[variable]
        assert float(value) == pytest.approx(float(truth), rel=1e-13)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sin2(x)", "for sin²(x) write sin(x)^2; for sin(2x) write sin(2x)"),
        ("sec2(x)", "for sec²(x) write sec(x)^2; for sec(2x) write sec(2x)"),
        (
            "cos3(t + 1)",
            "for cos³(t + 1) write cos(t + 1)^3; for cos(3(t + 1)) write cos(3(t + 1))",
        ),
        ("xsin(x)", "if you mean x*sin(x), write x*sin(x)"),
        ("xcos(x)", "if you mean x*cos(x), write x*cos(x)"),
        ("sinxcos(x)", "if you mean sin(x)*cos(x), write sin(x)*cos(x)"),
    ],
)
def test_a_power_or_a_product_run_into_a_function_name_is_refused_with_the_call(
    text, message
) -> None:
    with pytest.raises(InputError) as refused:
        parse_program(text)
    assert refused.value.message.startswith(f"unknown function {text.partition('(')[0]!r}: ")
    assert message in refused.value.message and "did you mean" not in refused.value.message


def test_beyond_float_lifts_only_the_bounds_of_constant_subexpressions() -> None:
    """A number judged exactly by sympy (``check --expect``) may be past float64; a
    literal keeps its own limit, and the default keeps every bound."""
    from gradcalc.core.errors import InputError
    from gradcalc.lang.parser import parse_constant

    for text in ("-3*289*e^4913", "400*100^399", "e^1000/e^999"):
        parse_constant(text, beyond_float=True)
        with pytest.raises(InputError, match="too large"):
            parse_constant(text)
    with pytest.raises(InputError, match="out of range"):
        parse_constant("1e400", beyond_float=True)
