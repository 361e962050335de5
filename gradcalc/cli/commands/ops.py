"""``gradcalc ops``: every function, operator and constant, its rule and its domain."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from gradcalc.cli.context import AppContext
from gradcalc.cli.options import Format
from gradcalc.core.errors import ExitCode, InputError


def ops(
    context: AppContext,
    names: Annotated[
        list[str] | None,
        typer.Argument(metavar="[NAME]...", help="Show only these (e.g. sin ^ pi)."),
    ] = None,
    output: Annotated[
        Format,
        typer.Option(
            "--format", case_sensitive=False, help="table, json or plain (tab-separated)."
        ),
    ] = Format.table,
) -> int:
    """Every function, operator and constant expressions may use: derivative rule, domain."""
    from gradcalc.apps import catalog

    if output is Format.csv:
        raise InputError("ops prints --format table, json or plain")
    entries = [catalog.entry(name) for name in names] if names else catalog.catalog()
    if output is Format.json:
        print(json.dumps(catalog.to_json(entries), ensure_ascii=False))
    elif output is Format.plain:
        print("\n".join(catalog.plain_lines(entries)))
    else:
        console = context.console()
        for part in catalog.tables(entries):
            console.print(part)
    return ExitCode.OK
