"""Explain a gradient step by step: the forward pass, the reverse pass (the chain rule with
the numbers filled in), the gradient, and the symbolic derivative rule by rule.

:func:`explain` builds an :class:`Explanation` of structured steps;
:mod:`gradcalc.apps.explain_render` renders it (Markdown, LaTeX, rich panels).

>>> from gradcalc.apps.explain_render import to_markdown
>>> e = explain("y = x**2; z = y**2", at={"x": 3})
>>> print(to_markdown(e))
# Explaining z in `y = x^2; z = y^2` at x=3.0
<BLANKLINE>
## Forward pass
<BLANKLINE>
1. `y = x ** 2 = 3 ** 2 = 9`
2. `z = y ** 2 = 9 ** 2 = 81`
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
1. `d/dx [y] = 2*x` (power rule; `y = x**2`)
2. `d/dx [z] = 4*x*y` (power rule with the chain rule; `z = y**2`)
<BLANKLINE>
Result: `∂z/∂x = 4*x*y = 4*x**3`
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.core.errors import InputError
from gradcalc.core.ops import REGISTRY
from gradcalc.engine.api import GradResult, Options, as_points, compile_expression, gradient_at
from gradcalc.engine.diagnostics import local_slopes
from gradcalc.engine.evaluate import TapeRow, source_names
from gradcalc.engine.points import Points
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.crosscheck import (
    CheckTimeout,
    constant_to_sympy,
    in_variables,
    time_limit,
    to_sympy,
)
from gradcalc.symbolic.derivative import derivative, symbol
from gradcalc.symbolic.simplify import Simplified, simplest

#: At most this many rule-by-rule steps are shown per source (the last one always is).
MAX_RULE_STEPS = 80
#: A program's derivative is also written in the variables if its target, written out in
#: full, has at most this many nodes.
MAX_EXPANDED = 200
#: Seconds the symbolic derivation of one source may take.
SYMBOLIC_TIMEOUT = 5.0
BUILD_SECONDS = 10.0  # for sympy to build the expression's constants and statements


@dataclass(frozen=True)
class Operand:
    """One input of a tape record.

    ``name`` is how the explanation calls it (a variable, a statement name, ``#k`` for
    record k, or a constant's text); ``symbol`` is its sympy form: a real symbol named
    ``name``, or the exact number for a constant (``2``, ``2*pi``).
    """

    name: str
    value: float
    symbol: Any


@dataclass(frozen=True)
class ForwardStep:
    """Tape record ``index``: ``name = op(operands) = value``."""

    index: int
    name: str
    op: str
    operands: tuple[Operand, ...]
    value: float


@dataclass(frozen=True)
class Term:
    """One chain-rule contribution to an adjoint: ``∂consumer/∂value · adjoint(consumer)``.

    ``local`` is the local derivative as a sympy expression of the consumer's operands
    (from the registry's sympy counterpart); ``slope`` is its value at the point, from the
    op's own gradient rule (as the tape computes it).
    """

    consumer: str
    local: Any
    operands: tuple[Operand, ...]
    slope: float
    consumer_adjoint: float

    @property
    def contribution(self) -> float:
        """``slope · adjoint(consumer)``."""
        return self.slope * self.consumer_adjoint


@dataclass(frozen=True)
class ReverseStep:
    """The adjoint of one value: the sum of its terms (no terms: the seed, 1)."""

    name: str
    adjoint: float
    terms: tuple[Term, ...]


@dataclass(frozen=True)
class RuleStep:
    """``d/d(source) [subject] = result   (rule)`` for one op node.

    ``definition`` is a statement's right-hand side (``None`` for other subexpressions);
    ``outer`` holds, for the chain rule, ``(u, f(u, ...), ∂f/∂u)`` per argument that
    depends on the source.
    """

    subject: Any
    definition: Any | None
    result: Any
    rule: str
    outer: tuple[tuple[Any, Any, Any], ...] = ()


@dataclass(frozen=True)
class Derivation:
    """The symbolic derivative of the target with respect to one source, rule by rule.

    ``steps`` are in postorder; over :data:`MAX_RULE_STEPS`, the first ones and the last are
    kept and ``omitted`` counts the rest. ``result`` may name statements; ``expanded`` is
    the same derivative in the free variables (``None`` without statements, or when too
    large to write out). ``note`` says why a derivation stopped early (``result`` is then
    ``None``).
    """

    source: str
    steps: tuple[RuleStep, ...]
    omitted: int
    result: Any | None
    expanded: Any | None
    note: str = ""


@dataclass
class Explanation:
    """How one gradient at one point comes about, as structured steps for the renderers.

    Attributes:
        expression: the text as typed.
        target: the target's name (``f`` for a bare expression).
        root: the target's name in the passes (its statement name, or ``#k``).
        point: the point, as ``x=3.0``.
        forward: one step per tape record, in order.
        reverse: the seed, then each adjoint in reverse order (records, then variables).
        gradient: per source, the tape's derivative (``None``: independent).
        derivations: one symbolic derivation per source.
        simplified: without a point (``point`` is ``None``, no passes, no gradient), each
            source's derivative simplified (:mod:`gradcalc.symbolic.simplify`).
        read_as: the expression as gradcalc read it (see :mod:`gradcalc.lang.reading`).
        warnings: where that reading is likely not what was meant, both readings.
    """

    expression: str
    target: str
    root: str
    point: str | None
    forward: list[ForwardStep]
    reverse: list[ReverseStep]
    gradient: dict[str, float | None]
    derivations: list[Derivation]
    simplified: dict[str, Simplified] = field(default_factory=dict)
    read_as: str = ""
    warnings: list[str] = field(default_factory=list)

    def _repr_html_(self) -> str:
        """In a notebook: the panels ``gradcalc explain`` prints, as HTML."""
        from gradcalc.apps.explain_render import to_rich
        from gradcalc.render.html import to_html

        return to_html([to_rich(self)])

    def _repr_markdown_(self) -> str:
        """In a notebook (Markdown export): :func:`~gradcalc.apps.explain_render.to_markdown`."""
        from gradcalc.apps.explain_render import to_markdown

        return to_markdown(self)


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
    >>> from gradcalc.symbolic.notation import user_text
    >>> e = explain("x^x", at=None)
    >>> [step.rule for step in e.derivations[0].steps], user_text(e.simplified["x"].expr)
    (['logarithmic differentiation'], 'x^x*(ln(x) + 1)')
    """
    if at is None:
        return _without_point(expression, wrt)
    points = _one_point(at)
    graph = compile_expression(expression, points.names)
    results = gradient_at(graph, points, wrt, Options(check=False, strict=True))
    if len(results) > 1:
        raise InputError(
            f"explain takes one target; this has {len(results)} "
            f"({', '.join(r.target for r in results)})"
        )
    (result,) = results
    names = _node_names(graph)
    tape_names = names | {
        _node(row): f"#{row.index}" for row in result.tape if _node(row) not in names
    }
    statements = {i: symbol(n) for i, n in names.items() if graph.nodes[i].kind == "op"}
    try:  # sympy's part, within the request's budget (the derivations have their own)
        with time_limit(BUILD_SECONDS):
            constants = _constants(graph)
            inline = to_sympy(graph, statements)
    except (CheckTimeout, ValueError, RecursionError) as stop:
        raise InputError(f"could not explain this expression: sympy failed ({stop})") from None
    operands = {_node(row): _operands(graph, row, tape_names, constants) for row in result.tape}
    target = graph.targets[0]
    return Explanation(
        read_as=result.read_as,
        warnings=graph.ambiguities,
        expression=result.expression,
        target=result.target,
        root=_operand_name(graph, target, tape_names),
        point=result.points.label(0),
        forward=[
            ForwardStep(
                row.index, tape_names[_node(row)], row.op, operands[_node(row)], float(row.value)
            )
            for row in result.tape
        ],
        reverse=_reverse_pass(graph, result, tape_names, operands),
        gradient={s: None if g is None else float(g) for s, g in result.gradient.items()},
        derivations=[_derivation(graph, statements, inline, s) for s in result.sources],
    )


# --- building ---------------------------------------------------------------------------


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
    inline = to_sympy(graph, statements)
    derivations = [_derivation(graph, statements, inline, s) for s in source_names(graph, wrt)]
    simplified = {}
    deadline = time.monotonic() + SYMBOLIC_TIMEOUT  # one budget for all the simplifications
    for k, d in enumerate(derivations):
        if d.result is not None:
            full = d.expanded if d.expanded is not None else in_variables(graph, d.result)
            share = (deadline - time.monotonic()) / (len(derivations) - k)
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
        derivations=derivations,
        simplified=simplified,
        read_as=graph.read_as,
        warnings=graph.ambiguities,
    )


def _one_point(at: Mapping[str, float] | list[str]) -> Points:
    """The point of ``at`` (specs are parsed); several points are an error."""
    points = as_points(at)
    several = points.count != 1 or any(np.ndim(a) != 0 for a in points.arrays.values())
    if several:
        raise InputError("explain takes one point: give one value per variable (one --at)")
    return points


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
    terms; computed here from the local slopes and the adjoints before it."""
    import sympy as sp

    target = graph.targets[0]
    adjoints = {target: 1.0}
    steps = [ReverseStep(_operand_name(graph, target, names), 1.0, ())]
    consumers = _consumers(graph, result)
    sources = [_source_node(graph, s) for s in result.sources]
    variables = [i for i in sources if graph.nodes[i].kind == "var"]
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
        adjoints[index] = sum(term.contribution for term in terms)
        steps.append(ReverseStep(name, adjoints[index], tuple(terms)))
    return steps


def _node(row: TapeRow) -> int:
    """The graph node a record computes (each record of a first-order tape is one)."""
    assert row.node is not None
    return row.node


def _source_node(graph: Graph, source: str) -> int:
    """The node of a source: a variable, or the node a statement name is bound to."""
    return (
        graph.variable_nodes[source] if source in graph.variable_nodes else graph.bindings[source]
    )


def _consumers(graph: Graph, result: GradResult) -> dict[int, list[TapeRow]]:
    """For each node the tape propagates an adjoint to, the records that propagate it, in
    tape order: records on a path from a source whose own adjoint is known."""
    reached = {_source_node(graph, s) for s in result.sources}
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


def _derivation(
    graph: Graph, statements: Mapping[int, Any], inline: Sequence[Any], source: str
) -> Derivation:
    """The rule-by-rule derivation for one source, within :data:`SYMBOLIC_TIMEOUT` seconds
    (past it, or when sympy recurses too deeply, the steps so far are kept with a note)."""
    steps: list[RuleStep] = []
    note = ""
    try:
        with time_limit(SYMBOLIC_TIMEOUT):
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

    start = _source_node(graph, source)
    depends = _depends_on(graph, start)
    derivatives: dict[int, Any] = {start: sp.S.One}
    for index in _postorder(graph, graph.targets[0], lambda i: i != start and depends[i]):
        if index == start:
            continue
        step = _rule_step(graph, index, inline, depends, derivatives)
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
) -> RuleStep:
    """The step of one op node: its derivative from its children's, and the rule used."""
    import sympy as sp

    node = graph.nodes[index]
    op = REGISTRY[node.op]
    arguments = [inline[i] for i in node.inputs]
    subject = op.sympy(sp, *arguments)
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
