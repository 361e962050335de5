"""A file's header as a message may show it: its column names, never the rest of its first
line (a file that is not a table -- a ``/proc`` file, a password file -- would otherwise be
echoed into the error)."""

from __future__ import annotations

from collections.abc import Sequence


def is_name(cell: str) -> bool:
    """Whether a header cell is a variable name (letters, digits, ``_``; at most 64).

    >>> is_name("x1"), is_name("PATH=/bin"), is_name("")
    (True, False, False)
    """
    from gradcalc.lang.lexer import MAX_NAME_LENGTH
    from gradcalc.lang.literals import NAME

    return len(cell) <= MAX_NAME_LENGTH and NAME.match(cell) is not None


def shown_columns(header: Sequence[str], limit: int = 20) -> str:
    """A file's columns for a message: only the cells that are names, never the rest of its
    first line (a file that is not a table -- a ``/proc`` file, a password file -- would
    otherwise be echoed).

    >>> shown_columns(["x", "y"]), shown_columns(["SECRET=1 PATH=/bin"])
    ('its columns: x, y', 'its header has no column names: 1 cell that is not a name')
    """
    names = [cell for cell in header if is_name(cell)]
    others = len(header) - len(names)
    cells = f"{others:,} {'cell that is not a name' if others == 1 else 'cells that are not names'}"
    if not names:
        return f"its header has no column names: {cells}"
    more = ", ..." if len(names) > limit else ""
    return f"its columns: {', '.join(names[:limit])}{more}" + (f"; {cells}" if others else "")
