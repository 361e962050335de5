"""Explain a gradient step by step: the forward pass, the reverse pass (the chain rule with
the numbers filled in), the gradient, and the symbolic derivative rule by rule.

:func:`explain` builds an :class:`Explanation` of structured steps;
:mod:`gradcalc.apps.explain.explain_render` renders it (Markdown, LaTeX, rich panels).

>>> from gradcalc.apps.explain.explain_render import to_markdown
>>> e = explain("y = x**2; z = y**2", at={"x": 3})
>>> print(to_markdown(e))
# Explaining z in `y = x^2; z = y^2` at x=3
<BLANKLINE>
## Forward pass
<BLANKLINE>
1. `y = x^2 = 3^2 = 9`
2. `z = y^2 = 9^2 = 81`
<BLANKLINE>
## Reverse pass
<BLANKLINE>
1. `adjoint(z) = 1` (seed)
2. `adjoint(y) = ∂z/∂y · adjoint(z) = 2·y · 1 = 2·9 · 1 = 18`
3. `adjoint(x) = ∂y/∂x · adjoint(y) = 2·x · 18 = 2·3 · 18 = 108`
<BLANKLINE>
## Gradient
<BLANKLINE>
- `∂z/∂x = 108`
<BLANKLINE>
## Symbolic derivative, rule by rule
<BLANKLINE>
### ∂z/∂x
<BLANKLINE>
1. `d/dx [y] = 2x` (power rule; `y = x^2`)
2. `d/dx [z] = 4x*y` (power rule with the chain rule; `z = y^2`)
<BLANKLINE>
Result: `∂z/∂x = 4x*y = 4x^3`
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gradcalc.apps.explain import explain_render  # noqa: F401 (how an Explanation shows)
from gradcalc.apps.explain.derivation import SYMBOLIC_TIMEOUT, derivations, source_node
from gradcalc.apps.explain.explanation import Explanation, ForwardStep, Operand, ReverseStep, Term
from gradcalc.core.errors import InputError
from gradcalc.core.ops import REGISTRY
from gradcalc.engine.evaluate.diagnostics import local_slopes
from gradcalc.engine.evaluate.evaluate import TapeRow, source_names
from gradcalc.engine.evaluate.given import as_points
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.run.api import GradResult, Options, compile_expression, gradient_at
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.crosscheck.crosscheck import (
    CheckTimeout,
    constant_to_sympy,
    in_variables,
    time_limit,
    to_sympy,
)
from gradcalc.symbolic.crosscheck.simplify import simplest
from gradcalc.symbolic.translate.derivative import derivative, symbol

__all__ = ["Explanation", "explain"]

BUILD_SECONDS = 10.0  # for sympy to build the expression's constants and statements


def explain(
    expression: str,
    at: Mapping[str, float] | list[str] | None,
    wrt: Sequence[str] | None = None,
) -> Explanation:
    """Explain the gradient of ``expression`` at one point, or without one (``at=None``: the
    symbolic derivation only, rule by rule, and the simplified result).

    Args:
        expression: an expression or a program (``"y = x**2; z = y**2"``).
        at: the point, ``{"x": 3}`` or ``--at`` style specs (``["x=pi/4"]``), or ``None``.
        wrt: the sources (default: every free variable); statement names allowed.

    Raises:
        InputError: bad expression, names or values; several points; several targets.
        UndefinedError: the value or gradient is undefined at the point.

    >>> e = explain("3*w1**2 + 2*w1*w2", at=["w1=5,w2=3"])
    >>> e.gradient
    {'w1': 36.0, 'w2': 10.0}
    >>> for step in e.reverse:
    ...     print(step.name, step.adjoint, [term.consumer for term in step.terms])
    #5 1.0 []
    #4 1.0 ['#5']
    #3 3.0 ['#4']
    #2 1.0 ['#5']
    #1 3.0 ['#2']
    w1 36.0 ['#1', '#3']
    w2 10.0 ['#4']
    >>> from gradcalc.symbolic.translate.notation import user_text
    >>> e = explain("x^x", at=None)
    >>> [step.rule for step in e.derivations[0].steps], user_text(e.simplified["x"].expr)
    (['logarithmic differentiation'], 'x^x*(ln(x) + 1)')
    """
    if at is None:
        return _without_point(expression, wrt)
    points = _one_point(at)
    graph = compile_expression(expression, points.names)
    # checked: where float64 rounded past a singularity, UndefinedError (exit 3)
    result = _one_target(gradient_at(graph, points, wrt, Options(check=True, strict=True)))
    names = _node_names(graph)
    tape_names = names | {_node(r): f"#{r.index}" for r in result.tape if _node(r) not in names}
    statements = {i: symbol(n) for i, n in names.items() if graph.nodes[i].kind == "op"}
    constants, inline = _in_sympy(graph, statements)
    operands = {_node(row): _operands(graph, row, tape_names, constants) for row in result.tape}
    return Explanation(
        read_as=result.read_as,
        warnings=graph.ambiguities,
        variables=graph.variables,
        expression=result.expression,
        target=result.target,
        root=_operand_name(graph, graph.targets[0], tape_names),
        point=result.points.label(0),
        forward=_forward_pass(result, tape_names, operands),
        reverse=_reverse_pass(graph, result, tape_names, operands),
        gradient={s: None if g is None else float(g) for s, g in result.gradient.items()},
        derivations=derivations(graph, statements, inline, result.sources),
    )


def _forward_pass(
    result: GradResult, names: Mapping[int, str], operands: Mapping[int, tuple[Operand, ...]]
) -> list[ForwardStep]:
    """One step per tape record: its name, op, operands and value."""
    return [
        ForwardStep(row.index, names[_node(row)], row.op, operands[_node(row)], float(row.value))
        for row in result.tape
    ]


def _one_target(results: Sequence[GradResult]) -> GradResult:
    """The one result of a single-target expression; several targets are an error."""
    if len(results) > 1:
        raise InputError(
            f"explain takes one target; this has {len(results)} "
            f"({', '.join(r.target for r in results)})"
        )
    return results[0]


def _in_sympy(graph: Graph, statements: Mapping[int, Any]) -> tuple[dict[int, Any], list[Any]]:
    """The exact constants and every node's sympy form, within the request's budget (the
    derivations have their own)."""
    try:
        with time_limit(BUILD_SECONDS):
            return _constants(graph), to_sympy(graph, statements)
    except CheckTimeout:
        raise InputError(
            f"could not explain this expression: sympy could not write it out within "
            f"{BUILD_SECONDS:g} s (grad gives its gradient without sympy)"
        ) from None
    except (ValueError, RecursionError) as stop:
        raise InputError(f"could not explain this expression: sympy failed ({stop})") from None


def _without_point(expression: str, wrt: Sequence[str] | None) -> Explanation:
    """The rule-by-rule derivations and the simplified results, no point needed."""
    graph = compile_expression(expression)
    if len(graph.targets) > 1:
        raise InputError(
            f"explain takes one target; this has {len(graph.targets)} "
            f"({', '.join(graph.target_names)})"
        )
    names = _node_names(graph)
    statements = {i: symbol(n) for i, n in names.items() if graph.nodes[i].kind == "op"}
    _, inline = _in_sympy(graph, statements)
    derived = derivations(graph, statements, inline, source_names(graph, wrt))
    simplified = {}
    deadline = time.monotonic() + SYMBOLIC_TIMEOUT  # one budget for all the simplifications
    for k, d in enumerate(derived):
        share = (deadline - time.monotonic()) / (len(derived) - k)
        full = _expanded(graph, d, share) if d.result is not None else None
        if full is not None:  # (else no simplified line: the rules and the result stand)
            simplified[d.source] = simplest(full, share)
    target = graph.targets[0]
    return Explanation(
        expression=expression,
        target=graph.target_names[0],
        root=_operand_name(graph, target, names),
        point=None,
        forward=[],
        reverse=[],
        gradient={},
        derivations=derived,
        simplified=simplified,
        read_as=graph.read_as,
        warnings=graph.ambiguities,
        variables=graph.variables,
    )


def _one_point(at: Mapping[str, float] | list[str]) -> Points:
    """The point of ``at`` (specs are parsed); several points are an error."""
    points = as_points(at)
    several = points.count != 1 or any(np.ndim(a) != 0 for a in points.arrays.values())
    if several:
        raise InputError("explain takes one point: give one value per variable (one --at)")
    return points


def _expanded(graph: Graph, d: Any, seconds: float) -> Any:
    """The derivation's result in the variables, or ``None`` past ``seconds``: substituting
    300 chained statements into each other is sympy's slowest step (minutes, unbounded)."""
    if d.expanded is not None:
        return d.expanded
    try:
        with time_limit(max(seconds, 0.05)):
            return in_variables(graph, d.result)
    except CheckTimeout:
        return None


def _node_names(graph: Graph) -> dict[int, str]:
    """The names of the variable nodes and of the op nodes bound to a statement.

    A statement name that was rebound to another node, or that shadows a variable, does
    not name a node (the tape would show two different values under one name).
    """
    bound: dict[int, list[str]] = {}
    for statement, index in graph.bindings.items():
        if statement not in graph.variable_nodes:
            bound.setdefault(index, []).append(statement)
    names = {index: name for name, index in graph.variable_nodes.items()}
    for node in graph.nodes:
        statements = bound.get(node.index)
        if node.kind == "op" and statements:
            names[node.index] = node.label if node.label in statements else statements[0]
    return names


def _operand_name(graph: Graph, index: int, names: Mapping[int, str]) -> str:
    """A node's name; a constant's text, in parentheses unless it is one number or name."""
    if index in names:
        return names[index]
    node = graph.nodes[index]
    text = node.text if node.kind == "const" else graph.source_text(index)
    return text if re.fullmatch(r"[\w.]+([eE][+-]?\d+)?", text) else f"({text})"


def _constants(graph: Graph) -> dict[int, Any]:
    """The exact value of every node that depends on no variable (``2``, ``2*pi``)."""
    import sympy as sp

    exact: dict[int, Any] = {}
    for node in graph.nodes:
        if node.kind == "const":
            exact[node.index] = constant_to_sympy(node.text)
        elif node.kind == "op" and all(i in exact for i in node.inputs):
            exact[node.index] = REGISTRY[node.op].sympy(sp, *(exact[i] for i in node.inputs))
    return exact


def _operands(
    graph: Graph, row: TapeRow, names: Mapping[int, str], constants: Mapping[int, Any]
) -> tuple[Operand, ...]:
    """The inputs of a record: named values as symbols, constants as exact numbers."""
    return tuple(
        Operand(
            _operand_name(graph, index, names),
            float(value),
            symbol(names[index]) if index in names else constants[index],
        )
        for index, value in zip(graph.nodes[_node(row)].inputs, row.input_values)
    )


def _reverse_pass(
    graph: Graph,
    result: GradResult,
    names: Mapping[int, str],
    operands: Mapping[int, tuple[Operand, ...]],
) -> list[ReverseStep]:
    """The seed, then every adjoint the tape computed, each as the sum of its chain-rule
    terms, computed here from the local slopes and the adjoints before it; the total is the
    tape's own (its sum in the tape's order: the last digit can differ from this one's)."""
    import sympy as sp

    target = graph.targets[0]
    adjoints = {target: 1.0}
    steps = [ReverseStep(_operand_name(graph, target, names), 1.0, ())]
    consumers = _consumers(graph, result)
    sources = [source_node(graph, s) for s in result.sources]
    variables = [i for i in sources if graph.nodes[i].kind == "var"]
    tape = {_node(row): row.adjoint for row in result.tape}  # (the totals shown: the tape's,
    tape.update(zip(sources, (result.gradient.get(s) for s in result.sources)))  # as summed)
    for index in [_node(row) for row in reversed(result.tape)] + variables:
        if index == target or index not in consumers:
            continue
        name = names[index]
        terms = []
        for row in consumers[index]:
            node = graph.nodes[_node(row)]
            inputs = operands[_node(row)]
            local = derivative(
                REGISTRY[node.op].sympy(sp, *(o.symbol for o in inputs)), symbol(name)
            )
            slope = sum(float(s) for s, i in zip(local_slopes(row), node.inputs) if i == index)
            terms.append(Term(names[_node(row)], local, inputs, slope, adjoints[_node(row)]))
        known = tape.get(index)
        adjoints[index] = sum(t.contribution for t in terms) if known is None else float(known)
        steps.append(ReverseStep(name, adjoints[index], tuple(terms)))
    return steps


def _node(row: TapeRow) -> int:
    """The graph node a record computes (each record of a first-order tape is one)."""
    assert row.node is not None
    return row.node


def _consumers(graph: Graph, result: GradResult) -> dict[int, list[TapeRow]]:
    """For each node the tape propagates an adjoint to, the records that propagate it, in
    tape order: records on a path from a source whose own adjoint is known."""
    reached = {source_node(graph, s) for s in result.sources}
    on_path = set()
    for row in result.tape:
        if any(i in reached for i in graph.nodes[_node(row)].inputs):
            reached.add(_node(row))
            on_path.add(_node(row))
    consumers: dict[int, list[TapeRow]] = {}
    for row in result.tape:
        if _node(row) in on_path and row.adjoint is not None:
            for index in dict.fromkeys(graph.nodes[_node(row)].inputs):
                if index in reached:
                    consumers.setdefault(index, []).append(row)
    return consumers
