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
        *("e^(x^2)", "(e^x)^2", "e^x²", "x**y**z", "2^(3^x)"),
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
