"""A quotient followed by an implicit product: ``1/2x`` is (1/2)·x and ``1/(x+1)(x-1)`` is
(1/(x+1))·(x-1) -- implicit multiplication binds like ``*``, left to right -- where a student
who writes the product after the fraction bar means it under the bar: 1/(2x), 1/((x+1)(x-1)).

The warning names both readings and how to write the other one. It is given for every
implicit product after a ``/`` (a number, a name, a group, a call, a power: ``x/2y``,
``1/sqrt(x)sin(x)``, ``-2x/(x+1)^2(x-1)^2``), with or without a space (``1/x y``), and
quotes the whole run of such factors (``1/(x+1)(x-1)(x+2)``). It is not given where the
grouping is written out: a parenthesis closes the quotient before the product
(``(1/(x+1))(x-1)``, ``(x/2)y``), the product is inside the denominator's parentheses
(``1/((x+1)(x-1))``), or the product is written with ``*`` (``1/(x+1)*(x-1)``, ``1/2*x``:
an explicit operator is read left to right, as on every calculator).

>>> from gradcalc.lang.parser import parse_program
>>> text = "1/(x+1)(x-1)"
>>> expr = parse_program(text).statements[0].expr
>>> print(quotient_warning(expr, text, inner_products(expr, text)))
... # doctest: +NORMALIZE_WHITESPACE
1/(x+1)(x-1) is read as (1/(x + 1))·(x - 1); if you mean 1/((x + 1)·(x - 1)),
write 1/((x+1)(x-1))
"""

from __future__ import annotations

from gradcalc.lang.syntax import Binary, Node, is_binary, postorder
from gradcalc.lang.wording import implicit, misreading, span, start, typed

__all__ = ["inner_products", "quotient_warning"]


def inner_products(expr: Node, text: str) -> set[int]:
    """The ids of the nodes of ``expr`` that are the left operand of an implicit product:
    the inner links of a run of factors (``(1/x)·y`` in ``1/x y z``), warned about at the
    run's last product only.

    >>> from gradcalc.lang.parser import parse_program
    >>> expr = parse_program("1/x y z").statements[0].expr
    >>> inner_products(expr, "1/x y z") == {id(expr.left), id(expr.left.left)}
    True
    """
    return {
        id(node.left) for node in postorder(expr) if is_binary(node, "mul") and implicit(node, text)
    }


def quotient_warning(node: Node, text: str, inner: set[int]) -> str | None:
    """The warning for ``node`` if it is the last of a run of implicit products that
    follows a typed quotient (``inner``: :func:`inner_products`), else None. The run ends
    where a parenthesis closes the quotient (``(1/x y)z`` quotes ``1/x y``).

    >>> from gradcalc.lang.parser import parse_program
    >>> for text in ("x/2y", "(x/2)y", "x/2*y", "x/(2y)"):
    ...     expr = parse_program(text).statements[0].expr
    ...     print(quotient_warning(expr, text, inner_products(expr, text)))
    x/2y is read as (x/2)·y; if you mean x/(2·y), write x/(2y)
    None
    None
    None
    """
    if id(node) in inner or not (is_binary(node, "mul") and implicit(node, text)):
        return None
    run: list[Binary] = []  # the products, the last first
    quotient: Node = node
    while is_binary(quotient, "mul") and implicit(quotient, text):
        run.append(quotient)
        quotient = quotient.left
    if not is_binary(quotient, "div") or text[quotient.column] not in "/÷":  # (log(x, b))
        return None
    run = _open(quotient, run[::-1], text)
    if not run:  # (x/2)y: the grouping is written out
        return None
    numerator, below = quotient.left, quotient.right
    for product in run:
        below = Binary("mul", below, product.right, 0)
    meant = Binary("div", numerator, below, 0)
    head = f"{span(start(numerator), quotient.column, text)}/"  # 2x/ of 2x/(3y)
    read = run[-1]  # the last product before a parenthesis closes the quotient
    return misreading(read, meant, typed(quotient.right, read.right, text), text, head)


def _open(quotient: Binary, products: list[Binary], text: str) -> list[Binary]:
    """The first of ``products`` (a run of implicit products after ``quotient``, the first
    first) up to a ``)`` that closes a group the quotient's ``/`` is in: ``(x/2)y`` has none,
    ``(1/x y)z`` one -- the denominator's own ``)`` does not count, ``1/(x+1)(x-1)``.

    >>> from gradcalc.lang.parser import parse_program
    >>> def run(t):
    ...     top = parse_program(t).statements[0].expr
    ...     return len(_open(top.left.left, [top.left, top], t))
    >>> run("(1/x y)z"), run("1/(x+1)(x-1)(x+2)"), run("((x/2)y)z")
    (1, 2, 0)
    """
    depth, at = 0, quotient.column
    for count, product in enumerate(products):
        for char in text[at : product.column]:
            depth += (char == "(") - (char == ")")
            if depth < 0:
                return products[:count]
        at = product.column
    return products
