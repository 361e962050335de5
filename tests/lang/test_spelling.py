"""Misspelled function names: a slip of one letter is caught, other names stay variables."""

from __future__ import annotations

import difflib

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
