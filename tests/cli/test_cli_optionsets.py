"""Option sets and the panels of ``--help``: every command's options are in a panel, a flag
means the same in every command that offers it, and a set's flags gather into its object."""

from __future__ import annotations

import inspect
from typing import Annotated

import pytest
import typer.main

from gradcalc.cli.app import COMMANDS, build
from gradcalc.cli.commands.optionsets import (
    CheckOptions,
    Offer,
    OutputOptions,
    PointOptions,
    option_sets,
)
from gradcalc.cli.options import PANELS

#: Flags whose help (and default) is the command's own, each for its reason; their panel is
#: still the same everywhere.
OWN_WORDS = {
    "--format": "the choices are the formats of the command's view (graph: dot by default)",
    "--out": "what is written differs: result rows, a plot, a drawing",
    "--order": "taylor's is the degree of the polynomial (default 2)",
    "--latex": "what is printed as LaTeX: derivatives, or check's answers",
    "--implicit": "diff differentiates the equation; check judges your dY/dx on it",
    "--in": "critical searches the region; check judges the points in it",
    "--plot": "what is drawn: the fitted curve, or the path downhill",
    "--at": "diff's is a point on the curve of --implicit only",
}


def _options(name: str) -> list:
    command = typer.main.get_command(build((name,))).commands[name]
    return [p for p in command.params if p.param_type_name == "option"]


CELLS = [(name, option) for name in COMMANDS for option in _options(name)]


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_of_every_command_is_in_a_panel(name: str) -> None:
    for option in _options(name):
        assert option.rich_help_panel in PANELS.values(), (name, option.opts)


def test_a_flag_means_the_same_in_every_command_that_offers_it() -> None:
    seen: dict[str, tuple[str, tuple]] = {}
    shared = set()
    for name, option in CELLS:
        flag = option.opts[0]
        said = (option.rich_help_panel, option.help, option.default, option.show_default)
        if flag not in seen:
            seen[flag] = (name, said)
            continue
        shared.add(flag)
        first, before = seen[flag]
        assert said[0] == before[0], (flag, first, name)  # the panel, always
        if flag not in OWN_WORDS:
            assert said == before, (flag, first, name)
    # the table of exceptions holds only flags that are offered more than once
    assert set(OWN_WORDS) <= shared
    assert {"--at", "--wrt", "--digits", "--check-timeout", "--no-check"} <= shared


def test_grads_function_takes_a_few_objects() -> None:
    from gradcalc.cli.commands.grad import grad

    own = inspect.signature(grad.__wrapped__).parameters  # type: ignore[attr-defined]
    assert len(own) <= 10, list(own)
    flags = inspect.signature(grad).parameters
    assert len(flags) > 30 and "check_timeout" in flags and "check" not in flags


def test_grads_help_shows_the_panels_in_order(cli) -> None:
    text = cli.invoke(["grad", "--help"], terminal_width=100).stdout
    titles = [line[:-1] for line in text.splitlines() if line.endswith(" options:")]
    assert titles == [
        "Point options",
        "Derivative options",
        "Output options",
        "Check options",
        "Diagnostics options",
        "Data options",
        "Jobs options",
    ]
    assert text.index("Check options:") < text.index("--no-check") < text.index("Diagnostics")


def test_a_set_is_offered_as_flags_and_gathered_back() -> None:
    @option_sets
    def command(
        context,
        *,
        point: Annotated[PointOptions, Offer("at")],
        check: Annotated[CheckOptions, Offer()],
    ):
        return point, check

    assert list(inspect.signature(command).parameters) == [
        "context",
        "at",
        "no_check",
        "check_timeout",
    ]
    point, check = command(None, at=["x=1"], no_check=True, check_timeout=1.0)
    assert point == PointOptions(at=["x=1"]) and point.points is None  # not offered: default
    assert check == CheckOptions(no_check=True, check_timeout=1.0)


def test_an_offer_of_no_such_option_or_a_format_without_its_view_is_refused() -> None:
    with pytest.raises(TypeError, match="no option nope"):

        @option_sets
        def wrong(context, *, point: Annotated[PointOptions, Offer("nope")]):
            return 0

    with pytest.raises(TypeError, match="view="):

        @option_sets
        def viewless(context, *, shown: Annotated[OutputOptions, Offer("output")]):
            return 0
