"""Run an op graph on a tape at one or many points at once, and differentiate it.

>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> graph = lower(parse_program("3*w1**2 + 2*w1*w2"))
>>> run = evaluate(graph, {"w1": 5.0, "w2": 3.0})
>>> float(run.values[0]), {k: float(v) for k, v in run.gradients[0].items()}
(105.0, {'w1': 36.0, 'w2': 10.0})
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, overload

import numpy as np

from gradcalc.core.collector import paused
from gradcalc.core.errors import InputError, UndefinedError, did_you_mean
from gradcalc.core.ops import REGISTRY, UNDEFINED, Op
from gradcalc.core.problems import Problem
from gradcalc.core.tape import Record, Tape
from gradcalc.core.tensor import Tensor, apply, constant, quiet
from gradcalc.engine.evaluate.names import require_values
from gradcalc.lang.graph import Graph
from gradcalc.lang.literals import CONSTANT_VALUES
from gradcalc.lang.slips import hidden_in
from gradcalc.lang.unparsing import operation

if TYPE_CHECKING:
    from gradcalc.engine.evaluate.findings import Finding


@dataclass(frozen=True)
class RowInput:
    """One input of a tape row, by what it is: the output of an earlier ``record``, a
    free ``variable`` (graph ``node``), or a ``constant``. ``name`` is how the tape shows it
    (``#3`` or the statement's name, the variable's name, the number), derived from that.

    >>> RowInput("record", "#3", record=3).is_constant
    False
    """

    kind: str
    name: str
    node: int | None = None
    record: int | None = None

    @property
    def is_constant(self) -> bool:
        """No gradient flows to it."""
        return self.kind == "constant"


@dataclass(frozen=True)
class TapeRow:
    """One tape record as the user should read it.

    ``node`` is the graph node the record computes (``None`` for a record of a backward
    pass); ``formula`` is the operation written with the names of its inputs (``y ** 2``,
    ``#3 + #5``, ``sin(x)``: JSON's ``formula``), and :attr:`reading` the same in the reading
    notation that every table, drawing and message shows (``y^2``); ``label`` is the
    statement name the result was assigned to, if any.
    """

    index: int
    node: int | None
    op: str
    formula: str
    inputs: tuple[RowInput, ...]
    label: str | None
    value: np.ndarray
    adjoint: np.ndarray | None
    input_values: tuple[np.ndarray, ...] = ()

    @property
    def reading(self) -> str:
        """What the record computes, in the notation of the ``read as:`` line.

        >>> x, two = RowInput("variable", "x", node=0), RowInput("constant", "2")
        >>> TapeRow(1, 1, "pow", "x ** 2", (x, two), None, np.zeros(()), None).reading
        'x^2'
        """
        return operation(self.op, [made.name for made in self.inputs])

    @property
    def statement(self) -> str:
        """:attr:`reading` after the statement name it was assigned to, if any (``y = x^2``):
        the row as a table or a drawing shows it."""
        return self.reading if self.label is None else f"{self.label} = {self.reading}"


class LazyRows(Sequence[TapeRow]):
    """A tape's rows, made only when first looked at: a batch that was replayed keeps no
    tape (recording one holds every record's values at every point), and a tape's rows --
    each input named, each formula written -- cost more than the tape when nobody reads them.
    ``ops``, where given, are the rows' ops in order, known without making the rows.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> rows = LazyRows(lambda: evaluate(lower(parse_program("sin(x)")), {"x": 0.0}).rows[0])
    >>> rows.recorded, len(rows), rows.recorded, rows[0].formula
    (False, 1, True, 'sin(x)')
    """

    def __init__(self, record: Callable[[], Sequence[TapeRow]], ops: Sequence[str] | None = None):
        self._record: Callable[[], Sequence[TapeRow]] | None = record
        self._rows: list[TapeRow] = []
        self.ops = ops

    @property
    def recorded(self) -> bool:
        """Whether the rows have been recorded yet."""
        return self._record is None

    def _get(self) -> list[TapeRow]:
        if self._record is not None:
            self._rows, self._record = list(self._record()), None
        return self._rows

    @overload
    def __getitem__(self, index: int) -> TapeRow: ...
    @overload
    def __getitem__(self, index: slice) -> list[TapeRow]: ...
    def __getitem__(self, index: int | slice) -> TapeRow | list[TapeRow]:
        return self._get()[index]

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self) -> Iterator[TapeRow]:
        return iter(self._get())

    def __eq__(self, other: object) -> bool:
        return self._get() == (list(other) if isinstance(other, Sequence) else other)

    def __repr__(self) -> str:
        return repr(self._get()) if self.recorded else "<tape rows, recorded when first read>"


def rows_of(rows: Sequence[TapeRow], ops: Container[str]) -> list[TapeRow]:
    """The rows whose op is one of ``ops``, in tape order. Rows not made yet whose ops are
    known (:class:`LazyRows`) stay unmade when none is.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> rows = evaluate(lower(parse_program("x*sin(x)")), {"x": 1.0}).rows[0]
    >>> rows_of(rows, {"log"}), rows.recorded, [r.formula for r in rows_of(rows, {"sin"})]
    ([], False, ['sin(x)'])
    """
    known = rows.ops if isinstance(rows, LazyRows) and not rows.recorded else None
    if known is not None and not any(op in ops for op in known):
        return []
    return [row for row in rows if row.op in ops]


@dataclass(eq=False)
class Evaluation:
    """The values and gradients of a graph's targets, and the tape that computed them.

    ``gradients[k]`` maps each source name to d(target k)/d(source) (``None`` when the
    target does not depend on it); ``rows[k]`` is the tape as seen after the backward
    pass of target k; ``problems[k]`` lists its undefined or non-differentiable records.
    """

    graph: Graph
    sources: tuple[str, ...]
    values: list[np.ndarray]
    gradients: list[dict[str, np.ndarray | None]]
    rows: list[Sequence[TapeRow]]
    problems: list[list[Problem]]
    #: each target's diagnostic findings, when the replay (:mod:`gradcalc.engine.compile.replay`)
    #: found them
    findings: list[list[Finding]] | None = None
    #: rows that name the problems' records, where ``rows`` are not recorded (the records of
    #: a tape that explained only some of the points)
    named_by: list[list[TapeRow]] | None = None


def source_names(graph: Graph, wrt: Sequence[str] | None) -> tuple[str, ...]:
    """Validate ``wrt`` against the graph's variables and statement names.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> source_names(lower(parse_program("y = x**2; z = y**2")), ["x", "y"])
    ('x', 'y')

    Raises:
        InputError: for a name that is neither, listing the valid names.
    """
    if not wrt:
        return graph.variables
    valid = list(graph.variables) + [n for n in graph.bindings if n not in graph.variable_nodes]
    known = set(valid)
    for name in wrt:
        if name not in known and not valid:  # (check "5" --wrt x: a constant)
            raise InputError(f"wrt {name}: the expression has no variables (it is a constant)")
        if name not in known:
            raise InputError(
                f"wrt {name}: not a variable or statement of the expression; "
                f"{did_you_mean(name, valid)}valid names: {', '.join(valid)}"
                + hidden_in(name, graph.variables)
            )
    return tuple(dict.fromkeys(wrt))


def make_leaves(
    graph: Graph, point: Mapping[str, object]
) -> tuple[dict[str, Tensor], tuple[int, ...]]:
    """One constant tensor per free variable (all broadcast to one shape), and that shape.

    Raises:
        InputError: when a variable has no value.
    """
    require_values(graph, point)
    arrays = np.broadcast_arrays(*(np.asarray(point[v], dtype=float) for v in graph.variables))
    shape = arrays[0].shape if arrays else ()
    if shape != () and not graph.elementwise:
        tensor_op = next(
            n.op for n in graph.nodes if n.kind == "op" and not REGISTRY[n.op].elementwise
        )
        raise InputError(
            f"{tensor_op} combines the elements of a tensor, so it cannot be evaluated at "
            "several points at once (arrays given here are many points): give one point to "
            "gradcalc grad --at (W=[[1,2],[3,4]]), or in Python record it on a Tape with "
            "Variables"
        )
    leaves = {name: constant(array) for name, array in zip(graph.variables, arrays)}
    return leaves, shape


def run_graph(graph: Graph, leaves: Mapping[str, Tensor]) -> list[Tensor]:
    """Execute every node in order (the active tapes record it); one tensor per node.

    A subexpression without variables is off every tape, so its domain is checked here:
    ``csc(pi)`` makes the expression undefined at every point.

    Raises:
        UndefinedError: for a constant subexpression outside its op's domain.
    """
    tensors: list[Tensor] = []
    constant_node: list[bool] = []
    with quiet():
        _run_nodes(graph, leaves, tensors, constant_node)
    return tensors


def _run_nodes(
    graph: Graph, leaves: Mapping[str, Tensor], tensors: list[Tensor], constant_node: list[bool]
) -> None:
    for node in graph.nodes:
        if node.kind == "op":  # (the commonest first; comprehensions, not generators)
            inputs = [tensors[i] for i in node.inputs]
            params = dict(node.params)
            tensor = apply(REGISTRY[node.op], *inputs, **params)  # (calling the op, directly)
            fixed = all([constant_node[i] for i in node.inputs])
            if fixed:
                _check_constant(graph, node.index, node.op, inputs, tensor, params)
        elif node.kind == "var":
            tensor, fixed = leaves[node.text], False
        else:  # a number, pi or E
            tensor, fixed = constant(CONSTANT_VALUES.get(node.text) or float(node.text)), True
        tensors.append(tensor)
        constant_node.append(fixed)


def _check_constant(
    graph: Graph,
    index: int,
    op: str,
    inputs: list[Tensor],
    output: Tensor,
    params: Mapping[str, object],
) -> None:
    """Refuse a constant subexpression that is undefined (kinks do not matter: no gradient
    flows through a constant); a NaN or infinity from finite inputs counts as undefined."""
    values = [t.value for t in inputs]
    reasons = [i.reason for i in REGISTRY[op].issues(*values, **params) if i.kind == UNDEFINED]
    finite_inputs = all(np.all(np.isfinite(v)) for v in values)
    if not reasons and finite_inputs and not np.all(np.isfinite(output.value)):
        reasons = ["overflow" if np.any(np.isinf(output.value)) else "NaN"]
    if reasons:
        text = graph.source_text(index)
        raise UndefinedError(f"{text} is undefined (it has no variables): {reasons[0]}")


def source_tensors(graph: Graph, tensors: list[Tensor], sources: Sequence[str]) -> list[Tensor]:
    """The tensors of the named sources: variables or statement names."""
    return [
        tensors[graph.variable_node(s) if s in graph.variable_nodes else graph.bindings[s]]
        for s in sources
    ]


def evaluate(
    graph: Graph, point: Mapping[str, object], wrt: Sequence[str] | None = None
) -> Evaluation:
    """Evaluate ``graph`` at ``point`` (numbers or equal-length arrays) on a tape.

    Args:
        graph: the op graph.
        point: a value for every free variable (arrays evaluate many points at once).
        wrt: the sources (default: every free variable); statement names are allowed.

    Raises:
        InputError: for a missing variable value or an unknown source name.
    """
    sources = source_names(graph, wrt)
    leaves, shape = make_leaves(graph, point)
    with paused():  # (tensors and records: no cycles for the collector to find)
        return _on_tape(graph, leaves, shape, sources)


def _on_tape(
    graph: Graph, leaves: dict[str, Tensor], shape: tuple[int, ...], sources: tuple[str, ...]
) -> Evaluation:
    """:func:`evaluate` once the leaves are made: record, then differentiate each target."""
    with Tape(persistent=True) as tape:
        tape.watch(list(leaves.values()))
        tensors = run_graph(graph, leaves)
    wrt_tensors = source_tensors(graph, tensors, sources)
    evaluation = Evaluation(graph, sources, [], [], [], [])
    ops = sorted({rec.op.name for rec in tape.records})  # (each name once: read per target)
    for target in graph.targets:
        value = np.broadcast_to(tensors[target].value, shape)
        grads = tape.gradient(tensors[target], wrt_tensors)
        evaluation.values.append(value)
        evaluation.gradients.append(
            {s: None if g is None else _read_only(g.value, shape) for s, g in zip(sources, grads)}
        )
        rows = functools.partial(tape_rows, graph, tape, tensors, tape.adjoints())
        evaluation.rows.append(LazyRows(rows, ops))  # made when read: most output leaves them
        evaluation.problems.append(tape.problems(tensors[target]))  # (its sub-tape's)
    return evaluation


def _read_only(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A read-only view of ``values`` in ``shape``, as ``np.broadcast_to`` makes, at a tenth
    of its cost where the shape is already right (10,000 gradient components at a point).

    >>> view = _read_only(np.zeros(2), (2,))
    >>> view.flags.writeable, _read_only(np.zeros(()), (3,)).tolist()
    (False, [0.0, 0.0, 0.0])
    """
    view: np.ndarray = values.view() if values.shape == shape else np.broadcast_to(values, shape)
    view.flags.writeable = False
    return view


def lazy_rows(
    graph: Graph, point: Mapping[str, object], sources: Sequence[str]
) -> list[Sequence[TapeRow]]:
    """Each target's tape rows at ``point``, recorded on one full tape when first read.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> rows = lazy_rows(lower(parse_program("sin(x)")), {"x": 0.0}, ("x",))
    >>> rows[0].recorded, rows[0][0].formula, rows[0].recorded
    (False, 'sin(x)', True)
    """
    tape = _Recording(graph, point, sources)
    return [LazyRows(functools.partial(tape.rows, k)) for k in range(len(graph.targets))]


class _Recording:
    """One full tape's rows per target, recorded when first asked for."""

    def __init__(self, graph: Graph, point: Mapping[str, object], sources: Sequence[str]):
        self.graph, self.point, self.sources = graph, point, sources
        self.recorded: list[Sequence[TapeRow]] | None = None

    def rows(self, target: int) -> Sequence[TapeRow]:
        if self.recorded is None:
            self.recorded = evaluate(self.graph, self.point, self.sources).rows
        return self.recorded[target]


def ancestors(tape: Tape, target: Tensor) -> set[int]:
    """The indices of the records ``target`` depends on (itself included): a program's
    other statements do not make it undefined."""
    needed = {target.id}
    found = set()
    for rec in reversed(tape.records):
        if rec.output.id in needed:
            found.add(rec.index)
            needed.update(t.id for t in rec.inputs)
    return found


def tape_rows(
    graph: Graph,
    tape: Tape,
    tensors: list[Tensor],
    adjoints: Mapping[int, np.ndarray] | None = None,
) -> list[TapeRow]:
    """The tape's records as rows, inputs named as the user wrote them, with the adjoints of
    ``adjoints`` (:meth:`~gradcalc.core.tape.Tape.adjoints` of one ``gradient`` call; default:
    the latest call's).

    Records that are not nodes of the graph (those of a backward pass recorded by an outer
    tape) are referred to as ``#index`` and have ``node`` ``None``.
    """
    with paused():  # (rows and their inputs: no cycles for the collector to find)
        return _rows(graph, tape, tensors, tape.adjoints() if adjoints is None else adjoints)


def _rows(
    graph: Graph, tape: Tape, tensors: list[Tensor], adjoints: Mapping[int, np.ndarray]
) -> list[TapeRow]:
    """:func:`tape_rows` with the adjoints chosen."""
    node_of = {tensor.id: node.index for node, tensor in zip(graph.nodes, tensors)}
    made = {rec.output.id: rec.index for rec in tape.records}
    watched = {t.id for t in tape.watched}  # variables, and statements given as sources
    inputs: dict[int, RowInput] = {}  # by tensor id
    for rec in tape.records:
        if rec.output.id not in node_of:  # (a node's tensor is named by the loop below)
            inputs[rec.output.id] = RowInput("record", f"#{rec.index}", None, rec.index)
    for node, tensor in zip(graph.nodes, tensors):
        record = made.get(tensor.id)
        if node.kind == "var" or (record is None and tensor.id in watched):
            name = node.label or node.text
            inputs[tensor.id] = RowInput("variable", name, node.index, record)
        elif record is not None:
            inputs[tensor.id] = RowInput("record", node.label or f"#{record}", node.index, record)
        else:  # a number, pi, or a constant subexpression such as 2*pi: off the tape
            if node.kind == "const":
                text = node.text
            else:  # 2*pi, or independent of the sources; many points: its formula
                scalar = tensor.value.ndim == 0
                text = _number(tensor) if scalar else graph.source_text(node.index)
            inputs[tensor.id] = RowInput("constant", node.label or text, node.index)
    return [_row(rec, inputs, node_of, adjoints.get(rec.output.id)) for rec in tape.records]


def _row(
    rec: Record, known: dict[int, RowInput], node_of: dict[int, int], adjoint: np.ndarray | None
) -> TapeRow:
    # (once per record of the tape: comprehensions, not generators)
    inputs = tuple([known.get(t.id) or RowInput("constant", _number(t)) for t in rec.inputs])
    node = node_of.get(rec.output.id)
    return TapeRow(
        rec.index,
        node,
        rec.op.name,
        formula(rec.op, [i.name for i in inputs]),
        inputs,
        None if node is None else _label(known[rec.output.id]),
        rec.output.value,
        adjoint,
        tuple([t.value for t in rec.inputs]),
    )


def _label(made: RowInput) -> str | None:
    """The statement name a record's result was given (its name when not ``#k``)."""
    return None if made.record is not None and made.name == f"#{made.record}" else made.name


def formula(op: Op, names: Sequence[str]) -> str:
    """An op written with its inputs' names, as the tape shows it: ``#3 + y``, ``sin(x)``.

    >>> formula(REGISTRY["pow"], ["x", "2"]), formula(REGISTRY["neg"], ["#1"])
    ('x ** 2', '-#1')
    """
    if op.symbol and op.arity == 2:
        return f"{names[0]} {op.symbol} {names[1]}"
    if op.symbol:
        return f"{op.symbol}{names[0]}"
    return f"{op.name}({', '.join(names)})"


def _number(tensor: Tensor) -> str:
    """A constant input that is not a node (e.g. a ``2`` inside a gradient rule)."""
    value = tensor.value
    return f"{float(value):.6g}" if value.ndim == 0 else "[…]"
