"""Room for deep input: every command runs with Python's recursion limit raised to
:data:`FRAMES`, so that sympy's printer, differentiation and simplification -- recursive, about
five frames per level of a tree -- take every tree the parser accepts (``MAX_DEPTH`` levels
of nesting: ``sin(sin(...))`` 200 deep is about 1,000 frames in sympy's printer, past Python's
default of 1,000). Where a tree is deeper still (statements substituted into one another:
``a = sin(x); b = sin(a); ...``), the command ends with one line naming the limit
(:func:`refusal`), exit 2, never an internal error.

>>> import sys
>>> with deep_stack():
...     sys.getrecursionlimit() >= FRAMES
True
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

#: Python frames a command may use (sympy's recursion; C code recurses far less).
FRAMES = 12_000


@contextlib.contextmanager
def deep_stack() -> Iterator[None]:
    """Run the body with the recursion limit at least :data:`FRAMES`; restored after."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, FRAMES))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def refusal() -> str:
    """The one line for an input deeper than a command can follow.

    >>> print(refusal())  # doctest: +ELLIPSIS
    the expression is nested too deeply to finish (it needs more than 12,000 Python frames...
    """
    from gradcalc.lang.lexer import MAX_DEPTH

    return (
        f"the expression is nested too deeply to finish (it needs more than {FRAMES:,} Python "
        f"frames; the parser takes {MAX_DEPTH} levels of parentheses, and statements "
        "substituted into each other nest deeper): split it into smaller expressions"
    )
