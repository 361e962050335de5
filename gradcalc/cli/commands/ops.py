"""``gradcalc ops``: every function, operator and constant, its rule and its domain."""

from __future__ import annotations

from typing import Annotated

import typer

from gradcalc.cli.console import show
from gradcalc.cli.context import AppContext
from gradcalc.cli.options import output_option
from gradcalc.core.errors import ExitCode


def ops(
    context: AppContext,
    names: Annotated[
        list[str] | None,
        typer.Argument(metavar="[NAME]...", help="Show only these (e.g. sin ^ pi)."),
    ] = None,
    output: Annotated[str, output_option("gradcalc.apps.views:CatalogView")] = "table",
) -> int:
    """Every function, operator and constant expressions may use: derivative rule, domain."""
    from gradcalc.apps import catalog
    from gradcalc.apps.views import CatalogView

    entries = [catalog.entry(name) for name in names] if names else catalog.catalog()
    show(context, CatalogView(), entries, output)
    return ExitCode.OK
