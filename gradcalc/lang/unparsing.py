"""A syntax tree back to text: the canonical form (``**``, explicit ``*``, only the parentheses
needed) that parses back to the same tree, and the "read as" notation shown to people (in
which :func:`operation` also writes one op of a tape).

>>> from gradcalc.lang.parser import parse_program
>>> unparse(parse_program("2x(y + 1)").statements[0].expr)
'2*x*(y + 1)'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from gradcalc.core.ops import OPERATORS, REGISTRY, written_name
from gradcalc.lang.slips import juxtaposed, likely_meaning
from gradcalc.lang.syntax import Binary, Call, Const, Name, Neg, Node, Num, is_binary

__all__ = ["PRECEDENCE", "operation", "preview", "unparse"]


# the operator table comes from the registry's infix ops; "neg" is unary minus, "mul" also
# implicit multiplication
PRECEDENCE = {op.name: op.precedence for op in REGISTRY.values() if op.precedence}
_ATOM = max(PRECEDENCE.values()) + 1
_LOOSEST = min(PRECEDENCE.values())
_NEG = PRECEDENCE["neg"]
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


def operation(op: str, operands: Sequence[str]) -> str:
    """Op ``op`` applied to operands given as text (each written as it is), in the reading
    notation: how a tape shows what a record computes.

    >>> [operation(op, names) for op, names in [("pow", ["x", "2"]), ("mul", ["#1", "#2"])]]
    ['x^2', '#1·#2']
    >>> operation("log", ["x"]), operation("neg", ["#3"]), operation("add", ["#1", "y"])
    ('ln(x)', '-#3', '#1 + y')
    """
    leaves = tuple(Name(text, 0) for text in operands)
    if op == "neg":
        return unparse(Neg(leaves[0], 0), reading=True)
    if op in PRECEDENCE:
        return unparse(Binary(op, leaves[0], leaves[1], 0), reading=True)
    return unparse(Call(op, leaves, 0), reading=True)


def _pieces(root: Node, reading: bool = False) -> Iterator[str]:
    """The text of a tree, piece by piece, left to right (linear time, no recursion)."""
    stack: list[Node | str] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Name):  # the commonest leaves, without a layout
            yield item.name
        elif isinstance(item, Binary):  # (the commonest node with operands)
            stack.extend(reversed(_binary_layout(item, reading)))
        elif isinstance(item, Num):
            yield item.text
        else:
            stack.extend(reversed(_layout(item, reading)))


def _layout(node: Node, reading: bool) -> list[Node | str]:
    """The text of a call, a constant or a sign (:func:`_pieces` lays out the rest) with its
    operands left as nodes, parenthesised where they must be."""
    if isinstance(node, Call) and node.op == "index" and node.params:
        subscript = ", ".join(str(i) for i in np.atleast_1d(node.params[0][1]))
        grouped = not isinstance(node.args[0], (Num, Const, Name, Call))
        return [*_grouped(node.args[0], grouped), f"[{subscript}]"]
    if isinstance(node, Call):
        one = reading and len(node.args) == 1  # (log(x, b) keeps its name: ln is base e)
        pieces: list[Node | str] = [f"{written_name(node.op) if one else node.op}(", node.args[0]]
        for arg in node.args[1:]:
            pieces += (", ", arg)
        for key, value in node.params:
            pieces.append(f", {key}={value}")
        pieces.append(")")
        return pieces
    if isinstance(node, Const):
        return ["e" if reading and node.name == "E" else node.name]
    assert isinstance(node, Neg), node  # (the other kinds are laid out by _pieces)
    # reading, -(x^2): the grouping made plain
    operand = _precedence(node.operand)
    grouped = operand < _NEG or (reading and operand == PRECEDENCE["pow"])
    return ["-", *_grouped(node.operand, grouped)]


def _binary_layout(node: Binary, reading: bool) -> list[Node | str]:
    """The layout of ``left op right``, as :func:`_layout` gives the other kinds'."""
    own = PRECEDENCE[node.op]
    left, right = _precedence(node.left), _precedence(node.right)
    if node.op in _RIGHT_ASSOCIATIVE:  # a power; its right operand may carry a sign
        left_needs, right_needs = left <= own, right < _NEG
        right_needs = right_needs or (reading and right == own)  # e^(x^2), never e^x^2
        right_needs = right_needs or (reading and _product_like(node.right))  # e^(kx)
    else:
        left_needs, right_needs = left < own, right <= own
    if reading and node.op in _PRODUCTS and isinstance(node.left, Binary):
        left_needs = left_needs or _plain_grouping(node.op, node.left)
    symbol = (_READING if reading else _SYMBOLS)[node.op]
    if left_needs or right_needs:
        return [*_grouped(node.left, left_needs), symbol, *_grouped(node.right, right_needs)]
    return [node.left, symbol, node.right]  # (the usual case: no parentheses)


def _product_like(node: Node) -> bool:
    """Whether ``node`` is a name that reads like a product or a call (``kx``, ``sinx``):
    the reading of a power puts it in parentheses, ``e^(kx)``, so that the whole name is
    plainly the exponent.

    >>> from gradcalc.lang.parser import parse_program
    >>> [unparse(parse_program(t).statements[0].expr, True) for t in ("e^kx", "e^(k x)", "2^w1")]
    ['e^(kx)', 'e^(k·x)', '2^w1']
    """
    if not isinstance(node, Name):
        return False
    return juxtaposed(node.name) is not None or likely_meaning(node.name) is not None


def _plain_grouping(op: str, left: Binary) -> bool:
    """Whether the reading parenthesises ``left``, the binary left operand of a product
    ``op`` (mul, div or matmul), to make the grouping plain: ``(1/2)·x``, ``(x^1)/2``,
    ``(a·X) @ W``."""
    if op in ("mul", "div") and (left.op == "div" or (op == "div" and _ends_in_power(left))):
        return True
    return left.op in _PRODUCTS and left.op != op and "matmul" in (op, left.op)


def _ends_in_power(node: Node) -> bool:
    """Whether the last factor of a product is a power (``2·x^3``)."""
    while is_binary(node, "mul"):
        node = node.right
    return is_binary(node, "pow")


def _precedence(node: Node) -> int:
    if isinstance(node, Binary):
        return PRECEDENCE[node.op]
    return _NEG if isinstance(node, Neg) else _ATOM


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
