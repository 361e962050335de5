"""Literal pieces of the input language shared by every reader of untrusted text.

>>> bool(NAME.match("w1")), split_top_level("x=1,y=atan2(1, 2)")
(True, ['x=1', 'y=atan2(1, 2)'])
>>> CONSTANTS["e"], CONSTANT_VALUES["pi"]
('E', 3.141592653589793)
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from gradcalc.core.errors import InputError

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
    """Split at separators outside parentheses and brackets.

    >>> split_top_level("x=atan2(1, 2),y=3")
    ['x=atan2(1, 2)', 'y=3']
    >>> split_top_level("W=[[1,2],[3,4]],b=[0,1]")
    ['W=[[1,2],[3,4]]', 'b=[0,1]']
    """
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char in "([") - (char in ")]")
        if char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


#: The initialisers of a tensor value (``--at W=randn(3,2)``), by name: how each fills an
#: array of the shape given (:mod:`gradcalc.engine.tensors.tensorpoints` draws them).
INITIALISERS: dict[str, str] = {
    "randn": "standard normal",
    "zeros": "0",
    "ones": "1",
    "glorot": "Glorot uniform on ±sqrt(6/(fan_in+fan_out)), shape (fan_in, fan_out)",
}
INITIALISER = re.compile(r"\s*([A-Za-z]+)\s*\((.*)\)\s*\Z", re.DOTALL)


def is_tensor_text(text: str) -> bool:
    """Whether an ``--at`` value is a tensor (a bracket literal, a file, an initialiser).

    >>> is_tensor_text("[1, 2]"), is_tensor_text("randn(3,2)"), is_tensor_text("sin(1)")
    (True, True, False)
    """
    text = text.strip()
    match = INITIALISER.match(text)
    return text.startswith(("[", "@")) or (match is not None and match[1] in INITIALISERS)


def has_tensors(specs: Sequence[str]) -> bool:
    """Whether any value of the ``--at`` specs is a tensor.

    >>> has_tensors(["x=1,W=[1,2]"]), has_tensors(["x=1,y=atan2(1, 2)"])
    (True, False)
    """
    return any(
        is_tensor_text(pair.partition("=")[2]) for spec in specs for pair in split_top_level(spec)
    )


#: Digits alone: the two halves of a number split at a decimal comma (``x=1,5``).
DIGITS = re.compile(r"\s*[+-]?[0-9]+\s*")


def at_rows(specs: Sequence[str]) -> list[dict[str, str]]:
    """The ``name=value`` pairs of ``--at`` specs (``"x=1,y=pi/4"``), one row per spec, each
    value's text left for the caller to read as a constant.

    >>> at_rows(["x=1,y=atan2(1, 2)", "x=2, y=3"])
    [{'x': '1', 'y': 'atan2(1, 2)'}, {'x': '2', 'y': '3'}]
    >>> at_rows(["x=1,5"])
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: --at x=1,5: use a dot for decimals: x=1.5

    Raises:
        InputError: for a malformed pair, a repeated name, or a spec that names none of the
            first one's variables.
    """
    rows: list[dict[str, str]] = []
    for spec in specs:
        row: dict[str, str] = {}
        pairs = split_top_level(spec)
        for k, pair in enumerate(pairs):
            name, equals, value = pair.partition("=")
            name, value = name.strip(), value.strip()
            before, _, whole = pairs[k - 1].partition("=") if k else ("", "", "")
            if not equals and DIGITS.fullmatch(name) and DIGITS.fullmatch(whole):
                decimal = f"{before.strip()}={whole.strip()}.{name}"
                grouped = len(name) == 3 and whole.strip() != "0"  # 1,000: thousands, maybe
                thousands = f", or write thousands without a comma: {decimal.replace('.', '')}"
                raise InputError(
                    f"--at {spec}: use a dot for decimals: {decimal}{thousands if grouped else ''}"
                )
            if not equals or not value:
                raise InputError(f"--at expects name=value pairs like x=1,y=2, got {pair!r}")
            if value.startswith("="):  # x==1: an equation's ==, not a second pair
                meant = f"{name}={value[1:].strip()}"
                raise InputError(f"--at {spec}: one = gives a value: --at {meant}")
            if "=" in value:  # x=1 y=2, x=1;y=2
                fixed = ",".join(p.strip() for p in re.split(r"[\s;]+(?=[A-Za-z]\w*\s*=)", spec))
                raise InputError(f"--at {spec}: separate pairs with commas: --at {fixed}")
            if name in row:
                raise InputError(f"--at: {name} is given twice in {spec!r}")
            row[name] = value
        if rows and not set(row) & set(rows[0]):
            merged = ",".join(specs)
            raise InputError(f"each --at is one point: write --at {merged}")
        rows.append(row)
    return rows


#: A decimal literal of ordinary size, optionally negative: ``-12``, ``0.5``, ``3e-4``.
DECIMAL = re.compile(r"-?(?:[0-9]{1,20}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})(?:[eE][+-]?[0-9]{1,3})?")
#: A number whose exponent is cut off, ``2.5e``, ``3E``, ``1e5e``: the parser reads it as a
#: multiple of Euler's e (2.5·e), which a value that is one number alone rarely means.
CUT_EXPONENT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[eE]")


#: The most elements a bracket literal may hold (a bigger tensor belongs in a file).
MAX_LITERAL_ELEMENTS = 100_000
#: The deepest nesting of brackets a literal may have.
MAX_LITERAL_DEPTH = 32


def nested_literal(text: str) -> tuple[tuple[int, ...], list[str]]:
    """Read a bracket literal ``[[1, 2], [3, pi/4]]``: its shape and its elements' texts, in
    row-major order. Each element is left as text for the caller to read as a constant.

    >>> nested_literal("[[1, 2], [3, pi/4]]")
    ((2, 2), ['1', '2', '3', 'pi/4'])
    >>> nested_literal("[[1, 2], [3]]")
    Traceback (most recent call last):
    ValueError: ragged: in [[1, 2], [3]], item 2 has shape (1,), item 1 (2,)

    Raises:
        ValueError: for unbalanced brackets, an empty list, ragged rows or too many elements
            (the message says which).
    """
    reader = _LiteralReader(text)
    shape, elements = reader.read(0)
    if reader.position != len(reader.tokens) or not shape:
        raise ValueError(f"{text} is not one bracketed list such as [[1, 2], [3, 4]]")
    return shape, elements


class _LiteralReader:
    """Reads the tokens of a bracket literal left to right (``position``: the next one)."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = [t for t in re.split(r"([\[\],()])", text) if t.strip()]
        self.position = 0

    def element(self) -> str:
        """Tokens up to a comma or bracket outside parentheses: one element's text."""
        depth, parts = 0, []
        while self.position < len(self.tokens):
            token = self.tokens[self.position]
            if depth == 0 and token in ",[]":
                break
            depth += (token == "(") - (token == ")")
            parts.append(token)
            self.position += 1
        if not parts:
            raise ValueError(f"an empty element or list in {self.text}")
        return "".join(parts).strip()

    def read(self, level: int) -> tuple[tuple[int, ...], list[str]]:
        """The shape and elements of the element or list at ``position``, ``level`` deep."""
        tokens, text = self.tokens, self.text
        if self.position >= len(tokens) or tokens[self.position] != "[":
            return (), [self.element()]
        if level == MAX_LITERAL_DEPTH:
            raise ValueError(f"brackets nested deeper than {MAX_LITERAL_DEPTH} levels")
        self.position += 1
        items = [self.read(level + 1)]
        while self.position < len(tokens) and tokens[self.position] == ",":
            self.position += 1
            items.append(self.read(level + 1))
        if self.position >= len(tokens) or tokens[self.position] != "]":
            raise ValueError(f"unbalanced brackets in {text}")
        self.position += 1
        shapes = [shape for shape, _ in items]
        if any(shape != shapes[0] for shape in shapes):
            odd = next(k for k, shape in enumerate(shapes) if shape != shapes[0])
            raise ValueError(
                f"ragged: in {text}, item {odd + 1} has shape {shapes[odd]}, item 1 {shapes[0]}"
            )
        elements = [e for _, flat in items for e in flat]
        if len(elements) > MAX_LITERAL_ELEMENTS:
            raise ValueError(f"more than {MAX_LITERAL_ELEMENTS:,} elements: use a file")
        return (len(items), *shapes[0]), elements
