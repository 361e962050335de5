"""Derivatives shared by expressions of one shape, for a stream of many small jobs.

Two expressions have the same *shape* when their op graphs are the same but for the values
of some numbers: ``1.3*x^2 + 0.9*x*y`` and ``2.8*x^2 + 0.7*x*y``. In a ``--jobs`` stream
(see :func:`sharing`), such a graph is converted to sympy and differentiated once with
those numbers as positive symbols; each expression of the shape then substitutes its own
numbers into the shared derivative. The derivative with respect to ``x`` commutes with
giving the numbers their values, so the result is the derivative of the expression itself.

Only plain numbers other than 0 and 1 become symbols, never the operands of a power
(``x^2`` and ``x^3`` are different shapes, and an exact power is size-checked as it is
built) nor ``pi`` or ``e``. Variables keep their names: ``x*y`` and ``x*z`` are different
shapes; a graph with tensor ops (``sum``, ``@``, indexing) is never shared. The shape is
the whole graph -- every node, its op's parameters, how the nodes share inputs, the
targets -- so a cached derivative is never served for a graph of another structure, and
the numbers that are symbols in it together stay far below the exact-size cap
(:data:`~gradcalc.symbolic.translate.convert.MAX_EXACT_DIGITS`), so substituting them cannot build
an oversized number. The caller still treats a disagreement found with a shared
derivative as unproven (see :func:`~gradcalc.symbolic.crosscheck.crosscheck.cross_check`).

>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> store = Shapes()
>>> with sharing(store):
...     first = shared_gradient(lower(parse_program("1.5*x^2*y")), 0, ["x", "y"])
...     second = shared_gradient(lower(parse_program("2.5*x^2*y")), 0, ["x", "y"])
>>> first, second, len(store.entries)
({'x': 3*x*y, 'y': 3*x**2/2}, {'x': 5*x*y, 'y': 5*x**2/2}, 1)
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gradcalc.lang.graph import Graph, shape
from gradcalc.lang.literals import DECIMAL
from gradcalc.symbolic.translate.convert import (
    MAX_EXACT_BITS,
    MAX_EXACT_DIGITS,
    ExactTooLarge,
    constant_to_sympy,
    exact_at,
    to_sympy,
)
from gradcalc.symbolic.translate.derivative import derivative, symbol
from gradcalc.symbolic.translate.notation import user_printer, user_text
from gradcalc.symbolic.translate.numeric import lambdify

#: The shapes kept: at most this many, and this many graph nodes in all.
MAX_SHAPES = 256
MAX_NODES = 200_000
#: The derivatives with their numbers given, and the printed texts, remembered (each).
MAX_REMEMBERED = 4096
#: The digits to which a derivative that is not a rational function is evaluated in a stream.
DIGITS = 30
#: The digits of all the numbers made symbols in one shape, together (so that any product
#: or sum of them stays far below the exact-size cap).
MAX_SHARED_DIGITS = MAX_EXACT_DIGITS // 4


@dataclass
class Shape:
    """One shape's sympy expressions (a symbol for each shared number), derivatives, and
    how each is evaluated at a point (exactly, or to 30 digits: see :func:`shared_value`)."""

    expressions: list[Any]
    size: int
    derivatives: dict[tuple[int, str], Any] = field(default_factory=dict)
    #: by (target, source), the symbols of the numbers its derivative holds
    numbers: dict[tuple[int, str], list[Any]] = field(default_factory=dict)
    #: by (target, source), a source of ``None`` for the target's own value
    evaluators: dict[tuple[int, str | None], Any] = field(default_factory=dict)


class Shapes:
    """Shapes by their structure, least recently used first out (see :data:`MAX_SHAPES`)."""

    def __init__(self) -> None:
        self.entries: OrderedDict[Hashable, Shape] = OrderedDict()
        self.nodes = 0
        #: derivatives with their numbers given, by (shape, target, source, those numbers),
        #: and printed expressions: repeated ones (d/dy of a*x^2 + b*x*y is b*x) come back
        self.given: dict[Hashable, Any] = {}
        self.texts: dict[Any, str] = {}
        self.printer: Any = None  # sympy's str printer, made once per stream

    def clear(self) -> None:
        """Forget every shape."""
        self.entries.clear()
        self.nodes = 0
        self.given.clear()
        self.texts.clear()

    def shape(self, key: Hashable, graph: Graph, symbols: dict[int, Any]) -> Shape:
        """The shape under ``key``, converted from ``graph`` (numbers ``symbols``) if new."""
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key]
        entry = Shape(to_sympy(graph, symbols), len(graph.nodes))
        self.entries[key] = entry
        self.nodes += entry.size
        while len(self.entries) > 1 and (len(self.entries) > MAX_SHAPES or self.nodes > MAX_NODES):
            _, old = self.entries.popitem(last=False)
            self.nodes -= old.size
        return entry


_stores: list[Shapes] = []


@contextmanager
def sharing(store: Shapes | None) -> Iterator[None]:
    """Share derivatives between the graphs of this block through ``store`` (``None``:
    do not share in this block)."""
    _stores.append(store)  # type: ignore[arg-type]
    try:
        yield
    finally:
        _stores.pop()


def active() -> Shapes | None:
    """The store in use, or ``None`` outside :func:`sharing`."""
    return _stores[-1] if _stores else None


def shape_of(graph: Graph) -> tuple[Hashable, dict[int, Any], dict[Any, Any]] | None:
    """The graph's shape: its key, the symbol of each shared number's node and each symbol's
    value; ``None`` when it has no number to share (or too many digits of them).

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> a = shape_of(lower(parse_program("2.5*x + x^2")))
    >>> b = shape_of(lower(parse_program("7*x + x^2")))
    >>> a[0] == b[0], list(a[2].values()), list(b[2].values())
    (True, [5/2], [7])
    >>> shape_of(lower(parse_program("2.5*x + x^3")))[0] == a[0]
    False
    """
    cached = graph.cache.get(("shape",), False)
    if cached is not False:
        return cached
    if not graph.elementwise:  # tensor ops (sum, @, indexing): never shared
        graph.cache[("shape",)] = None
        return None
    key, numbers = shape(graph, lambda text: constant_to_sympy(text) not in (0, 1))
    symbols: dict[int, Any] = {}
    values: dict[Any, Any] = {}
    digits = 0
    for index in numbers:
        value = constant_to_sympy(graph.nodes[index].text)
        digits += len(str(value.p)) + len(str(value.q))
        symbols[index] = symbol_for(index)
        values[symbols[index]] = value
    found = None
    if symbols and digits <= MAX_SHARED_DIGITS:
        found = key, symbols, values
    graph.cache[("shape",)] = found
    return found


def symbol_for(index: int) -> Any:
    """The symbol standing for the number of node ``index`` (positive, as every literal is;
    its name is no variable's: names start with a letter)."""
    import sympy as sp

    return sp.Symbol(f"_c{index}", positive=True)


def shared_gradient(graph: Graph, target: int, sources: Sequence[str]) -> dict[str, Any] | None:
    """sympy's derivative of target ``target`` with respect to each source (variables only)
    through the shape shared by the store in use; ``None`` without a store or a shape."""
    store = active()
    if store is None or any(s not in graph.variable_nodes for s in sources):
        return None
    found = shape_of(graph)
    if found is None:
        return None
    key, symbols, values = found
    shape = store.shape(key, graph, symbols)
    result = {}
    for source in sources:
        if (target, source) not in shape.derivatives:
            general = shape.expressions[graph.targets[target]]
            shape.derivatives[target, source] = general = derivative(general, symbol(source))
            shape.numbers[target, source] = sorted(general.free_symbols & set(values), key=str)
        general = shape.derivatives[target, source]
        used = tuple(values[c] for c in shape.numbers[target, source])
        given = (key, target, source, used)
        if given not in store.given:
            _bounded(store.given)[given] = exact_at(general, values)
        result[source] = store.given[given]
    return result


def printed(expr: Any) -> str:
    """``expr`` in gradcalc's input notation (``x^2``, ``ln``, ``2x``: see
    :func:`~gradcalc.symbolic.translate.notation.user_text`), remembered by the store in
    use (printing is sympy's slowest step), by a printer that remembers the order of sums'
    terms (:mod:`gradcalc.symbolic.translate.printing`).

    >>> import sympy as sp
    >>> printed(sp.Symbol("x") ** 2 / 2)
    'x^2/2'
    """
    store = active()
    if store is None:
        return user_text(expr)
    if expr not in store.texts:
        if store.printer is None:  # a printer per call would forget the sums' orders
            store.printer = user_printer()
        _bounded(store.texts)[expr] = user_text(expr, printer=store.printer)
    return store.texts[expr]


def _bounded(memo: dict) -> dict:
    """``memo``, emptied first when it holds :data:`MAX_REMEMBERED` entries."""
    if len(memo) >= MAX_REMEMBERED:
        memo.clear()
    return memo


def shared_target(graph: Graph, target: int) -> Any | None:
    """sympy's expression of target ``target`` through the shape shared by the store in use;
    ``None`` without a store or a shape."""
    store = active()
    found = None if store is None else shape_of(graph)
    if store is None or found is None:
        return None
    key, symbols, values = found
    return exact_at(store.shape(key, graph, symbols).expressions[graph.targets[target]], values)


def shared_value(
    graph: Graph,
    target: int,
    source: str | None,
    point: Mapping[str, str],
    exact_only: bool = False,
) -> Fraction | float | None:
    """The shared derivative of target ``target`` with respect to ``source`` (``None``: the
    target itself) at one point given as plain numbers: exactly, as a :class:`Fraction`, for
    a rational function; to :data:`DIGITS` digits, as a float (NaN where not real), for any
    other; ``None`` where sympy's exact arithmetic is to be used instead (a point such as
    ``pi/4``, no shape, or an evaluation that failed). With ``exact_only``, a value that
    would be to :data:`DIGITS` digits is not computed: NaN stands for it. Call it after
    :func:`shared_gradient` (or :func:`shared_target`), which make the shape's expressions.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> graph = lower(parse_program("2.5*sin(x)*y^2"))
    >>> with sharing(Shapes()):
    ...     _ = shared_gradient(graph, 0, ["x", "y"])
    ...     value = shared_value(graph, 0, "x", {"x": "0.5", "y": "1"})
    ...     exact = shared_value(graph, 0, "x", {"x": "pi/6", "y": "1"})
    ...     left_out = shared_value(graph, 0, "x", {"x": "0.5", "y": "1"}, exact_only=True)
    >>> value, exact, left_out
    (2.193956404725932, None, nan)
    >>> graph = lower(parse_program("2.5*x^2*y"))
    >>> with sharing(Shapes()):
    ...     _ = shared_gradient(graph, 0, ["x"])
    ...     shared_value(graph, 0, "x", {"x": "0.5", "y": "3"})
    Fraction(15, 2)
    """
    store = active()
    found = None if store is None else shape_of(graph)
    if store is None or found is None or not all(DECIMAL.fullmatch(t) for t in point.values()):
        return None
    key, symbols, values = found
    shape = store.shape(key, graph, symbols)
    which = (target, source)
    if source is None:
        general = shape.expressions[graph.targets[target]]
    else:
        general = shape.derivatives.get((target, source))
    if general is None or any(v not in point for v in graph.variables):
        return None
    if which not in shape.evaluators:
        arguments = [symbol(v) for v in graph.variables] + list(values)
        shape.evaluators[which] = _evaluator(general, arguments)
    evaluate = shape.evaluators[which]
    if evaluate is None:
        return None
    if exact_only and not isinstance(evaluate, _Exact):
        return math.nan
    numbers = [Fraction(int(c.p), int(c.q)) for c in values.values()]
    try:
        if isinstance(evaluate, _Exact):
            return evaluate([Fraction(point[v]) for v in graph.variables] + numbers)
        return _digits(evaluate, [point[v] for v in graph.variables], numbers)
    except (ValueError, TypeError, ZeroDivisionError, ArithmeticError, NameError):
        return None


def _digits(evaluate: Callable[..., Any], point: list[str], numbers: list[Fraction]) -> float:
    """An mpmath function at a point (decimal texts) and numbers, to :data:`DIGITS` digits."""
    import mpmath

    with mpmath.workdps(DIGITS):
        arguments = [mpmath.mpf(t) for t in point]
        arguments += [mpmath.mpf(n.numerator) / n.denominator for n in numbers]
        number = mpmath.mpmathify(evaluate(*arguments))
    if isinstance(number, mpmath.mpc):
        return float(number.real) if number.imag == 0 else math.nan
    return float(number)


class _Exact:
    r"""A rational function of (variables..., numbers...) evaluated in :class:`Fraction`\ s:
    its tree as a list of steps (each on earlier steps' results), made once."""

    def __init__(self, expr: Any, arguments: list[Any]):
        slots: dict[Any, int] = {}
        self.steps: list[tuple[str, Any]] = []
        stack = [expr]
        while stack:  # postorder, without recursion
            e = stack[-1]
            pending = [a for a in e.args if a not in slots]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            if e in slots:
                continue
            if e.is_Symbol:
                self.steps.append(("argument", arguments.index(e)))
            elif e.is_Rational:
                self.steps.append(("number", Fraction(int(e.p), int(e.q))))
            elif e.is_Add or e.is_Mul:
                kind = "add" if e.is_Add else "mul"
                self.steps.append((kind, [slots[a] for a in e.args]))
            else:  # an integer power (see _rational_function)
                self.steps.append(("pow", (slots[e.base], int(e.exp))))
            slots[e] = len(self.steps) - 1

    def __call__(self, values: list[Fraction]) -> Fraction:
        # numerator and denominator apart, reduced once at the end (and before a power,
        # whose size is checked on the reduced base): a Fraction reduces at every step
        done: list[tuple[int, int]] = []
        for kind, what in self.steps:
            if kind == "argument":
                done.append((values[what].numerator, values[what].denominator))
            elif kind == "number":
                done.append((what.numerator, what.denominator))
            elif kind == "add":
                n, d = 0, 1
                for i in what:
                    a, b = done[i]
                    n, d = (n + a, d) if b == d else (n * b + a * d, d * b)
                done.append(_reduced(n, d))
            elif kind == "mul":
                n, d = 1, 1
                for i in what:
                    a, b = done[i]
                    n, d = n * a, d * b
                done.append(_reduced(n, d))
            else:  # sized before it is built, as exact_at does: C cannot be interrupted
                base = Fraction(*done[what[0]])
                bits = max(base.numerator.bit_length(), base.denominator.bit_length())
                if bits > 1 and bits * abs(what[1]) > MAX_EXACT_BITS:
                    raise ExactTooLarge
                n, d = base.numerator, base.denominator
                done.append(
                    (n ** what[1], d ** what[1]) if what[1] >= 0 else (d ** -what[1], n ** -what[1])
                )
        return Fraction(*done[-1])


def _reduced(n: int, d: int) -> tuple[int, int]:
    """``n/d`` in lowest terms once either has more than 128 bits (long sums stay short)."""
    if max(n.bit_length(), d.bit_length()) <= 128:
        return n, d
    common = math.gcd(n, d)
    return (n // common, d // common) if common > 1 else (n, d)


def _evaluator(general: Any, arguments: list[Any]) -> _Exact | Callable[..., Any] | None:
    """How to evaluate a shared expression of ``arguments`` (the variables' symbols, then
    the numbers'): exactly for a rational function, else an mpmath function; ``None`` when
    mpmath cannot take it."""

    if _rational_function(general):
        return _Exact(general, arguments)
    try:
        return lambdify(arguments, general, modules="mpmath")
    except (ValueError, TypeError, NameError, KeyError, SyntaxError):
        return None


def _rational_function(expr: Any) -> bool:
    """Whether ``expr`` is built from symbols and rationals by +, * and integer powers.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> _rational_function(3 * x**2 / (1 + x)), _rational_function(sp.sqrt(x) + 1)
    (True, False)
    """
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Symbol or e.is_Rational:
            continue
        if (e.is_Pow and not e.exp.is_Integer) or not (e.is_Add or e.is_Mul or e.is_Pow):
            return False
        stack.extend(e.args)
    return True
