"""``gradcalc repl``: an interactive session -- the loop that reads lines, keeps their history
and completes them (what a line does: :mod:`gradcalc.cli.repl`).

>>> history_path().parts[-2:]
('gradcalc', 'history')
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gradcalc.cli.context import AppContext, discard_stdout, unwritable, unwritten
from gradcalc.cli.repl import PROMPT, Session
from gradcalc.core.errors import ExitCode, GradcalcError


def repl(context: AppContext) -> int:
    """An interactive session: define f once, then ask for gradients, Hessians and checks."""
    import dataclasses

    # a line of the session never names a file, whatever --file says
    return run(Session(context=dataclasses.replace(context, files=False, one_command=False)))


def history_path() -> Path:
    """``$XDG_STATE_HOME/gradcalc/history``, else ``~/.local/state/gradcalc/history``."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "gradcalc" / "history"


def save_history(readline: Any, path: Path) -> bool:
    """Write the history, creating its directory on first use; False (no error) on failure."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        readline.write_history_file(str(path))
    except OSError:
        return False
    return True


def _setup_readline(session: Session) -> Any:
    try:
        import readline
    except ImportError:  # e.g. Windows without pyreadline: plain input() still works
        return None
    with contextlib.suppress(OSError):  # none yet, or unreadable: start afresh
        readline.read_history_file(str(history_path()))
    readline.set_history_length(1000)
    readline.set_completer_delims(" \t\n=,;()+-*/^")

    def complete(text: str, state: int) -> str | None:
        line = readline.get_line_buffer()
        found = session.completions(line, readline.get_begidx(), text)
        return found[state] if state < len(found) else None

    readline.set_completer(complete)
    binding = "bind ^I rl_complete" if "libedit" in (readline.__doc__ or "") else "tab: complete"
    readline.parse_and_bind(binding)
    return readline


def _lines(interactive: bool) -> Iterable[str]:
    if not interactive:
        yield from sys.stdin
        return
    while True:
        try:
            yield input(PROMPT)
        except KeyboardInterrupt:  # Ctrl-C at the prompt: a fresh line, as in Python
            print()
        except EOFError:
            print()
            return


def run(session: Session | None = None) -> int:
    """The loop: read, execute, print; errors are one line and the session goes on -- but
    for an output that cannot be written (a full disk, a closed stdout): said once, and the
    session ends with exit code 2, as every command does (a reader gone away ends it too,
    quietly: exit 0)."""
    session = session or Session()
    interactive = sys.stdin.isatty()
    readline = _setup_readline(session) if interactive else None
    if interactive:
        print("gradcalc repl: define a function (f = x^2*y), then: grad at x=1, y=2. help, quit")
    try:
        for line in _lines(interactive):
            try:
                session.execute(line)
                sys.stdout.flush()  # (each answer at once: a failed write is found at its line)
            except KeyboardInterrupt:
                print("interrupted", file=sys.stderr)
            except BrokenPipeError:  # the reader went away (gradcalc repl | head): no error
                discard_stdout()
                return ExitCode.OK
            except Exception as error:
                if unwritable(error):  # nothing more could be shown: not a bug, not the input
                    return unwritten(error)
                if isinstance(error, GradcalcError):
                    print(f"gradcalc: {error.render()}", file=sys.stderr)
                elif session.context.traceback:
                    raise
                else:  # a bug: one line, and the session goes on
                    print(
                        f"gradcalc: internal error: {type(error).__name__}: {error} "
                        "(please report it, with the output of gradcalc --traceback repl)",
                        file=sys.stderr,
                    )
            if session.done:
                break
    finally:
        if readline is not None:
            save_history(readline, history_path())
    return ExitCode.OK
