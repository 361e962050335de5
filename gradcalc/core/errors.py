"""The errors gradcalc raises and the exit codes the command line maps them to.

The library raises; only the command line (``gradcalc.cli``) prints and exits.

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
import errno
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
        Only a short excerpt of the input is ever shown: the message is cut at
        :data:`MESSAGE_LIMIT` characters and the line to :data:`EXCERPT` characters around
        the caret.

        >>> print(InputError("bad \x00", text="a\u202eb", column=1).render())
        bad \x00
          a�b
           ^
        >>> print(InputError("unknown variable", text="x+" * 50 + "q", column=100).render())
        unknown variable
          …x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+q
                                                                         ^
        """
        message = escaped(self.message)
        if len(message) > MESSAGE_LIMIT:
            message = message[: MESSAGE_LIMIT - 1] + "…"
        if self.text is None:
            return message
        column = 0 if self.column is None else min(self.column, len(self.text))
        start = self.text.rfind("\n", 0, column) + 1
        end = self.text.find("\n", column)
        line = self.text[start : end if end != -1 else len(self.text)]
        caret = column - start
        if len(line) > EXCERPT:  # a window of the line around the caret, "…" where cut
            left = max(0, min(caret - EXCERPT // 2, len(line) - EXCERPT))
            cut_right = left + EXCERPT < len(line)
            line, caret = line[left : left + EXCERPT], caret - left
            line = ("…" if left else line[0]) + line[1:-1] + ("…" if cut_right else line[-1])
        shown = "".join(c if c.isprintable() else "�" for c in line)
        if self.column is None:
            return f"{message}\n  {shown}"
        return f"{message}\n  {shown}\n  {' ' * caret}^"


def escaped(text: str) -> str:
    r"""``text`` with every control and invisible character (ESC, BEL, a right-to-left
    override, a zero-width space) written as its escape: what a message, or text carried
    from data to output, may show of the input.

    >>> print(escaped("id\x1b[31m\u202e"))
    id\x1b[31m\u202e
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


#: The longest message shown, in characters (messages may quote the input).
MESSAGE_LIMIT = 300
#: How many characters of the offending line are shown around the caret.
EXCERPT = 64


class InputError(GradcalcError):
    """The user's text, option or file cannot be used (exit code 2)."""


class OutputError(InputError):
    """The output cannot be written: standard output closed (exit code 2). It ends what is
    running -- a repl session, a ``--jobs`` stream too: nothing more could be shown -- and
    is said once, as an ``OSError`` of a full disk is."""


class ShapeError(InputError, ValueError):
    """Tensors whose shapes an op cannot take: ``(3, 2) @ (3, 2)``, an axis a tensor does not
    have, an index out of range (exit code 2; also a ``ValueError`` for Python callers)."""


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


#: The errors only writing gives (reading a regular file never does): a full disk or
#: quota, a file past its size limit.
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def writing(error: OSError) -> bool:
    """Whether ``error`` came from writing (the output), not from reading: a closed pipe, a
    full disk. ``> /dev/full`` must never read as a fault of the input.

    >>> writing(OSError(errno.ENOSPC, "No space left on device")), writing(BrokenPipeError())
    (True, True)
    >>> writing(OSError(errno.ENOENT, "No such file or directory"))
    False
    """
    return isinstance(error, BrokenPipeError) or error.errno in WRITE_ERRNOS


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` closest to ``name`` (difflib's ratio at least 0.6), or None.
    Options are compared without their dashes, which every one shares: ``--bogus`` is
    nothing like ``--out``.

    >>> closest("--formt", ["--format", "--at"]), closest("q", ["x"])
    ('--format', None)
    >>> closest("--bogus", ["--out", "--at"]) is None
    True
    """
    import difflib

    named = {choice.lstrip("-"): choice for choice in choices}
    close = difflib.get_close_matches(name.lstrip("-"), list(named), n=1)
    return named[close[0]] if close else None


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"did you mean 'x'? "`` for the closest of ``choices``, or ``""``.

    >>> did_you_mean("yy", ["x", "y"]), did_you_mean("q", ["x"])
    ("did you mean 'y'? ", '')
    """
    close = closest(name, choices)
    return f"did you mean '{close}'? " if close else ""
