"""What a check asks for: the derivatives an answer must give, named and in order -- the
gradient, one variable's N-th derivative, the Hessian, or a vector function's Jacobian
(every output's gradient, row by row).

>>> from gradcalc.engine.run.api import compile_expression
>>> [c.label for c in components(compile_expression("r*cos(t), r*sin(t)"), Target("", None))]
['∂f1/∂r', '∂f1/∂t', '∂f2/∂r', '∂f2/∂t']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from gradcalc.core.errors import InputError
from gradcalc.engine.evaluate.evaluate import source_names
from gradcalc.lang.graph import Graph

__all__ = ["Component", "Target", "components"]


@dataclass(frozen=True)
class Target:
    """What is being answered: ``order`` 1 (the gradient; a vector function's Jacobian),
    N (one variable's N-th derivative) or 2 with several variables (the Hessian,
    row-major)."""

    expression: str
    wrt: Sequence[str] | None = None
    order: int = 1


class Component(NamedTuple):
    """One derivative an answer must give: its ``label`` (``∂f/∂x``), the ``variables``
    differentiated in turn, and the ``output`` of the function it differentiates (0 but
    for a vector function's later rows)."""

    label: str
    variables: tuple[str, ...]
    output: int = 0


def components(graph: Graph, target: Target) -> list[Component]:
    """Each derivative the answer must give, in order.

    >>> from gradcalc.engine.run.api import compile_expression
    >>> [c.label for c in components(compile_expression("x*y"), Target("x*y", order=2))]
    ['∂²f/∂x∂x', '∂²f/∂x∂y', '∂²f/∂y∂x', '∂²f/∂y∂y']

    Raises:
        InputError: a higher order of a vector function, or of several variables beyond 2.
    """
    names = source_names(graph, target.wrt)
    if target.order == 1:
        return [
            Component(f"∂{f}/∂{n}", (n,), output)
            for output, f in enumerate(graph.target_names)
            for n in names
        ]
    f = graph.target_names[0]
    if len(graph.target_names) > 1:
        raise InputError(
            f"--order {target.order} checks one function; this one has "
            f"{len(graph.target_names)} outputs ({', '.join(graph.target_names)}): "
            "check each output alone"
        )
    if len(names) == 1:
        n = names[0]
        return [
            Component(f"d{_sup(target.order)}{f}/d{n}{_sup(target.order)}", (n,) * target.order)
        ]
    if target.order != 2:
        raise InputError(f"--order {target.order} takes one variable (--wrt x)")
    return [Component(f"∂²{f}/∂{a}∂{b}", (a, b)) for a in names for b in names]


def _sup(n: int) -> str:
    return "" if n == 1 else str(n).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
