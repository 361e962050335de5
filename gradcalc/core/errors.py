"""The errors gradcalc raises and the exit codes the command line maps them to.

The library raises; only ``gradcalc.cli.app`` prints and exits.

>>> int(ExitCode.UNDEFINED)
3
>>> err = InputError("unknown variable 'q'", text="x + q", column=4)
>>> print(err.render())
unknown variable 'q'
  x + q
      ^
"""

from __future__ import annotations

import enum
from collections.abc import Iterable


class ExitCode(enum.IntEnum):
    """The command line's exit codes (stable; documented in README)."""

    OK = 0
    CHECK_FAILED = 1
    USAGE = 2
    UNDEFINED = 3
    INTERNAL = 70  # a bug in gradcalc itself (BSD's EX_SOFTWARE)


class GradcalcError(Exception):
    """Base class of every error gradcalc raises on purpose.

    Args:
        message: one line saying what is wrong and, where possible, how to fix it.
        text: the input the error is about (shown under the message).
        column: 0-based offset into ``text`` to put a caret under.
    """

    exit_code = ExitCode.USAGE

    def __init__(self, message: str, text: str | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.text = text
        self.column = column

    def render(self) -> str:
        r"""The message, and the offending line of ``text`` with a caret under ``column``.

        Control and invisible characters are never echoed to the terminal: in the message
        they are escaped, in the shown line each becomes one ``�`` (the caret stays aligned).

        >>> print(InputError("bad \x00", text="a\u202eb", column=1).render())
        bad \x00
          a�b
           ^
        """
        message = "".join(c if c.isprintable() else repr(c)[1:-1] for c in self.message)
        if self.text is None:
            return message
        text = "".join(c if c.isprintable() or c == "\n" else "�" for c in self.text)
        if self.column is None:
            return f"{message}\n  {text}"
        start = text.rfind("\n", 0, self.column) + 1
        end = text.find("\n", self.column)
        line = text[start : end if end != -1 else len(text)]
        return f"{message}\n  {line}\n  {' ' * (self.column - start)}^"


class InputError(GradcalcError):
    """The user's text, option or file cannot be used (exit code 2)."""


class UndefinedError(GradcalcError):
    """The expression or its gradient is undefined at the point (exit code 3)."""

    exit_code = ExitCode.UNDEFINED


class CheckFailed(GradcalcError):
    """The tape and the symbolic derivative disagree, or an answer is wrong (exit code 1)."""

    exit_code = ExitCode.CHECK_FAILED


def reason_of(error: Exception) -> str:
    """Why a file could not be opened, in words: the OS's reason, or the error's own text
    (a path with a NUL byte raises ValueError, which has no ``strerror``).

    >>> reason_of(FileNotFoundError(2, "No such file or directory"))
    'No such file or directory'
    >>> reason_of(ValueError("embedded null byte"))
    'embedded null byte'
    """
    return getattr(error, "strerror", None) or str(error)


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` closest to ``name`` (difflib's ratio at least 0.6), or None.

    >>> closest("--formt", ["--format", "--at"]), closest("q", ["x"])
    ('--format', None)
    """
    import difflib

    close = difflib.get_close_matches(name, list(choices), n=1)
    return close[0] if close else None


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"did you mean 'x'? "`` for the closest of ``choices``, or ``""``.

    >>> did_you_mean("yy", ["x", "y"]), did_you_mean("q", ["x"])
    ("did you mean 'y'? ", '')
    """
    close = closest(name, choices)
    return f"did you mean '{close}'? " if close else ""
