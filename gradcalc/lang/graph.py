"""Lower a parsed program to an op graph: one node per distinct subexpression.

The graph keeps the user's own structure (``x - y`` is a ``sub`` node, ``x/y`` a
``div``), shares identical subtrees, and keeps each statement's result as one
node that later statements refer to -- thirty statements ``a2 = a1*a1; ...`` are
a chain of thirty nodes, never a tree. Everything here is iterative.

>>> from gradcalc.lang.parser import parse_program
>>> graph = lower(parse_program("y = x**2; z = y**2"))
>>> graph.variables, [graph.nodes[i].label for i in graph.targets]
(('x',), ['z'])
>>> [(node.op, node.inputs) for node in graph.nodes if node.kind == "op"]
[('pow', (0, 1)), ('pow', (2, 1))]
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gradcalc.core.errors import InputError
from gradcalc.core.ops import REGISTRY
from gradcalc.lang.literals import CONSTANT_VALUES
from gradcalc.lang.reading import ambiguities, read_as, value_warnings
from gradcalc.lang.syntax import Binary, Call, Const, Name, Neg, Num, Program, postorder
from gradcalc.lang.syntax import Node as Syntax
from gradcalc.lang.unparsing import unparse


@dataclass(eq=False)
class Node:
    """One node of the op graph.

    ``kind`` is ``"var"`` (a free variable), ``"const"`` (a number, ``pi`` or ``E``)
    or ``"op"`` (the registry primitive ``op`` applied to earlier nodes). ``label`` is the
    variable's name or the statement target the node was assigned to, if any.
    """

    index: int
    kind: str
    op: str = ""
    inputs: tuple[int, ...] = ()
    text: str = ""
    label: str | None = None
    #: the op's keyword parameters (``(("axis", 0),)``; indexing: ``(("index", (1,)),)``)
    params: tuple[tuple[str, Any], ...] = ()


@dataclass(eq=False)
class Graph:
    """An op graph in evaluation order (inputs always come before their users).

    Attributes:
        nodes: every node; ``nodes[i].index == i``.
        variables: the free variables, in order of first appearance.
        targets: node indices of the outputs (the last statement, or ``of``).
        target_names: how each target is called (its statement name or its text).
        bindings: each statement name's final node.
        text: the program as typed.
        origins: for each op node, the parsed subexpression it came from (for messages).
    """

    nodes: list[Node] = field(default_factory=list)
    variables: tuple[str, ...] = ()
    targets: tuple[int, ...] = ()
    target_names: tuple[str, ...] = ()
    bindings: dict[str, int] = field(default_factory=dict)
    text: str = ""
    origins: dict[int, Syntax] = field(default_factory=dict)
    #: Derived results reused across chunks of points (symbolic derivatives, compiled functions).
    cache: dict[tuple[Any, ...], Any] = field(default_factory=dict, repr=False)

    def source_text(self, index: int, limit: int = 60) -> str:
        """The subexpression node ``index`` computes, as text (shortened to ``limit``).

        >>> from gradcalc.lang.parser import parse_program
        >>> g = lower(parse_program("log(x - 5) * 2"))
        >>> g.source_text(3)  # (in the reading's notation: ^, ·, ln, e)
        'ln(x - 5)'
        """
        origin = self.origins.get(index)
        node = self.nodes[index]
        text = unparse(origin, reading=True) if origin is not None else node.text
        return text if len(text) <= limit else text[: limit - 1] + "…"

    variable_nodes: dict[str, int] = field(default_factory=dict)
    #: The parsed program the graph was built from.
    program: Program | None = field(default=None, repr=False)
    #: The names the user gave values for (no name warning for them: ``xy`` with ``--at xy=2``).
    given: tuple[str, ...] = ()
    #: The value texts typed with it (``--at``, ``--expect``): warned about as it is.
    values: tuple[str, ...] = ()

    @property
    def read_as(self) -> str:
        """The program as gradcalc read it, in the reading notation (see :mod:`.reading`).

        >>> from gradcalc.lang.parser import parse_program
        >>> lower(parse_program("e^2x")).read_as
        'e^2·x'
        """
        if self.program is None:
            return self.text
        if ("read_as",) not in self.cache:
            self.cache[("read_as",)] = read_as(self.program)
        return self.cache[("read_as",)]

    @property
    def ambiguities(self) -> list[str]:
        """Warnings where the strict reading is likely not what was meant, in the text and
        in the values typed with it (:attr:`values`).

        >>> from gradcalc.lang.parser import parse_program
        >>> lower(parse_program("x/2y")).ambiguities
        ['x/2y is read as (x/2)·y; if you mean x/(2·y), write x/(2y)']
        """
        if self.program is None:
            return []
        if ("ambiguities",) not in self.cache:
            found = ambiguities(self.program, self.given) + value_warnings(self.values)
            self.cache[("ambiguities",)] = list(dict.fromkeys(found))
        return list(self.cache[("ambiguities",)])

    @property
    def elementwise(self) -> bool:
        """Whether every op of the graph is elementwise (no ``sum``, ``@``, ``softmax``, ...):
        then an array of points is that many independent evaluations.

        >>> from gradcalc.lang.parser import parse_program
        >>> lower(parse_program("x*y")).elementwise, lower(parse_program("sum(x)")).elementwise
        (True, False)
        """
        if ("elementwise",) not in self.cache:
            self.cache[("elementwise",)] = all(
                REGISTRY[node.op].elementwise for node in self.nodes if node.kind == "op"
            )
        elementwise: bool = self.cache[("elementwise",)]
        return elementwise

    def variable_node(self, name: str) -> int:
        """The node index of a free variable."""
        return self.variable_nodes[name]

    def variables_under(self, index: int) -> frozenset[str]:
        """The variables node ``index`` reads, directly or through other nodes.

        >>> from gradcalc.lang.parser import parse_program
        >>> g = lower(parse_program("abs(x) * y + 1/(z - z)"))
        >>> sorted(g.variables_under(g.targets[0]))
        ['x', 'y', 'z']
        >>> [sorted(g.variables_under(n.index)) for n in g.nodes if n.op == "abs"]
        [['x']]
        """
        key = ("variables under", index)
        if key not in self.cache:
            names, stack, seen = set(), [index], set()
            while stack:
                node = self.nodes[stack.pop()]
                if node.index not in seen:
                    seen.add(node.index)
                    names.update([node.text] if node.kind == "var" else [])
                    stack.extend(node.inputs)
            self.cache[key] = frozenset(names)
        found: frozenset[str] = self.cache[key]
        return found


def shape(graph: Graph, varies: Callable[[str], bool]) -> tuple[Hashable, tuple[int, ...]]:
    """The graph's structure with some of its numbers left out, and those numbers' nodes.

    A number is left out when ``varies`` accepts its text, unless it is an operand of a
    power (``x^2`` and ``x^3`` differ in structure) or a named constant (``pi``). Graphs with
    equal keys are the same computation but for the values of the numbers left out: every
    node, its op's parameters, how nodes share inputs, the variables and the targets.

    >>> from gradcalc.lang.parser import parse_program
    >>> def key(text):
    ...     return shape(lower(parse_program(text)), lambda number: number != "1")
    >>> key("2.5*x + x^2")[0] == key("7*x + x^2")[0], key("2.5*x + x^2")[1]
    (True, (0,))
    >>> key("2.5*x + x^3")[0] == key("2.5*x + x^2")[0], key("1*x + x^2")[1]
    (False, ())
    """
    powers = {i for node in graph.nodes if node.op == "pow" for i in node.inputs}
    key: list[tuple] = []
    numbers: list[int] = []
    for node in graph.nodes:
        if (
            node.kind == "const"
            and node.index not in powers
            and node.text not in CONSTANT_VALUES
            and varies(node.text)
        ):
            numbers.append(node.index)
            key.append(("number",))
        else:
            key.append((node.kind, node.op, node.inputs, node.text, node.params))
    return (tuple(key), graph.targets), tuple(numbers)


class _Builder:
    """Hash-conses nodes so that identical subexpressions become one node."""

    def __init__(self) -> None:
        self.graph = Graph()
        self._index: dict[tuple, int] = {}

    def add(self, key: tuple, node: Node) -> int:
        """Keep ``node`` under ``key`` (new to the graph); its index."""
        self._index[key] = index = self._append(node)
        return index

    def _append(self, node: Node) -> int:
        node.index = len(self.graph.nodes)
        self.graph.nodes.append(node)
        return node.index

    def variable(self, name: str) -> int:
        index = self.graph.variable_nodes.get(name)  # (a variable is kept by its name there)
        if index is None:
            index = self._append(Node(0, "var", text=name, label=name))
            self.graph.variable_nodes[name] = index
        return index

    def constant(self, text: str) -> int:
        index = self._index.get(("const", text))
        return self.add(("const", text), Node(0, "const", text=text)) if index is None else index

    def op(
        self, name: str, inputs: tuple[int, ...], params: tuple[tuple[str, Any], ...] = ()
    ) -> int:
        key = ("op", name, params, inputs)
        index = self._index.get(key)
        if index is None:
            index = self.add(key, Node(0, "op", name, inputs, "", None, params))
        return index


def lower(
    program: Program, of: Iterable[str] | None = None, extra_variables: Sequence[str] = ()
) -> Graph:
    """Build the op graph of a program.

    Args:
        program: the parsed program.
        of: statement names to use as targets (default: the last statement).
        extra_variables: names to add as free variables even if unused (a ``--at`` row).

    Raises:
        InputError: when a name in ``of`` is not a statement of the program.

    >>> from gradcalc.lang.parser import parse_program
    >>> g = lower(parse_program("3*w1**2 + 2*w1*w2"))
    >>> g.variables, g.nodes[g.targets[0]].op, g.target_names
    (('w1', 'w2'), 'add', ('f',))
    """
    builder = _Builder()
    scope: dict[str, int] = {}
    free: dict[str, None] = {}  # an ordered set
    for name in program.parameters:  # a function head's variables come first, in its order
        free[name] = None
        builder.variable(name)
    outputs: list[tuple[str, int]] = []
    for statement in program.statements:
        root = _lower_expression(statement.expr, builder, scope, free)
        if statement.target is None:
            outputs.append(("", root))
            continue
        node = builder.graph.nodes[root]
        if node.label is None and node.kind == "op" and not program.parameters:
            node.label = statement.target  # (a function head's body is the function itself)
        scope[statement.target] = root
        builder.graph.bindings[statement.target] = root
    for name in extra_variables:
        if name not in free and name not in scope:
            free[name] = None
            builder.variable(name)
    graph = builder.graph
    graph.variables = tuple(free)
    graph.text = program.text
    graph.program = program
    graph.given = tuple(extra_variables)
    chosen = _choose_targets(program, outputs, graph.bindings, of)
    graph.target_names = tuple(name for name, _ in chosen)
    graph.targets = tuple(index for _, index in chosen)
    return graph


def _choose_targets(program, outputs, bindings, of) -> list[tuple[str, int]]:
    if of:
        chosen = []
        for name in of:
            if name not in bindings:
                known = ", ".join(bindings) or "none"
                raise InputError(
                    f"--of {name}: not a statement of the program (statement names: {known})"
                )
            chosen.append((name, bindings[name]))
        return chosen
    if outputs:  # bare expressions are called f (or f1, f2, ... for a comma-separated list)
        if len(outputs) == 1:
            return [("f", outputs[0][1])]
        name = program.name or "f"  # (F(r, t) = a, b: F1 and F2)
        return [(f"{name}{i}", root) for i, (_, root) in enumerate(outputs, start=1)]
    last = program.statements[-1].target
    return [(last, bindings[last])]


def _lower_expression(expr, builder: _Builder, scope: dict[str, int], free: dict) -> int:
    """Postorder walk of one expression; returns the index of its root node."""
    operands: list[int] = []  # the graph nodes of the subtrees walked but not yet used
    origins = builder.graph.origins
    op = builder.op
    for item in postorder(expr):
        if isinstance(item, Name):  # (the commonest kinds first)
            index = scope.get(item.name)
            if index is None:
                free[item.name] = None
                index = builder.variable(item.name)
        elif isinstance(item, Binary):
            right = operands.pop()
            index = op(item.op, (operands.pop(), right))
        elif isinstance(item, Call):
            first = len(operands) - len(item.args)
            index = op(item.op, tuple(operands[first:]), item.params)
            del operands[first:]
        elif isinstance(item, Num):
            index = builder.constant(item.text)
        elif isinstance(item, Const):
            index = builder.constant(item.name)  # "pi" or "E", see lang.literals
        elif isinstance(item, Neg):
            index = op("neg", (operands.pop(),))
        else:  # pragma: no cover - the parser produces nothing else
            raise TypeError(f"unexpected node {item!r}")
        operands.append(index)
        origins.setdefault(index, item)
    return operands[-1]
