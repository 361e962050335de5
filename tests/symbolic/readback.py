"""Read a text gradcalc printed (a derivative, an exact value) back through gradcalc's own
parser to sympy: the printed notation (``x^2``, ``2x``, ``ln``) is promised to read back to
the same mathematics."""

from __future__ import annotations

from typing import Any

from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from gradcalc.symbolic.crosscheck.crosscheck import to_sympy


def read_back(text: str) -> Any:
    """The sympy expression (real symbols) of a printed ``text``."""
    graph = lower(parse_program(text))
    return to_sympy(graph)[graph.targets[0]]
