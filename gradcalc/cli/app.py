"""The ``gradcalc`` command line: the Typer app, its root options and its commands.

Each command is a plain function in :mod:`gradcalc.cli.commands` that takes the
:class:`~gradcalc.cli.context.AppContext` (what the root options set) and returns its exit
code; :func:`typer_command` makes it a Typer command. ``main()`` maps every error to its
one-line message and exit code (see :class:`gradcalc.core.errors.ExitCode`); ``app`` is the
Typer application without that handling. Heavy imports (numpy, sympy) happen inside the
commands, so ``gradcalc --help`` and ``--version`` start fast.

>>> [command.callback.__name__ for command in build().registered_commands][:3]
['grad', 'hessian', 'jacobian']
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import importlib
import inspect
import os
import sys
import typing
import warnings
from collections.abc import Callable, Sequence
from typing import Annotated, Any, NoReturn

import typer

from gradcalc import __version__
from gradcalc.cli.context import AppContext, mind_closed_stdout, refused, unwritable, unwritten
from gradcalc.cli.limits import Stopped
from gradcalc.cli.options import option_names
from gradcalc.cli.parsing import EXPRESSIONS_MAY_START_WITH_MINUS, Command, Group
from gradcalc.core.errors import ExitCode, closest

#: The commands, in the order of gradcalc --help: each is the function of its name in
#: ``gradcalc.cli.commands.<name>``; all but ops and repl take an EXPRESSION.
COMMANDS = (
    "grad",
    "hessian",
    "jacobian",
    "diff",
    "critical",
    "taylor",
    "check",
    "explain",
    "graph",
    "minimize",
    "fit",
    "plot",
    "ops",
    "repl",
)
_PLAIN = ("ops", "repl")  # (no EXPRESSION)


def _version(value: bool) -> None:
    if value:
        print(f"gradcalc {__version__}")
        raise typer.Exit()


def root(
    ctx: typer.Context,
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
    files: Annotated[
        bool,
        typer.Option(
            "--file",
            help="Let the command's EXPRESSION argument be @FILE: read it from FILE. Without "
            "it, text is never a file name.",
        ),
    ] = False,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            metavar="SECONDS",
            min=0.0,
            envvar="GRADCALC_TIMEOUT",
            help="Wall-clock budget of the whole command, or of each job of --jobs and each "
            "line of repl (0: none).",
        ),
    ] = 0,
) -> None:
    """gradcalc: type an expression and a point, get exact, checked gradients."""
    context = ctx.ensure_object(AppContext)  # main() passes one for a real process
    context.traceback, context.color, context.wide = traceback, color, wide
    context.limits = (max_cpu, max_memory)  # applied as the command starts
    context.timeout, context.files = timeout, files


def _valued_root_options() -> frozenset[str]:
    """The root options that take a value (``--max-cpu SECONDS``), read from :func:`root`.

    >>> sorted(_valued_root_options())
    ['--max-cpu', '--max-memory', '--timeout']
    """
    found: set[str] = set()
    for parameter in inspect.signature(root, eval_str=True).parameters.values():
        kind = (typing.get_args(parameter.annotation) or (parameter.annotation,))[0]
        if kind in (bool, bool | None, typer.Context):
            continue
        found.update(option_names(parameter.annotation))
    return frozenset(found)


_ROOT_VALUED = _valued_root_options()


def typer_command(command: Callable[..., int]) -> Callable[..., None]:
    """The Typer callback of a command function ``command(context, **options) -> int``.

    Its parameters are the command's options after ``context``; it runs the command with the
    :class:`AppContext` of the root options (:meth:`AppContext.call`) and exits with its code.

    >>> from gradcalc.cli.commands.ops import ops
    >>> callback = typer_command(ops)
    >>> list(inspect.signature(callback).parameters)
    ['ctx', 'names', 'output']
    """
    signature = inspect.signature(command, eval_str=True)
    _, *options = signature.parameters.values()
    ctx = inspect.Parameter(
        "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context
    )

    @functools.wraps(command)
    def callback(ctx: typer.Context, **arguments: Any) -> None:
        context = ctx.ensure_object(AppContext)
        context.given = given_options(ctx)
        raise typer.Exit(context.call(command, **arguments))

    del callback.__wrapped__  # Typer reads the signature below, not the command's
    callback.__signature__ = signature.replace(parameters=[ctx, *options])  # type: ignore[attr-defined]
    callback.__annotations__ = {p.name: p.annotation for p in (ctx, *options)}
    return callback


def given_options(ctx: Any) -> frozenset[str]:
    """The parameters of the command ``ctx`` runs that its command line (or an environment
    variable) gave, even with their default value (``--format table``).

    >>> from typer.core import click
    >>> command = click.Command("c", params=[click.Option(["--a"]), click.Option(["--b"])])
    >>> sorted(given_options(command.make_context("c", ["--a", "1"])))
    ['a']
    """
    from typer.core import click  # the click Typer uses (it may bundle its own)

    source = click.core.ParameterSource
    defaults = (None, source.DEFAULT, source.DEFAULT_MAP)
    return frozenset(name for name in ctx.params if ctx.get_parameter_source(name) not in defaults)


#: Allocations between two passes of Python's cyclic garbage collector (its default: 700).
GC_THRESHOLD = 100_000

#: One or two real commands that end each --help page (tests/cli/test_cli_help.py runs every one).
EXAMPLES = {
    "gradcalc": [
        'gradcalc grad "3*w1^2 + 2*w1*w2" --at w1=5,w2=3',
        'gradcalc check "x^2*y" --at x=1,y=2 --expect 4,1',
    ],
    "grad": [
        'gradcalc grad "3*w1^2 + 2*w1*w2" --at w1=5,w2=3',
        'gradcalc grad "sin(x)*y" --at x=0,y=2 --at x=pi/2,y=3 --format csv',
    ],
    "hessian": ['gradcalc hessian "(1-x)^2 + 100(y-x^2)^2" --at x=1,y=1'],
    "jacobian": ['gradcalc jacobian "r*cos(t), r*sin(t)" --at r=2,t=0.5'],
    "diff": ['gradcalc diff "x^2*sin(x)"', 'gradcalc diff "x^2 + y^2 = 25" --implicit y'],
    "critical": ['gradcalc critical "x^3 - 3*x + y^2"'],
    "taylor": ['gradcalc taylor "exp(x)" --at x=0 --order 3'],
    "check": [
        'gradcalc check "x^2*y" --at x=1,y=2 --expect 4,1',
        'gradcalc check "x^2*y" --answer "2*x*y, x^2"',
    ],
    "explain": ['gradcalc explain "y = x^2; z = y^2" --at x=3'],
    "graph": ['gradcalc graph "3*w1^2 + 2*w1*w2" --at w1=5,w2=3 --format mermaid'],
    "minimize": ['gradcalc minimize "(x-3)^2 + 2(y+1)^2" --from x=0,y=0 --method adam'],
    "fit": ['gradcalc fit "a*x + b" docs/examples/line.csv --params a,b'],
    "plot": ['gradcalc plot "x^2" --at x=2 --range -5:5'],
    "ops": ["gradcalc ops sin ln ^"],
    "repl": ['echo "grad x^2 at x=3" | gradcalc repl'],
}


def _epilog(name: str) -> str:
    """The examples of ``name`` as the end of its help (``\b``: click keeps the lines)."""
    examples = EXAMPLES.get(name, [])  # (one missing fails tests/cli/test_cli_help.py, not the CLI)
    return "\b\nExamples:\n" + "\n".join(f"  {example}" for example in examples)


@functools.cache
def build(names: Sequence[str] = COMMANDS) -> typer.Typer:
    """The Typer app with the root options and the commands ``names`` (a tuple, in the
    order of :data:`COMMANDS`), importing only their modules. :data:`app` has them all;
    :func:`run` builds one with only the command it runs, when it can tell which (each
    command costs its module, its signature and its click parameters at start-up).

    >>> [info.callback.__name__ for info in build(("ops",)).registered_commands]
    ['ops']
    """
    typer_app = typer.Typer(
        name="gradcalc",
        cls=Group,
        help="Exact gradients from a reverse-mode tape, cross-checked against sympy.",
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        epilog=_epilog("gradcalc"),
    )
    typer_app.callback()(root)
    for name in names:
        command = getattr(importlib.import_module(f"gradcalc.cli.commands.{name}"), name)
        settings = {} if name in _PLAIN else EXPRESSIONS_MAY_START_WITH_MINUS
        typer_app.command(cls=Command, context_settings=settings, epilog=_epilog(name))(
            typer_command(command)
        )
    return typer_app


def __getattr__(name: str) -> Any:
    """``app``: the Typer app with every command (built on first use)."""
    if name == "app":
        return build()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _app_for(args: list[str] | None) -> typer.Typer:
    """The app :func:`run` needs for ``args`` (default: the process's): only the command
    they name, or every command when they name none (``--help``, a misspelled command,
    shell completion).

    >>> [i.callback.__name__ for i in _app_for(["--wide", "grad", "x"]).registered_commands]
    ['grad']
    >>> len(_app_for(["--max-cpu", "9", "--help"]).registered_commands) == len(COMMANDS)
    True
    """
    words = sys.argv[1:] if args is None else args
    if any(key.startswith("_GRADCALC_COMPLETE") for key in os.environ):
        return build()
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _ROOT_VALUED:
            skip = True  # its value follows
        elif not word.startswith("-"):
            return build((word,)) if word in COMMANDS else build()
    return build()


def _observed() -> bool:
    """Whether a profiler, tracer or coverage measurement watches this process: each
    writes its findings at the ordinary exit (``python -m cProfile -o out.prof``)."""
    return sys.getprofile() is not None or sys.gettrace() is not None or "coverage" in sys.modules


def _one_line_note(message: Any, category: Any, *where: Any, **more: Any) -> None:
    """A library's warning (numpy, matplotlib, sympy) as one short line on stderr, not the
    default's file, line and source text."""
    text = " ".join(str(message).split())
    print(f"gradcalc: note: {text[:299] + '…' if len(text) > 300 else text}", file=sys.stderr)


def main() -> None:
    """Entry point: run the app, print errors as one line, exit with a documented code."""
    # one BLAS thread: gradcalc's matrices are small, and starting OpenBLAS's thread pool
    # (before numpy is imported, so this still applies) costs more than it ever saves
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    warnings.showwarning = _one_line_note  # a process's own: a host's warnings stay its own
    # a graph, tape and rows are many small objects, all alive until the command ends: the
    # collector's default (a pass every 700 allocations, rescanning every survivor) cost a
    # quarter of a 10,000-term sum; cycles are rare here, so collect far less often
    gc.set_threshold(GC_THRESHOLD, 20, 20)
    mind_closed_stdout()  # (gradcalc ... >&-: every format says it cannot write, exit 2)
    # (a real process: the root options may cap its CPU and memory)
    exit_with(run(None, AppContext(process=True, one_command=True)))


#: The exit codes of a command that ran to its end: its output is all written, its files
#: closed.
FINISHED = (ExitCode.OK, ExitCode.CHECK_FAILED, ExitCode.UNDEFINED)


def exit_with(code: int) -> NoReturn:
    """End the process with ``code``; after a finished command (:data:`FINISHED`), without
    the interpreter's teardown.

    Freeing every object one at a time at exit -- sympy's classes and caches, a graph of
    10,000 nodes -- took 50 to 300 ms of the headline command, more than its own work;
    the operating system takes a process's memory back at once. So a finished command runs
    the exit handlers, flushes its output and ends there, as mypy does. An error's exit
    (2, 70) is the ordinary one, which also closes any file a failed command left open.
    So does a process that a profiler, tracer or coverage measurement watches: they write
    their findings at exit. An output that cannot be written (a full disk) is a one-line
    error, exit 2; a reader that went away (``| head -1``) is not an error.

    >>> import subprocess, sys
    >>> code = "from gradcalc.cli.app import exit_with; print('written'); exit_with(3)"
    >>> done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    >>> done.stdout, done.returncode
    ('written\\n', 3)
    """
    if code not in FINISHED or _observed():
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (| head -1): not an error
        code = ExitCode.OK
    except OSError as error:
        code = unwritten(error)
    except (AttributeError, ValueError):  # no stdout, or a closed one: nothing to flush
        pass
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)


def format_asked(args: Sequence[str]) -> str | None:
    """The ``--format`` a command line asks for, read from its words as given (the last one
    with a value, as the option parser takes it; lowercased, as it accepts ``JSON``): what an
    error found while the line is parsed is written in, before any option has a value.

    >>> format_asked(["grad", "x", "--format", "JSON", "--bogus"])
    'json'
    >>> format_asked(["grad", "x", "--format=csv"]), format_asked(["grad", "--", "--format=csv"])
    ('csv', None)
    """
    asked = None
    for k, word in enumerate(args):
        if word == "--":  # (arguments from here on)
            break
        name, equals, value = word.partition("=")
        if name == "--format" and (equals or k + 1 < len(args)):  # (not a last one, bare)
            asked = value if equals else args[k + 1]
    return asked.lower() if asked is not None else None


def _discard_pending() -> None:
    """Remove the output files this process had not yet put in place: a stop that came
    before the code writing one was ready to clean it up leaves none behind either."""
    written = sys.modules.get("gradcalc.io.written")  # (not loaded: nothing was written)
    if written is not None:
        written.discard_pending()


def _unparsed(error: Any, args: Sequence[str]) -> int:
    """Say why the option parser refused the command line ``args`` (click's ``error``), as
    every other error is said (:func:`gradcalc.cli.context.refused`: one line, and with
    ``--format json`` one JSON document on stdout too); the exit code (2)."""
    from typer.core import click  # the click Typer uses (it may bundle its own)

    where = getattr(error, "ctx", None)
    hint = f"\nTry '{where.command_path} --help'." if where is not None else ""
    message = error.format_message().replace("Value error, ", "")
    if isinstance(error, click.NoSuchOption):  # the same words as parsing.Command's
        guess = closest(error.option_name, error.possibilities or ())
        message = f"no such option {error.option_name}"
        message += f"; did you mean {guess}?" if guess else ""
    if message.startswith("Usage:"):  # no command given: the help itself, whole
        print(message, file=sys.stderr)
        return int(ExitCode.USAGE)
    if len(message) > 300:  # an option's value may be huge: never echo it whole
        message = message[:299] + "…"
    return refused(f"{message}{hint}", ExitCode.USAGE, format_asked(args))


def run(args: list[str] | None = None, context: AppContext | None = None) -> int:
    """Run the command line ``args`` (default: the process's) in this process: errors as one
    line on stderr; the documented exit code. The IPython magic runs commands through it.

    >>> run(["grad", "x^2", "--at", "x=3", "--format", "plain"])
    6
    0
    """
    from typer.core import click  # the click Typer uses (it may bundle its own)

    context = context or AppContext()
    try:
        typer_app = _app_for(args)
        code = typer_app(args, prog_name="gradcalc", standalone_mode=False, obj=context)
    except typer.Exit as done:
        return int(done.exit_code)
    except click.ClickException as error:
        return _unparsed(error, sys.argv[1:] if args is None else args)
    except (typer.Abort, KeyboardInterrupt):
        _discard_pending()
        return 130
    except Stopped as stop:  # SIGTERM, SIGHUP: unwound as Ctrl-C is (its files removed)
        _discard_pending()  # (also one made a moment before the signal, not yet guarded)
        return stop.status
    except MemoryError:  # under --max-memory, or the machine's own limit
        if context.traceback:
            raise
        from gradcalc.cli.limits import memory_message

        print(f"gradcalc: {memory_message()}", file=sys.stderr)
        return int(ExitCode.USAGE)
    except Exception as bug:  # a bug in gradcalc, not in the input: say so in one line
        if unwritable(bug):  # a full disk, a closed stdout: not a bug
            return unwritten(bug)
        from gradcalc.cli.limits import memory_message, out_of_memory

        if out_of_memory(bug) and not context.traceback:  # a module too big for the cap
            print(f"gradcalc: {memory_message()}", file=sys.stderr)
            return int(ExitCode.USAGE)
        if context.traceback:
            raise
        print(
            f"gradcalc: internal error: {type(bug).__name__}: {bug} "
            "(please report it, with the output of gradcalc --traceback ...)",
            file=sys.stderr,
        )
        return int(ExitCode.INTERNAL)
    return int(code or ExitCode.OK)
