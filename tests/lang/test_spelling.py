"""Misspelled function names: a slip of one letter is caught, other names stay variables."""

from __future__ import annotations

import difflib
import random

import mpmath
import pytest

from gradcalc.core.ops import FUNCTION_NAMES
from gradcalc.lang.spelling import closest_function
from tests.lang.trees import expr, refusal, shape


def test_unknown_function_spelling_is_a_variable_when_declared() -> None:
    assert shape(expr("sinn(x)", ("sinn",))) == shape(expr("sinn*x"))
    assert shape(expr("k(x + 1)")) == shape(expr("k*(x + 1)"))  # not close to any function


@pytest.mark.parametrize("name", sorted(n for n in FUNCTION_NAMES if len(n) >= 4))
def test_two_neighbours_swapped_are_caught(name: str) -> None:
    typo = name[1] + name[0] + name[2:]
    if typo.lower() in {n.lower() for n in FUNCTION_NAMES}:
        return  # the typo is itself a function
    guess = closest_function(typo)
    assert guess is not None

    def ratio(word: str) -> float:
        return difflib.SequenceMatcher(None, typo.lower(), word.lower()).ratio()

    assert ratio(guess) >= ratio(name)  # the intended name, or one as close (caos: cos)


def test_names_far_from_every_function_are_not_guessed() -> None:
    for word in ["k", "speed", "theta", "velocity", "xyzzy"]:
        assert closest_function(word) is None


def test_a_misspelled_call_is_refused_with_the_guess() -> None:
    error = refusal("2*sni(x)")
    assert error.message.startswith("unknown function 'sni' — did you mean 'sin'?")
    assert error.column == 2


# --- functions of other books: refused with what works in gradcalc --------------------------

#: Each other-book name and the mpmath function it is (the truth, at high precision), with
#: a point of its real domain.
OTHER_BOOKS = [
    ("arcsec", lambda v: mpmath.asec(v), 2.5),
    ("asec", lambda v: mpmath.asec(v), -3.25),
    ("arccsc", lambda v: mpmath.acsc(v), 1.75),
    ("arccot", lambda v: mpmath.acot(v), 0.625),  # (x > 0: every convention agrees)
    ("arcsech", lambda v: mpmath.asech(v), 0.375),
    ("arccsch", lambda v: mpmath.acsch(v), -1.5),
    ("arccoth", lambda v: mpmath.acoth(v), 2.25),
    ("arctg", lambda v: mpmath.atan(v), -0.75),
    ("tg", lambda v: mpmath.tan(v), 0.5),
    ("ctg", lambda v: mpmath.cot(v), 0.875),
    ("cosec", lambda v: mpmath.csc(v), 1.25),
    ("csch", lambda v: mpmath.csch(v), 0.5),
    ("coth", lambda v: mpmath.coth(v), -1.125),
    ("arsinh", lambda v: mpmath.asinh(v), 3.5),
    ("sh", lambda v: mpmath.sinh(v), 0.25),
    ("lg", lambda v: mpmath.log10(v), 7.0),
    ("lb", lambda v: mpmath.log(v, 2), 6.0),
    ("root", lambda v: mpmath.sqrt(v), 5.0),
]


@pytest.mark.parametrize(("name", "truth", "value"), OTHER_BOOKS)
def test_another_books_function_is_refused_with_what_gradcalc_writes(name, truth, value) -> None:
    from gradcalc.engine.evaluate.points import constant_value

    error = refusal(f"2*{name}({value})")
    assert error.message.startswith(f"unknown function {name!r}: {name}({value}) is ")
    assert error.column == 2
    written = error.message.split(": write ")[1].split(" (to multiply")[0]
    with mpmath.workdps(30):
        expected = float(truth(mpmath.mpf(value)))
    assert constant_value(written) == pytest.approx(expected, rel=1e-14)


def test_a_reciprocal_after_a_slash_is_written_in_parentheses() -> None:
    assert "write (1/sinh(2x))" in refusal("2/csch(2x)").message


def test_arcsec_answer_is_right_once_written_as_gradcalc_writes_it(cli) -> None:
    right = "1/(abs(x) sqrt(x^2-1))"  # d/dx arcsec(x), the textbook's
    refused = cli("check", "arcsec(x)", "--wrt", "x", "--answer", right)
    assert refused.exit_code == 2 and "write acos(1/x)" in refused.stderr
    judged = cli("check", "acos(1/x)", "--wrt", "x", "--answer", right, "--format", "plain")
    assert judged.exit_code == 0, judged.stdout + judged.stderr


@pytest.mark.parametrize(
    ("typed", "product"),
    [
        ("x(x+1)", "x*(x+1)"),
        ("a(b+c)", "a*(b+c)"),
        ("2x(1-x)", "2*x*(1-x)"),
        ("k(x^2)", "k*(x^2)"),
        ("w1(x-1)", "w1*(x-1)"),
        ("theta(1-t)", "theta*(1-t)"),
        ("rate(1+x) + rate", "rate*(1+x) + rate"),  # a variable elsewhere: a product here
    ],
)
def test_a_variable_before_parentheses_is_still_a_product(typed, product) -> None:
    assert shape(expr(typed)) == shape(expr(product))


def test_long_unknown_names_before_parentheses_are_refused_unless_they_are_variables() -> None:
    rng = random.Random(20240607)
    letters = "bcdfghjklmnpqrvwz"  # (no vowels: no function, no Greek letter, no pi)
    for _ in range(10):
        name = "".join(rng.choice(letters) for _ in range(rng.randint(3, 8)))
        coefficient = rng.randint(1, 10**9)
        error = refusal(f"{coefficient}*{name}(x + 1)")
        assert error.message.startswith(f"unknown function {name!r}")
        assert error.message.endswith(f"(to multiply, write {name}*(...))")
        given = shape(expr(f"{name}(x + 1)", (name,)))  # a value given for it: a product
        assert given == shape(expr(f"{name}*(x + 1)"))
