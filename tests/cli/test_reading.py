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


@pytest.mark.parametrize(
    "args",
    [
        ["critical", "sin(x)", "--in", "x=0..1/2pi", "--format", "json"],
        ["critical", "sin(x)", "--in", "x=0..1/2pi"],
        ["plot", "sin(x)", "--range", "0:1/2pi"],
    ],
)
def test_a_region_or_ranges_ends_are_warned_about_as_values_are(cli, args) -> None:
    """--in x=0..1/2pi ends at (1/2)·pi = pi/2, as --at x=1/2pi is: the output says so."""
    done = cli(*args)
    warning = "1/2pi is read as (1/2)·pi; if you mean 1/(2·pi), write 1/(2pi)"
    assert done.exit_code == 0 and warning in done.output, done.output
    if "json" in args:
        import json

        assert json.loads(done.stdout)["warnings"] == [warning]
        assert json.loads(done.stdout)["region"]["x"][1] == pytest.approx(1.5707963267948966)


def test_bound_values_are_the_ends_as_typed() -> None:
    from gradcalc.cli.reading import bound_values

    assert bound_values("x=-1/2e..2, y = pi/4..sqrt(2)", "..") == ["-1/2e", "2", "pi/4", "sqrt(2)"]
    assert bound_values(None, "..") == [] and bound_values("-pi:1/2pi", ":") == ["-pi", "1/2pi"]
