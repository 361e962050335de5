"""The lexer: hostile text is refused fast with a caret on the culprit, nesting is bounded while
tokenising, and statements are split where the text says."""

from __future__ import annotations

import random

import pytest

from gradcalc.core.errors import InputError
from gradcalc.lang.lexer import MAX_DEPTH, Lexer
from gradcalc.lang.parser import parse_program
from tests.hostile_inputs import HOSTILE
from tests.lang.trees import expr, refusal, shape


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


def test_variables_must_be_names_that_are_not_functions() -> None:
    for bad in ["sin", "2x", "a b", "__x", "not"]:
        with pytest.raises(InputError):
            parse_program("1", [bad])


def test_statements_are_split_at_semicolons_and_newlines_with_their_equals() -> None:
    statements = Lexer("a = 1;\n\n b = a(2)\r\n a + b").run()
    assert [[lexeme for _, lexeme, _ in s.tokens] for s in statements] == [
        ["a", "=", "1"],
        ["b", "=", "a", "(", "2", ")"],
        ["a", "+", "b"],
    ]
    assert [s.equals for s in statements] == [1, 1, None]
    assert [s.tokens[0][2] for s in statements] == [0, 9, 20]  # columns into the whole text


def test_pasted_math_symbols_read_as_ascii_at_their_column() -> None:
    (statement,) = Lexer("2·x² − π").run()
    assert [(lexeme, column) for _, lexeme, column in statement.tokens] == [
        ("2", 0),
        ("*", 1),
        ("x", 2),
        ("^", 3),
        ("2", 3),
        ("-", 5),
        ("pi", 7),
    ]


# --- superscripts, ÷ -------------------------------------------------------------------------

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def test_superscript_powers_are_the_powers_typed_with_a_caret() -> None:
    from gradcalc.engine.evaluate.points import constant_value

    rng = random.Random(99)
    for power in [*range(10), *rng.sample(range(10, 100), 12)]:
        name = rng.choice(["x", "t", "w1", "theta", "speed", "q_2"])
        typed = name + str(power).translate(_SUPERSCRIPT)
        assert shape(expr(typed)) == shape(expr(f"{name}^{power}")), typed
        base = rng.choice([1.5, 0.75, 1.03125, 2.0])  # exact in binary: Python's power is true
        assert constant_value(f"{base}{str(power).translate(_SUPERSCRIPT)}") == base**power
    assert constant_value("2⁻¹") == 0.5
    assert shape(expr("x ÷ 2")) == shape(expr("x / 2"))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("x⁻", "a superscript minus needs its digits: x⁻¹ is x^-1"),
        ("x² ³", "write the power with ^, as in (x^2)^3 or x^23"),
        ("xⁿ", "write the power with ^: xⁿ is x^n"),
        ("x₁", "write the index as a plain 1, as in x1"),
    ],
)
def test_a_superscript_that_cannot_be_read_is_refused_with_the_exact_rewrite(text, fragment):
    assert fragment in refusal(text).message


# --- a power after a superscript, raised letters, roots and dashes -------------------------


def test_a_power_after_a_superscript_is_refused_and_both_rewrites_mean_what_they_say() -> None:
    """x²^3 could be (x²)^3 or x^(2^3): refused, with both. Each rewrite is then computed by
    gradcalc and compared with Python's exact integers for the reading it claims."""
    from fractions import Fraction

    from gradcalc.engine.evaluate.points import constant_value

    rng = random.Random(2024)
    for _ in range(10):
        base = rng.choice([2, 3, 5, 7])
        power = rng.choice([2, 3, 4, 5])
        k = rng.choice([-2, -1, 2, 3])
        typed = f"{base}{str(power).translate(_SUPERSCRIPT)}^{k}"
        refused = refusal(typed)
        assert refused.column == typed.index("^")
        own, tower = f"({base}^{power})^{k}", f"{base}^({power}^{k})"
        assert f"write {own};" in refused.message and refused.message.endswith(f"write {tower}")
        exact = Fraction(base) ** (power * k)  # (floats: within a rounding or two of it)
        assert constant_value(own) == pytest.approx(float(exact), rel=1e-15)
        if k > 0:  # (a fractional tower: no exact number to compare with)
            tall = Fraction(base) ** (power**k)
            assert constant_value(tower) == pytest.approx(float(tall), rel=1e-14)
    for typed in ("x²^3", "x² ^ 3", "x²**3", "(x+1)²^-1", "2^x²^2"):
        assert "is ambiguous" in refusal(typed).message, typed


def test_a_superscript_after_a_power_is_the_power_of_its_own_atom() -> None:
    """2^x² is 2^(x^2) -- as x²'s superscript binds its atom tightest (Python's 2**(x**2))."""
    from gradcalc.engine.run.api import grad

    rng = random.Random(5)
    for _ in range(6):
        base, x = rng.choice([2, 3, 1.5]), rng.choice([0.5, 1.25, 2.0])
        power = rng.choice([2, 3])
        typed = f"{base}^x{str(power).translate(_SUPERSCRIPT)}"
        assert float(grad(typed, at={"x": x}, check=False).value) == pytest.approx(
            base ** (x**power), rel=1e-14
        )


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("e⁻ˣ", "write the power with ^: e⁻ˣ is e^(-x)"),
        ("eˣ", "write the power with ^: eˣ is e^x"),
        ("2 + tʸ", "tʸ is t^y"),
        ("xⁿ⁺¹", "xⁿ⁺¹ is x^(n+1)"),
        ("3(1+t)ᵏ", "(1+t)ᵏ is (1+t)^k"),
        ("√x + 1", "write the root as a function: √x is sqrt(x)"),
        ("√(x + 1)", "√(x + 1) is sqrt(x + 1)"),
        ("∛x", "∛x is cbrt(x)"),
        ("x – 1", "it looks like a minus sign but is not one: write -"),
        ("½x", "write the fraction with /: ½ is (1/2)"),
        ("x + ¾", "¾ is (3/4)"),
        ("⅔y", "⅔ is (2/3)"),
        ("x — 1", "write - (the ASCII minus)"),
        ("x⋅y", "it looks like a product sign: write * for a product"),  # LaTeX's \\cdot
        ("x∗y", "write * for a product"),
        ("x‧y", "write * for a product"),  # (a dot called HYPHENATION POINT)
        ("|x - 1| + 2", "write abs(x - 1) for |x - 1|"),
        ("2*|x|+|y|", "write abs(x) for |x|"),
    ],
)
def test_a_pasted_symbol_is_refused_with_what_to_type(text: str, fragment: str) -> None:
    assert fragment in refusal(text).message
