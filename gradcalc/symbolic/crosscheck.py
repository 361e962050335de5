"""Cross-check the tape's gradients against sympy's symbolic derivatives.

The op graph is turned into sympy expressions with the registry's sympy
counterparts (no text is parsed here), differentiated symbolically, and evaluated
at the point: exactly when the point was given exactly (``--at x=pi/4``), with
``lambdify`` when there are many points. All of it runs under the request's symbolic budget
(:mod:`gradcalc.core.budget`), so a large expression degrades to "symbolic check skipped"
instead of blocking, and a piece that ran out is remembered on the graph, not tried again;
exact constants are size-capped before they are built (:data:`MAX_EXACT_DIGITS`).

>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> graph = lower(parse_program("3*w1**2 + 2*w1*w2"))
>>> derivatives = symbolic_gradient(graph, 0, ["w1", "w2"])
>>> [str(d) for d in derivatives.values()]
['6*w1 + 2*w2', '2*w1']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.core.budget import CheckTimeout, current
from gradcalc.core.budget import symbolic_limit as time_limit  # every sympy call: the budget
from gradcalc.core.ops import REGISTRY
from gradcalc.lang.graph import Graph, lower
from gradcalc.lang.literals import CONSTANT_VALUES, DECIMAL
from gradcalc.lang.parser import Program, Statement, parse_constant
from gradcalc.symbolic.derivative import derivative
from gradcalc.symbolic.numeric import LAMBDIFY_MODULES

RTOL = 1e-7
ATOL = 1e-12
EXACT_POINT_LIMIT = 16  # more points than this are checked with lambdify
CONFIRM = 16  # mismatching points recomputed to 40+ digits before a disagreement counts
SHORT_EXACT = 32  # exact values longer than this are shown as decimals unless --exact


#: The most decimal digits an exact constant may have (numerator or denominator): a
#: larger one is refused before it is built (Python will not even print one above 4,300).
MAX_EXACT_DIGITS = 4000
_MAX_EXACT_BITS = int(MAX_EXACT_DIGITS * 3.3219)


class ExactTooLarge(ValueError):
    """An exact constant would exceed :data:`MAX_EXACT_DIGITS` digits."""

    def __init__(self) -> None:
        super().__init__(f"an exact constant would have more than {MAX_EXACT_DIGITS:,} digits")


def to_sympy(graph: Graph, cut: Mapping[int, Any] | None = None) -> list[Any]:
    """The sympy expression of every node; nodes in ``cut`` are replaced by the given symbol.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> g = lower(parse_program("x - y/2"))
    >>> to_sympy(g)[g.targets[0]]
    x - y/2
    """
    import sympy as sp

    cut = cut or {}
    exprs: list[Any] = []
    for node in graph.nodes:
        if node.index in cut:
            exprs.append(cut[node.index])
        elif node.kind == "var":
            exprs.append(sp.Symbol(node.text, real=True))
        elif node.kind == "const":
            exprs.append(constant_to_sympy(node.text))
        else:
            inputs = [exprs[i] for i in node.inputs]
            if node.op == "pow":
                _check_power(*inputs)
            exprs.append(_checked(REGISTRY[node.op].sympy(sp, *inputs)))
    return exprs


def _checked(expr: Any) -> Any:
    """``expr``, unless it is a rational number of more than :data:`MAX_EXACT_DIGITS` digits."""
    if (
        getattr(expr, "is_Rational", False)
        and max(int(expr.p).bit_length(), int(expr.q).bit_length()) > _MAX_EXACT_BITS
    ):
        raise ExactTooLarge
    return expr


def _check_power(base: Any, exponent: Any) -> None:
    """Refuse ``base**exponent`` before it is built if its exact value would be too long.

    >>> import sympy as sp
    >>> _check_power(sp.Rational(1000000001, 10**9), sp.Integer(1000))
    Traceback (most recent call last):
    gradcalc.symbolic.crosscheck.ExactTooLarge: an exact constant would have more than 4,000 digits
    """
    if getattr(base, "is_Rational", False) and getattr(exponent, "is_Integer", False):
        bits = max(int(base.p).bit_length(), int(base.q).bit_length())
        if bits > 1 and bits * abs(int(exponent)) > _MAX_EXACT_BITS:
            raise ExactTooLarge


def constant_to_sympy(text: str) -> Any:
    """A literal as an exact sympy number: ``0.1`` is 1/10, ``pi`` is pi; ``0e99999999`` is 0
    without building 10^99999999, and a number of more than :data:`MAX_EXACT_DIGITS` digits
    is refused.

    >>> constant_to_sympy("0.1"), constant_to_sympy("2e3"), constant_to_sympy("pi")
    (1/10, 2000, pi)
    >>> constant_to_sympy("0e99999999"), constant_to_sympy("1.50e-2")
    (0, 3/200)
    """
    import sympy as sp

    if text in CONSTANT_VALUES:  # its canonical name is sympy's
        return getattr(sp, text)
    mantissa, _, exponent = text.lower().partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return sp.Integer(0)
    shift = int(exponent or 0) - len(fraction)
    if len(digits) + abs(shift) > MAX_EXACT_DIGITS:
        raise ExactTooLarge
    return sp.Rational(int(digits), 1) * sp.Rational(10) ** shift


def symbolic_gradient(graph: Graph, target: int, sources: Sequence[str]) -> dict[str, Any]:
    """sympy's derivative of target number ``target`` with respect to each source.

    A source that is a statement name (an intermediate) is differentiated as the
    tape does: through the paths that pass through it, the other inputs held fixed.
    The result may contain the intermediate's name (``dz/dy = 2*y``); see
    :func:`in_variables` for the same in terms of the free variables.
    """
    import sympy as sp

    plain = to_sympy(graph)
    result: dict[str, Any] = {}
    for source in sources:
        symbol = sp.Symbol(source, real=True)
        if source in graph.variable_nodes:
            result[source] = derivative(plain[graph.targets[target]], symbol)
        else:
            cut_expr = to_sympy(graph, {graph.bindings[source]: symbol})[graph.targets[target]]
            result[source] = derivative(cut_expr, symbol)
    return result


def in_variables(graph: Graph, expr: Any) -> Any:
    """Replace the names of intermediates in ``expr`` by their expressions.

    >>> import sympy as sp
    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> g = lower(parse_program("y = x**2; z = y**2"))
    >>> in_variables(g, 2 * sp.Symbol("y", real=True))
    2*x**2
    """
    import sympy as sp

    plain = to_sympy(graph)
    return expr.subs(
        {
            sp.Symbol(name, real=True): plain[node]
            for name, node in graph.bindings.items()
            if name not in graph.variable_nodes
        }
    )


@dataclass
class Partial:
    """sympy's derivative with respect to one source and its values at the points."""

    source: str
    derivative: Any
    values: np.ndarray
    exact: list[str | None] = field(default_factory=list)
    exact_values: list[Any] = field(default_factory=list)  # sympy numbers, None if skipped
    mismatch: np.ndarray | None = None  # per point: does the tape disagree?


@dataclass
class CheckReport:
    """How the tape's gradient compares with sympy's, for one target.

    ``status`` is ``"agree"``, ``"disagree"`` or ``"skipped"`` (then ``note`` says why).
    ``mismatch`` marks the points where some component disagrees.
    """

    status: str
    partials: dict[str, Partial] = field(default_factory=dict)
    max_difference: float = 0.0
    mismatch: np.ndarray | None = None
    note: str = ""


@dataclass
class CheckInput:
    """Where and how to compare: the points (floats, and exact text when known), the points
    to skip (undefined there), the time budget, and whether to show long exact values."""

    point: Mapping[str, np.ndarray]
    exact_point: Sequence[Mapping[str, str]] | None
    skip: np.ndarray
    timeout: float = 5.0
    exact_text: bool = False


def cross_check(
    graph: Graph,
    target: int,
    gradients: Mapping[str, np.ndarray | None],
    where: CheckInput,
) -> CheckReport:
    """Compare the tape's ``gradients`` of target ``target`` with sympy's derivatives.

    A source that is a statement name is differentiated through that statement (see
    :func:`symbolic_gradient`).
    """
    return check_against(
        graph,
        ("gradient", target, tuple(gradients)),
        lambda: symbolic_gradient(graph, target, list(gradients)),
        gradients,
        where,
    )


def check_against(
    graph: Graph,
    key: tuple,
    build: Callable[[], Mapping[str, Any]],
    tape_values: Mapping[str, np.ndarray | None],
    where: CheckInput,
) -> CheckReport:
    """Compare tape values with sympy expressions at the points, within the time budget.

    Args:
        graph: the op graph (its cache keeps ``build``'s result under ``key``).
        key: names the symbolic quantities, for the cache.
        build: makes ``{label: sympy expression}`` (run inside the time limit); the labels
            are those of ``tape_values``. Expressions may name intermediates.
        tape_values: the tape's value per label (``None``: 0, an unconnected source).
        where: the points and options.
    """
    if ("timed out", key) in graph.cache:  # not tried again: not per chunk, not per job
        return CheckReport("skipped", note=graph.cache["timed out", key])
    try:
        with time_limit(where.timeout, (id(graph), key)):
            if key not in graph.cache:
                shown = build()
                graph.cache[key] = shown, {k: in_variables(graph, e) for k, e in shown.items()}
            shown, expanded = graph.cache[key]
            if where.exact_point is not None and len(where.exact_point) <= EXACT_POINT_LIMIT:
                partials = _exact_partials(expanded, where)
            else:
                partials = _lambdified_partials(graph, key, expanded, where.point, where.skip)
                _confirm_mismatches(graph, partials, expanded, tape_values, where)
            for label, partial in partials.items():
                partial.derivative = shown[label]
    except CheckTimeout as stop:
        note = f"symbolic check skipped: {stop} (raise --check-timeout)"
        if (id(graph), key) in current().timed_out:  # it ran out (was not just left out):
            graph.cache["timed out", key] = note  # later chunks and jobs skip it at once
        return CheckReport("skipped", note=note)
    except (ValueError, TypeError, ZeroDivisionError, AttributeError, RecursionError) as failure:
        return CheckReport("skipped", note=f"symbolic check skipped: sympy failed ({failure})")
    return _compare(partials, tape_values, where.skip)


def _exact_partials(derivatives, where: CheckInput) -> dict[str, Partial]:
    import sympy as sp

    exact_point, skip, exact_text = where.exact_point, where.skip, where.exact_text
    assert exact_point is not None  # the caller checked
    substitutions = [
        {sp.Symbol(name, real=True): exact_value(text) for name, text in values.items()}
        for values in exact_point
    ]
    partials = {}
    for source, expr in derivatives.items():
        values: list[float] = []
        shown: list[str | None] = []
        exacts: list[str | None] = []
        for k, subs in enumerate(substitutions):
            if skip.reshape(-1)[k] if skip.ndim else bool(skip):
                values.append(np.nan)
                shown.append(None)
                exacts.append(None)
                continue
            exact = _substitute(expr, subs)
            number = complex(exact.evalf(30))
            values.append(number.real if number.imag == 0 else np.nan)
            text = str(exact)
            shown.append(text if exact_text or len(text) <= SHORT_EXACT else None)
            exacts.append(exact)
        array = np.array(values).reshape(skip.shape)
        partials[source] = Partial(source, expr, array, shown, exacts)
    return partials


def _substitute(expr: Any, values: dict) -> Any:
    """``expr`` at the point: a structural replacement (several times faster than ``subs``)
    when that gives a number, else sympy's ``subs``."""
    exact = expr.xreplace(values)
    return exact if exact.is_number else expr.subs(values)


def exact_value(text: str) -> Any:
    """The exact sympy value of a constant expression such as ``pi/4`` or ``1/3``.

    >>> exact_value("pi/4"), exact_value("-1e-3"), exact_value("2.5")
    (pi/4, -1/1000, 5/2)
    """
    import sympy as sp

    if DECIMAL.fullmatch(text):  # a plain number: its exact rational value
        return sp.Rational(text)
    graph = lower(Program(text, (Statement(None, parse_constant(text), 0),)))
    return to_sympy(graph)[graph.targets[0]]


def _lambdified_partials(graph: Graph, key: tuple, derivatives, point, skip) -> dict[str, Partial]:
    import sympy as sp

    symbols = [sp.Symbol(v, real=True) for v in graph.variables]
    arrays = [np.asarray(point[v], dtype=float) for v in graph.variables]
    cache_key = ("lambdified", *key)
    if cache_key not in graph.cache:
        graph.cache[cache_key] = {
            source: sp.lambdify(symbols, expr, modules=LAMBDIFY_MODULES)
            for source, expr in derivatives.items()
        }
    functions = graph.cache[cache_key]
    partials = {}
    for source, expr in derivatives.items():
        function = functions[source]
        with np.errstate(all="ignore"):
            values = np.broadcast_to(np.asarray(function(*arrays), dtype=float), skip.shape)
        partials[source] = Partial(source, expr, np.where(skip, np.nan, values))
    return partials


def _confirm_mismatches(graph: Graph, partials, derivatives, tape_values, where) -> None:
    """Where the tape parts from sympy's derivative evaluated in floats, evaluate the
    derivative again to 40+ digits (:func:`~gradcalc.symbolic.equivalence.precise_value`),
    at up to CONFIRM points: a disagreement is never one with float rounding (sympy's
    ``exp(x)/(exp(x) + 1)`` for softplus is inf/inf at x = 800, the tape's sigmoid is 1)."""
    import sympy as sp

    from gradcalc.symbolic.equivalence import precise_value

    shape = where.skip.shape
    columns = {v: np.broadcast_to(where.point[v], shape).reshape(-1) for v in graph.variables}
    for source, partial in partials.items():
        tape = _tape_column(tape_values[source], shape)
        values = np.array(partial.values, dtype=float)
        flat = values.reshape(-1)
        for k in np.flatnonzero(_mismatch(tape, values, where.skip))[:CONFIRM]:
            point = {v: sp.Rational(float(column[k])) for v, column in columns.items()}
            precise = precise_value(derivatives[source], point)
            flat[k] = np.nan if precise is None else precise
        partial.values = values


def _tape_column(tape: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape) if tape is None else np.asarray(tape)


def _mismatch(tape: np.ndarray, symbolic: np.ndarray, skip: np.ndarray) -> np.ndarray:
    """Where the tape and sympy's values differ by more than RTOL (relative) and ATOL."""
    with np.errstate(all="ignore"):
        difference = np.abs(tape - symbolic)
        bad = ~(difference <= RTOL * np.maximum(np.abs(symbolic), np.abs(tape)) + ATOL)
    return bad & ~skip


def _compare(partials, gradients, skip) -> CheckReport:
    mismatch = np.zeros(skip.shape, dtype=bool)
    largest = 0.0
    for source, partial in partials.items():
        tape = _tape_column(gradients[source], skip.shape)
        symbolic = partial.values
        bad = _mismatch(tape, symbolic, skip)
        with np.errstate(all="ignore"):
            difference = np.abs(tape - symbolic)
        partial.mismatch = bad
        if np.any(~skip):
            finite = difference[~skip & np.isfinite(difference)]
            largest = max(largest, float(finite.max()) if finite.size else 0.0)
        mismatch |= bad
    status = "disagree" if mismatch.any() else "agree"
    return CheckReport(status, partials, largest, mismatch)
