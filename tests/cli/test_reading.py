"""--at with a bare value, and the reading in every format (the matrix: test_promises.py)."""

from __future__ import annotations

import pytest

from gradcalc.cli.reading import given_names, named_at
from gradcalc.core.errors import InputError


def test_a_bare_value_is_the_one_variable(cli) -> None:
    assert named_at(["3"], "x^2") == ["x=3"]
    done = cli("grad", "x^2", "--at", "3", "--format", "plain")
    assert done.exit_code == 0 and done.stdout.split() == ["6"]  # d/dx x^2 at 3, by hand


def test_a_bare_value_with_several_variables_is_refused_with_the_names() -> None:
    with pytest.raises(InputError, match=r"write --at x=\.\.\.,y=\.\.\."):
        named_at(["3"], "x*y")


def test_given_names() -> None:
    assert given_names(["a=1,b=atan2(1, 2)"]) == ["a", "b"]
