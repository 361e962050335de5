"""Literal pieces of the input language shared by every reader of untrusted text.

>>> bool(NAME.match("w1")), split_top_level("x=1,y=atan2(1, 2)")
(True, ['x=1', 'y=atan2(1, 2)'])
>>> CONSTANTS["e"], CONSTANT_VALUES["pi"]
('E', 3.141592653589793)
"""

from __future__ import annotations

import math
import re

#: The named constants, the one table of them: each spelling the parser accepts, its
#: canonical name (what a syntax tree and a graph node hold; also sympy's name for it,
#: ``sympy.pi``, ``sympy.E``) and its value.
NAMED_CONSTANTS = {"pi": ("pi", math.pi), "e": ("E", math.e), "E": ("E", math.e)}
#: Each spelling's canonical name.
CONSTANTS = {spelling: name for spelling, (name, _) in NAMED_CONSTANTS.items()}
#: Each canonical name's value.
CONSTANT_VALUES = {name: value for name, value in NAMED_CONSTANTS.values()}

#: A variable name: a letter, then letters, digits or underscores.
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


def split_top_level(text: str, separator: str = ",") -> list[str]:
    """Split at separators outside parentheses.

    >>> split_top_level("x=atan2(1, 2),y=3")
    ['x=atan2(1, 2)', 'y=3']
    """
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


#: A decimal literal of ordinary size, optionally negative: ``-12``, ``0.5``, ``3e-4``.
DECIMAL = re.compile(r"-?(?:[0-9]{1,20}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})(?:[eE][+-]?[0-9]{1,3})?")
