"""Lines of a stream decoded one by one: ``grad --jobs`` answers every line it can, so one
line that is not UTF-8 is that line's error, never the end of the stream (a text stream
decodes a whole chunk at a time, and one bad byte in it stops every line around it).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO, NamedTuple

from gradcalc.core.errors import InputError, reason_of, writing
from gradcalc.io.files import MAX_LINE, open_regular, read_lines


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
    :func:`~gradcalc.io.files.read_lines`). A UTF-8 BOM before the first line is dropped;
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
    try:
        with open_regular(path) as raw:
            yield utf8_lines(raw, limit)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        if isinstance(error, OSError) and writing(error):
            raise  # the output's (the body's: a full disk, a closed pipe), not the file's
        raise InputError(f"cannot read {what} {path}: {reason_of(error)}") from None
