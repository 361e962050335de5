"""What a check asks for: the derivatives an answer must give, named and in order -- the
gradient, one variable's N-th derivative, the Hessian, or a vector function's Jacobian
(every output's gradient, row by row).

>>> from gradcalc.engine.run.api import compile_expression
>>> [c.label for c in components(compile_expression("r*cos(t), r*sin(t)"), Target("", None))]
['∂f1/∂r', '∂f1/∂t', '∂f2/∂r', '∂f2/∂t']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from gradcalc.core.errors import InputError
from gradcalc.core.naming import derivative_label
from gradcalc.engine.evaluate.evaluate import source_names
from gradcalc.lang.graph import Graph

__all__ = [
    "Component",
    "Target",
    "components",
    "named",
    "named_order",
    "not_named",
    "subscripts",
    "wrong_count",
]


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
    ['∂²f/∂x²', '∂²f/∂x∂y', '∂²f/∂y∂x', '∂²f/∂y²']
    >>> [c.label for c in components(compile_expression("x^3"), Target("x^3"))]
    ['df/dx']

    Raises:
        InputError: no variables, a higher order of a vector function, or of several
            variables beyond 2.
    """
    names = source_names(graph, target.wrt)
    if not names:
        raise InputError(f"{target.expression!r} has no variables to differentiate with respect to")
    ordinary = len(graph.variables) == 1
    if target.order == 1:
        return [
            Component(
                derivative_label(f, [n], ordinary and len(graph.target_names) == 1), (n,), output
            )
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
        return [Component(derivative_label(f, [n] * target.order, ordinary), (n,) * target.order)]
    if target.order != 2:
        raise InputError(f"--order {target.order} takes one variable (--wrt x)")
    return [Component(derivative_label(f, [a, b]), (a, b)) for a in names for b in names]


def subscripts(name: str, function: str, variables: Sequence[str]) -> tuple[str, ...] | None:
    """The variables a subscripted name differentiates by, as students write partials:
    ``fx``, ``f_x``, ``fxy``, ``f_x_y`` (the function's name, then the variables); a bare
    variable (``x``) is itself. None when ``name`` is not so made.

    >>> subscripts("f_xy", "f", ["x", "y"]), subscripts("fw1", "f", ["w1", "w2"])
    (('x', 'y'), ('w1',))
    >>> subscripts("x", "f", ["x", "y"]), subscripts("gx", "f", ["x"])
    (('x',), None)
    """
    if name in variables:
        return (name,)
    if not name.startswith(function):
        return None
    rest = name[len(function) :]
    found: list[str] = []
    longest_first = sorted(variables, key=len, reverse=True)
    while rest:
        rest = rest.removeprefix("_").removeprefix(",")
        head = next((v for v in longest_first if rest.startswith(v)), None)
        if head is None:
            return None
        found.append(head)
        rest = rest[len(head) :]
    return tuple(found) or None


def named(answers: Mapping[str, str], wanted: list[Component], function: str) -> list[str | None]:
    """The answers named by what they differentiate (``x = ...``, ``fx = ...``,
    ``fxy = ...``), in the order of ``wanted``, None for a derivative not named (it is not
    checked); a mixed partial given once stands for both orders (``fxy`` for ∂²f/∂y∂x too),
    and is judged against each.

    >>> named({"fy": "x", "fx": "y"}, [Component("∂f/∂x", ("x",)), Component("∂f/∂y", ("y",))], "f")
    ['y', 'x']
    >>> named({"fy": "x"}, [Component("∂f/∂x", ("x",)), Component("∂f/∂y", ("y",))], "f")
    [None, 'x']

    Raises:
        InputError: a name that is no wanted derivative, or a derivative named twice (``x``
            and ``fx``).
    """
    variables = sorted({v for c in wanted for v in c.variables})
    given: dict[tuple[str, ...], str] = {}
    names: dict[tuple[str, ...], str] = {}
    for name, text in answers.items():
        said = subscripts(name, function, variables)
        if said is None or said not in {c.variables for c in wanted}:
            every = [function + "".join(c.variables) for c in wanted]
            examples = ", ".join(every if len(every) <= 6 else [*every[:5], "…"])
            raise InputError(
                f"--answer {name}=...: name one of the derivatives asked for "
                f"({examples}{_head_hint(wanted, function)})"
            )
        if said in given:
            label = next(c.label for c in wanted if c.variables == said)
            raise InputError(
                f"{label} is answered twice ({names[said]}={given[said]} and {name}={text}): "
                "give each derivative once"
            )
        given[said], names[said] = text, name
    return [given.get(c.variables, given.get(c.variables[::-1])) for c in wanted]


def not_named(wanted: list[Component], texts: Sequence[str | None], function: str) -> str:
    """The warning for the derivatives no named answer is given for (``""``: none left out).

    >>> not_named([Component("∂f/∂x", ("x",)), Component("∂f/∂y", ("y",))], [None, "x"], "f")
    'not checked: ∂f/∂x (no answer given; add --answer fx=... to check it)'
    """
    left = [c for c, text in zip(wanted, texts) if text is None]
    if not left:
        return ""
    labels = ", ".join(c.label for c in left)
    example = function + "".join(left[0].variables)
    them = "it" if len(left) == 1 else "them"
    return f"not checked: {labels} (no answer given; add --answer {example}=... to check {them})"


def _head_hint(wanted: list[Component], function: str) -> str:
    """The head written on paper that names the derivative asked for, when there is one:
    ``df/dx`` for a first derivative, ``d2f/dx2`` for one variable's second.

    >>> _head_hint([Component("d²f/dx²", ("x", "x"))], "f")
    '; d2f/dx2 = ... works too'
    """
    variables = wanted[0].variables
    if len(variables) == 1:
        return f"; d{function}/d{variables[0]} = ... works too"
    if len(wanted) == 1:
        n, x = len(variables), variables[0]
        return f"; d{n}{function}/d{x}{n} = ... works too"
    return ""


def named_order(answers: Mapping[str, str], function: str, variables: Sequence[str]) -> int:
    """The order named answers say, when every name says the same one (``fxx``, ``fxy``:
    2), else 1.

    >>> named_order({"fxx": "2", "f_xy": "0"}, "f", ["x", "y"]), named_order({"x": "1"}, "f", ["x"])
    (2, 1)
    """
    orders = {len(subscripts(n, function, variables) or ()) for n in answers}
    return orders.pop() if len(orders) == 1 and 0 not in orders else 1


def wrong_count(said: str, given: int, wanted: list[Component], hint: str = "") -> InputError:
    """The refusal of ``given`` answers where ``wanted`` are needed (``said``: what was
    given, in words), listing them in order; one answer for several first derivatives is
    told how to ask for one alone (unless ``hint`` already says what is likely wrong).

    >>> wanted = [Component("∂f/∂a", ("a",)), Component("∂f/∂x", ("x",))]
    >>> for part in wrong_count("1 answer given", 1, wanted).message.split("; "):
    ...     print(part)
    1 answer given
    2 needed, in this order: ∂f/∂a, ∂f/∂x
    for the derivative with respect to x alone, add --wrt x
    """
    labels = ", ".join(c.label for c in wanted)
    names = [c.variables[0] for c in wanted if len(c.variables) == 1 and not c.output]
    if given == 1 and len(names) == len(wanted) > 1 and not hint:
        one = "x" if "x" in names else names[-1]
        hint = f"; for the derivative with respect to {one} alone, add --wrt {one}"
    return InputError(f"{said}; {len(wanted)} needed, in this order: {labels}{hint}")
