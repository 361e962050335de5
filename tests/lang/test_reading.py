"""How input is read: the "read as" notation, the ambiguity warnings, the Unicode allow-list."""

from __future__ import annotations

import math
import random
import re

import pytest

from gradcalc.core.errors import InputError
from gradcalc.engine.run.api import grad
from gradcalc.lang.parser import parse_program
from gradcalc.lang.reading import ambiguities, read_as, value_warnings
from gradcalc.lang.unparsing import unparse


def value(text: str, **at: float) -> float:
    return float(grad(text, at=at, check=False).value)


@pytest.mark.parametrize(
    ("typed", "read", "meant", "write", "x", "strict", "other"),
    [
        # the strict reading's value and the other reading's value at x = 2, by hand
        ("e^2x", "e^2·x", "e^(2·x)", "e^(2x)", 2.0, math.e**2 * 2, math.e**4),
        ("x^1/2", "(x^1)/2", "x^(1/2)", "x^(1/2)", 2.0, 1.0, math.sqrt(2)),
        ("1/2x", "(1/2)·x", "1/(2·x)", "1/(2x)", 2.0, 1.0, 0.25),
        ("x/2y", "(x/2)·y", "x/(2·y)", "x/(2y)", 2.0, 2.0, 0.5),
        ("e^-2x", "e^-2·x", "e^(-2·x)", "e^(-2x)", 2.0, 2 * math.e**-2, math.e**-4),
        ("x^3/2", "(x^3)/2", "x^(3/2)", "x^(3/2)", 2.0, 4.0, 2**1.5),
        ("e^2(x+1)", "e^2·(x + 1)", "e^(2·(x + 1))", "e^(2(x+1))", 2.0, 3 * math.e**2, math.e**6),
        # the whole product before the quotient is quoted, as typed
        ("2x/3y", "(2·x/3)·y", "2·x/(3·y)", "2x/(3y)", 2.0, 8 / 3, 2 / 3),
        ("(x+1)/2y", "((x + 1)/2)·y", "(x + 1)/(2·y)", "(x+1)/(2y)", 2.0, 3.0, 0.75),
        ("sin(x)*x/2y", "(sin(x)·x/2)·y", "sin(x)·x/(2·y)", "sin(x)*x/(2y)", 2.0,
         2 * math.sin(2), math.sin(2) / 2),
        # powers group to the right: e^x^2 is e^(x^2), where (e^x)^2 may be meant
        ("e^x^2", "e^(x^2)", "(e^x)^2", "(e^x)^2", 3.0, math.e**9, math.e**6),
        ("x^2^3", "x^(2^3)", "(x^2)^3", "(x^2)^3", 2.0, 256.0, 64.0),
        ("e^(x)^3", "e^(x^3)", "(e^x)^3", "(e^x)^3", 2.0, math.e**8, math.e**6),
        # a superscript on a number exponent: x^3² is x^9, where (x^3)^2 = x^6 is likely
        ("x^3²", "x^(3^2)", "(x^3)^2", "(x^3)^2", 2.0, 512.0, 64.0),
        ("x**3²", "x^(3^2)", "(x^3)^2", "(x^3)^2", 2.0, 512.0, 64.0),
        ("2^1.5³", "2^(1.5^3)", "(2^1.5)^3", "(2^1.5)^3", 2.0, 2**3.375, 2**4.5),
    ],
)  # fmt: skip
def test_each_ambiguous_pattern_warns_with_both_readings(
    typed, read, meant, write, x, strict, other
) -> None:
    program = parse_program(typed, variables=["y"])
    (warning,) = ambiguities(program)
    assert warning == f"{typed} is read as {read}; if you mean {meant}, write {write}"
    at = {"x": x, "y": x}
    assert value(typed, **at) == pytest.approx(strict)  # the strict reading is what is computed
    assert value(read, **at) == pytest.approx(strict)  # "read as" reads back the same
    assert value(write, **at) == pytest.approx(other)  # the suggestion gives the other one
    assert value(meant, **at) == pytest.approx(other)


@pytest.mark.parametrize(
    "text",
    [
        *("x^2/2", "x^4/2", "(x^3)/2", "x^(3)/2", "e^(2x)", "1/(2x)", "e^2 x", "x²y", "x^2*y"),
        *("1/2*x", "(x/2)y", "(e^2)x", "(1/2)(x+1)", "x^3/0", "x^-2/0.0"),
        *("e^(x^2)", "(e^x)^2", "e^x²", "x**y**z", "2^(3^x)", "x^(3²)", "(x^3)²", "x^2²"),
    ],
)
def test_unambiguous_texts_do_not_warn(text) -> None:
    assert ambiguities(parse_program(text)) == []


def test_warnings_come_from_every_statement() -> None:
    program = parse_program("a = 1/2x; b = x^1/2; a + b")
    assert [w.split(" is read")[0] for w in ambiguities(program)] == ["1/2x", "x^1/2"]


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("3*w1**2+2*w1*w2", "3·w1^2 + 2·w1·w2"),
        ("y = x^2; z = y^2", "y = x^2; z = y^2"),
        ("r*cos(t), r*sin(t)", "r·cos(t), r·sin(t)"),
        ("-x^2", "-(x^2)"),
        ("2^3^2", "2^(3^2)"),  # (powers group to the right: said, not left to be known)
        ("E*pi + e", "e·pi + e"),
        ("2x^1/2", "(2·x^1)/2"),
        ("a/b/c", "(a/b)/c"),
        ("x*y/z", "x·y/z"),
        # the natural logarithm is written ln, whichever was typed: log is never base 10
        ("log(x) + ln(x^2)", "ln(x) + ln(x^2)"),
        ("log10(x)", "log10(x)"),
    ],
)
def test_read_as_is_canonical_and_reads_back_to_the_same_tree(typed, read) -> None:
    program = parse_program(typed)
    assert read_as(program) == read
    again = parse_program(read)
    assert [unparse(s.expr) for s in again.statements] == [
        unparse(s.expr) for s in program.statements
    ]


@pytest.mark.parametrize(
    ("typed", "warned"),
    [
        ("x^1/2", True),
        ("x^1/5", True),
        ("x^2/3", True),
        ("x^3/2", True),
        ("x^2/4", False),  # a coefficient: nobody writes x^(1/2) as x^2/4
        ("x^3/6", False),
        ("x^2/12", False),
        ("x^2/5", False),  # (the read-as line shows (x^2)/5 all the same)
        ("x^4/2", False),
        ("(x^1)/2", False),
    ],
)
def test_a_power_over_a_number_is_warned_only_when_it_looks_like_a_root(typed, warned) -> None:
    assert bool(ambiguities(parse_program(typed))) is warned


@pytest.mark.parametrize(
    ("pasted", "ascii_text"),
    [
        ("3x² − 2·x×y", "3x^2 - 2*x*y"),
        ("x³ + π", "x^3 + pi"),
        ("2πx", "2*pi*x"),
        ("−x²", "-x^2"),
        ("(x+1)²", "(x+1)^2"),
        ("x⁴ + x²² − x⁻¹", "x^4 + x^22 - x^-1"),
        ("x ÷ 2", "x / 2"),
    ],
)
def test_the_unicode_allow_list_reads_as_its_ascii(pasted, ascii_text) -> None:
    assert unparse(parse_program(pasted).statements[0].expr) == unparse(
        parse_program(ascii_text).statements[0].expr
    )


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("x² ³", 3, "two superscripts"),
        ("x ∶ 2", 2, "U+2236"),  # (a ratio sign) not on the list: still refused
        ("xⁿ", 1, "U+207F"),
        ("x – 1", 2, "U+2013"),  # an en dash is not a minus sign
        ("√x", 0, "U+221A"),
        ("x^²", 2, "found '^'"),
    ],
)
def test_characters_off_the_allow_list_are_refused_at_their_column(text, column, fragment):
    with pytest.raises(InputError) as caught:
        parse_program(text)
    assert caught.value.column == column
    assert fragment in str(caught.value)


def test_errors_after_a_unicode_symbol_point_at_the_typed_column() -> None:
    with pytest.raises(InputError) as caught:
        parse_program("π² + + ")
    assert caught.value.column == 5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sin x^2", "sin x^2 needs parentheses: write sin(x^2) or sin(x)^2"),
        ("2 cos t**3", "cos t^3 needs parentheses: write cos(t^3) or cos(t)^3"),
        ("sin x", "'sin' is a function: write sin(x)"),
        ("log 2", "'log' is a function: write log(2)"),
        ("sin^2(x)", "write a power of a function as sin(x)^2, not sin^2(x)"),
    ],
)
def test_a_function_without_parentheses_names_both_readings(text, message) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        parse_program(text)


@pytest.mark.parametrize(
    ("text", "typed", "base", "inner"),
    [
        ("X @ W^T", "W^T", "W", "W"),
        ("(a+b)^T", "(a+b)^T", "(a + b)", "a + b"),
        ("softmax(z)^T", "softmax(z)^T", "softmax(z)", "softmax(z)"),
    ],
)
def test_a_power_to_t_warns_that_it_is_no_transpose(text, typed, base, inner) -> None:
    (warning,) = ambiguities(parse_program(text))
    assert warning == (
        f"{typed} is read as {base} to the power T; for the transpose of {base}, "
        f"write transpose({inner})"
    )
    # the suggestion is valid text; a variable T that a statement assigns is plainly a power
    parse_program(f"transpose({inner})")
    assert ambiguities(parse_program("T = 2; x^T")) == ambiguities(parse_program("x^t")) == []


# --- values: read as expressions are, warned about the same way --------------------------------


def test_a_value_like_k_over_m_pi_is_warned_about_and_read_as_documented() -> None:
    from gradcalc.engine.evaluate.points import constant_value

    rng = random.Random(7)
    for _ in range(8):
        k, m = rng.randint(1, 10**9), rng.randint(2, 10**9)
        constant, value = rng.choice([("pi", math.pi), ("e", math.e)])
        text = f"{k}/{m}{constant}"
        assert value_warnings([text]) == [
            f"{text} is read as ({k}/{m})·{constant}; if you mean {k}/({m}·{constant}), "
            f"write {k}/({m}{constant})"
        ]
        assert constant_value(text) == pytest.approx(k / m * value, rel=1e-15)
    assert value_warnings(["1/(2pi)", "pi/4", "3", "[[1, 2], [3, 1/2e]]"]) == [
        "1/2e is read as (1/2)·e; if you mean 1/(2·e), write 1/(2e)"
    ]


# --- function notation, the function's own name, scientific notation -------------------------


def test_a_one_letter_name_applied_to_a_variable_warns_and_is_the_product() -> None:
    """y(x) is y·x: warned about, and computed as the product (sympy's derivative of it)."""
    import sympy as sp

    rng = random.Random(31)
    letters = [c for c in "abcdfghjkmnpqrsuvwyzABCDFGHKLMNPQRSUVWYZ"]
    for _ in range(10):
        head = rng.choice([*letters, "sigma", "theta", "phi"])
        argument = rng.choice([n for n in ("x", "t", "z", "u", "r1") if n != head])
        coefficient = rng.randint(2, 10**9)
        text = f"{coefficient}{head}({argument}) + {argument}^2"
        warnings = ambiguities(parse_program(text))
        assert warnings[0].startswith(
            f"{head}({argument}) is read as {head}·{argument}, a product; gradcalc has no "
            f"unknown functions: write {head}*{argument} for the product"
        ), warnings
        point = {head: rng.randint(-9, 9), argument: rng.randint(-9, 9)}
        h, a = sp.symbols(f"{head} {argument}")
        truth = coefficient * h * a + a**2
        result = grad(text, at=point, check=False)
        for name, symbol in ((head, h), (argument, a)):
            exact = sp.diff(truth, symbol).subs({h: point[head], a: point[argument]})
            assert float(result.gradient[name]) == pytest.approx(float(exact), rel=1e-12)


def test_function_notation_names_the_function_meant() -> None:
    sigma = ambiguities(parse_program("sigma(z)"))
    assert sigma == [
        "sigma(z) is read as sigma·z, a product; gradcalc has no unknown functions: write "
        "sigma*z for the product, sigmoid(z) for the sigmoid"
    ]
    (f,) = ambiguities(parse_program("f(x)"))
    assert f.endswith("to name the function, write f(x) = ..., as in f(x) = x^2")
    (y,) = ambiguities(parse_program("y(x) + x^2"))
    assert y.endswith("; for dy/dx of an equation use diff --implicit y")
    (power,) = ambiguities(parse_program("g(t)^2"))
    assert power.startswith("g(t)^2 is read as g·t^2, a product")
    (given,) = ambiguities(parse_program("k(x)", ["k", "x"]), ["k", "x"])  # (k a variable,
    assert given.startswith("k(x) is read as k·x, a product")  # (x) still no call)


@pytest.mark.parametrize(
    ("text", "given"),
    [
        ("x(x+1)", ()),
        ("a(b+c)", ()),
        ("k(x^2)", ()),
        ("2x(1-x)", ()),
        ("y (x)", ()),  # (a space: a product written apart)
        ("w1(x) + x_2(t)", ()),  # (an index: a variable's look)
        ("k = 3; k(x)", ()),  # (assigned: a product)
        ("y(pi) + y(2)", ()),  # (a constant or a number inside: not one variable)
        ("g(x) = x^2", ()),  # (a head)
    ],
)
def test_a_group_or_a_chosen_name_before_parentheses_is_quiet(text, given) -> None:
    assert not [w for w in ambiguities(parse_program(text, given), given) if "a product" in w]


def test_a_variable_named_f_warns_that_it_is_the_functions_name() -> None:
    (warning,) = ambiguities(parse_program("f*x + x"))
    assert warning.startswith("f is a variable here, and f is also the name of the function")
    assert warning.endswith("name the function and its variables: g(f, x) = ...")
    for quiet in ("g(f, x) = f*x", "y = f*x", "x^2 + y"):
        assert ambiguities(parse_program(quiet)) == [], quiet


def test_scientific_notation_with_a_sign_warns_and_is_the_number() -> None:
    """3e-2x is 0.03·x: warned about; the derivative is Fraction-exact scientific notation,
    and the rewrite offered is the other reading (sympy's 3e - 2x)."""
    from fractions import Fraction

    import sympy as sp

    rng = random.Random(17)
    for _ in range(10):
        mantissa = rng.choice([rng.randint(2, 9), rng.randint(10, 999)])
        letter, sign, exponent = rng.choice("eE"), rng.choice("+-"), rng.randint(1, 12)
        name = rng.choice(["x", "t", "w2"])
        literal = f"{mantissa}{letter}{sign}{exponent}"
        text = f"{literal}{name} + {name}^2"
        (warning,) = ambiguities(parse_program(text))
        assert warning.startswith(f"{literal}{name} is read as ")
        write = f"{mantissa}*{letter} {sign} {exponent}{name}"
        assert warning.endswith(
            f"(scientific notation); if you mean {mantissa}{letter} {sign} {exponent}{name}, "
            f"write {write}"
        )
        number = Fraction(mantissa) * Fraction(10) ** (exponent if sign == "+" else -exponent)
        result = grad(text, at={name: 0}, check=False)
        assert float(result.gradient[name]) == pytest.approx(float(number), rel=1e-15)
        symbol = sp.Symbol(name)
        meant = mantissa * sp.E + (1 if sign == "+" else -1) * exponent * symbol + symbol**2
        other = grad(f"{write} + {name}^2", at={name: 0}, check=False)
        assert float(other.gradient[name]) == float(sp.diff(meant, symbol).subs(symbol, 0))


def test_plain_scientific_notation_and_values_alone_are_quiet() -> None:
    assert ambiguities(parse_program("x^2 + 1e-8 + 2.5e-3*x + 2e5 + 2e-x")) == []
    assert value_warnings(["2e-1", "-3e+2", "[1e-3, 2e-1]"]) == []
    assert value_warnings(["2e-1*pi"]) == [
        "2e-1 is read as 0.2 (scientific notation); if you mean 2e - 1, write 2*e - 1"
    ]


# --- a value whose exponent is cut off: 2.5e is 2.5·e, warned -----------------------------------


def test_a_value_with_its_exponent_cut_off_is_warned_with_both_readings() -> None:
    """Generated numbers ending in e or E (2.5e, 3E, 1e5e): each warned, each read as the
    multiple of Euler's e (Python's value), and the exponent offered makes it a number."""
    from gradcalc.engine.evaluate.points import constant_value

    rng = random.Random(11)
    for _ in range(40):
        mantissa = rng.choice(
            [str(rng.randint(0, 999)), f"{rng.uniform(0, 99):.3f}", f"{rng.randint(1, 9)}e5"]
        )
        sign, letter = rng.choice(["", "-", "+"]), rng.choice("eE")
        text = f"{sign}{mantissa}{letter}"
        (warning,) = value_warnings([text])
        shown = f"{sign}{mantissa}"
        assert warning.startswith(f"{text} is read as {shown}·{letter} (Euler's number); ")
        assert warning.endswith(f"; for the product, write {shown}*{letter}")
        assert constant_value(text) == pytest.approx(float(shown) * math.e, rel=1e-15)
        example = re.search(r"as in (\S+);", warning)[1]
        assert value_warnings([example]) == []  # (the number meant: no e left over)
        assert constant_value(example) == float(example)
    assert value_warnings(["[1, 2.5e]"]) == [  # (an element of a bracket literal too)
        "2.5e is read as 2.5·e (Euler's number); if you mean scientific notation, write the "
        "exponent, as in 2.5e3; for the product, write 2.5*e"
    ]
    assert value_warnings(["2.5e3", "1e-5", "e", "2*e", "2 e", "e/2"]) == []


# --- a constant's spelling given a value is a variable: warned --------------------------------


@pytest.mark.parametrize(
    ("text", "name", "constant"), [("e^x", "e", math.e), ("pi*x", "pi", math.pi)]
)
def test_a_constant_given_a_value_is_the_variable_and_is_warned(text, name, constant) -> None:
    given = {name: 0.25, "x": 2.0}
    program = parse_program(text, list(given))
    assert ambiguities(program, list(given)) == [
        f"{name} is given a value, so it is a variable here, not "
        + ("Euler's number e = 2.71828…" if name == "e" else "the constant pi = 3.14159…")
        + f"; for the constant, give {name} no value (a points file's column {name}: read the "
        "others with --columns)"
    ]
    variable = 0.25**2.0 if name == "e" else 0.25 * 2.0  # (Python: the variable's reading)
    assert value(text, **given) == pytest.approx(variable)
    assert value(text, x=2.0) == pytest.approx(constant**2.0 if name == "e" else constant * 2)


def test_a_constant_given_a_value_but_unused_is_quiet() -> None:
    assert ambiguities(parse_program("x^2", ["e", "x"]), ["e", "x"]) == []
    assert ambiguities(parse_program("E^x", ["e", "x"]), ["e", "x"]) == []  # (E: the constant)
