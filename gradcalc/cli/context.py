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
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradcalc.core.errors import ExitCode, GradcalcError


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
    ``--at x=1``), as (option, words) pairs.
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
            if self.files and str(arguments.get("expression") or "").startswith("@"):
                from gradcalc.io.lines import read_file

                path = arguments["expression"][1:]
                arguments = {**arguments, "expression": read_file(path, "expression file")}
            with budget.request(timeout, arguments.get("check_timeout")), deep_stack():
                return int(command(self, **arguments))
        except RecursionError:  # deeper than FRAMES: say so, not "internal error"
            if self.traceback:
                raise
            print(f"gradcalc: {refusal()}", file=sys.stderr)
            return int(ExitCode.USAGE)
        except GradcalcError as error:
            if self.traceback:
                raise
            print(f"gradcalc: {self.spelled(error.render())}", file=sys.stderr)
            return int(error.exit_code)
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


def discard_stdout() -> None:
    """Send what is left for stdout, and Python's last flush at exit, to the null device:
    the pipe is closed, and a second BrokenPipeError would be printed at exit."""
    with contextlib.suppress(OSError, ValueError):  # no descriptor: a test's captured stdout
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
