"""What the root options set for every command, carried as one object (no global state).

``gradcalc --no-color --wide --traceback --max-cpu 60 COMMAND ...``: the Typer app builds an
:class:`AppContext` from the root options and passes it to the command function; the REPL
passes its own to the same functions. :meth:`AppContext.call` runs a command function and
turns a gradcalc error into its one-line message and exit code.

>>> from gradcalc.core.errors import InputError
>>> def halve(context: AppContext, n: int) -> int:
...     if n % 2:
...         raise InputError(f"{n} is odd")
...     print(n // 2)
...     return 0
>>> context = AppContext(color=False)
>>> context.call(halve, n=4)
2
0
>>> context.call(halve, n=3)  # the message goes to stderr
2
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradcalc.core.errors import ExitCode, GradcalcError, OutputError, reason_of


@dataclass(eq=False)
class AppContext:
    """The root options: colour, width, tracebacks, the process's resource limits and the
    time budget of a request.

    ``limits`` (CPU seconds, MiB) are applied by the first command that runs, and only in a
    real ``gradcalc`` process (``process``): a host such as a test or a notebook is never
    capped. ``timeout`` is the wall-clock budget of one request (a command, a job of
    ``--jobs``, a line of the repl; 0: none): see :mod:`gradcalc.core.budget`. ``files``
    (``gradcalc --file``) lets the command line's own EXPRESSION argument name a file as
    ``@FILE``; nothing else ever does (no job, no repl line, no option's value).
    ``one_command``: the process runs this one command and ends (not a repl, a stream or a
    host), so what the command compiles lasts until the exit. ``flags``: how this entry
    point spells the command line's options in its messages (the repl's ``at x=1`` for
    ``--at x=1``), as (option, words) pairs. ``given``: the parameters the command line gave
    (even with their default value; ``None``: not known, as in a repl line).
    """

    color: bool | None = None
    wide: bool = False
    traceback: bool = False
    limits: tuple[float, float] | None = None
    process: bool = False
    timeout: float = 0.0
    files: bool = False
    one_command: bool = False
    flags: tuple[tuple[str, str], ...] = ()
    given: frozenset[str] | None = None

    def console(self, stderr: bool = False) -> Any:
        """A rich console on stdout (or stderr) that follows ``--color`` and ``--wide``."""
        from gradcalc.cli.console import make_console

        return make_console(self.color, self.wide, stderr)

    def call(self, command: Callable[..., int], **arguments: Any) -> int:
        """Run ``command(self, **arguments)`` as one request of :mod:`gradcalc.core.budget`
        (``--timeout``; its ``check_timeout`` the symbolic allowance); its exit code. A
        gradcalc error is printed as one line on stderr and gives its exit code (with
        ``--traceback`` it is raised). A ``--jobs`` stream or a repl session is no one
        request: each job, each line is."""
        from gradcalc.cli.depth import deep_stack, refusal
        from gradcalc.core import budget

        streaming = arguments.get("jobs") is not None or command.__name__ == "repl"
        try:
            if self.process and self.limits:
                from gradcalc.cli import limits  # caps itself; a host (a test) never does

                limits.apply(*self.limits)
                self.limits = None  # once per process, for a whole --jobs stream or session
            timeout = 0.0 if streaming else self.timeout
            refuse_overwriting(arguments, self.files)  # (before anything is read or written)
            if self.files and str(arguments.get("expression") or "").startswith("@"):
                from gradcalc.io.lines import read_file

                path = arguments["expression"][1:]
                arguments = {**arguments, "expression": read_file(path, "expression file")}
            with budget.request(timeout, arguments.get("check_timeout")), deep_stack():
                return int(command(self, **arguments))
        except RecursionError:  # deeper than FRAMES: say so, not "internal error"
            if self.traceback:
                raise
            return refused(refusal(), ExitCode.USAGE, arguments.get("output"))
        except GradcalcError as error:
            if self.traceback or isinstance(error, OutputError):
                raise  # (an output that cannot be written ends a session too: see unwritten)
            return refused(self.spelled(error.render()), error.exit_code, arguments.get("output"))
        except BrokenPipeError:  # the reader went away (gradcalc ... | head -1): not an error
            discard_stdout()
            return int(ExitCode.OK)

    def spelled(self, message: str) -> str:
        """``message`` with the command line's options written as this entry point's
        ``flags`` say.

        >>> AppContext(flags=(("--at", "at"),)).spelled("give one --at (--at x=3)")
        'give one at (at x=3)'
        """
        for option, words in self.flags:
            message = re.sub(rf"{option}\b(?!-)", words, message)
        return message


#: The arguments of the commands that name files they read, as their messages name them.
READS = {"points": "--points", "jobs": "--jobs", "data": "data"}
#: The arguments whose ``@FILE`` values name files read (under ``gradcalc --file``).
READS_AT = {"at": "--at", "start": "--from"}


def refuse_overwriting(arguments: dict[str, Any], files: bool = False) -> None:
    """Refuse a command whose ``--out`` (or ``--save-gradients`` file) is one of the files it
    reads: ``--points`` (each file of a dataset), ``--jobs``, ``--data`` or fit's DATA, and,
    under ``gradcalc --file`` (``files``), the ``@FILE`` of EXPRESSION, ``--at`` or ``--from``.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "p.csv")
    >>> open(path, "w").close()
    >>> refuse_overwriting({"points": path, "out": path})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: --out .../p.csv is the --points file: writing it would ...
    """
    outputs = _written(arguments)
    if not outputs:
        return
    from gradcalc.io.written import refuse_overwriting as refuse

    inputs: list[tuple[str, str]] = []
    for name, option in READS.items():
        path = arguments.get(name)
        if isinstance(path, str) and path != "-":
            inputs += [(option, part) for part in _files_of(path, name)]
    expression = str(arguments.get("expression") or "")
    if files and expression.startswith("@"):
        inputs.append(("expression", expression[1:]))
    for name, option in READS_AT.items():
        values = [pair.partition("=")[2].strip() for pair in _pairs(arguments.get(name))]
        inputs += [(option, value[1:].strip()) for value in values if files and value[:1] == "@"]
    refuse(outputs, inputs)


def _written(arguments: dict[str, Any]) -> list[tuple[str, str]]:
    """The files a command's ``arguments`` would write: ``--out``, and the ``NAME.npy`` that
    ``--save-gradients DIR`` writes for each value named by ``--at`` or bound by ``--data``."""
    outputs = [("--out", arguments["out"])] if isinstance(arguments.get("out"), str) else []
    folder = arguments.get("save_gradients")
    if isinstance(folder, str):
        bound = (arguments.get("bind") or "X,y").split(",") if arguments.get("data") else []
        named = [pair.partition("=")[0] for pair in _pairs(arguments.get("at"))]
        outputs += [
            ("--save-gradients", os.path.join(folder, f"{name.strip()}.npy"))
            for name in [*named, *bound]
        ]
    return outputs


def _files_of(path: str, name: str) -> list[str]:
    """The files an input argument names: a dataset's parts (``--points DIR`` or a glob),
    else the path itself."""
    if name != "points":
        return [path]
    from gradcalc.io.datasets import dataset_parts, is_dataset

    if not is_dataset(path):
        return [path]
    try:
        return dataset_parts(path)
    except GradcalcError:  # (the command says what is wrong with the dataset)
        return []


def _pairs(specs: Any) -> list[str]:
    """The ``name=value`` pairs of ``--at`` (or ``--from``) specs."""
    from gradcalc.lang.literals import split_top_level

    return [pair for spec in specs or [] for pair in split_top_level(str(spec))]


class ClosedStdout(io.TextIOBase):
    """Standard output of a process started without one (``gradcalc ... >&-``): writing to it
    is the one-line error of an output that cannot be written (exit 2), in every format, as a
    full disk is (an empty write writes nothing, and fails nothing).

    >>> ClosedStdout().write("x")
    Traceback (most recent call last):
    gradcalc.core.errors.OutputError: cannot write the output: standard output is closed
    """

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            raise OutputError("cannot write the output: standard output is closed")
        return 0


def mind_closed_stdout() -> None:
    """When the process started with its standard output closed (``sys.stdout`` is None),
    hold its descriptor with the null device (no file opened later takes it, nor hands it to
    a child) and make ``sys.stdout`` a :class:`ClosedStdout`."""
    if sys.stdout is not None:
        return
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        if null != 1:
            os.dup2(null, 1)
            os.close(null)
    sys.stdout = ClosedStdout()


#: The reasons an output cannot be written that are the machine's, not gradcalc's.
CANNOT_WRITE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF})


def unwritable(error: BaseException) -> bool:
    """Whether ``error`` is an output that cannot be written (a full disk, a closed standard
    output): no bug, and nothing more can be shown.

    >>> unwritable(OSError(errno.ENOSPC, "No space left on device"))
    True
    >>> unwritable(OSError(errno.ENOENT, "No such file or directory"))
    False
    """
    if isinstance(error, OutputError):
        return True
    return isinstance(error, OSError) and error.errno in CANNOT_WRITE


def unwritten(error: Exception) -> int:
    """Say in one line that the output could not be written, and why; the exit code (2).
    Every command, a repl session and a ``--jobs`` stream end so.

    >>> unwritten(OSError(errno.ENOSPC, "No space left on device"))  # (on stderr)
    2
    """
    if isinstance(error, OutputError):
        message = error.message
    else:
        message = f"cannot write the output: {reason_of(error)}"
    with contextlib.suppress(OSError):
        print(f"gradcalc: {message}", file=sys.stderr)
    discard_stdout()  # (the interpreter's own last flush would fail again)
    return int(ExitCode.USAGE)


def refused(message: str, code: int, output: object) -> int:
    """Say why a command stopped: one line on stderr, and -- where its output is JSON -- one
    JSON document on stdout too, so that a script reading it always gets one
    (``{"error": {"exit_code": 3, "kind": "undefined", "message": ...}}``); the exit code.

    >>> refused("log(x) is undefined at x=-1", ExitCode.UNDEFINED, "json")
    {"error": {"exit_code": 3, "kind": "undefined", "message": "log(x) is undefined at x=-1"}}
    3
    """
    print(f"gradcalc: {message}", file=sys.stderr)
    if output == "json":
        import json

        kind = ExitCode(code).name.lower().replace("_", " ")
        error = {"exit_code": int(code), "kind": kind, "message": message.splitlines()[0]}
        with contextlib.suppress(OSError, ValueError, GradcalcError):  # (stdout is the fault)
            print(json.dumps({"error": error}, ensure_ascii=False))
    return int(code)


def discard_stdout() -> None:
    """Send what is left for stdout, and Python's last flush at exit, to the null device:
    the pipe is closed, and a second BrokenPipeError would be printed at exit."""
    with contextlib.suppress(OSError, ValueError):  # no descriptor: a test's captured stdout
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
