"""The syntax tree the parser builds: small immutable nodes, each carrying the 0-based column
of its token in the original text, and the statements of a program; iterative traversals.

>>> from gradcalc.lang.parser import parse_program
>>> tree = parse_program("2*x + 1").statements[0].expr
>>> type(tree).__name__, [type(node).__name__ for node in children(tree)]
('Binary', ['Binary', 'Num'])
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeGuard

__all__ = [
    "Binary",
    "Call",
    "Const",
    "Name",
    "Neg",
    "Node",
    "Num",
    "Program",
    "Statement",
    "children",
    "is_binary",
    "postorder",
]


# --- the IR ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Num:
    """A decimal literal exactly as typed; ``value`` is ``float(text)``."""

    value: float
    text: str
    column: int


@dataclass(frozen=True, slots=True)
class Const:
    """The constant ``pi`` or ``E``."""

    name: str
    column: int


@dataclass(frozen=True, slots=True)
class Name:
    """A variable, or a name assigned by an earlier statement."""

    name: str
    column: int


@dataclass(frozen=True, slots=True)
class Call:
    """A registry op applied to arguments; ``op`` is the registry key (``"abs"`` for ``Abs``).

    ``params`` are the op's keyword parameters as written (``(("axis", 0),)``), and for
    indexing ``v[1, 2]`` (op ``index``) the whole-number index ``(("index", (1, 2)),)``.
    """

    op: str
    args: tuple[Node, ...]
    column: int
    params: tuple[tuple[str, int | tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class Binary:
    """``left op right`` with ``op`` in add, sub, mul, div, pow; ``column`` is the operator's."""

    op: str
    left: Node
    right: Node
    column: int


@dataclass(frozen=True, slots=True)
class Neg:
    """Unary minus (unary plus is dropped)."""

    operand: Node
    column: int


Node = Num | Const | Name | Call | Binary | Neg


@dataclass(frozen=True, slots=True)
class Statement:
    """``target = expr``, or a bare output expression (``target`` is ``None``)."""

    target: str | None
    expr: Node
    column: int


@dataclass(frozen=True, slots=True)
class Program:
    """The parsed text: its statements in order; ``parameters``, the variables a function
    head names in its order (``f(y, x) = x*y``), or none; ``name``, the head's function name
    (``F`` of ``F(r, t) = r*cos(t), r*sin(t)``, whose outputs are ``F1`` and ``F2``), or
    "" without a head."""

    text: str
    statements: tuple[Statement, ...]
    parameters: tuple[str, ...] = ()
    name: str = ""

    @property
    def free_variables(self) -> tuple[str, ...]:
        """Names read before being assigned, in order of first appearance.

        >>> from gradcalc.lang.parser import parse_program
        >>> parse_program("c = c + b; d = c*a; d + b").free_variables
        ('c', 'b', 'a')
        """
        assigned: set[str] = set()
        free: dict[str, None] = {}
        for statement in self.statements:
            for node in postorder(statement.expr):
                if isinstance(node, Name) and node.name not in assigned:
                    free.setdefault(node.name)
            if statement.target is not None:
                assigned.add(statement.target)
        return tuple(free)


def children(node: Node) -> tuple[Node, ...]:
    """The operands of a node, left to right (none for leaves).

    >>> from gradcalc.lang.parser import parse_constant, parse_program
    >>> children(parse_constant("1 + 2"))
    (Num(value=1.0, text='1', column=0), Num(value=2.0, text='2', column=4))
    """
    if type(node) is Binary:  # (exact types: Node is a closed union; faster than isinstance)
        return (node.left, node.right)
    if type(node) is Call:
        return node.args
    if type(node) is Neg:
        return (node.operand,)
    return ()


def postorder(root: Node) -> Iterator[Node]:
    """Every node of the tree, children (left to right) before their parent; iterative.

    >>> from gradcalc.lang.parser import parse_constant
    >>> [type(node).__name__ for node in postorder(parse_constant("1 + 2*pi"))]
    ['Num', 'Num', 'Const', 'Binary', 'Binary']
    """
    reverse_order: list[Node] = []
    stack = [root]
    pop, extend, keep = stack.pop, stack.extend, reverse_order.append
    while stack:
        node = pop()
        keep(node)
        extend(children(node))
    return reversed(reverse_order)


def is_binary(node: object, op: str) -> TypeGuard[Binary]:
    """Whether ``node`` is the binary operation ``op``.

    >>> from gradcalc.lang.parser import parse_program
    >>> is_binary(parse_program("x*y").statements[0].expr, "mul")
    True
    """
    return isinstance(node, Binary) and node.op == op
