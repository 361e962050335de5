"""How a warning quotes what was typed: where a subtree of the syntax tree stands in the text
(the columns the parser keeps), the typed excerpt widened to whole groups, and the one
sentence "T is read as R; if you mean M, write W".

A quoted excerpt is always a balanced, meaningful piece of the text: a group the excerpt
opens or closes is taken whole, ``(x^2+1)^2(x+1)``, never ``x^2+1)^2(x+1``.

>>> from gradcalc.lang.parser import parse_program
>>> text = "x/(x^2+1)^2(x+1)"
>>> product = parse_program(text).statements[0].expr
>>> typed(product.left.right, product.right, text)
'(x^2+1)^2(x+1)'
"""

from __future__ import annotations

from gradcalc.lang.syntax import Binary, Call, Const, Name, Neg, Node, Num, is_binary
from gradcalc.lang.unparsing import unparse

__all__ = ["end", "implicit", "last_factor", "misreading", "shortened", "span", "start", "typed"]


def misreading(
    read: Binary, meant: Binary, regrouped: str | None, text: str, head: str | None = None
) -> str:
    """The warning "T is read as R; if you mean M, write W": T is the typed text of ``read``,
    R and M the reading notation of ``read`` and ``meant``. W keeps the user's own spelling
    ``regrouped`` inside the new parentheses (``e^(2x)``) where there is one, and before them
    ``head`` where given (``2x/`` of ``2x/(3y)``); else W is M.

    >>> from gradcalc.lang.parser import parse_program
    >>> text = "e^2x"
    >>> read = parse_program(text).statements[0].expr
    >>> meant = Binary("pow", read.left.left, Binary("mul", read.left.right, read.right, 0), 0)
    >>> print(misreading(read, meant, "2x", text))
    e^2x is read as e^2·x; if you mean e^(2·x), write e^(2x)
    """
    meant_text = unparse(meant, reading=True)
    write = meant_text
    if regrouped is not None:
        inner = unparse(meant.right, reading=True)
        if head is None:
            head = meant_text[: len(meant_text) - len(inner) - 2]
        write = f"{head}({regrouped})"
    quoted = typed(read.left, read.right, text)
    parts = (quoted, unparse(read, reading=True), meant_text, write)
    return "{} is read as {}; if you mean {}, write {}".format(*map(shortened, parts))


def shortened(text: str, limit: int = 60) -> str:
    """``text``, cut to ``limit`` characters with ``…`` where cut.

    >>> shortened("x" * 70, 8)
    'xxxxxxx…'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def last_factor(node: Node) -> Node:
    """The rightmost factor of a product or quotient chain (``pow(e, 2)`` in ``3e^2``).

    >>> from gradcalc.lang.parser import parse_program
    >>> last_factor(parse_program("3x/y").statements[0].expr)
    Name(name='y', column=3)
    """
    while is_binary(node, "mul") or is_binary(node, "div"):
        node = node.right
    return node


def implicit(node: Binary, text: str) -> bool:
    """Whether a product was written without ``*``: its column is then its right operand's.

    >>> from gradcalc.lang.parser import parse_program
    >>> [implicit(parse_program(t).statements[0].expr, t) for t in ("2x", "2*x", "2·x")]
    [True, False, False]
    """
    return text[node.column] not in "*×·"


def start(node: Node) -> int:
    """The column of a subtree's first token (an indexed operand's, for ``v[0]``).

    >>> from gradcalc.lang.parser import parse_program
    >>> start(parse_program("1 + v[0]*2").statements[0].expr.right)
    4
    """
    while isinstance(node, Binary) or (isinstance(node, Call) and node.op == "index"):
        node = node.left if isinstance(node, Binary) else node.args[0]
    return node.column


def end(node: Node, text: str) -> int:
    """The column just after a subtree's last token (closing parentheses not included; an
    index's ``]`` is).

    >>> from gradcalc.lang.parser import parse_program
    >>> [end(parse_program(t).statements[0].expr, t) for t in ("2*sin(x)", "v[0]", "2pi")]
    [7, 4, 3]
    """
    while not isinstance(node, (Num, Name, Const)):
        if isinstance(node, Call) and node.op == "index":
            return text.find("]", node.column) + 1
        node = node.right if isinstance(node, Binary) else _children_last(node)
    spelled = node.text if isinstance(node, Num) else node.name
    if isinstance(node, Const) and node.name == "E":
        spelled = text[node.column]
    return node.column + (len(spelled) if text.startswith(spelled, node.column) else 1)


def _children_last(node: Neg | Call) -> Node:
    return node.operand if isinstance(node, Neg) else node.args[-1]


def typed(first: Node, last: Node, text: str) -> str:
    """The text from ``first``'s first token to ``last``'s last, as typed, with the whole of
    every group it opens or closes (:func:`span`).

    >>> from gradcalc.lang.parser import parse_program
    >>> text = "1/(x+1)(x-1)"
    >>> product = parse_program(text).statements[0].expr
    >>> typed(product.left.right, product.right, text)
    '(x+1)(x-1)'
    """
    return span(start(first), end(last, text), text)


def span(first: int, stop: int, text: str) -> str:
    """``text[first:stop]``, widened to whole groups: the ``(`` of each ``)`` it closes and
    the ``)`` of each ``(`` it leaves open (stripped of spaces at either end).

    >>> span(3, 12, "x/(x^2+1)^2(x+1)"), span(1, 3, "(x)")
    ('(x^2+1)^2(x+1)', '(x)')
    """
    depth = lowest = 0
    for char in text[first:stop]:
        depth += (char == "(") - (char == ")")
        lowest = min(lowest, depth)
    for _ in range(-lowest):  # the '(' of each group the span closes
        first = _matching(text, first - 1, -1)
    for _ in range(depth - lowest):  # the ')' of each group it opens
        stop = _matching(text, stop, 1) + 1
    return text[max(first, 0) : stop].strip()


def _matching(text: str, at: int, step: int) -> int:
    """The column of the first parenthesis from ``at`` on (going by ``step``) that is not
    matched on the way: a ``(`` going left, a ``)`` going right (past the text's end: the
    end)."""
    level = 0
    wanted, nested = ("(", ")") if step < 0 else (")", "(")
    while 0 <= at < len(text):
        if text[at] == nested:
            level += 1
        elif text[at] == wanted:
            if level == 0:
                return at
            level -= 1
        at += step
    return at
