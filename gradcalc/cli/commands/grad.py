"""``gradcalc grad``: the gradient at a point (or many), its tape and sympy's derivative;
``--order``, ``--direction`` and ``--jobs`` too."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from gradcalc.cli.console import Writer
from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import Session, engine_options, names, number
from gradcalc.cli.options import (
    At,
    CheckTimeout,
    Cluster,
    Columns,
    Digits,
    Exact,
    IdColumn,
    Latex,
    NoCheck,
    Of,
    Order,
    PointsFile,
    ResultsOut,
    SkipBadRows,
    Subgradient,
    Wrt,
    output_option,
)
from gradcalc.cli.tensors import (
    Bind,
    Data,
    DeadShare,
    Features,
    SaturatedShare,
    Saturation,
    SaveGradients,
    Seed,
    Target,
    TensorOptions,
)
from gradcalc.core.errors import InputError


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
    at: At = None,
    points: PointsFile = None,
    skip_bad_rows: SkipBadRows = False,
    columns: Columns = None,
    id_column: IdColumn = None,
    out: ResultsOut = None,
    cluster: Cluster = None,
    wrt: Wrt = None,
    of: Of = None,
    order: Order = 1,
    direction: Annotated[
        str | None,
        typer.Option(
            "--direction", help="Derivative along this vector, e.g. 1,2 (one per source)."
        ),
    ] = None,
    no_normalize: Annotated[
        bool,
        typer.Option("--no-normalize", help="Use --direction as given, not scaled to length 1."),
    ] = False,
    output: Annotated[str, output_option("gradcalc.render.views.views:GradView")] = "table",
    no_tape: Annotated[bool, typer.Option("--no-tape", help="Do not show the tape.")] = False,
    no_check: NoCheck = False,
    exact: Exact = False,
    latex: Latex = False,
    digits: Digits = None,
    subgradient: Subgradient = False,
    check_timeout: CheckTimeout = 5.0,
    diagnose: Annotated[
        bool, typer.Option("--diagnose", help="Report whether the gradients are healthy.")
    ] = False,
    vanishing: Annotated[
        float, typer.Option("--vanishing", min=0.0, help="|gradient| below this is vanishing.")
    ] = 1e-8,
    exploding: Annotated[
        float, typer.Option("--exploding", min=0.0, help="|gradient| above this is exploding.")
    ] = 1e8,
    saturation: Saturation = 1e-4,
    data: Data = None,
    features: Features = None,
    target: Target = None,
    bind: Bind = None,
    seed: Seed = None,
    save_gradients: SaveGradients = None,
    dead_share: DeadShare = None,
    saturated_share: SaturatedShare = None,
    jobs: Annotated[
        str | None,
        typer.Option(
            "--jobs",
            metavar="FILE",
            help="Answer many jobs, one per line (JSON, or EXPRESSION x=1,y=2; - for stdin), "
            "with one JSON line each.",
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
        ),
    ] = 0,
) -> int:
    """The gradient of EXPRESSION at a point, with its tape and sympy's derivative beside it."""
    from gradcalc.cli import datasets
    from gradcalc.cli.tensors import refuse_unused, tensor_grad, wants_tensors
    from gradcalc.engine.evaluate.findings import Thresholds

    tensor_options = TensorOptions(
        data, features, target, bind, seed, save_gradients, dead_share, saturated_share
    )
    if wants_tensors(at, data):
        if jobs is not None or points is not None or direction is not None or order > 1:
            raise InputError(
                "with tensor values, grad gives the first-order gradient at one point: "
                "drop --jobs, --points, --direction and --order"
            )
        if expression is None:
            raise InputError("missing EXPRESSION")
        if of or exact or latex:
            raise InputError("--of, --exact and --latex are for scalar values, not tensors")
        report = tensor_options.thresholds(saturation, vanishing, exploding)
        timeout = None if no_check else check_timeout
        return tensor_grad(
            context, expression, at, tensor_options, wrt, output, digits, not no_tape, report,
            timeout,
        )  # fmt: skip
    refuse_unused(tensor_options)
    options = dataclasses.replace(
        engine_options(no_check, subgradient, check_timeout, exact),
        thresholds=Thresholds(vanishing, exploding, saturation),
    )
    if jobs is not None:
        if expression is not None or at or points or wrt or of:
            raise InputError("--jobs reads expressions and points from its lines: give no others")
        if output in ("csv", "plain"):
            raise InputError(
                f"--jobs answers one JSON line per job: drop --format {output} "
                "(for CSV rows, give the points with --points)"
            )
        return _run_jobs(jobs, options, context.timeout, workers)
    if workers:
        raise InputError("--workers is for a stream of jobs: give --jobs FILE, or drop it")
    if expression is None:
        raise InputError("missing EXPRESSION (or --jobs FILE for many jobs)")
    if not at and points is None and direction is None:  # no point: the formula
        return _without_point(context, expression, wrt, of, order, output, latex, check_timeout)
    if latex and no_check:
        raise InputError("--latex shows sympy's derivatives: it needs the check (drop --no-check)")
    if cluster is not None or datasets.is_directory_out(out):
        given = (expression, points, out, cluster, columns, id_column, skip_bad_rows, wrt, of)
        request = datasets.DatasetRequest(*given, digits, diagnose, latex, options)
        return datasets.run_dataset(request, (at, order, direction, output))
    session = Session(context, expression, at, points, of, skip_bad_rows, columns, id_column, wrt)
    options = dataclasses.replace(
        options,
        tape=not session.many or (output == "json" and not no_tape),
    )
    shown = _Shown(diagnose, latex, exact, not no_normalize)
    view, compute = _plan(session, options, names(wrt), order, direction, shown)
    writer = Writer(context, output, digits, not no_tape, session.many, id_column, out)
    return session.run(view, compute, writer)


@dataclasses.dataclass(frozen=True)
class _Shown:
    """How ``grad`` shows its answer: the options that choose a view, not the computation."""

    diagnose: bool
    latex: bool
    exact: bool
    normalize: bool  # (of --direction's vector)


def _plan(
    session: Session,
    options: Any,
    sources: list[str] | None,
    order: int,
    direction: str | None,
    shown: _Shown,
) -> tuple[Any, Callable[[Any], Any]]:
    """The view and the computation per chunk of points: along ``--direction``, the
    ``--order`` derivatives (the Hessian for order 2 and several sources), or the gradient."""
    from gradcalc.engine.evaluate.evaluate import source_names
    from gradcalc.engine.run import api
    from gradcalc.render.views import views
    from gradcalc.render.views.matrices import HessianView

    graph = session.graph
    if direction is not None:
        if order != 1:
            raise InputError("--direction and --order do not go together")
        vector = [number(part, "--direction") for part in direction.split(",")]
        return views.DirectionalView(shown.diagnose, shown.latex), lambda chunk: [
            api.directional_at(graph, chunk, vector, sources, shown.normalize, options)
        ]
    if order == 1:
        return views.GradView(shown.diagnose, shown.latex), lambda chunk: api.gradient_at(
            graph, chunk, sources, options
        )
    chosen = source_names(graph, sources)
    if len(chosen) > 1 and order == 2:
        return HessianView(latex=shown.latex, exact=shown.exact), lambda chunk: api.hessian_at(
            graph, chunk, chosen, options
        )
    if len(chosen) > 1:
        raise InputError(
            f"--order {order} takes one source (--wrt x); with several, --order 2 gives the Hessian"
        )
    return views.DerivativeView(shown.diagnose, shown.latex), lambda chunk: [
        api.derivatives_at(graph, chunk, chosen[0], order, options)
    ]


def _without_point(context, expression, wrt, of, order, output, latex, check_timeout) -> int:
    """``grad`` without ``--at``: the gradient (or ``--order`` derivative) as a formula."""
    from gradcalc.cli.commands.diff import point_free
    from gradcalc.cli.inputs import expression_text

    if of:
        raise InputError("--of needs a point (--at); without one, use diff on the statement")
    text = expression_text(expression, None)
    return point_free(context, text, None, wrt, order, output, latex, check_timeout)


def _run_jobs(path: str, options: Any, timeout: float, workers: int) -> int:
    """``grad --jobs``: answer each line's job on stdout, each within ``timeout`` seconds
    (0: none), in ``workers`` processes (0: one per CPU); the exit status of the stream."""
    from gradcalc.cli.jobs import run_jobs
    from gradcalc.core.workers import available
    from gradcalc.io.files import open_stdin, open_text

    count = workers or available()
    with open_stdin("the jobs") if path == "-" else open_text(path, "jobs file") as stream:
        return run_jobs(stream, sys.stdout, timeout=timeout, workers=count, **vars(options))
