"""Explain a gradient step by step: the forward pass, the reverse pass (the chain rule with
the numbers filled in), the gradient, and the symbolic derivative rule by rule.

:func:`explain` builds an :class:`Explanation` of structured steps; :func:`to_markdown`,
:func:`to_latex` and :func:`to_rich` render it.

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

import functools
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.core.errors import InputError
from gradcalc.core.numbers import format_number
from gradcalc.core.ops import REGISTRY
from gradcalc.core.ops.arith import LOGARITHMIC
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
from gradcalc.symbolic.notation import user_latex, user_text
from gradcalc.symbolic.simplify import Simplified, simplest

#: At most this many rule-by-rule steps are shown per source (the last one always is).
MAX_RULE_STEPS = 80
#: A program's derivative is also written in the variables if its target, written out in
#: full, has at most this many nodes.
MAX_EXPANDED = 200
#: An expression with more nodes than this is not printed (its size is said instead).
MAX_SHOWN_NODES = 150
#: Seconds the symbolic derivation of one source may take.
SYMBOLIC_TIMEOUT = 5.0
BUILD_SECONDS = 10.0  # for sympy to build the expression's constants and statements

_SINGLE_STAR = re.compile(r"(?<!\*)\*(?!\*)")


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
        from gradcalc.render.html import to_html

        return to_html([to_rich(self)])

    def _repr_markdown_(self) -> str:
        """In a notebook (Markdown export): :func:`to_markdown`."""
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


# --- rendering: shared prose --------------------------------------------------------------


def _factor(text: str) -> str:
    """A number as a factor of a product: negative ones in parentheses."""
    return f"({text})" if text.startswith("-") else text


def _infix(op_name: str, texts: Sequence[str]) -> str:
    """A record's formula from its operands' texts, written as the tape writes it."""
    op = REGISTRY[op_name]
    if op.symbol and op.arity == 2:
        return f"{_factor(texts[0])} {op.symbol} {_factor(texts[1])}"
    if op.symbol:
        return f"{op.symbol}{_factor(texts[0])}"
    return f"{op.name}({', '.join(texts)})"


@functools.cache
def _number_printer() -> type:
    """A sympy str printer that writes chosen symbols as numbers (made on first use)."""
    from sympy.printing.str import StrPrinter

    class NumberPrinter(StrPrinter):
        def __init__(self, values: Mapping[Any, float]) -> None:
            super().__init__()
            self.values = values

        def _print_Symbol(self, expr: Any) -> str:
            if expr in self.values:
                return _factor(format_number(self.values[expr]))
            return super()._print_Symbol(expr)

    return NumberPrinter


def _prose(expr: Any, values: Mapping[Any, float] | None = None) -> str:
    """A local derivative as prose: ``2·y``; with ``values``, its symbols become numbers."""
    text = _SINGLE_STAR.sub("·", _number_printer()(values or {}).doprint(expr))
    return f"({text})" if _needs_parentheses(expr) else text


def _needs_parentheses(expr: Any) -> bool:
    """Does a factor need parentheses: a sum, or a negative term (``-1/x**2``)?"""
    return expr.is_Add or expr.could_extract_minus_sign()


def _values(operands: Sequence[Operand]) -> dict[Any, float]:
    return {o.symbol: o.value for o in operands if o.symbol.is_Symbol}


def _forward_line(step: ForwardStep) -> str:
    formula = _infix(step.op, [o.name for o in step.operands])
    numbers = _infix(step.op, [format_number(o.value) for o in step.operands])
    return _chain([step.name, formula, numbers, format_number(step.value)])


def _reverse_line(step: ReverseStep) -> str:
    """``adjoint(y) = ∂z/∂y · adjoint(z) = 2·y · 1 = 2·9 · 1 = 18`` (equal stages once)."""
    parts = [f"adjoint({step.name})"]
    if step.terms:
        parts += [
            " + ".join(f"∂{t.consumer}/∂{step.name} · adjoint({t.consumer})" for t in step.terms),
            " + ".join(f"{_prose(t.local)} · {_adjoint_factor(t)}" for t in step.terms),
            " + ".join(
                f"{_prose(t.local, _values(t.operands))} · {_adjoint_factor(t)}" for t in step.terms
            ),
        ]
    return _chain([*parts, format_number(step.adjoint)])


def _adjoint_factor(term: Term) -> str:
    return _factor(format_number(term.consumer_adjoint))


def _chain(parts: Sequence[str]) -> str:
    """``a = b = c``, a part equal to the one before it left out."""
    return " = ".join(part for k, part in enumerate(parts) if k == 0 or part != parts[k - 1])


def _gradient_line(e: Explanation, source: str) -> str:
    value = e.gradient[source]
    if value is None:
        return f"∂{e.target}/∂{source} = 0 ({e.target} does not depend on {source})"
    return f"∂{e.target}/∂{source} = {format_number(value)}"


def _is_total(step: RuleStep) -> bool:
    """Is the chain rule's outer function one of a single variable (``d``, not ``∂``)?"""
    return len(step.outer) == 1 and len(step.outer[0][1].free_symbols) == 1


def _node_count(expr: Any, limit: int) -> int:
    """How many nodes ``expr`` has written out, counting stopped past ``limit`` (shared
    subexpressions are visited once, so a huge tree costs little)."""
    sizes: dict[Any, int] = {}
    stack = [expr]
    while stack:
        top = stack[-1]
        pending = [a for a in top.args if a not in sizes]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        sizes[top] = 1 + sum(sizes[a] for a in top.args)
        if sizes[top] > limit:
            return sizes[top]
    return sizes[expr]


def _too_large(expr: Any) -> bool:
    return _node_count(expr, MAX_SHOWN_NODES) > MAX_SHOWN_NODES


def _text(expr: Any) -> str:
    """An expression as text (too large ones are only described)."""
    return f"… (too large to show: over {MAX_SHOWN_NODES} nodes)" if _too_large(expr) else str(expr)


def _rule_text(step: RuleStep) -> str:
    """``power rule``; ``chain rule: d/du sin(u) = cos(u)``."""
    if step.rule == LOGARITHMIC:
        return f"{step.rule}: ln(u^v) = v·ln(u), so d(u^v) = u^v·(dv·ln(u) + v·du/u)"
    if not step.outer:
        return step.rule
    d = "d" if _is_total(step) else "∂"
    return f"{step.rule}: " + "; ".join(f"{d}/{d}{u} {f} = {df}" for u, f, df in step.outer)


def _rule_lines(d: Derivation) -> list[tuple[int, str, str, str | None]]:
    """Per shown step: its number, ``d/dx [y] = 2*x``, its rule, a statement's definition."""
    numbered = []
    for k, step in enumerate(d.steps, start=1):
        number = k + d.omitted if k == len(d.steps) else k
        definition = None
        if step.definition is not None:
            definition = f"{_text(step.subject)} = {_text(step.definition)}"
        formula = f"d/d{d.source} [{_text(step.subject)}] = {_text(step.result)}"
        numbered.append((number, formula, _rule_text(step), definition))
    return numbered


def _result_line(e: Explanation, d: Derivation) -> str:
    """``∂z/∂x = 4*x*y = 4*x**3``, or why there is no result."""
    if d.result is None:
        return f"∂{e.target}/∂{d.source}: {d.note}"
    shown = [d.result] if d.expanded is None else [d.result, d.expanded]
    return _chain([f"∂{e.target}/∂{d.source}", *map(_text, shown)])


def _simplified_line(e: Explanation, d: Derivation) -> str | None:
    """``simplified (factor): ∂f/∂x = x*(x + 2)*exp(x)`` in the user's notation; None at a
    point (there is none) or past the budget."""
    form = e.simplified.get(d.source)
    if form is None:
        return None
    how = "already the shortest form" if form.method == "as differentiated" else form.method
    how = how if form.complete else f"{how}; {form.note}"
    return f"simplified: ∂{e.target}/∂{d.source} = {user_text(form.expr)}   ({how})"


def _title(e: Explanation, quote: str = "") -> str:
    """``z in y = x**2; z = y**2`` for a program, ``f = x*sin(x)`` for an expression."""
    joint = "in" if e.target == e.root else "="
    where = "" if e.point is None else f" at {e.point}"
    reading = e.read_as or _one_line(e.expression)
    return f"{e.target} {joint} {quote}{reading}{quote}{where}"


def _seed_note(e: Explanation) -> str:
    return "seed" if e.target == e.root else f"seed; {e.root} is {e.target}"


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


# --- markdown ------------------------------------------------------------------------------


def to_markdown(e: Explanation) -> str:
    """The explanation as Markdown: a heading per section, numbered steps, math in backticks.

    >>> print(to_markdown(explain("sin(x)", at={"x": 0})).split("## ")[2])
    Reverse pass
    <BLANKLINE>
    1. `adjoint(#1) = 1` (seed; #1 is f)
    2. `adjoint(x) = ∂#1/∂x · adjoint(#1) = cos(x) · 1 = cos(0) · 1 = 1`
    <BLANKLINE>
    """
    lines = [f"# Explaining {_title(e, '`')}", ""]
    lines += [f"> warning: {warning}\n" for warning in e.warnings]
    if e.point is not None:
        lines += ["## Forward pass", ""]
        lines += [f"{s.index}. `{_forward_line(s)}`" for s in e.forward] or ["(no operations)"]
        lines += ["", "## Reverse pass", ""]
        for k, step in enumerate(e.reverse, start=1):
            note = "" if step.terms else f" ({_seed_note(e)})"
            lines.append(f"{k}. `{_reverse_line(step)}`{note}")
        lines += ["", "## Gradient", ""]
        lines += [f"- `{_gradient_line(e, source)}`" for source in e.gradient]
        lines += [""]
    lines += ["## Symbolic derivative, rule by rule"]
    for d in e.derivations:
        lines += ["", f"### ∂{e.target}/∂{d.source}"]
        lines += [""] if d.steps else []
        for number, formula, rule, definition in _rule_lines(d):
            if number > MAX_RULE_STEPS:
                lines.append(f"- … ({d.omitted} more steps)")
            note = rule if definition is None else f"{rule}; `{definition}`"
            lines.append(f"{number}. `{formula}` ({note})")
        lines += ["", f"Result: `{_result_line(e, d)}`"]
        simplified = _simplified_line(e, d)
        lines += [] if simplified is None else ["", f"Simplified: `{simplified}`"]
    return "\n".join(lines)


# --- rich ----------------------------------------------------------------------------------


def to_rich(e: Explanation) -> Any:
    """The explanation as a ``rich`` renderable: a titled panel per section.

    >>> import io
    >>> from rich.console import Console
    >>> console = Console(record=True, width=72, file=io.StringIO())
    >>> console.print(to_rich(explain("x*sin(x)", at={"x": 0})))
    >>> print(console.export_text())
    read as: f = x·sin(x) at x=0.0
    ╭─ Forward pass ───────────────────────────────────────────────────────╮
    │ #1  #1 = sin(x) = sin(0) = 0                                         │
    │ #2  #2 = x * #1 = 0 * 0 = 0                                          │
    ╰──────────────────────────────────────────────────────────────────────╯
    ╭─ Reverse pass ───────────────────────────────────────────────────────╮
    │ adjoint(#2) = 1   (seed; #2 is f)                                    │
    │ adjoint(#1) = ∂#2/∂#1 · adjoint(#2) = x · 1 = 0 · 1 = 0              │
    │ adjoint(x) = ∂#1/∂x · adjoint(#1) + ∂#2/∂x · adjoint(#2) = cos(x) ·  │
    │ 0 + #1 · 1 = cos(0) · 0 + 0 · 1 = 0                                  │
    ╰──────────────────────────────────────────────────────────────────────╯
    ╭─ Gradient ───────────────────────────────────────────────────────────╮
    │ ∂f/∂x = 0                                                            │
    ╰──────────────────────────────────────────────────────────────────────╯
    ╭─ Symbolic derivative, rule by rule ──────────────────────────────────╮
    │ ∂f/∂x:                                                               │
    │   d/dx [sin(x)] = cos(x)   (derivative of sin: d/du sin(u) = cos(u)) │
    │   d/dx [x*sin(x)] = x*cos(x) + sin(x)   (product rule)               │
    │   ∂f/∂x = x*cos(x) + sin(x)                                          │
    ╰──────────────────────────────────────────────────────────────────────╯
    <BLANKLINE>
    """
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    def panel(title: str, lines: list[str]) -> Panel:
        return Panel(Text("\n".join(lines)), title=title, title_align="left")

    reverse = [_reverse_line(s) + ("" if s.terms else f"   ({_seed_note(e)})") for s in e.reverse]
    symbolic = []
    for d in e.derivations:
        symbolic.append(f"∂{e.target}/∂{d.source}:")
        for number, formula, rule, definition in _rule_lines(d):
            if number > MAX_RULE_STEPS:
                symbolic.append(f"  … ({d.omitted} more steps)")
            note = rule if definition is None else f"{rule}; {definition}"
            symbolic.append(f"  {formula}   ({note})")
        symbolic.append(f"  {_result_line(e, d)}")
        simplified = _simplified_line(e, d)
        symbolic += [] if simplified is None else [f"  {simplified}"]
    rule_by_rule = panel("Symbolic derivative, rule by rule", symbolic)
    heading = [
        Text(f"read as: {_title(e)}"),
        *(Text(f"warning: {warning}", style="yellow") for warning in e.warnings),
    ]
    if e.point is None:
        return Group(*heading, rule_by_rule)
    return Group(
        *heading,
        panel(
            "Forward pass",
            [f"#{s.index}  {_forward_line(s)}" for s in e.forward] or ["(no operations)"],
        ),
        panel("Reverse pass", reverse),
        panel("Gradient", [_gradient_line(e, source) for source in e.gradient]),
        rule_by_rule,
    )


# --- LaTeX ---------------------------------------------------------------------------------


def _latex(expr: Any, values: Mapping[Any, float] | None = None) -> str:
    """``sympy.latex`` with ``\\cdot``, ``#k`` names escaped, and ``values`` as numbers."""
    import sympy as sp

    if _too_large(expr):
        return rf"\ldots\text{{ (too large to show: over {MAX_SHOWN_NODES} nodes)}}"
    names = {s: s.name.replace("#", r"\#") for s in expr.free_symbols if "#" in s.name}
    for named, value in (values or {}).items():
        names[named] = _latex_factor(_latex_number(value))
    return sp.latex(expr, mul_symbol="dot", symbol_names=names)


def _latex_number(value: float) -> str:
    """``1e-09`` as ``1 \\times 10^{-9}``."""
    text = format_number(value)
    mantissa, e, exponent = text.partition("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}" if e else text


def _latex_name(name: str) -> str:
    return _latex(symbol(name))


def _latex_text(text: str) -> str:
    """Text for ``\\text{...}``, special characters escaped."""
    special = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
    return "".join(special.get(c, "\\" + c if c in "#$%&_{}" else c) for c in text)


def _align(title: str, rows: list[str]) -> list[str]:
    body = " \\\\\n".join(rows) if rows else r"&\text{(none)}"
    return [rf"\paragraph{{{title}}}", r"\begin{align*}", body, r"\end{align*}"]


def _latex_forward(step: ForwardStep) -> str:
    import sympy as sp

    expr = REGISTRY[step.op].sympy(sp, *(o.symbol for o in step.operands))
    numbers = _latex(expr, _values(step.operands))
    return f"{_latex_name(step.name)} &= " + _chain(
        [_latex(expr), numbers, _latex_number(step.value)]
    )


def _latex_factor(number: str) -> str:
    return rf"\left({number}\right)" if number.startswith("-") else number


def _latex_reverse(step: ReverseStep) -> str:
    def adjoint(name: str) -> str:
        return rf"\operatorname{{adjoint}}\left({_latex_name(name)}\right)"

    def local(term: Term, values: Mapping[Any, float] | None = None) -> str:
        text = _latex(term.local, values)
        text = rf"\left({text}\right)" if _needs_parentheses(term.local) else text
        return rf"{text} \cdot {_latex_factor(_latex_number(term.consumer_adjoint))}"

    parts = []
    if step.terms:
        parts += [
            " + ".join(
                rf"\frac{{\partial {_latex_name(t.consumer)}}}{{\partial {_latex_name(step.name)}}}"
                rf" \cdot {adjoint(t.consumer)}"
                for t in step.terms
            ),
            " + ".join(local(t) for t in step.terms),
            " + ".join(local(t, _values(t.operands)) for t in step.terms),
        ]
    parts.append(_latex_number(step.adjoint))
    return f"{adjoint(step.name)} &= " + _chain(parts)


def _latex_rule(step: RuleStep, source: str) -> str:
    rule = rf"\text{{{_latex_text(step.rule)}}}"
    if step.outer:
        d = "d" if _is_total(step) else r"\partial"
        rule += r"\text{: } " + r",\ ".join(
            rf"\frac{{{d}}}{{{d} {u}}} {_latex(f)} = {_latex(df)}" for u, f, df in step.outer
        )
    if step.definition is not None:
        rule += rf";\ {_latex(step.subject)} = {_latex(step.definition)}"
    return (
        rf"\frac{{d}}{{d {_latex_name(source)}}}\left[{_latex(step.subject)}\right]"
        rf" &= {_latex(step.result)} && {rule}"
    )


def _latex_derivation(e: Explanation, d: Derivation) -> list[str]:
    rows = [_latex_rule(step, d.source) for step in d.steps]
    if d.omitted:
        rows.insert(len(rows) - 1, rf"&\ldots && \text{{({d.omitted} more steps)}}")
    partial = rf"\frac{{\partial {_latex_name(e.target)}}}{{\partial {_latex_name(d.source)}}}"
    if d.result is None:
        result = rf"{partial} &: \text{{{_latex_text(d.note)}}}"
    else:
        shown = [d.result] if d.expanded is None else [d.result, d.expanded]
        form = e.simplified.get(d.source)
        simplified = [] if form is None else [user_latex(form.expr)]
        result = f"{partial} &= " + _chain([*(_latex(x) for x in shown), *simplified])
    title = rf"Symbolic derivative with respect to ${_latex_name(d.source)}$, rule by rule"
    return _align(title, [*rows, result])


def to_latex(e: Explanation) -> str:
    r"""The explanation as LaTeX: an ``align*`` environment per section.

    >>> print(to_latex(explain("y = x**2; z = y**2", at={"x": 3})).splitlines()[3])
    y &= x^{2} = 3^{2} = 9 \\
    """
    lines = [f"% read as: {_title(e)}"]
    lines += [f"% warning: {warning}" for warning in e.warnings]
    if e.point is None:
        for d in e.derivations:
            lines += _latex_derivation(e, d)
        return "\n".join(lines)
    lines += _align("Forward pass", [_latex_forward(s) for s in e.forward])
    lines += _align("Reverse pass", [_latex_reverse(s) for s in e.reverse])
    gradient = []
    for source, value in e.gradient.items():
        partial = rf"\frac{{\partial {_latex_name(e.target)}}}{{\partial {_latex_name(source)}}}"
        shown = r"0 \quad \text{(independent)}" if value is None else _latex_number(value)
        gradient.append(f"{partial} &= {shown}")
    lines += _align("Gradient", gradient)
    for d in e.derivations:
        lines += _latex_derivation(e, d)
    return "\n".join(lines)
