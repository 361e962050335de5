"""The symbolic derivative of a graph's target, rule by rule: one step per op node in
postorder, each formed from its children's derivatives, with the rule's name (power rule,
chain rule, ...), within a time budget; and the result written in the free variables.

>>> from gradcalc.engine.run.api import compile_expression
>>> graph = compile_expression("y = x**2; z = sin(y)")
>>> from gradcalc.symbolic.crosscheck.crosscheck import to_sympy
>>> from gradcalc.symbolic.translate.derivative import symbol
>>> statements = {graph.bindings["y"]: symbol("y"), graph.bindings["z"]: symbol("z")}
>>> d = derivation(graph, statements, to_sympy(graph, statements), "x")
>>> [step.rule for step in d.steps], d.expanded
(['power rule', 'chain rule'], 2*x*cos(x**2))
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gradcalc.apps.explain.explanation import Derivation, RuleStep
from gradcalc.core.ops import REGISTRY
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, in_variables, time_limit
from gradcalc.symbolic.translate.derivative import derivative, symbol

__all__ = [
    "ALL_SOURCES_TIMEOUT",
    "MAX_EXPANDED",
    "MAX_RULE_STEPS",
    "SYMBOLIC_TIMEOUT",
    "derivation",
    "derivations",
    "source_node",
]

#: At most this many rule-by-rule steps are shown per source (the last one always is).
MAX_RULE_STEPS = 80
#: A program's derivative is also written in the variables if its target, written out in
#: full, has at most this many nodes.
MAX_EXPANDED = 200
#: Seconds the symbolic derivation of one source may take.
SYMBOLIC_TIMEOUT = 5.0
#: Seconds the derivations of all the sources may take together (one explanation's share).
ALL_SOURCES_TIMEOUT = 10.0
#: Less time than this left for a source: it is not started.
MIN_SECONDS = 0.05


def derivations(
    graph: Graph, statements: Mapping[int, Any], inline: Sequence[Any], sources: Sequence[str]
) -> list[Derivation]:
    """:func:`derivation` for each source, all within :data:`ALL_SOURCES_TIMEOUT` seconds
    together: twenty sources never cost twenty times :data:`SYMBOLIC_TIMEOUT`. A source
    reached when the time is spent gets no steps, and a note saying so."""
    deadline = time.monotonic() + ALL_SOURCES_TIMEOUT
    return [derivation(graph, statements, inline, s, deadline - time.monotonic()) for s in sources]


def derivation(
    graph: Graph,
    statements: Mapping[int, Any],
    inline: Sequence[Any],
    source: str,
    seconds: float = SYMBOLIC_TIMEOUT,
) -> Derivation:
    """The rule-by-rule derivation for one source, within ``seconds`` (at most
    :data:`SYMBOLIC_TIMEOUT`; past it, or when sympy recurses too deeply, the steps so far
    are kept with a note)."""
    steps: list[RuleStep] = []
    note = ""
    if seconds < MIN_SECONDS:
        spent = f"not derived: the derivations' budget of {ALL_SOURCES_TIMEOUT:g} s is spent"
        return Derivation(source, (), 0, None, None, spent)
    try:
        with time_limit(min(seconds, SYMBOLIC_TIMEOUT)):
            result = _derive(graph, statements, inline, source, steps)
            expanded = _expand(graph, statements, result)
    except (CheckTimeout, RecursionError) as stop:
        result = expanded = None
        note = f"stopped after {len(steps)} steps: {stop}"
    omitted = max(len(steps) - MAX_RULE_STEPS, 0)
    if omitted:
        steps = [*steps[: MAX_RULE_STEPS - 1], steps[-1]]
    return Derivation(source, tuple(steps), omitted, result, expanded, note)


def _derive(
    graph: Graph,
    statements: Mapping[int, Any],
    inline: Sequence[Any],
    source: str,
    steps: list[RuleStep],
) -> Any:
    """d target / d source, appending one step per op node in postorder to ``steps``; each
    result is formed from the children's. ``statements`` are the named statement nodes'
    symbols; ``inline`` is every node's expression in the variables and those symbols. A
    source statement is held as independent."""
    import sympy as sp

    start = source_node(graph, source)
    depends = _depends_on(graph, start)
    derivatives: dict[int, Any] = {start: sp.S.One}
    for index in _postorder(graph, graph.targets[0], lambda i: i != start and depends[i]):
        if index == start:
            continue
        step = _rule_step(graph, index, inline, depends, derivatives, index in statements)
        if index in statements:
            step = RuleStep(statements[index], step.subject, step.result, step.rule, step.outer)
        derivatives[index] = step.result
        steps.append(step)
    target = graph.targets[0]
    return derivatives.get(target, sp.S.One if target == start else sp.S.Zero)


def _expand(graph: Graph, statements: Mapping[int, Any], expr: Any) -> Any | None:
    """``expr`` with the statement names replaced by their definitions; ``None`` for an
    expression without statements, or when the target written out in full would exceed
    :data:`MAX_EXPANDED` nodes (chained statements grow exponentially)."""
    if not statements:
        return None
    sizes: list[int] = []
    for node in graph.nodes:
        sizes.append(min(1 + sum(sizes[i] for i in node.inputs), MAX_EXPANDED + 1))
    if sizes[graph.targets[0]] > MAX_EXPANDED:
        return None
    return in_variables(graph, expr)


def _depends_on(graph: Graph, start: int) -> list[bool]:
    """Per node: does it depend on node ``start`` (not looking below ``start``)?"""
    depends: list[bool] = []
    for node in graph.nodes:
        depends.append(node.index == start or any(depends[i] for i in node.inputs))
    return depends


def _postorder(graph: Graph, root: int, expand: Callable[[int], bool]) -> list[int]:
    """The op nodes under ``root`` in postorder, each once, not looking below the nodes
    that ``expand`` rejects (iterative: graphs may be deep)."""
    order: list[int] = []
    seen: set[int] = set()
    stack = [(root, False)]
    while stack:
        index, finished = stack.pop()
        if finished:
            order.append(index)
            continue
        if index in seen or graph.nodes[index].kind != "op":
            continue
        seen.add(index)
        stack.append((index, True))
        if expand(index):
            stack.extend((child, False) for child in reversed(graph.nodes[index].inputs))
    return order


def _rule_step(
    graph: Graph,
    index: int,
    inline: Sequence[Any],
    depends: Sequence[bool],
    derivatives: Mapping[int, Any],
    named: bool = False,
) -> RuleStep:
    """The step of one op node (``named``: a statement's) from its children's derivatives,
    and the rule used."""
    import sympy as sp

    node = graph.nodes[index]
    op = REGISTRY[node.op]
    arguments = [inline[i] for i in node.inputs]
    # the node as written (a statement's ``inline`` is its name); else as converted once for
    # every source: building sympy's Max(x0, ..., xk) anew compares its arguments pairwise
    subject = op.sympy(sp, *arguments) if named else inline[index]
    if not depends[index]:
        return RuleStep(subject, None, sp.S.Zero, "constant rule")
    placeholders = [symbol(u) for u in "uv"[: op.arity]]
    outer = op.sympy(sp, *placeholders)
    dependent = [k for k, i in enumerate(node.inputs) if depends[i]]
    partials = {k: derivative(outer, placeholders[k]) for k in dependent}
    at_arguments = dict(zip(placeholders, arguments))
    result = sp.Add(
        *(partials[k].xreplace(at_arguments) * derivatives[node.inputs[k]] for k in dependent)
    )
    flags = [depends[i] for i in node.inputs]
    # the chain rule is at work where an argument's own derivative is not simply 1
    nested = any(derivatives[node.inputs[k]] != 1 for k in dependent)
    chain = () if op.symbol else tuple((placeholders[k], outer, partials[k]) for k in dependent)
    return RuleStep(subject, None, result, op.rule_name(flags, nested), chain)


def source_node(graph: Graph, source: str) -> int:
    """The node of a source: a variable, or the node a statement name is bound to."""
    return (
        graph.variable_nodes[source] if source in graph.variable_nodes else graph.bindings[source]
    )
