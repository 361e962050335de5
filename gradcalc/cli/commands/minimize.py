"""``gradcalc minimize``: follow the tape's gradients downhill to a minimum."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from gradcalc.cli.commands.optionsets import DataOptions, DiagnosticsOptions, Offer, option_sets
from gradcalc.cli.console import progress_bar, show_plot
from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import expression_text
from gradcalc.cli.options import PANELS, Digits, Expression, PlotOut, output_option
from gradcalc.core.errors import ExitCode, InputError

METHOD = PANELS["method"]


class Method(str, enum.Enum):
    """Optimisation methods of ``gradcalc minimize``."""

    gd = "gd"
    momentum = "momentum"
    adam = "adam"
    bfgs = "bfgs"


@option_sets
def minimize(
    context: AppContext,
    expression: Expression,
    start: Annotated[
        list[str],
        typer.Option(
            "--from",
            metavar="NAME=VALUE,...",
            help="The starting point, e.g. x=-1.2,y=1.",
            rich_help_panel=PANELS["point"],
        ),
    ],
    method: Annotated[
        Method, typer.Option("--method", help="The method.", rich_help_panel=METHOD)
    ] = Method.gd,
    lr: Annotated[
        float | None,
        typer.Option(
            "--lr",
            help=(
                "Learning rate (default: gd searches each step's length; momentum 1e-3, "
                "adam 1e-2; with tensor values, gd 1e-3)."
            ),
            rich_help_panel=METHOD,
        ),
    ] = None,
    steps: Annotated[
        int,
        typer.Option("--steps", min=1, help="At most this many steps.", rich_help_panel=METHOD),
    ] = 10_000,
    tol: Annotated[
        float,
        typer.Option(
            "--tol",
            min=0.0,
            help="Stop when the gradient norm is below this.",
            rich_help_panel=METHOD,
        ),
    ] = 1e-10,
    every: Annotated[
        int | None,
        typer.Option(
            "--every", min=1, help="Record every K-th step in the path.", rich_help_panel=METHOD
        ),
    ] = None,
    output: Annotated[str, output_option("gradcalc.apps.views:MinimumView")] = "table",
    plot: Annotated[
        bool,
        typer.Option(
            "--plot",
            help="Draw the value along the path (with --out and two variables: the path too).",
            rich_help_panel=PANELS["output"],
        ),
    ] = False,
    out: PlotOut = None,
    digits: Digits = None,
    *,
    dataset: Annotated[DataOptions, Offer("data", "features", "target", "bind", "seed")],
    diagnostics: Annotated[
        DiagnosticsOptions, Offer("saturation", "dead_share", "saturated_share")
    ],
) -> int:
    """Follow the tape's gradients downhill from --from to a minimum of EXPRESSION; with
    tensor values (--data, --from W=randn(4,8)), train them and report the layers before
    and after."""
    from gradcalc.apps.optimize import minimize as optimize
    from gradcalc.apps.views import MinimumView
    from gradcalc.cli.reading import given_names, given_values, show_read
    from gradcalc.cli.tensors import refuse_unused, tensor_train, wants_tensors
    from gradcalc.lang.intake import read

    if wants_tensors(start, dataset.data):
        if plot:
            raise InputError("--plot draws a path of scalars: with tensors, use --format json")
        training = {"method": method.value, "lr": lr, "steps": steps, "tol": tol, "every": every}
        thresholds = diagnostics.layer_thresholds()
        return tensor_train(
            context, expression, start, dataset, training, output, digits, thresholds
        )
    refuse_unused(dataset, diagnostics)
    text = expression_text(expression, None)
    reading = read(text, given_names(start), values=given_values(start))
    with progress_bar(context, steps, "minimizing") as advance:
        result = optimize.minimize(text, start, method.value, lr, steps, tol, every, advance)
    show_read(context, MinimumView(), result, output, [reading], digits)
    if plot:
        from gradcalc.apps.plot import plot as plotting

        values = [s.value for s in result.path]
        taken = [s.step for s in result.path]
        title = f"{text} by {result.method}"
        if out is not None and len(result.point) == 2:
            path = {name: [s.point[name] for s in result.path] for name in result.point}
            plotting.descent_plot(text, path, values, taken, out, title)
            text_plot = None
        else:
            text_plot = plotting.loss_plot(values, out, title, steps=taken)
        show_plot(text_plot, out)
    return ExitCode.OK if result.converged else ExitCode.CHECK_FAILED
