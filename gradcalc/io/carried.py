r"""Text carried from the user's data to output -- an ``--id`` cell, the id column's name --
marked as such (:class:`Carried`) and made safe in CSV: a character that could drive a
terminal (ESC, BEL, a right-to-left override, a zero-width space) is written as its escape,
and a cell that a spreadsheet would run as a formula starts with ``'``. A TAB and spaces are
kept as they are (a TAB stays one character, never the two characters ``\t``). gradcalc's own
numbers and formulas (``-sin(x)``, the operator ``+``) are never altered. JSON and Parquet keep
the text exact (their readers never run it).

Text is marked :class:`~gradcalc.core.naming.Carried` where it is read; a header is checked
by :func:`gradcalc.core.naming.unique_header`: CSV and Parquet columns are named once.

>>> csv_cell("=HYPERLINK(1)"), csv_cell("-1.5e3"), csv_cell("-x"), csv_cell("a\tb")
("'=HYPERLINK(1)", '-1.5e3', "'-x", 'a\tb')
>>> print(csv_cell("\x1b]0;t\x07"))
\x1b]0;t\x07
>>> list(csv_rows([["-sin(x)", Carried("-x")]]))
[['-sin(x)', "'-x"]]
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence

from gradcalc.core.naming import Carried

#: What a spreadsheet reads as the start of a formula (a tab or CR before one hides it).
FORMULA = ("=", "+", "-", "@", "\t", "\r")
#: A real number (what a leading ``+`` or ``-`` may start without being a formula).
REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def kept(character: str) -> bool:
    r"""Whether a character of carried text is written as it is in CSV: a printable one, a
    TAB or a space of any width -- not a control, format (bidirectional, zero-width) or line
    separator character, which could drive a terminal or hide text.

    >>> [kept(c) for c in ("a", "\t", "\xa0", "\x1b", "\u202e", "\u200b", "\n")]
    [True, True, True, False, False, False, False]
    """
    return character.isprintable() or character == "\t" or unicodedata.category(character) == "Zs"


def csv_cell(text: str) -> str:
    r"""One cell of carried text as CSV writes it: each character :func:`kept` or written as
    its escape (``\x1b``, ``\u202e``), and ``'`` before a formula (not before a number)."""
    cell = text if all(map(kept, text)) else "".join(c if kept(c) else repr(c)[1:-1] for c in text)
    if text.startswith(FORMULA) and not REAL.match(text):
        return "'" + cell
    return cell


def csv_rows(rows: Iterable[Sequence[object]]) -> Iterator[list[str]]:
    """The rows as CSV cells: :class:`Carried` text through :func:`csv_cell`, every other
    cell (a number, a formula gradcalc wrote) as it is.

    >>> list(csv_rows([[1, "@SUM(A1)", Carried("@SUM(A1)")]]))
    [['1', '@SUM(A1)', "'@SUM(A1)"]]
    """
    for row in rows:
        yield [csv_cell(cell) if isinstance(cell, Carried) else str(cell) for cell in row]
