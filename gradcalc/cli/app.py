"""The ``gradcalc`` command line: thin commands that parse options, call the library, render.

``main()`` maps every error to its one-line message and exit code (see
:class:`gradcalc.core.errors.ExitCode`); ``app`` is the Typer application without
that handling. Heavy imports (numpy, sympy) happen inside the commands, so
``gradcalc --help`` and ``--version`` start fast.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import enum
import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from gradcalc import __version__
from gradcalc.core.errors import ExitCode, GradcalcError, InputError

app = typer.Typer(
    name="gradcalc",
    help="Exact gradients from a reverse-mode tape, cross-checked against sympy.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class Format(str, enum.Enum):
    """Output formats."""

    table = "table"
    json = "json"
    csv = "csv"
    plain = "plain"


def _version(value: bool) -> None:
    if value:
        print(f"gradcalc {__version__}")
        raise typer.Exit()


_settings: dict[str, Any] = {"traceback": False, "color": None, "wide": False}


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
    traceback: Annotated[
        bool,
        typer.Option("--traceback", help="Show a Python traceback on errors (for bug reports)."),
    ] = False,
    color: Annotated[
        bool | None,
        typer.Option(
            "--color/--no-color",
            help="Colour on or off (default: on for a terminal, off for a pipe or with NO_COLOR).",
            show_default=False,
        ),
    ] = None,
    wide: Annotated[
        bool,
        typer.Option("--wide", help="Tables at their full width, not folded to the terminal's."),
    ] = False,
    max_cpu: Annotated[
        float,
        typer.Option(
            "--max-cpu",
            metavar="SECONDS",
            min=0.0,
            envvar="GRADCALC_MAX_CPU",
            help="Stop after this much CPU time (0: no limit).",
        ),
    ] = 600,
    max_memory: Annotated[
        float,
        typer.Option(
            "--max-memory",
            metavar="MB",
            min=0.0,
            envvar="GRADCALC_MAX_MEMORY",
            help="Cap the memory (address space) at this many MiB (0: no limit).",
        ),
    ] = 8192,
) -> None:
    """gradcalc: type an expression and a point, get exact, checked gradients."""
    _settings["traceback"] = traceback
    _settings["color"], _settings["wide"] = color, wide
    _settings["limits"] = (max_cpu, max_memory)  # applied as the command starts


def _reports_errors(command: Callable[..., None]) -> Callable[..., None]:
    """Turn gradcalc's errors into a short message on stderr and the documented exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        if _settings.get("process") and _settings.get("limits"):  # a real gradcalc process
            from gradcalc.cli import limits  # caps itself; a host (tests, a notebook) never does

            limits.apply(*_settings.pop("limits"))
        try:
            command(*args, **kwargs)
        except GradcalcError as error:
            if _settings["traceback"]:
                raise
            print(f"gradcalc: {error.render()}", file=sys.stderr)
            raise typer.Exit(error.exit_code) from None

    return wrapper


def _names(option: str | None) -> list[str] | None:
    if option is None:
        return None
    names = [n.strip() for n in option.split(",") if n.strip()]
    if not names:
        raise InputError("expected a comma-separated list of names, e.g. --wrt x,y")
    return names


# --- options shared by the commands ----------------------------------------------------

Expression = Annotated[
    str,
    typer.Argument(
        metavar="EXPRESSION",
        help='The expression or program, e.g. "3*w1^2 + 2*w1*w2"; @FILE reads it from a file, '
        "- from stdin.",
    ),
]
At = Annotated[
    list[str] | None,
    typer.Option(
        "--at",
        metavar="NAME=VALUE,...",
        help="A point, e.g. w1=5,w2=3 (values may be pi/4, 1/3, ...). Repeat for more.",
    ),
]
PointsFile = Annotated[
    str | None,
    typer.Option(
        "--points",
        metavar="FILE",
        help="CSV file of points (header = variable names); - for stdin.",
    ),
]
SkipBadRows = Annotated[
    bool,
    typer.Option(
        "--skip-bad-rows",
        help="Leave out rows of the file that are not valid points, and say how many.",
    ),
]
Wrt = Annotated[
    str | None,
    typer.Option("--wrt", metavar="NAMES", help="Differentiate with respect to these (a,b)."),
]
Of = Annotated[
    str | None,
    typer.Option("--of", metavar="NAMES", help="Program statements to differentiate (y,z)."),
]
Output = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
NoCheck = Annotated[bool, typer.Option("--no-check", help="Skip the symbolic cross-check.")]
Exact = Annotated[bool, typer.Option("--exact", help="Show exact symbolic values, however long.")]
Digits = Annotated[
    int | None, typer.Option("--digits", min=1, max=17, help="Significant digits to print.")
]
Latex = Annotated[bool, typer.Option("--latex", help="Also print sympy's derivatives as LaTeX.")]
Subgradient = Annotated[
    bool,
    typer.Option("--subgradient", help="At kinks, use the conventional value (|x|' = 0 at 0)."),
]
CheckTimeout = Annotated[
    float, typer.Option("--check-timeout", min=0.0, help="Seconds for the symbolic check.")
]


# so that "-x^2 + 1" is read as the expression, not as an option
_EXPRESSIONS_MAY_START_WITH_MINUS = {"ignore_unknown_options": True}


class _Command(TyperCommand):
    """Every command's class (set in :func:`_use_command_class`): a misspelled ``--option``
    is an error with a suggestion, although unknown options are let through so that an
    expression may start with ``-``; and the usage line shows ``EXPRESSION``, not
    ``{EXPRESSION}``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:  # (shell completion parses resiliently)
            self._refuse_unknown_options(ctx, args)
        return super().parse_args(ctx, args)

    def _refuse_unknown_options(self, ctx: Any, args: list[str]) -> None:
        import re

        from gradcalc.core.errors import closest

        known: set[str] = set()
        takes_value: set[str] = set()
        for param in self.get_params(ctx):
            if param.param_type_name == "option":
                names = [*param.opts, *param.secondary_opts]
                known.update(names)
                if not (param.is_flag or param.count):
                    takes_value.update(names)
        value_next = False
        for arg in args:
            if value_next:
                value_next = False
                continue
            if arg == "--":
                return
            name = arg.split("=", 1)[0]
            if name in known:
                value_next = name in takes_value and "=" not in arg
            elif re.fullmatch(r"--[A-Za-z][A-Za-z0-9-]*", name):
                guess = closest(name, sorted(n for n in known if n.startswith("--")))
                hint = f"; did you mean {guess}?" if guess else ""
                raise _usage_error(f"no such option {name}{hint}", ctx)

    def make_parser(self, ctx: Any) -> Any:
        """click's parser, except that a word starting with one ``-`` that is not an option
        (``-(x + erf(x))``) is an argument: click would split it into short options and take
        the ``f`` of ``erf`` as ``-f`` with the rest as its value."""
        parser = super().make_parser(ctx)
        process = getattr(parser, "_process_opts", None)
        short, long = getattr(parser, "_short_opt", None), getattr(parser, "_long_opt", None)
        if process is None or short is None or long is None:  # another click: leave it be
            return parser

        def process_opts(arg: str, state: Any) -> None:
            single_dash = not arg.startswith("--")
            if single_dash and arg[:2] not in short and arg.split("=", 1)[0] not in long:
                state.largs.append(arg)
            else:
                process(arg, state)

        parser._process_opts = process_opts
        return parser

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [
            piece[1:-1] if piece.startswith("{") and piece.endswith("}") else piece
            for piece in super().collect_usage_pieces(ctx)
        ]


def _usage_error(message: str, ctx: Any) -> Exception:
    usage_error = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
    return usage_error(message, ctx=ctx)


class _Session:
    """What every command does first: read the expression and the points, compile."""

    def __init__(
        self,
        expression: str,
        at: list[str] | None,
        points: str | None,
        of: str | None,
        skip_bad_rows: bool = False,
    ):
        from gradcalc.engine.api import compile_expression
        from gradcalc.engine.points import parse_at
        from gradcalc.io.files import Skipped

        if at and points:
            raise InputError("give points with --at or with --points, not both")
        if skip_bad_rows and not points:
            raise InputError("--skip-bad-rows is for a file of points: use it with --points")
        text = _expression_text(expression, points)
        self.skipped = Skipped() if skip_bad_rows else None
        self.chunks = _read_points(points, self.skipped) if points else iter([parse_at(at or [])])
        self.first = next(self.chunks)
        self.graph = compile_expression(text, self.first.names, _names(of))
        _misspelled_point(self.graph, self.first.names)
        given = set(self.first.names)
        missing = [v for v in self.graph.variables if v not in given]
        if points and missing:
            raise InputError(
                f"the points file has no column {missing[0]} (its columns: "
                f"{', '.join(self.first.names)}): add one, or give the points with --at"
            )
        self.many = bool(points) or len(at or []) > 1

    def each_chunk(self) -> Any:
        """Every chunk of points, the first one included."""
        yield self.first
        yield from self.chunks

    def run(self, view: Any, compute: Callable[[Any], Any], writer: _Writer) -> None:
        """Compute and write chunk by chunk, then exit with the writer's code."""
        writer.skipped = self.skipped
        for chunk in self.each_chunk():
            writer.write(view, compute(chunk))
        writer.close()
        raise typer.Exit(writer.exit_code)


def _misspelled_point(graph: Any, given: tuple[str, ...]) -> None:
    """Refuse a point that names ``yy`` but not the expression's ``y``: a misspelling."""
    from gradcalc.core.errors import closest
    from gradcalc.engine.evaluate import as_product

    used = {i for node in graph.nodes for i in node.inputs} | set(graph.targets)
    unused = [
        name
        for name in given
        if name in graph.variable_nodes and graph.variable_nodes[name] not in used
    ]
    named = set(given)
    if not unused or named.issuperset(graph.variables):
        return  # nothing to have mistaken, or nothing missing (fast for 10,000 variables)
    for name in graph.variables:
        if name in named or as_product(name, list(given)):
            continue
        guess = closest(name, unused)
        if guess is not None:
            raise InputError(
                f"no value given for {name}; did you mean {name}, not {guess}? "
                f"(the expression has no {guess})"
            )


def _options(no_check: bool, subgradient: bool, check_timeout: float, exact: bool) -> Any:
    from gradcalc.engine.api import Options

    return Options(
        check=not no_check,
        subgradient=subgradient,
        check_timeout=check_timeout,
        exact=exact,
        strict=False,
    )


@app.command(context_settings=_EXPRESSIONS_MAY_START_WITH_MINUS)
@_reports_errors
def grad(
    expression: Annotated[
        str | None,
        typer.Argument(
            metavar="EXPRESSION",
            show_default=False,
            help='The expression or program, e.g. "3*w1^2 + 2*w1*w2"; @FILE reads it from a '
            "file, - from stdin. Leave it out with --jobs.",
        ),
    ] = None,
    at: At = None,
    points: PointsFile = None,
    skip_bad_rows: SkipBadRows = False,
    wrt: Wrt = None,
    of: Of = None,
    order: Annotated[
        int,
        typer.Option(
            "--order",
            min=1,
            max=12,
            help="The N-th derivative (one source; 2 with several: Hessian).",
        ),
    ] = 1,
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
    output: Output = Format.table,
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
    saturation: Annotated[
        float,
        typer.Option(
            "--saturation",
            min=0.0,
            show_default="1e-4",
            help="An activation's slope below this: saturated.",
        ),
    ] = 1e-4,
    jobs: Annotated[
        str | None,
        typer.Option(
            "--jobs",
            metavar="FILE",
            help="Answer many jobs, one per line (JSON or EXPR<TAB>x=1,y=2; - for stdin), "
            "with one JSON line each.",
        ),
    ] = None,
) -> None:
    """The gradient of EXPRESSION at a point, with its tape and sympy's derivative beside it."""
    from gradcalc.engine import api
    from gradcalc.engine.diagnostics import Thresholds
    from gradcalc.engine.evaluate import source_names
    from gradcalc.render import views

    options = dataclasses.replace(
        _options(no_check, subgradient, check_timeout, exact),
        thresholds=Thresholds(vanishing, exploding, saturation),
    )
    if jobs is not None:
        if expression is not None or at or points or wrt or of:
            raise InputError("--jobs reads expressions and points from its lines: give no others")
        _run_jobs(jobs, options)
    if expression is None:
        raise InputError("missing EXPRESSION (or --jobs FILE for many jobs)")
    if latex and no_check:
        raise InputError("--latex shows sympy's derivatives: it needs the check (drop --no-check)")
    session = _Session(expression, at, points, of, skip_bad_rows)
    options = dataclasses.replace(
        options,
        tape=not session.many or (output is Format.json and not no_tape),
    )
    sources = _names(wrt)
    writer = _Writer(output, digits, not no_tape, session.many)
    if direction is not None:
        if order != 1:
            raise InputError("--direction and --order do not go together")
        vector = [_number(part, "--direction") for part in direction.split(",")]
        session.run(
            views.DirectionalView(diagnose, latex),
            lambda chunk: [
                api.directional_at(session.graph, chunk, vector, sources, not no_normalize, options)
            ],
            writer,
        )
    if order > 1:
        chosen = source_names(session.graph, sources)
        if len(chosen) > 1 and order == 2:
            session.run(
                views.HessianView(latex=latex),
                lambda chunk: api.hessian_at(session.graph, chunk, chosen, options),
                writer,
            )
        if len(chosen) > 1:
            raise InputError(
                f"--order {order} takes one source (--wrt x); "
                "with several, --order 2 gives the Hessian"
            )
        session.run(
            views.DerivativeView(diagnose, latex),
            lambda chunk: [api.derivatives_at(session.graph, chunk, chosen[0], order, options)],
            writer,
        )
    session.run(
        views.GradView(diagnose, latex),
        lambda chunk: api.gradient_at(session.graph, chunk, sources, options),
        writer,
    )


@app.command(context_settings=_EXPRESSIONS_MAY_START_WITH_MINUS)
@_reports_errors
def hessian(
    expression: Expression,
    at: At = None,
    points: PointsFile = None,
    skip_bad_rows: SkipBadRows = False,
    wrt: Wrt = None,
    of: Of = None,
    output: Output = Format.table,
    no_check: NoCheck = False,
    exact: Exact = False,
    latex: Latex = False,
    digits: Digits = None,
    subgradient: Subgradient = False,
    check_timeout: CheckTimeout = 5.0,
) -> None:
    """The Hessian of EXPRESSION (nested tapes), its eigenvalues and the second-derivative test."""
    from gradcalc.engine import api
    from gradcalc.render import views

    if latex and no_check:
        raise InputError("--latex shows sympy's derivatives: it needs the check (drop --no-check)")
    session = _Session(expression, at, points, of, skip_bad_rows)
    options = _options(no_check, subgradient, check_timeout, exact)
    writer = _Writer(output, digits, False, session.many)
    session.run(
        views.HessianView(latex=latex),
        lambda chunk: api.hessian_at(session.graph, chunk, _names(wrt), options),
        writer,
    )


@app.command(context_settings=_EXPRESSIONS_MAY_START_WITH_MINUS)
@_reports_errors
def jacobian(
    expression: Annotated[
        str,
        typer.Argument(
            metavar="EXPRESSION",
            help='Targets separated by commas, e.g. "r*cos(t), r*sin(t)", or a program with --of.',
        ),
    ],
    at: At = None,
    points: PointsFile = None,
    skip_bad_rows: SkipBadRows = False,
    wrt: Wrt = None,
    of: Of = None,
    output: Output = Format.table,
    no_check: NoCheck = False,
    exact: Exact = False,
    digits: Digits = None,
    subgradient: Subgradient = False,
    check_timeout: CheckTimeout = 5.0,
) -> None:
    """The Jacobian matrix of several targets (rows) by the variables (columns)."""
    from gradcalc.engine import api
    from gradcalc.render import views

    session = _Session(expression, at, points, of, skip_bad_rows)
    options = _options(no_check, subgradient, check_timeout, exact)
    writer = _Writer(output, digits, False, session.many)
    session.run(
        views.JacobianView(),
        lambda chunk: api.jacobian_at(session.graph, chunk, _names(wrt), options),
        writer,
    )


@app.command(context_settings=_EXPRESSIONS_MAY_START_WITH_MINUS)
@_reports_errors
def check(
    expression: Expression,
    at: At = None,
    expect: Annotated[
        str | None,
        typer.Option("--expect", help="Your numbers, in --wrt order: 36,10 (1/3, pi/4 work)."),
    ] = None,
    answer: Annotated[
        list[str] | None,
        typer.Option(
            "--answer", help='Your derivative: "2*x*y, x^2", or name=expr (repeat the option).'
        ),
    ] = None,
    wrt: Wrt = None,
    order: Annotated[
        int, typer.Option("--order", min=1, max=12, help="Check the N-th derivative (2: Hessian).")
    ] = 1,
    rtol: Annotated[
        float, typer.Option("--rtol", min=0.0, help="Relative tolerance for numbers.")
    ] = 1e-9,
    atol: Annotated[
        float, typer.Option("--atol", min=0.0, help="Absolute tolerance for numbers.")
    ] = 1e-12,
    output: Output = Format.table,
    latex: Annotated[
        bool, typer.Option("--latex", help="Also print the answers in LaTeX.")
    ] = False,
) -> None:
    """Check your derivative of EXPRESSION: numbers at a point, or expressions anywhere."""
    from gradcalc.apps import check as answers
    from gradcalc.render import views

    if (expect is None) == (not answer):
        raise InputError("give your answer with --expect (numbers) or with --answer (expressions)")
    if output not in (Format.table, Format.json):
        raise InputError("check prints --format table or json")
    text = _expression_text(expression, None)
    if expect is not None:
        from gradcalc.lang.literals import split_top_level

        verdicts = answers.check_expect(
            text, at or [], split_top_level(expect), _names(wrt), order, rtol, atol
        )
    else:
        verdicts = answers.check_answers(text, _answer_form(answer), _names(wrt), order, at or [])
    view = views.VerdictView(text, at, latex)
    if output is Format.json:
        print(json.dumps(view.json(verdicts)))
    else:
        console = _console()
        for part in view.table(verdicts):
            console.print(part)
    ok = [v.ok for v in verdicts]
    raise typer.Exit(ExitCode.OK if all(ok) else ExitCode.CHECK_FAILED)


class ExplainFormat(str, enum.Enum):
    """Formats of ``gradcalc explain``."""

    table = "table"
    markdown = "markdown"
    latex = "latex"


@app.command(context_settings=_EXPRESSIONS_MAY_START_WITH_MINUS)
@_reports_errors
def explain(
    expression: Expression,
    at: At = None,
    wrt: Wrt = None,
    output: Annotated[
        ExplainFormat,
        typer.Option("--format", "-f", help="A rich panel, or Markdown / LaTeX for homework."),
    ] = ExplainFormat.table,
) -> None:
    """Step by step: the forward pass, the reverse pass (the chain rule with numbers), and the
    symbolic derivative rule by rule."""
    from gradcalc.apps import explain as explaining

    if not at or len(at) != 1:
        raise InputError("explain works at one point: --at x=3")
    steps = explaining.explain(_expression_text(expression, None), at, _names(wrt))
    if output is ExplainFormat.markdown:
        print(explaining.to_markdown(steps))
    elif output is ExplainFormat.latex:
        print(explaining.to_latex(steps))
    else:
        _console().print(explaining.to_rich(steps))


class GraphFormat(str, enum.Enum):
    """Text formats of ``gradcalc graph``."""

    dot = "dot"
    mermaid = "mermaid"


@app.command(context_settings=_EXPRESSIONS_MAY_START_WITH_MINUS)
@_reports_errors
def graph(
    expression: Expression,
    at: At = None,
    wrt: Wrt = None,
    of: Of = None,
    output: Annotated[
        GraphFormat, typer.Option("--format", "-f", help="Graphviz DOT or Mermaid text.")
    ] = GraphFormat.dot,
    out: Annotated[
        str | None,
        typer.Option(
            "--out", metavar="FILE", help="Write FILE.svg / .png (needs Graphviz) or .dot instead."
        ),
    ] = None,
    digits: Digits = None,
) -> None:
    """The op graph of EXPRESSION with the value and the adjoint on every node."""
    from gradcalc.engine import api
    from gradcalc.render import drawing

    if at is not None and len(at) > 1:
        raise InputError("graph draws one point: give one --at")
    session = _Session(expression, at, None, of)
    options = api.Options(check=False, strict=False)
    (result, *rest) = api.gradient_at(session.graph, session.first, _names(wrt), options)
    if rest:
        raise InputError("graph draws one target: choose it with --of")
    if out is not None:
        drawing.render_file(drawing.to_dot(result, digits=digits), out)
        print(f"wrote {out}", file=sys.stderr)
        return
    text = drawing.to_dot if output is GraphFormat.dot else drawing.to_mermaid
    print(text(result, digits=digits))


class Method(str, enum.Enum):
    """Optimisation methods of ``gradcalc minimize``."""

    gd = "gd"
    momentum = "momentum"
    adam = "adam"
    bfgs = "bfgs"


@app.command(context_settings=_EXPRESSIONS_MAY_START_WITH_MINUS)
@_reports_errors
def minimize(
    expression: Expression,
    start: Annotated[
        list[str],
        typer.Option(
            "--from", metavar="NAME=VALUE,...", help="The starting point, e.g. x=-1.2,y=1."
        ),
    ],
    method: Annotated[Method, typer.Option("--method", help="The method.")] = Method.gd,
    lr: Annotated[
        float | None,
        typer.Option("--lr", help="Learning rate (default: gd, momentum 1e-3; adam 1e-2)."),
    ] = None,
    steps: Annotated[int, typer.Option("--steps", min=1, help="At most this many steps.")] = 10_000,
    tol: Annotated[
        float, typer.Option("--tol", min=0.0, help="Stop when the gradient norm is below this.")
    ] = 1e-10,
    every: Annotated[
        int | None, typer.Option("--every", min=1, help="Record every K-th step in the path.")
    ] = None,
    output: Annotated[
        Format, typer.Option("--format", "-f", help="table, json or csv (the path).")
    ] = Format.table,
    plot: Annotated[bool, typer.Option("--plot", help="Draw the value along the path.")] = False,
    out: Annotated[
        str | None, typer.Option("--out", metavar="FILE", help="With --plot: write FILE.png/.svg.")
    ] = None,
    digits: Digits = None,
) -> None:
    """Follow the tape's gradients downhill from --from to a minimum of EXPRESSION."""
    from gradcalc.apps import minimize as optimize
    from gradcalc.render import views

    if output is Format.plain:
        raise InputError("minimize prints --format table, json or csv")
    text = _expression_text(expression, None)
    with _progress_bar(steps, "minimizing") as advance:
        result = optimize.minimize(text, start, method.value, lr, steps, tol, every, advance)
    if output is Format.json:
        print(json.dumps(optimize.to_json(result)))
    elif output is Format.csv:
        header, rows = optimize.path_rows(result)
        out_csv = csv.writer(sys.stdout, lineterminator="\n")
        out_csv.writerow(header)
        out_csv.writerows(rows)
    else:
        for part in views.minimum_tables(result, digits):
            _console().print(part)
    if plot:
        from gradcalc.apps import plot as plotting

        values = [s.value for s in result.path]
        title = f"{text} by {result.method}"
        text_plot = plotting.loss_plot(values, out, title, steps=[s.step for s in result.path])
        _show_plot(text_plot, out)
    raise typer.Exit(ExitCode.OK if result.converged else ExitCode.CHECK_FAILED)


@contextlib.contextmanager
def _progress_bar(total: int, what: str) -> Any:
    """A rich progress bar on stderr when it is a terminal; yields the update callback."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import Progress

    with Progress(transient=True, console=_console(stderr=True)) as progress:
        task = progress.add_task(what, total=total)
        yield lambda step: progress.update(task, completed=step)


@app.command(context_settings=_EXPRESSIONS_MAY_START_WITH_MINUS)
@_reports_errors
def fit(
    model: Annotated[str, typer.Argument(metavar="MODEL", help='The model, e.g. "a*x + b".')],
    data: Annotated[str, typer.Argument(metavar="DATA", help="CSV file of the data; - for stdin.")],
    params: Annotated[
        str, typer.Option("--params", metavar="NAMES", help="The parameters to fit (a,b).")
    ],
    y: Annotated[str, typer.Option("--y", help="The column the model should match.")] = "y",
    init: Annotated[
        list[str] | None,
        typer.Option("--init", metavar="NAME=VALUE,...", help="Starting values (default 1)."),
    ] = None,
    output: Annotated[Format, typer.Option("--format", "-f", help="table or json.")] = Format.table,
    plot: Annotated[
        bool, typer.Option("--plot", help="Draw the data and the fitted curve.")
    ] = False,
    out: Annotated[
        str | None, typer.Option("--out", metavar="FILE", help="With --plot: write FILE.png/.svg.")
    ] = None,
    digits: Digits = None,
    skip_bad_rows: SkipBadRows = False,
) -> None:
    """Least-squares fit of MODEL's parameters to DATA, with the tape's Jacobian."""
    from gradcalc.apps import fit as fitting
    from gradcalc.render import views

    if output not in (Format.table, Format.json):
        raise InputError("fit prints --format table or json")
    from gradcalc.io.files import Skipped, open_stdin

    skipped = Skipped() if skip_bad_rows else None
    if data == "-":
        with open_stdin("the data file") as stream:
            columns = fitting.read_data(stream, skipped)
    else:
        columns = fitting.read_data(data, skipped)
    if skipped is not None and skipped.count:
        print(f"warning: {skipped.summary('data file')}", file=sys.stderr)
    result = fitting.fit(model, columns, params, y, init)
    if output is Format.json:
        extra = {} if skipped is None else {"skipped_rows": skipped.count}
        print(json.dumps({**fitting.to_json(result), **extra}))
    else:
        for part in views.fit_tables(result, digits):
            _console().print(part)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if plot:
        _plot_fit(result, columns, out)
    raise typer.Exit(ExitCode.OK if result.converged else ExitCode.CHECK_FAILED)


def _plot_fit(result: Any, columns: dict, out: str | None) -> None:
    from gradcalc.apps import plot

    if len(result.inputs) != 1:
        raise InputError("fit --plot draws models of one data column")
    (column,) = result.inputs
    title = f"{result.y} ≈ {result.model}"
    x, y = columns[column], columns[result.y]
    text = plot.fit_plot(x, y, result.predict, out, title, labels=(column, result.y))
    _show_plot(text, out)


def _show_plot(text: str | None, out: str | None) -> None:
    if out is not None:
        print(f"wrote {out}", file=sys.stderr)
    else:
        print(text)


@app.command(name="plot", context_settings=_EXPRESSIONS_MAY_START_WITH_MINUS)
@_reports_errors
def plot_command(
    expression: Expression,
    at: At = None,
    span: Annotated[
        str | None, typer.Option("--range", metavar="LOW:HIGH", help="The x range, e.g. -5:5.")
    ] = None,
    out: Annotated[
        str | None, typer.Option("--out", metavar="FILE", help="Write FILE.png or FILE.svg.")
    ] = None,
    width: Annotated[int, typer.Option("--width", min=40, help="Terminal plot width.")] = 80,
    height: Annotated[int, typer.Option("--height", min=12, help="Terminal plot height.")] = 24,
) -> None:
    """The function and its tangent at the point (one variable), or its contours and the
    gradient arrow (two variables, with --out)."""
    from gradcalc.apps import plot

    if not at or len(at) != 1:
        raise InputError("plot needs one point: --at x=2")
    text = _expression_text(expression, None)
    bounds = plot.parse_span(span) if span is not None else None
    _show_plot(plot.plot(text, at, bounds, out, width, height), out)


@app.command(name="ops")
@_reports_errors
def ops_command(
    names: Annotated[
        list[str] | None,
        typer.Argument(metavar="[NAME]...", help="Show only these (e.g. sin ^ pi)."),
    ] = None,
    output: Annotated[
        Format, typer.Option("--format", "-f", help="table, json or plain (tab-separated).")
    ] = Format.table,
) -> None:
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
        console = _console()
        for part in catalog.tables(entries):
            console.print(part)


@app.command()
@_reports_errors
def repl() -> None:
    """An interactive session: define f once, then ask for gradients, Hessians and checks."""
    from gradcalc.cli import repl as session

    raise typer.Exit(session.run())


def _answer_form(answers: list[str]) -> list[str] | dict[str, str]:
    """Positional answers, or ``name=expr`` ones (all of them, or none)."""
    import re

    named = [re.match(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*=(?!=)(.*)\Z", a, re.S) for a in answers]
    if not any(named):
        return answers
    if not all(named):
        raise InputError("give every --answer as name=expr, or none of them")
    return {m.group(1): m.group(2) for m in named}


def _number(text: str, option: str) -> float:
    from gradcalc.engine.points import constant_value

    try:
        return constant_value(text.strip())
    except GradcalcError as error:
        raise InputError(f"{option}: {error.message}") from None


def _run_jobs(path: str, options: Any) -> None:
    """``grad --jobs``: answer each line's job on stdout, then exit with the stream's status."""
    from gradcalc.cli.jobs import run_jobs
    from gradcalc.io.files import open_stdin, open_text

    with open_stdin("the jobs") if path == "-" else open_text(path, "jobs file") as stream:
        code = run_jobs(stream, sys.stdout, **vars(options))
    raise typer.Exit(code)


def _expression_text(argument: str, points: str | None) -> str:
    """The expression itself, or the contents of ``@FILE`` / stdin for ``-``."""
    if argument == "-":
        if points == "-":
            raise InputError("stdin cannot hold both the expression and the points")
        from gradcalc.io.files import open_stdin, read_whole

        with open_stdin("the expression") as stream:
            return read_whole(stream, "expression on stdin")
    if not argument.startswith("@"):
        return argument
    from gradcalc.io.files import read_file

    return read_file(argument[1:], "expression file")


def _read_points(path: str, skipped: Any = None) -> Any:
    """The chunks of a points file, after a first pass has checked every row: a bad row far
    down fails before anything is printed, so a partial result is never presented as
    complete. Standard input is spooled to a temporary file for the two passes. With
    ``skipped`` (--skip-bad-rows), bad rows are counted there, reported on stderr and left out.
    """
    from gradcalc.io.files import Skipped, open_stdin, open_text, read_points, spooled_copy

    with contextlib.ExitStack() as stack:
        if path == "-":
            with open_stdin("the points file") as stdin:
                stream = stack.enter_context(spooled_copy(stdin))
            size = 0
        else:
            stream = stack.enter_context(open_text(path, "points file"))
            size = os.fstat(stream.fileno()).st_size
        for _ in read_points(_with_progress(stream, size), skipped=skipped):
            pass
        if skipped is not None and skipped.count:
            print(f"warning: {skipped.summary()}", file=sys.stderr)
        stream.seek(0)
        yield from read_points(stream, skipped=None if skipped is None else Skipped())


def _with_progress(stream: Any, size: int) -> Any:
    """Yield the lines of ``stream`` (bounded: :func:`gradcalc.io.files.bounded_lines`),
    showing a progress bar on stderr when it is a terminal."""
    from gradcalc.io.files import bounded_lines

    lines = bounded_lines(stream, "points file")
    if not sys.stderr.isatty() or size < 1_000_000:
        yield from lines
        return
    from rich.progress import Progress

    with Progress(transient=True, console=_console(stderr=True)) as progress:
        task = progress.add_task("reading points", total=size)
        for n, line in enumerate(lines):
            if n % 10_000 == 0:
                progress.update(
                    task, completed=stream.buffer.tell() if hasattr(stream, "buffer") else 0
                )
            yield line


def _console(stderr: bool = False) -> Any:
    """A rich console that follows ``--color/--no-color``, ``NO_COLOR`` and ``--wide``.

    rich writes no escape codes to a pipe and takes the width from the terminal (else
    ``COLUMNS``, else 80). ``NO_COLOR`` (any non-empty value) or ``--no-color`` turn off every
    escape code, bold included; ``--color`` forces them, even into a pipe.
    """
    from rich.console import Console

    color = _settings["color"]
    if color is None and os.environ.get("NO_COLOR"):
        color = False
    options: dict[str, Any] = {"stderr": stderr, "highlight": False, "soft_wrap": False}
    if color is False:
        options.update(color_system=None, no_color=True)
    elif color is True:
        options.update(force_terminal=True, no_color=False)
    kind = _wide_console() if _settings["wide"] else Console
    console = kind(**options)
    if color is True and console.color_system is None:  # no terminal, or TERM=dumb
        console = kind(**options, color_system="standard")
    return console


@functools.cache
def _wide_console() -> Any:
    """A rich Console printing each renderable at its natural width (``--wide``)."""
    from rich.console import Console
    from rich.measure import Measurement

    class WideConsole(Console):
        def __init__(self, **options: Any):
            super().__init__(width=_WIDEST, **options)

        def print(self, *objects: Any, **options: Any) -> None:
            if len(objects) == 1 and "width" not in options:
                natural = Measurement.get(self, self.options, objects[0]).maximum
                options["width"] = max(natural, 1)
            super().print(*objects, **options)

    return WideConsole


_WIDEST = 100_000  # columns a --wide table may take


class _Writer:
    """Renders results as they come (chunk by chunk) through a view; tracks the exit code."""

    def __init__(self, output: Format, digits: int | None, tape: bool, many: bool):
        self.output, self.digits, self.tape, self.many = output, digits, tape, many
        self.exit_code = ExitCode.OK
        self.started = False
        self.console = _console()
        self.errors = _console(stderr=True)
        self.warned: set[str] = set()
        self.skipped: Any = None  # rows --skip-bad-rows left out (points.Skipped)

    def write(self, view: Any, computed: Any) -> None:
        for result in view.results(computed):
            self._note_status(result)
        if self.output is Format.json:
            self._write_json(view, computed)
        elif self.output is Format.csv:
            out = csv.writer(sys.stdout, lineterminator="\n")
            if not self.started:
                out.writerow(view.csv_header(computed))
            out.writerows(view.csv_rows(computed, self.digits))
        elif self.output is Format.plain:
            sys.stdout.write("".join(f"{line}\n" for line in view.plain(computed, self.digits)))
        else:
            parts = (
                view.many(computed, self.digits)
                if self.many
                else view.single(computed, self.digits, self.tape)
            )
            for part in parts:
                self.console.print(part)
                self.console.print()
        self.started = True

    def _note_status(self, result: Any) -> None:
        if result.check is not None and result.check.status == "disagree":
            self.exit_code = ExitCode.CHECK_FAILED
        elif result.undefined.any() and self.exit_code == ExitCode.OK:
            self.exit_code = ExitCode.UNDEFINED
        for warning in result.warnings:
            self._once(f"warning: {warning}")
        for singular in result.singularities:
            self._once(f"gradcalc: {singular.describe(result.points, result.target)}")

    def _once(self, message: str) -> None:
        if message not in self.warned:
            self.warned.add(message)
            self.errors.print(message, markup=False, soft_wrap=True)

    def _write_json(self, view: Any, computed: Any) -> None:
        count = view.results(computed)[0].points.count
        objects = [obj for k in range(count) for obj in view.json(computed, k, self.tape)]
        if self.skipped is not None:
            for obj in objects:
                obj["skipped_rows"] = self.skipped.count
        if not self.many and len(objects) == 1:
            print(json.dumps(objects[0]))
            return
        for obj in objects:
            print(("[" if not self.started else ",") + json.dumps(obj))
            self.started = True

    def close(self) -> None:
        if self.output is Format.json and self.started and self.many:
            print("]")


def _use_command_class() -> None:
    """Give every command :class:`_Command` (after all of them are defined)."""
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = _Command


_use_command_class()


def main() -> None:
    """Entry point: run the app, print errors as one line, exit with a documented code."""
    # Typer may bundle its own click: find its exception base class through typer itself.
    click_error = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
    _settings["process"] = True  # the root options may cap this process's CPU and memory
    # one BLAS thread: gradcalc's matrices are small, and starting OpenBLAS's thread pool
    # (before numpy is imported, so this still applies) costs more than it ever saves
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        code = app(prog_name="gradcalc", standalone_mode=False)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except click_error as error:
        context = getattr(error, "ctx", None)
        hint = f"\nTry '{context.command_path} --help'." if context is not None else ""
        message = error.format_message().replace("Value error, ", "")
        if type(error).__name__ == "NoSuchOption":  # the same words as _Command's
            guess = (getattr(error, "possibilities", None) or [None])[0]
            message = f"no such option {error.option_name}"
            message += f"; did you mean {guess}?" if guess else ""
        if message.startswith("Usage:"):  # no command given: the help itself
            print(message, file=sys.stderr)
        else:
            print(f"gradcalc: {message}{hint}", file=sys.stderr)
        sys.exit(ExitCode.USAGE)
    except (typer.Abort, KeyboardInterrupt):
        sys.exit(130)
    except MemoryError:  # under --max-memory, or the machine's own limit
        if _settings["traceback"]:
            raise
        from gradcalc.cli.limits import memory_message

        print(f"gradcalc: {memory_message()}", file=sys.stderr)
        sys.exit(ExitCode.USAGE)
    except Exception as bug:  # a bug in gradcalc, not in the input: say so in one line
        if _settings["traceback"]:
            raise
        print(
            f"gradcalc: internal error: {type(bug).__name__}: {bug} "
            "(please report it, with the output of gradcalc --traceback ...)",
            file=sys.stderr,
        )
        sys.exit(ExitCode.INTERNAL)
    sys.exit(code or ExitCode.OK)
