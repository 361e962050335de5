"""engine.evaluate.names: a point must name every variable; a missing one is told with what
it most likely is, in every command that takes a point."""

from __future__ import annotations

import pytest

from gradcalc.core.errors import InputError
from gradcalc.engine.evaluate.names import as_product, require_values
from gradcalc.engine.run.api import compile_expression


@pytest.mark.parametrize(
    ("expression", "given", "said"),
    [
        ("x^2", ["y"], "no value given for x (use --at x=...)"),
        ("x*y + z", ["x", "y"], "no value given for z (use --at z=...)"),
        ("xy + x", ["x", "y"], "; xy is one name: for a product write x*y"),
        ("X^2", ["x"], "; names are case-sensitive: you gave x, not X"),
    ],
)
def test_a_missing_value_is_named_with_its_likely_meaning(expression, given, said) -> None:
    with pytest.raises(InputError) as refused:
        require_values(compile_expression(expression), given)
    assert said in str(refused.value)


def test_every_variable_given_passes_whatever_else_is_given() -> None:
    require_values(compile_expression("x*y"), ["y", "x", "unused"])


@pytest.mark.parametrize(
    ("name", "variables", "product"),
    [
        ("xy", ["x", "y"], "x*y"),
        ("xyx", ["x", "y"], "x*y*x"),
        ("w1w2", ["w1", "w2", "w"], "w1*w2"),  # the longest name first
        ("x", ["x"], None),  # one name is no product
        ("xq", ["x", "y"], None),
    ],
)
def test_a_name_made_of_variables_side_by_side_is_their_product(name, variables, product):
    assert as_product(name, variables) == product


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("grad", ("x^2*y", "--at", "x=1")),
        ("check", ("x^2*y", "--at", "x=1", "--expect", "2,1")),
        ("taylor", ("x^2*y", "--at", "x=1")),
        ("plot", ("x^2*y", "--at", "x=1")),
    ],
)
def test_every_command_with_a_point_says_which_value_is_missing(cli, command, args) -> None:
    done = cli(command, *args)
    assert done.exit_code == 2 and "no value given for y (use --at y=...)" in done.stderr


@pytest.mark.parametrize(("text", "meant"), [("ex", "e*x"), ("pix", "pi*x")])
def test_a_constant_glued_to_the_variable_given_is_offered_as_a_product(cli, text, meant):
    """``ex`` with x given is e·x, not a misspelling of x (diff says the same)."""
    done = cli("grad", text, "--at", "x=1")
    assert done.exit_code == 2 and f"did you mean {meant}?" in done.stderr, done.stderr
    assert "not x" not in done.stderr
