"""A file's header as a message may show it: its column names, never the rest of its first
line (a file that is not a table -- a ``/proc`` file, a password file -- would otherwise be
echoed into the error); a header with another separator than the comma, and a line the CSV
reader refused, in words."""

from __future__ import annotations

import csv
from collections.abc import Sequence

from gradcalc.core.errors import InputError


def is_name(cell: str) -> bool:
    """Whether a header cell is a variable name (letters, digits, ``_``; at most 64).

    >>> is_name("x1"), is_name("PATH=/bin"), is_name("")
    (True, False, False)
    """
    from gradcalc.lang.lexer import MAX_NAME_LENGTH
    from gradcalc.lang.literals import NAME

    return len(cell) <= MAX_NAME_LENGTH and NAME.match(cell) is not None


#: Separators other than the comma that a points file is often written with.
SEPARATORS = {";": "';'", "\t": "tab", "|": "'|'"}


def refuse_separated(header: Sequence[str], what: str) -> None:
    """Refuse a header that is one line of names joined by another separator than the
    comma (``x;y``, as a spreadsheet in a decimal-comma locale writes it), saying how to
    give the file: gradcalc reads commas only (there is no --delimiter).

    >>> refuse_separated(["x", "y"], "points file")
    >>> refuse_separated(["x;y"], "points file")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: the points file looks ';'-separated (its header: x;y): ...
    """
    text = ",".join(header)
    for mark, name in SEPARATORS.items():
        parts = text.split(mark)
        if len(parts) > 1 and all(is_name(p.strip()) for p in parts):
            shown = mark.join(p.strip() for p in parts[:20]) + (
                mark + "..." if len(parts) > 20 else ""
            )
            shown = shown.replace("\t", "<TAB>")
            convert = "tr '\\t' ',' < FILE" if mark == "\t" else f"tr '{mark}' ',' < FILE"
            if mark == ";":
                convert = "sed 's/,/./g; s/;/,/g' FILE (decimal commas become points)"
            raise InputError(
                f"the {what} looks {name}-separated (its header: {shown}): gradcalc reads "
                f"comma-separated files only, there is no --delimiter; convert it: {convert}"
            )


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


def not_csv(error: csv.Error) -> str:
    """What is wrong with a line the CSV reader refused: a quote left open at the end of the
    line is a cell with a line break in it, which a file read one row per line cannot hold.

    >>> try:
    ...     next(csv.reader(['"multi'], strict=True))
    ... except csv.Error as error:
    ...     print(not_csv(error))  # doctest: +ELLIPSIS
    a quoted cell spans lines (a line break inside quotes): cells with line breaks are not ...
    """
    if "unexpected end of data" in str(error):
        return (
            "a quoted cell spans lines (a line break inside quotes): cells with line breaks are "
            "not supported (one row per line); take the line break out of the cell"
        )
    return f"not valid CSV ({error})"
