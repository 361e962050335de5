"""``gradcalc grad``: the gradient at a point (or many), its tape and sympy's derivative;
``--order``, ``--direction`` and ``--jobs`` too."""

from __future__ import annotations

import dataclasses
import inspect
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from gradcalc.cli.commands.optionsets import (
    CheckOptions,
    DataOptions,
    DerivativeOptions,
    DiagnosticsOptions,
    Offer,
    OutputOptions,
    PointOptions,
    option_sets,
)
from gradcalc.cli.console import Writer
from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import Session, engine_options, names, number
from gradcalc.cli.options import PANELS, option_names
from gradcalc.core.errors import InputError


@option_sets
def grad(
    context: AppContext,
    expression: Annotated[
        str | None,
        typer.Argument(
            metavar="EXPRESSION",
            show_default=False,
            help='The expression or program, e.g. "3*w1^2 + 2*w1*w2"; - reads it from stdin '
            "(and @FILE from FILE, with gradcalc --file). Leave it out with --jobs.",
        ),
    ] = None,
    *,
    point: Annotated[PointOptions, Offer()],
    derivative: Annotated[DerivativeOptions, Offer()],
    display: Annotated[OutputOptions, Offer(view="gradcalc.render.views.views:GradView")],
    check: Annotated[CheckOptions, Offer()],
    diagnostics: Annotated[DiagnosticsOptions, Offer()],
    dataset: Annotated[DataOptions, Offer()],
    jobs: Annotated[
        str | None,
        typer.Option(
            "--jobs",
            metavar="FILE",
            help="Answer many jobs, one per line (JSON, or EXPRESSION x=1,y=2; - for stdin), "
            "with one JSON line each. Options that do not apply to every job (--at, --order, "
            "--out, --digits, ...) are refused.",
            rich_help_panel=PANELS["jobs"],
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=0,
            max=64,
            metavar="N",
            help="With --jobs: answer the jobs in N processes (at most 64), in input order "
            "all the same (0: one per CPU on Linux, one elsewhere).",
            rich_help_panel=PANELS["jobs"],
        ),
    ] = 0,
) -> int:
    """The gradient of EXPRESSION at a point, with its tape and sympy's derivative beside it."""
    from gradcalc.cli.tensors import refuse_unused, wants_tensors

    at, points, output = point.at, point.points, display.output
    if jobs is not None:
        sets = (point, derivative, display, check, diagnostics, dataset)
        flat = {k: v for s in sets for k, v in vars(s).items()}
        _refuse_with_jobs(context, {**flat, "expression": expression, "workers": workers})
    if wants_tensors(at, dataset.data):
        return _tensors(
            context, expression, point, derivative, display, check, diagnostics, dataset
        )
    refuse_unused(dataset, diagnostics)
    options = dataclasses.replace(
        engine_options(check.no_check, derivative.subgradient, check.check_timeout, display.exact),
        thresholds=diagnostics.thresholds(),
    )
    if jobs is not None:
        return _run_jobs(jobs, options, context.timeout, workers)
    if workers:
        raise InputError("--workers is for a stream of jobs: give --jobs FILE, or drop it")
    if expression is None:
        raise InputError("missing EXPRESSION (or --jobs FILE for many jobs)")
    if not at and points is None and derivative.direction is None:  # no point: the formula
        return _without_point(context, expression, derivative, display, check.check_timeout)
    if display.latex and check.no_check:
        raise InputError("--latex shows sympy's derivatives: it needs the check (drop --no-check)")
    wrt, of = derivative.wrt, derivative.of
    if point.cluster is not None or (display.out is not None and _dataset_out(display.out)):
        from gradcalc.cli import datasets

        given = (expression, points, display.out, point.cluster, point.columns, point.id_column)
        shown = (display.digits, diagnostics.diagnose, display.latex)
        request = datasets.DatasetRequest(*given, point.skip_bad_rows, wrt, of, *shown, options)
        return datasets.run_dataset(request, (at, derivative.order, derivative.direction, output))
    chosen = (point.skip_bad_rows, point.columns, point.id_column, wrt)
    session = Session(context, expression, at, points, of, *chosen)
    tape = not display.no_tape
    rows = not session.many or (output == "json" and tape)
    options = dataclasses.replace(options, tape=rows)
    one_table = output == "table" and not session.many
    view, compute = _plan(session, options, derivative, display, diagnostics.diagnose, one_table)
    writer = Writer(
        context, output, display.digits, tape, session.many, point.id_column, display.out
    )
    return session.run(view, compute, writer)


#: The options ``--jobs`` honours for every job: each job is answered as ``grad --format json
#: --no-tape`` answers its point, with these (JSON always carries the diagnostics).
JOBS_HONOUR = frozenset(
    {"jobs", "workers", "no_tape", "no_check", "check_timeout", "subgradient", "exact"}
    | {"diagnose", "vanishing", "exploding", "saturation"}
)
_POINTS_ONLY = "it is for --points, and each job's point is on its line"
_TENSOR_OPTIONS = "data features target bind seed save_gradients dead_share saturated_share"
#: Why each other option is refused with ``--jobs``, and what to do; an option not named
#: here (a new one too) is refused all the same, with :data:`JOBS_ELSE`.
JOBS_REFUSED = {
    "expression": "each line holds its job's expression (and its point)",
    "at": 'each line holds its job\'s point ("at": {"x": 1}, or x=1 after the expression)',
    "points": "each line holds its job's point (for CSV rows of many points, drop --jobs)",
    **dict.fromkeys(("skip_bad_rows", "columns", "id_column", "cluster"), _POINTS_ONLY),
    "wrt": 'give it in each job: "wrt": ["x"]',
    "of": 'give it in each job: "of": ["y"]',
    "order": 'give it in each job: "order": 3',
    **dict.fromkeys(
        ("direction", "no_normalize"),
        "a job gives the gradient: the directional derivative is its dot product with the "
        "direction, or run grad --direction on the points",
    ),
    "latex": 'the answers are JSON lines, whose "symbolic" holds sympy\'s derivatives',
    "digits": "JSON answers keep every digit of float64",
    "out": "the answers go to stdout, one JSON line per job: redirect it (> FILE)",
    **dict.fromkeys(_TENSOR_OPTIONS.split(), "tensor values are for one point: drop --jobs"),
}
JOBS_ELSE = "each job is answered as grad --format json --no-tape answers it"


def _refuse_with_jobs(context: AppContext | None, values: dict[str, Any]) -> None:
    """Refuse every option given with ``--jobs`` that it would not honour for every job
    (:data:`JOBS_HONOUR`): given on the command line (even as its default: ``--format
    table``), or with a value other than its default. ``values``: grad's options."""
    parameters = inspect.signature(grad).parameters
    given = set(getattr(context, "given", None) or ()) | {
        name for name, value in values.items() if value != parameters[name].default
    }
    output = values["output"]
    if "output" in given and output != "json":
        raise InputError(
            f"--jobs answers one JSON line per job: drop --format {output} "
            "(for CSV rows, give the points with --points)"
        )
    for name in parameters:
        if name in given and name not in JOBS_HONOUR | {"output"}:
            flag = _flag(parameters[name])
            raise InputError(f"--jobs does not take {flag}: {JOBS_REFUSED.get(name, JOBS_ELSE)}")


def _flag(parameter: inspect.Parameter) -> str:
    """How an option of grad is written (``--id`` for ``id_column``; EXPRESSION)."""
    return next(iter(option_names(parameter.annotation)), parameter.name.upper())


def _dataset_out(out: str) -> bool:
    """Whether ``--out`` names a dataset to write (the dataset modules are imported only for
    an ``--out``)."""
    from gradcalc.cli.datasets import is_directory_out

    return is_directory_out(out)


_ONE_TENSOR_POINT = (
    "with tensor values, grad gives the first-order gradient at one point: "
    "drop --jobs, --points, --direction and --order"
)


def _tensors(
    context: AppContext,
    expression: str | None,
    point: PointOptions,
    derivative: DerivativeOptions,
    display: OutputOptions,
    check: CheckOptions,
    diagnostics: DiagnosticsOptions,
    dataset: DataOptions,
) -> int:
    """``grad`` with tensor values (:func:`gradcalc.cli.tensors.tensor_grad`)."""
    from gradcalc.cli.tensors import tensor_grad

    if point.points is not None or derivative.direction is not None or derivative.order > 1:
        raise InputError(_ONE_TENSOR_POINT)
    if expression is None:
        raise InputError("missing EXPRESSION")
    if derivative.of or display.exact or display.latex:
        raise InputError("--of, --exact and --latex are for scalar values, not tensors")
    if display.out is not None or point.id_column is not None or point.cluster is not None:
        raise InputError(
            "--out, --id and --cluster are for the rows of many points; tensor values are one "
            "point: redirect the output instead (> FILE)"
        )
    report = diagnostics.layer_thresholds()
    timeout = None if check.no_check else check.check_timeout
    return tensor_grad(
        context, expression, point.at, dataset, derivative.wrt, display.output, display.digits,
        not display.no_tape, report, timeout,
    )  # fmt: skip


def _plan(
    session: Session,
    options: Any,
    derivative: DerivativeOptions,
    display: OutputOptions,
    diagnose: bool,
    one_table: bool,
) -> tuple[Any, Callable[[Any], Any]]:
    """The view and the computation per chunk of points: along ``--direction``, the
    ``--order`` derivatives (the Hessian for order 2 and several sources), or the gradient,
    with its tangent line where it is shown (``one_table``: the table of one point)."""
    from gradcalc.engine.evaluate.evaluate import source_names
    from gradcalc.engine.run import api
    from gradcalc.render.views import views

    graph, sources, order = session.graph, names(derivative.wrt), derivative.order
    tangent = dataclasses.replace(options, tangent=one_table)  # (the gradient's views show it)
    if derivative.direction is not None:
        if order != 1:
            raise InputError("--direction and --order do not go together")
        vector = [number(part, "--direction") for part in derivative.direction.split(",")]
        normalize = not derivative.no_normalize
        return views.DirectionalView(diagnose, display.latex), lambda chunk: [
            api.directional_at(graph, chunk, vector, sources, normalize, tangent)
        ]
    if order == 1:
        return views.GradView(diagnose, display.latex), lambda chunk: api.gradient_at(
            graph, chunk, sources, tangent
        )
    chosen = source_names(graph, sources)
    if len(chosen) > 1 and order == 2:
        from gradcalc.render.views.matrices import HessianView

        view = HessianView(latex=display.latex, exact=display.exact)
        return view, lambda chunk: api.hessian_at(graph, chunk, chosen, options)
    if len(chosen) > 1:
        raise InputError(
            f"--order {order} takes one source (--wrt x); with several, --order 2 gives the Hessian"
        )
    return views.DerivativeView(diagnose, display.latex), lambda chunk: [
        api.derivatives_at(graph, chunk, chosen[0], order, options)
    ]


def _without_point(
    context: AppContext,
    expression: str,
    derivative: DerivativeOptions,
    display: OutputOptions,
    check_timeout: float,
) -> int:
    """``grad`` without ``--at``: the gradient (or ``--order`` derivative) as a formula."""
    from gradcalc.cli.commands.diff import point_free
    from gradcalc.cli.inputs import expression_text

    if derivative.of:
        raise InputError("--of needs a point (--at); without one, use diff on the statement")
    text = expression_text(expression, None)
    wrt, order, output, latex = derivative.wrt, derivative.order, display.output, display.latex
    return point_free(context, text, None, wrt, order, output, latex, check_timeout)


def _run_jobs(path: str, options: Any, timeout: float, workers: int) -> int:
    """``grad --jobs``: answer each line's job on stdout, each within ``timeout`` seconds
    (0: none), in ``workers`` processes (0: one per CPU); the exit status of the stream."""
    from gradcalc.cli.jobs import run_jobs
    from gradcalc.core.workers import available
    from gradcalc.io.lines import open_lines

    count = workers or available()
    with open_lines(path, "jobs file") as lines:  # (each line decoded on its own)
        return run_jobs(lines, sys.stdout, timeout=timeout, workers=count, **vars(options))
