r"""Text carried from data to output -- an ``--id`` cell, a column's name -- made safe to show:
escaped as error messages are (:func:`gradcalc.core.errors.escaped`: ESC, BEL, a right-to-
left override never reach a terminal), and in CSV (on stdout and in ``--out`` files alike) a
cell that a spreadsheet would run as a formula is neutralised with a leading ``'``. JSON and
Parquet keep the text exact (their readers never run it).

>>> csv_cell("=HYPERLINK(1)"), csv_cell("-1.5e3"), csv_cell("-x")
("'=HYPERLINK(1)", '-1.5e3', "'-x")
>>> print(csv_cell("\x1b]0;t\x07"))
\x1b]0;t\x07
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from gradcalc.core.errors import escaped

#: What a spreadsheet reads as the start of a formula (a tab or CR before one hides it).
FORMULA = ("=", "+", "-", "@", "\t", "\r")
#: A real number (what a leading ``+`` or ``-`` may start without being a formula).
REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def csv_cell(text: str) -> str:
    """One CSV cell as written: escaped, and ``'`` before a formula (not before a number)."""
    cell = escaped(text) if not text.isprintable() else text
    if text.startswith(FORMULA) and not REAL.match(text):
        return "'" + cell
    return cell


def csv_rows(rows: Iterable[Sequence[str]]) -> Iterator[list[str]]:
    """Every cell of ``rows`` through :func:`csv_cell` (numbers, the usual cells, unchanged).

    >>> list(csv_rows([["1", "@SUM(A1)"]]))
    [['1', "'@SUM(A1)"]]
    """
    for row in rows:
        yield [csv_cell(str(cell)) for cell in row]
