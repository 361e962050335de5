"""Files gradcalc writes (``--out``, ``--save-gradients``, a drawing): never one of the command's
own inputs, and never seen half-written.

:func:`refuse_overwriting` compares each output with each input before anything is read or
written -- the same file by any name (a symlink, ``./``, a hard link), as
:func:`os.path.samefile` decides. :class:`Replacing` writes a file's new content under a
hidden temporary name in the same directory and renames it over the target only when it is
complete (:meth:`~Replacing.commit`): a failure, a ``--timeout``, Ctrl-C, SIGTERM or SIGHUP
removes the temporary file (:meth:`~Replacing.discard`) and leaves a file that was there
untouched. Only
a process killed outright (SIGKILL) can leave the hidden ``.NAME.*.tmp`` file behind; the
CPU cap's handler removes them (:func:`discard_pending`).

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "out.csv")
>>> with open(path, "w") as f:
...     _ = f.write("old\\n")
>>> new = Replacing(path)
>>> with new.open_text() as f:
...     _ = f.write("new\\n")
>>> open(path).read()  # the file is untouched until the new one is complete
'old\\n'
>>> new.commit()
>>> open(path).read(), sorted(os.listdir(folder))
('new\\n', ['out.csv'])
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable
from typing import IO

from gradcalc.core.errors import InputError, reason_of

#: The temporary files of this process not yet renamed nor removed.
_PENDING: set[str] = set()


def same_file(one: str, other: str) -> bool:
    """Whether two paths name one existing file (through links, hard links included).

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> a = os.path.join(folder, "a.csv")
    >>> open(a, "w").close()
    >>> os.link(a, os.path.join(folder, "b.csv"))
    >>> same_file(a, os.path.join(folder, "b.csv")), same_file(a, os.path.join(folder, "c.csv"))
    (True, False)
    """
    try:
        return os.path.samefile(one, other)
    except (OSError, ValueError):  # a path that does not exist (or holds a NUL) is no input
        return False


def refuse_overwriting(
    outputs: Iterable[tuple[str, str]], inputs: Iterable[tuple[str, str]]
) -> None:
    """Refuse a command whose output would be one of its inputs: ``outputs`` and ``inputs``
    are pairs of how each is named on the command line (``--out``, ``--points``) and its path.

    >>> import tempfile
    >>> points = os.path.join(tempfile.mkdtemp(), "p.csv")
    >>> open(points, "w").close()
    >>> refuse_overwriting([("--out", points)], [("--points", points)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: --out .../p.csv is the --points file: writing it would ...
    """
    sources = list(inputs)
    for option, path in outputs:
        for source, given in sources:
            if same_file(path, given):
                also = "" if os.path.abspath(path) == os.path.abspath(given) else f" {given}"
                raise InputError(
                    f"{option} {path} is the {source} file{also}: writing it would destroy "
                    "the input; write the results to another file"
                )


class Replacing:
    """A new version of the file ``path`` (through a symlink: of the file it points to),
    written under a hidden temporary name beside it: :meth:`commit` puts it in place,
    :meth:`discard` removes it. The new file has the permissions of the one it replaces (a
    new one: those ``open`` would give it).

    Raises:
        InputError: a directory where the temporary file cannot be made.
    """

    def __init__(self, path: str):
        self.path = path
        target = os.path.realpath(path)
        self.target = target
        folder, name = os.path.split(target)
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except (OSError, ValueError):
            mode = None  # (a new file: the umask decides, as for open())
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        while True:
            self.temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
            _PENDING.add(self.temporary)  # (first: a signal just after the open finds it)
            try:
                descriptor = os.open(self.temporary, flags, 0o666)
                break
            except FileExistsError:
                _PENDING.discard(self.temporary)  # (another's file: never ours to remove)
                continue
            except (OSError, ValueError) as error:  # ValueError: a NUL in the path
                _PENDING.discard(self.temporary)
                raise InputError(f"cannot write {path}: {reason_of(error)}") from None
        try:
            if mode is not None:
                os.fchmod(descriptor, mode)
        finally:
            os.close(descriptor)

    def open_text(self) -> IO[str]:
        """The temporary file, opened for UTF-8 text (CSV's newlines as written)."""
        return open(self.temporary, "w", newline="", encoding="utf-8")

    def commit(self) -> None:
        """Put the complete file in place of the target (one rename: never half there)."""
        try:
            os.replace(self.temporary, self.target)
        except OSError as error:
            self.discard()
            raise InputError(f"cannot write {self.path}: {reason_of(error)}") from None
        _PENDING.discard(self.temporary)

    def discard(self) -> None:
        """Remove the temporary file (a failed run): the target is as it was."""
        with contextlib.suppress(OSError):
            os.remove(self.temporary)
        _PENDING.discard(self.temporary)


def discard_pending() -> None:
    """Remove every temporary file of this process not yet in place: a process stopped at
    once (its CPU cap) leaves no hidden file behind.

    >>> import tempfile
    >>> new = Replacing(os.path.join(tempfile.mkdtemp(), "o.csv"))
    >>> discard_pending(); os.path.exists(new.temporary)
    False
    """
    for path in list(_PENDING):
        with contextlib.suppress(OSError):
            os.remove(path)
        _PENDING.discard(path)
