"""A syntax tree back to text: the canonical form (``**``, explicit ``*``, only the parentheses
needed) that parses back to the same tree, and the "read as" notation shown to people.

>>> from gradcalc.lang.parser import parse_program
>>> unparse(parse_program("2x(y + 1)").statements[0].expr)
'2*x*(y + 1)'
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from gradcalc.core.ops import OPERATORS, REGISTRY
from gradcalc.lang.syntax import Binary, Call, Const, Name, Neg, Node, Num, is_binary

__all__ = ["PRECEDENCE", "preview", "unparse"]


# the operator table comes from the registry's infix ops; "neg" is unary minus, "mul" also
# implicit multiplication
PRECEDENCE = {op.name: op.precedence for op in REGISTRY.values() if op.precedence}
_ATOM = max(PRECEDENCE.values()) + 1
_LOOSEST = min(PRECEDENCE.values())
_SYMBOLS = {  # the loosest operators are written with spaces around them: x*y + z
    op.name: f" {op.symbol} " if op.precedence == _LOOSEST else op.symbol
    for op in OPERATORS.values()
    if op.symbol
}
_PRODUCTS = ("mul", "div", "matmul")  # one precedence: read left to right
_READING = {"add": " + ", "sub": " - ", "mul": "·", "div": "/", "pow": "^", "matmul": " @ "}
_RIGHT_ASSOCIATIVE = {op.name for op in REGISTRY.values() if op.right_associative}


def unparse(node: Node, reading: bool = False) -> str:
    """Canonical text for a tree: ``**`` for powers, explicit ``*``, only the parentheses needed.

    It parses back to the same tree (with the same ``variables``), up to columns. With
    ``reading``, the notation shown to people as "read as": ``^``, ``·``, ``e``, and
    parentheses that make the grouping of ``/`` plain (``(1/2)·x``, ``(x^1)/2``).

    >>> from gradcalc.lang.parser import parse_constant, parse_program
    >>> unparse(parse_program("2x^2 - (y - z)(y + z)").statements[0].expr)
    '2*x**2 - (y - z)*(y + z)'
    >>> unparse(parse_constant("(-2)^-3^2"))
    '(-2)**-3**2'
    >>> [unparse(parse_program(t).statements[0].expr, reading=True) for t in ("e^2x", "1/2x")]
    ['e^2·x', '(1/2)·x']
    """
    return "".join(_pieces(node, reading))


def _pieces(root: Node, reading: bool = False) -> Iterator[str]:
    """The text of a tree, piece by piece, left to right (linear time, no recursion)."""
    stack: list[Node | str] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Name):  # the commonest leaves, without a layout
            yield item.name
        elif isinstance(item, Num):
            yield item.text
        else:
            stack.extend(reversed(_layout(item, reading)))


def _layout(node: Node, reading: bool) -> list[Node | str]:
    """One node's text with its operands left as nodes, parenthesised where they must be."""
    if isinstance(node, Binary):  # (the commonest node with operands first)
        return _binary_layout(node, reading)
    if isinstance(node, Num):
        return [node.text]
    if isinstance(node, Const):
        return ["e" if reading and node.name == "E" else node.name]
    if isinstance(node, Name):
        return [node.name]
    if isinstance(node, Call) and node.op == "index":
        subscript = ", ".join(str(i) for i in np.atleast_1d(node.params[0][1]))
        grouped = not isinstance(node.args[0], (Num, Const, Name, Call))
        return [*_grouped(node.args[0], grouped), f"[{subscript}]"]
    if isinstance(node, Call):
        pieces: list[Node | str] = [f"{node.op}("]
        for position, arg in enumerate(node.args):
            pieces += [", ", arg] if position else [arg]
        pieces += [f", {key}={value}" for key, value in node.params]
        return [*pieces, ")"]
    # a Neg: reading, -(x^2), the grouping made plain
    operand = _precedence(node.operand)
    grouped = operand < PRECEDENCE["neg"] or (reading and operand == PRECEDENCE["pow"])
    return ["-", *_grouped(node.operand, grouped)]


def _binary_layout(node: Binary, reading: bool) -> list[Node | str]:
    """:func:`_layout` of ``left op right``."""
    own = PRECEDENCE[node.op]
    left, right = _precedence(node.left), _precedence(node.right)
    if node.op in _RIGHT_ASSOCIATIVE:  # a power; its right operand may carry a sign
        left_needs, right_needs = left <= own, right < PRECEDENCE["neg"]
    else:
        left_needs, right_needs = left < own, right <= own
    if reading and node.op in ("mul", "div"):  # (1/2)·x, (x^1)/2: the grouping made plain
        left_needs = left_needs or is_binary(node.left, "div")
        left_needs = left_needs or (node.op == "div" and _ends_in_power(node.left))
    if reading and node.op in _PRODUCTS and isinstance(node.left, Binary):  # (a·X) @ W
        left_needs = left_needs or (
            node.left.op in _PRODUCTS
            and node.left.op != node.op
            and ("matmul" in (node.op, node.left.op))
        )
    symbol = (_READING if reading else _SYMBOLS)[node.op]
    if left_needs or right_needs:
        return [*_grouped(node.left, left_needs), symbol, *_grouped(node.right, right_needs)]
    return [node.left, symbol, node.right]  # (the usual case: no parentheses)


def _ends_in_power(node: Node) -> bool:
    """Whether the last factor of a product is a power (``2·x^3``)."""
    while is_binary(node, "mul"):
        node = node.right
    return is_binary(node, "pow")


def _precedence(node: Node) -> int:
    if isinstance(node, Binary):
        return PRECEDENCE[node.op]
    return PRECEDENCE["neg"] if isinstance(node, Neg) else _ATOM


def _grouped(node: Node, parenthesise: bool) -> list[Node | str]:
    return ["(", node, ")"] if parenthesise else [node]


def preview(node: Node, limit: int = 60) -> str:
    """``unparse(node)`` cut to ``limit`` characters, without unparsing all of a huge tree."""
    pieces, length = [], 0
    for piece in _pieces(node):
        pieces.append(piece)
        length += len(piece)
        if length > limit:
            return "".join(pieces)[:limit] + "..."
    return "".join(pieces)
