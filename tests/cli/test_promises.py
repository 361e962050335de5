"""The promise matrix: every command that takes an expression × every format it offers ×
every entry point (the command line, ``%gradcalc``, ``grad --jobs``, the repl) × each promise.

Nothing here names a command or a format by hand: the commands are
:data:`gradcalc.cli.app.COMMANDS`, each one's formats are its ``--format`` choices (declared
once, by the view it shows: :func:`gradcalc.cli.options.output_option`), each one's
invocation is its first example in :data:`gradcalc.cli.app.EXAMPLES` (run by
tests/cli/test_cli_help.py too), and each probe rewrites that example's EXPRESSION. A new
command or format is in the matrix by being registered.

The promises (docs/students.md, "How gradcalc reads what you type"; docs/exit-codes.md):

- ``warned``: an ambiguous input (``1/2x``) is warned, on stdout or stderr, in every format;
- ``reading``: the reading is shown: a ``read as:`` line in a human format and in a drawing,
  the field ``read_as`` in JSON (CSV and plain keep stdout for data: their warning on
  stderr says how the text was read);
- ``undefined``: at a point where the expression is undefined, nothing passes (no exit 0, no
  ``"agree"``, no ✓), and JSON still gets one document (the answer, or the error);
- ``rounded``: so too where float64 rounds past the pole (``1/(x - 0.1 - 0.2 + 0.3)`` at 0:
  the tape's numbers are finite, and mean nothing);
- ``deep``: a 199-deep ``sin(...)`` nest (the parser takes 200) is answered or refused in one
  line: never exit 70, never a traceback;
- ``hostile``: every text of tests/hostile_inputs.py is refused (exit 2) in one line;
- ``json``: ``--format json`` writes JSON that parses;
- ``headed``: the text written as a student writes a function, ``f(x, y) = EXPRESSION``, gets
  the answer the bare EXPRESSION gets (the same output, but for the text echoed back);
- ``kept``: no format drops a result: an answer (exit 0) for a degenerate function (the
  product of the squares of the example's variables) writes something on stdout, in every
  format (``critical --format plain`` once printed nothing for ``x^2*y^2``'s continua);
- ``no_sympy``: ``--no-check`` imports no sympy (in a fresh process);
- ``usage``: every command (``ops`` and ``repl`` too), on a command line: an option error the
  option parser finds (an unknown option, a number below its option's range, a last option
  without its value) is one line and exit 2, and with ``--format json`` stdout still gets one
  JSON document, the error's.

Known failures that another change fixes are listed, cell by cell, in :data:`FIXED_ELSEWHERE`
(strict: a cell that starts to pass fails until it is taken out of the table).
"""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import subprocess
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import pytest

from gradcalc.cli.app import COMMANDS, EXAMPLES
from gradcalc.cli.context import AppContext
from gradcalc.core.errors import GradcalcError
from gradcalc.lang.parser import parse_program
from tests.hostile_inputs import HOSTILE_CLI

#: The formats whose output starts with the reading (``read as:``): people's and drawings'.
SHOWN = ("table", "markdown", "latex", "dot", "mermaid", "svg")
#: Texts of tests/hostile_inputs.py for the quick suite: the first of each ten (all: slow).
QUICK_HOSTILE = HOSTILE_CLI[::10]
DEPTH = 199  # the parser's limit is 200 levels


# --- the registry: commands, formats, invocations ----------------------------------------


@cache
def _click(name: str):
    import typer.main

    from gradcalc.cli.app import build

    return typer.main.get_command(build((name,))).commands[name]


def formats(name: str) -> tuple[str, ...]:
    """The ``--format`` choices of command ``name``; ``("table",)`` for one without
    ``--format`` (``plot`` prints a table-like text)."""
    option = next((p for p in _click(name).params if "--format" in getattr(p, "opts", ())), None)
    return tuple(option.type.choices) if option is not None else ("table",)


def options(name: str) -> set[str]:
    return {o for p in _click(name).params for o in getattr(p, "opts", ())}


def example(name: str) -> list[str]:
    """The first example of ``name`` as arguments after ``gradcalc``."""
    return shlex.split(EXAMPLES[name][0])[1:]


#: The commands that read an EXPRESSION (ops and repl read none).
EXPRESSION_COMMANDS = tuple(n for n in COMMANDS if example(n)[1:2] and n not in ("ops", "repl"))


def _without_format(args: list[str]) -> list[str]:
    if "--format" in args:
        k = args.index("--format")
        return args[:k] + args[k + 2 :]
    return args


def _with(args: list[str], expression: str, output: str) -> list[str]:
    """``args`` with EXPRESSION replaced and ``--format output`` (where the command has one)."""
    args = _without_format([args[0], expression, *args[2:]])
    return args + (["--format", output] if "--format" in options(args[0]) else [])


def _variables(text: str) -> tuple[str, ...]:
    return parse_program(text).free_variables


def _point(args: list[str]) -> tuple[str, ...]:
    """The names of the example's point (``--at`` or ``--from``), if it has one."""
    for option in ("--at", "--from"):
        if option in args:
            spec = args[args.index(option) + 1]
            return tuple(p.split("=")[0] for p in spec.split(","))
    return ()


def ambiguous(text: str) -> tuple[str, str]:
    """``text`` plus ``1/2v - v/2`` (``v`` its first variable): the same function, since
    ``1/2v`` is read as (1/2)·v -- and the start of the warning that must say so.

    >>> ambiguous("y = x^2; z = y^2")
    ('y = x^2; z = y^2 + 1/2x - x/2', '1/2x is read as (1/2)·x')
    """
    v = _variables(text)[0]
    return f"{text} + 1/2{v} - {v}/2", f"1/2{v} is read as (1/2)·{v}"


# --- the entry points ----------------------------------------------------------------------


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    crashed: str = ""  # an exception that escaped (a traceback)

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def _captured(call: Callable[[], int]) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    crashed = ""
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = call()
        except Exception as error:
            code, crashed = 70, f"{type(error).__name__}: {error}"
    return Outcome(code, out.getvalue(), err.getvalue(), crashed)


def via_cli(args: list[str]) -> Outcome:
    """The command line in this process, as ``gradcalc ARGS`` runs it: through
    :func:`gradcalc.cli.app.run`, which reports the option parser's errors too."""
    from gradcalc.cli.app import run

    return _captured(lambda: run(args))


def via_magic(args: list[str]) -> Outcome:
    """``%gradcalc ARGS`` (the magic's class, in a stand-in shell)."""
    from gradcalc.cli.ipython import GradcalcMagics

    shell = types.SimpleNamespace(user_ns={}, configurables=[])
    magic = GradcalcMagics(shell=shell)

    def call() -> int:
        magic.gradcalc(shlex.join(args))
        return shell.user_ns["_gradcalc_exit"]

    return _captured(call)


def via_jobs(args: list[str]) -> Outcome:
    """One job of ``grad --jobs -`` (a JSON line): its answer line is the output, its
    ``exit_code`` field (0 when it has none) the exit code."""
    from typer.testing import CliRunner

    from gradcalc.cli.app import app

    spec = args[args.index("--at") + 1]
    point = {name: float(value) for name, value in (p.split("=") for p in spec.split(","))}
    job = json.dumps({"expr": args[1], "at": point})
    ran = CliRunner().invoke(app, ["grad", "--jobs", "-"], input=job + "\n")
    escaped = ran.exception is not None and not isinstance(ran.exception, SystemExit)
    try:
        code = max(int(json.loads(ran.stdout).get("exit_code", 0)), ran.exit_code)
    except (ValueError, AttributeError):
        code = ran.exit_code
    return Outcome(code, ran.stdout, ran.stderr, repr(ran.exception) * escaped)


def via_repl(args: list[str]) -> Outcome:
    """The repl: ``set format F``, then ``COMMAND EXPRESSION at POINT`` (check: define the
    function, then the answer)."""
    from gradcalc.cli.repl import Session

    session = Session(AppContext())
    output = args[args.index("--format") + 1] if "--format" in args else "table"
    point = args[args.index("--at") + 1].replace(",", ", ") if "--at" in args else None
    if args[0] == "check":
        answer = args[args.index("--answer") + 1] if "--answer" in args else None
        numbers = args[args.index("--expect") + 1] if "--expect" in args else None
        lines = [f"f = {args[1]}", f"set format {output}"]
        lines.append(f"check {answer}" if answer else f"expect {numbers} at {point}")
    else:
        lines = [f"set format {output}", f"{args[0]} {args[1]}" + (f" at {point}" if point else "")]

    def execute(line: str) -> int:
        try:
            return session.execute(line)
        except GradcalcError as error:  # (the repl's loop prints it and goes on)
            print(f"gradcalc: {error.render()}", file=sys.stderr)
            return int(error.exit_code)

    def call() -> int:
        *setup, line = lines
        with contextlib.redirect_stdout(io.StringIO()):  # (the definition's "read as:")
            codes = [execute(first) for first in setup]
        return max(codes) if any(codes) else execute(line)

    return _captured(call)


def _repl_commands() -> set[str]:
    from gradcalc.cli.repl import COMMANDS as REPL

    return {n for n in REPL if n in COMMANDS}


def _repl_formats() -> tuple[str, ...]:
    from gradcalc.cli.repl import SETTINGS

    return SETTINGS["format"]


#: Each entry point: how it runs a command line, and which commands × formats it offers.
ENTRIES: dict[str, tuple[Callable[[list[str]], Outcome], Callable[[str, str], bool]]] = {
    "cli": (via_cli, lambda name, output: True),
    "magic": (via_magic, lambda name, output: True),
    "jobs": (via_jobs, lambda name, output: "--jobs" in options(name) and output == "json"),
    "repl": (
        via_repl,
        lambda name, output: name in _repl_commands() and output in _repl_formats(),
    ),
}


# --- the probes ------------------------------------------------------------------------------


def _json_objects(stdout: str) -> list[dict]:
    """The JSON objects of an output: one object, an array, or one per line (--jobs)."""
    text = stdout.strip()
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        parsed = [json.loads(line) for line in text.splitlines()]
    return parsed if isinstance(parsed, list) else [parsed]


def _never_crashed(outcome: Outcome) -> None:
    assert not outcome.crashed, outcome.crashed
    assert outcome.code != 70, outcome.output
    assert "Traceback" not in outcome.output and "internal error" not in outcome.output


def probe_warned(name: str, output: str, run: Callable) -> None:
    text, warning = ambiguous(example(name)[1])
    outcome = run(_with(example(name), text, output))
    _never_crashed(outcome)
    said = outcome.output.replace("\n", " ")
    if output == "json":  # (its warnings field, with · as \u00b7)
        said += " ".join(w for obj in _json_objects(outcome.stdout) for w in obj["warnings"])
    assert warning in said, outcome.output


def probe_reading(name: str, output: str, run: Callable) -> None:
    text, _ = ambiguous(example(name)[1])
    outcome = run(_with(example(name), text, output))
    _never_crashed(outcome)
    if output == "json":
        objects = _json_objects(outcome.stdout)
        assert objects and all("(1/2)·" in obj["read_as"] for obj in objects), outcome.stdout
    else:  # (the reading notation: the text typed is 1/2x, the output's 1/2*x or x/2)
        assert "(1/2)·" in outcome.stdout, outcome.stdout


def probe_undefined(name: str, output: str, run: Callable, text: str = "") -> None:
    args = example(name)
    outcome = run(_with(args, text or f"log(-1 - {_point(args)[0]}^2)", output))
    _never_crashed(outcome)
    assert outcome.code != 0, outcome.output
    assert "✓" not in outcome.stdout, outcome.stdout
    if output == "json":  # a script always gets one document: the answer, or the error
        objects = _json_objects(outcome.stdout)
        assert objects, outcome.output
        for obj in objects:
            assert (obj.get("check") or {}).get("status") != "agree", obj
            error = obj.get("error")
            assert not isinstance(error, dict) or error["exit_code"] == outcome.code, obj


def probe_rounded(name: str, output: str, run: Callable) -> None:
    """At a point where float64 rounds past a pole (``v - v0 - 0.1 - 0.2 + 0.3`` is 5.6e-17,
    not 0), the tape's finite numbers pass for nothing: the probe ``undefined``'s promise."""
    args = example(name)
    spec = args[args.index("--at") + 1] if "--at" in args else args[args.index("--from") + 1]
    v, v0 = spec.split(",")[0].split("=")
    probe_undefined(name, output, run, f"1/({v} - ({v0}) - 0.1 - 0.2 + 0.3)")


def probe_deep(name: str, output: str, run: Callable) -> None:
    v = _variables(example(name)[1])[0]
    outcome = run(_with(example(name), "sin(" * DEPTH + v + ")" * DEPTH, output))
    _never_crashed(outcome)
    assert outcome.code in (0, 1, 2, 3), outcome.output
    # an answer, or why not: refused (2), or (with --format plain, whose stdout holds the
    # answer only) no formula, said on stderr, where sympy ran out of time on a busy machine
    unanswered = outcome.code == 1 and "not verified" in outcome.stderr
    assert outcome.code == 2 or outcome.stdout.strip() or unanswered, outcome.output


def _hostile(texts: list) -> Callable:
    """Each text is refused (exit 2) in a few lines where the parser refuses it; one it reads
    (``S(x)`` is S·x: without a point, a fine product) is answered: never a crash."""

    def probe(name: str, output: str, run: Callable) -> None:
        for text, _ in texts:
            outcome = run(_with(example(name), text, output))
            _never_crashed(outcome)
            if _refused_by_the_parser(text):
                assert outcome.code == 2, (text, outcome.output)
                assert outcome.stderr.count("\n") <= 4, (text, outcome.stderr)  # and a caret

    return probe


def _refused_by_the_parser(text: str) -> bool:
    try:
        parse_program(text)
    except GradcalcError:
        return True
    return False


def probe_json(name: str, output: str, run: Callable) -> None:
    outcome = run(_with(example(name), example(name)[1], output))
    _never_crashed(outcome)
    assert outcome.code in (0, 1), outcome.output
    assert _json_objects(outcome.stdout), outcome.stdout


def probe_headed(name: str, output: str, run: Callable) -> None:
    args = example(name)
    bare = args[1]
    headed = f"f({', '.join(_variables(bare))}) = {bare}"
    plain, named = run(_with(args, bare, output)), run(_with(args, headed, output))
    _never_crashed(named)
    assert named.code == plain.code, (named.output, plain.output)
    if output == "json":  # the text is echoed back as typed; the rest is the same
        assert [_unechoed(o) for o in _json_objects(named.stdout)] == [
            _unechoed(o) for o in _json_objects(plain.stdout)
        ]
    else:  # (a title that echoes the text typed, as plot's does, echoes it as typed, centred)
        assert _unechoed_text(named.stdout, headed, bare) == _unechoed_text(
            plain.stdout, headed, bare
        )
    assert named.stderr == plain.stderr


def _headed_applies(name: str, entry: str) -> bool:
    """Where the ``headed`` probe runs: an example that is a function (not a program, whose
    statements are named already; not fit's model, whose left side is the data's column),
    at every entry but the repl (which reads f(x, y) = ... as a definition itself:
    tests/cli/test_repl.py)."""
    statements = parse_program(example(name)[1]).statements
    function = len(statements) == 1 and statements[0].target is None
    return function and name != "fit" and entry != "repl"


def _unechoed_text(text: str, *echoes: str) -> list[str]:
    """The words of ``text`` once each echo of the typed text is taken out."""
    for echo in echoes:
        text = text.replace(echo, " ")
    return text.split()


def _unechoed(obj: dict) -> dict:
    """A JSON answer without the text it echoes: ``expression``, and the reading's ``f = ``."""
    read_as = obj.get("read_as")
    rest = {k: v for k, v in obj.items() if k not in ("expression", "read_as")}
    return {**rest, "read_as": read_as.removeprefix("f = ") if read_as else read_as}


def degenerate(text: str) -> str:
    """The product of the squares of ``text``'s variables: an answer that is not a list of
    points (``critical`` finds continua: ``x = 0`` and ``y = 0``).

    >>> degenerate("x^3 - 3*x + y^2")
    'x^2*y^2'
    """
    return "*".join(f"{v}^2" for v in _variables(text))


def probe_kept(name: str, output: str, run: Callable) -> None:
    """No format drops a result: an answer (exit 0) of a degenerate function writes
    something on stdout in every format, as JSON does."""
    args = example(name)
    outcome = run(_with(args, degenerate(args[1]), output))
    _never_crashed(outcome)
    if outcome.code == 0:
        assert outcome.stdout.strip(), (args, output, outcome.output)


def command_line(name: str) -> list[str]:
    """The command line of ``name``'s first example, without ``--format`` (``[name]`` when
    the example is not a command line of its own: repl's reads its stdin)."""
    args = example(name)
    return _without_format(args) if args[:1] == [name] else [name]


def option_errors(name: str) -> list[list[str]]:
    """Errors the option parser finds in a command line of ``name``: an unknown option, a
    number below its option's range (where it has one), a valued option last without its
    value."""
    from typer.core import click

    given = [p for p in _click(name).params if isinstance(p, click.Option)]
    valued = [p.opts[0] for p in given if not (p.is_flag or p.count)]
    ranged = next((p for p in given if getattr(p.type, "min", None) is not None), None)
    errors = [["--bogus"]]
    if ranged is not None:
        errors.append([ranged.opts[0], str(ranged.type.min - 1)])
    if valued:
        errors.append([valued[0]])
    return errors


def probe_usage(name: str, output: str, run: Callable) -> None:
    asked = ["--format", output] if "--format" in options(name) else []
    for error in option_errors(name):
        outcome = run([*command_line(name), *asked, *error])
        _never_crashed(outcome)
        assert outcome.code == 2, (error, outcome.output)
        first, *rest = outcome.stderr.splitlines()
        assert first.startswith("gradcalc: ") and len(rest) <= 1, (error, outcome.stderr)
        if output == "json":
            message = first.removeprefix("gradcalc: ")
            said = {"error": {"exit_code": 2, "kind": "usage", "message": message}}
            assert json.loads(outcome.stdout) == said, (error, outcome.stdout)
        else:
            assert outcome.stdout == "", (error, outcome.stdout)


#: Each probe: the function, and the cells it applies to (command, format, entry).
PROBES: dict[str, tuple[Callable, Callable[[str, str, str], bool]]] = {
    "warned": (probe_warned, lambda name, output, entry: True),
    "reading": (
        probe_reading,
        lambda name, output, entry: output in (*SHOWN, "json") and name != "plot",
    ),
    "undefined": (probe_undefined, lambda name, output, entry: bool(_point(example(name)))),
    "rounded": (probe_rounded, lambda name, output, entry: bool(_point(example(name)))),
    "hostile": (_hostile(QUICK_HOSTILE), lambda name, output, entry: True),
    "json": (probe_json, lambda name, output, entry: output == "json"),
    "headed": (probe_headed, lambda name, output, entry: _headed_applies(name, entry)),
    "kept": (probe_kept, lambda name, output, entry: entry == "cli"),
}


def _heavy_cells(name: str, output: str, entry: str) -> bool:
    """Where a heavy probe runs: every format on the command line, and the other entry
    points in their first format (the quick probes cover every cell; the heavy ones check
    the depth and length limits, which the reading step keeps for every format alike)."""
    return entry == "cli" or output == next(f for f in formats(name) if ENTRIES[entry][1](name, f))


#: The probes of every command's command line (ops and repl too, which take no EXPRESSION),
#: at the entry points that read one.
COMMAND_LINE_PROBES: dict[str, tuple[Callable, Callable[[str, str, str], bool]]] = {
    "usage": (probe_usage, lambda name, output, entry: entry in ("cli", "magic")),
}


#: The heavy probes (seconds a cell: sympy on a 199-deep nest), run without -m "not slow".
SLOW_PROBES = {
    "deep": (probe_deep, _heavy_cells),
    "hostile_all": (_hostile(HOSTILE_CLI), _heavy_cells),
}

#: Cells that fail for a bug another change fixes, each with its reason: delete a row once
#: that change is merged (strict: a row whose cell passes fails the suite). None now.
FIXED_ELSEWHERE: dict[tuple[str, str, str, str], str] = {}


def _cells(probes: dict, names: tuple[str, ...] = EXPRESSION_COMMANDS) -> list:
    cells = []
    for name in names:
        for output in formats(name):
            for entry, (_, offers) in ENTRIES.items():
                if not offers(name, output):
                    continue
                for probe, (_, applies) in probes.items():
                    if not applies(name, output, entry):
                        continue
                    cell = (name, output, entry, probe)
                    marks = []
                    if cell in FIXED_ELSEWHERE:
                        marks.append(pytest.mark.xfail(strict=True, reason=FIXED_ELSEWHERE[cell]))
                    cells.append(pytest.param(*cell, marks=marks, id="-".join(cell)))
    return cells


@pytest.mark.parametrize(
    ("name", "output", "entry", "probe"),
    _cells(PROBES) + _cells(COMMAND_LINE_PROBES, COMMANDS),
)
def test_every_command_keeps_every_promise(name: str, output: str, entry: str, probe: str):
    {**PROBES, **COMMAND_LINE_PROBES}[probe][0](name, output, ENTRIES[entry][0])


@pytest.mark.slow
@pytest.mark.parametrize(("name", "output", "entry", "probe"), _cells(SLOW_PROBES))
def test_every_command_keeps_every_promise_on_heavy_input(
    name: str, output: str, entry: str, probe: str
):
    SLOW_PROBES[probe][0](name, output, ENTRIES[entry][0])


# --- --no-check imports no sympy (each in a fresh process: this one has sympy already) -----

_NO_SYMPY = """
import contextlib, io, json, sys
from gradcalc.cli.app import run
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = run(json.loads(sys.argv[1]))
print(json.dumps([code, "sympy" in sys.modules]))
"""


def _unchecked_cells() -> list:
    cells = []
    for name in EXPRESSION_COMMANDS:
        if "--no-check" not in options(name):
            continue
        for output in formats(name):
            cell = (name, output, "process", "no_sympy")
            reason = FIXED_ELSEWHERE.get(cell)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cells.append(pytest.param(name, output, marks=marks, id="-".join(cell)))
    return cells


@pytest.mark.parametrize(("name", "output"), _unchecked_cells())
def test_no_check_imports_no_sympy(name: str, output: str) -> None:
    args = [*_with(example(name), example(name)[1], output), "--no-check"]
    done = subprocess.run(
        [sys.executable, "-c", _NO_SYMPY, json.dumps(args)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    code, imported = json.loads(done.stdout)
    assert code == 0, args
    assert not imported, f"gradcalc {shlex.join(args)} imported sympy"
