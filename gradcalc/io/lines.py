"""Text from files and streams, read safely: only regular files are opened (a device, a
FIFO or a directory is refused before anything is read), every read is bounded as it reads
(a line, or a whole expression file, longer than :data:`MAX_LINE` characters is an error,
never read whole first), and a file that cannot be opened or read is a one-line error.

Lines can also be decoded one by one (:func:`open_lines`): ``grad --jobs`` answers every
line it can, so one line that is not UTF-8 is that line's error, never the end of the stream
(a text stream decodes a whole chunk at a time, and one bad byte in it stops every line
around it).
"""

from __future__ import annotations

import io
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import BinaryIO, NamedTuple, TextIO, TypeVar

from gradcalc.core.errors import InputError, reason_of, writing

#: The longest line of a points, data or jobs file, and the longest expression file, in
#: characters (the parser's own limit on a text).
MAX_LINE = 1_000_000


@contextmanager
def open_text(path: str, what: str, errors: str = "strict") -> Iterator[TextIO]:
    """Open a UTF-8 text file (a BOM is allowed) for reading; any failure while it is open
    becomes a one-line :class:`InputError` naming ``what`` it is. ``errors="surrogateescape"``
    keeps a byte that is not UTF-8 as a lone surrogate (:func:`not_utf8`), for the reader to
    name its row and column -- or never read it, in a column not used.

    >>> with open_text("no/such/file.csv", "points file") as stream:
    ...     stream.read()
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: cannot read points file no/such/file.csv: No such file or d...
    """
    with (
        read_errors(path, what),
        open_regular(path) as raw,
        io.TextIOWrapper(raw, encoding="utf-8-sig", errors=errors, newline="") as stream,
    ):
        yield stream


def not_utf8(text: str) -> int | None:
    r"""The first byte of ``text`` that was not UTF-8 (read with ``surrogateescape``), or None.

    >>> not_utf8(b"caf\xe9".decode("utf-8", "surrogateescape")), not_utf8("caf\xe9")
    (233, None)
    """
    found = _ESCAPED_BYTE.search(text)
    return None if found is None else ord(found[0]) - 0xDC00


_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


@contextmanager
def read_errors(path: str, what: str) -> Iterator[None]:
    """Any failure to open or read the file ``path`` in this block as a one-line
    :class:`InputError` naming ``what`` it is; a failure to write the output passes.

    >>> with read_errors("data.csv", "points file"):
    ...     raise IsADirectoryError(21, "Is a directory")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: cannot read points file data.csv: Is a directory
    """
    try:
        yield
    except UnicodeDecodeError:  # before ValueError: it is one
        raise InputError(f"{what} {path} is not UTF-8 text") from None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        if isinstance(error, OSError) and writing(error):
            raise  # the output's (the body's: a full disk, a closed pipe), not the file's
        raise InputError(f"cannot read {what} {path}: {reason_of(error)}") from None


def open_regular(path: str) -> io.BufferedReader:
    """Open ``path`` for reading if it is a regular file; a FIFO is opened without waiting
    for a writer, and a device, FIFO, socket or directory is refused before any read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "not a regular file (a device, FIFO or directory is refused)")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return open(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def read_whole(stream: TextIO, what: str, limit: int = MAX_LINE) -> str:
    """All of ``stream``, read at most ``limit`` + 1 characters at a time: a longer text is
    an error before more of it is read.

    >>> read_whole(io.StringIO("x^2"), "expression file")
    'x^2'
    >>> read_whole(io.StringIO("x" * 11), "expression file", limit=10)
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: the expression file is longer than 10 characters ...
    """
    text = stream.read(limit + 1)
    if len(text) > limit:
        raise InputError(f"the {what} is longer than {limit:,} characters (a fixed limit)")
    return text


def read_file(path: str, what: str, limit: int = MAX_LINE) -> str:
    """The text of the regular file ``path`` (UTF-8), at most ``limit`` characters.

    >>> read_file("no/such/file", "expression file")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: cannot read expression file no/such/file: No such file or ...
    """
    with open_text(path, what) as stream:
        return read_whole(stream, what, limit)


_Line = TypeVar("_Line")  # a line as read: its text, or what a decoder made of it


def read_lines(stream: Iterable[_Line], limit: int = MAX_LINE) -> Iterator[_Line | int]:
    r"""The lines of ``stream``, each read at most ``limit`` + 1 characters at a time; a longer
    line is skipped to its end in bounded pieces and yields its length (an ``int``) instead.
    Lines already read (``stream`` with no ``readline``) are taken as they are, a longer one
    as its length, and what is not text (a line that could not be decoded) passed on.

    >>> list(read_lines(io.StringIO("ab\nxxxxxxx\ncd"), limit=4))
    ['ab\n', 8, 'cd']
    >>> list(read_lines(["ab\n", "xxxxxxx\n", None], limit=4))
    ['ab\n', 8, None]
    """
    readline = getattr(stream, "readline", None)
    if readline is None:  # lines already read
        yield from (len(x) if isinstance(x, str) and len(x) > limit else x for x in stream)
        return
    while line := readline(limit + 1):
        if len(line) <= limit or line.endswith("\n"):
            yield line
            continue
        length = len(line)
        while (more := readline(limit + 1)) and not more.endswith("\n"):
            length += len(more)
        yield length + len(more)


def bounded_lines(stream: Iterable[str], what: str, limit: int = MAX_LINE) -> Iterator[str]:
    r"""The lines of ``stream``; a line longer than ``limit`` characters is an error.

    >>> list(bounded_lines(io.StringIO("x\n1\n"), "points file"))
    ['x\n', '1\n']
    """
    for row, line in enumerate(read_lines(stream, limit), 1):
        if isinstance(line, int):
            raise InputError(
                f"{what} row {row}: the line is longer than {limit:,} characters (a fixed limit)"
            )
        yield line


@contextmanager
def open_stdin(what: str, errors: str = "strict") -> Iterator[TextIO]:
    """Standard input as UTF-8 text (a BOM is allowed, line endings are kept for the CSV
    reader); bytes that are not UTF-8 become a one-line :class:`InputError` (``errors``: as
    :func:`open_text`'s)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # already text (a test's StringIO)
        yield sys.stdin
        return
    stream = io.TextIOWrapper(buffer, encoding="utf-8-sig", errors=errors, newline="")
    try:
        yield stream
    except UnicodeDecodeError:
        raise InputError(f"{what} on stdin is not UTF-8 text") from None
    finally:
        stream.detach()


def spooled_copy(stream: Iterable[str]) -> TextIO:
    """The lines of ``stream`` saved to an anonymous temporary file (so that a file from stdin
    can be read twice: checked whole, then used), rewound for reading."""
    copy = tempfile.TemporaryFile(  # noqa: SIM115 (returned)
        "w+", encoding="utf-8", errors="surrogateescape", newline=""
    )  # (a byte that is not UTF-8, kept by open_stdin's surrogateescape, is kept as it was)
    copy.writelines(bounded_lines(stream, "input"))
    copy.seek(0)
    return copy


class NotUtf8(NamedTuple):
    """A line whose bytes are not UTF-8: where in it (from 0) the first bad byte is, and it."""

    offset: int
    byte: int

    def reason(self, row: int) -> str:
        """What is wrong with line ``row`` (from 1), in words.

        >>> NotUtf8(1, 0xFF).reason(2)
        'line 2 is not UTF-8 text (its byte 2 is 0xff)'
        """
        return f"line {row} is not UTF-8 text (its byte {self.offset + 1} is {self.byte:#04x})"


#: One line of :func:`utf8_lines`: its text, its length when too long, or why it is no text.
Line = str | int | NotUtf8
_LONE_CR = re.compile(r"(?<=\r)(?!\n)")  # a lone CR ends a line, as universal newlines read
_BOM = b"\xef\xbb\xbf"


def utf8_lines(raw: BinaryIO, limit: int = MAX_LINE) -> Iterator[Line]:
    r"""The lines of the binary stream ``raw``, each decoded on its own: a line that is not
    UTF-8 is a :class:`NotUtf8` and the lines after it are read all the same; a line longer
    than ``limit`` characters, skipped to its end in bounded pieces, is its length (in bytes
    when it was too long to decode; as
    :func:`read_lines`). A UTF-8 BOM before the first line is dropped;
    ``\n``, ``\r\n`` and a lone ``\r`` end a line.

    >>> import io
    >>> text = b"\xef\xbb\xbfx^2 x=1\ny\xff x=2\r\nz\rxxxxxxxxx\n"
    >>> list(utf8_lines(io.BytesIO(text), limit=8))
    ['x^2 x=1\n', NotUtf8(offset=1, byte=255), 'z\r', 10]
    """
    cap = 4 * (limit + 1)  # bytes: a line of more is surely longer than limit characters
    first = True
    while line := raw.readline(cap):
        if len(line) == cap and not line.endswith(b"\n"):
            length = len(line)
            while (more := raw.readline(cap)) and not more.endswith(b"\n"):
                length += len(more)
            yield length + len(more)
            continue
        if first:
            line, first = line.removeprefix(_BOM), False
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            yield NotUtf8(error.start, line[error.start])
            continue
        yield from (piece if len(piece) <= limit else len(piece) for piece in _split_cr(text))


def _split_cr(text: str) -> list[str]:
    """``text`` split after each CR that no LF follows (a line break of old Macs)."""
    return [piece for piece in _LONE_CR.split(text) if piece] if "\r" in text else [text]


@contextmanager
def open_lines(path: str, what: str, limit: int = MAX_LINE) -> Iterator[Iterator[Line]]:
    """The lines of the regular file ``path`` (``-``: standard input) as :func:`utf8_lines`
    reads them, each decoded on its own; a file that cannot be opened or read is a one-line
    :class:`InputError` naming ``what`` it is.

    >>> with open_lines("no/such/jobs", "jobs file") as lines:
    ...     next(lines)
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: cannot read jobs file no/such/jobs: No such file or direc...
    """
    if path == "-":
        buffer = getattr(sys.stdin, "buffer", None)  # (a test's StringIO has none: text)
        yield read_lines(sys.stdin, limit) if buffer is None else utf8_lines(buffer, limit)
        return
    with read_errors(path, what), open_regular(path) as raw:
        yield utf8_lines(raw, limit)
