"""A graph as sympy expressions: the registry's sympy counterpart of every op, no text parsed;
exact constants, and exact powers at a point (:func:`exact_at`), size-capped before they are
built (:data:`MAX_EXACT_DIGITS`).

>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> graph = lower(parse_program("3*w1**2 + 2*w1*w2"))
>>> converted(graph)[graph.targets[0]]
3*w1**2 + 2*w1*w2
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from gradcalc.core.errors import UndefinedError
from gradcalc.core.ops import REGISTRY
from gradcalc.lang.graph import Graph
from gradcalc.lang.literals import CONSTANT_VALUES

#: The most decimal digits an exact constant may have (numerator or denominator): a
#: larger one is refused before it is built (Python will not even print one above 4,300).
MAX_EXACT_DIGITS = 4000
MAX_EXACT_BITS = int(MAX_EXACT_DIGITS * 3.3219)


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
            op = REGISTRY[node.op]
            expr = _checked(op.symbolic(sp, *inputs, **dict(node.params)))
            _refuse_undefined(sp, expr, graph, node.index)
            exprs.append(expr)
    return exprs


def _refuse_undefined(sp: Any, expr: Any, graph: Graph, index: int) -> None:
    """Raise :class:`UndefinedError` when node ``index`` is undefined for every value of the
    variables: sympy made it complex infinity, NaN or an infinity (``1/(x - x)``,
    ``(0*y)^-2``, ``atanh(2^tan(pi))``: atanh(1), which float64 computes as 18.7 because
    tan(pi) rounds to -1.2e-16). Its inputs were checked already, so such a value can only
    sit at the top of ``expr`` or one level below (``x/0`` is ``zoo*x``); nothing deeper is
    searched.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> to_sympy(lower(parse_program("x^2 + x/(x - x)")))
    Traceback (most recent call last):
    gradcalc.core.errors.UndefinedError: x/(x - x) is undefined for every x: sympy simplifies ...
    """
    if not isinstance(expr, sp.Basic):
        return  # a tensor op's object array
    names = {sp.zoo: "complex infinity (zoo)", sp.nan: "NaN", sp.oo: "infinity (oo)"}
    names[-sp.oo] = "minus infinity (-oo)"
    found = next((part for part in (expr, *expr.args) if part in names), None)
    if found is not None:  # (each is a singleton)
        variables = ", ".join(sorted(graph.variables_under(index)))
        where = f"for every {variables}" if variables else "everywhere"
        value = names[found]
        raise UndefinedError(
            f"{graph.source_text(index)} is undefined {where}: sympy simplifies it to {value}"
        )


def converted(graph: Graph) -> list[Any]:
    """:func:`to_sympy` of the whole graph, converted once and kept on the graph.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> g = lower(parse_program("x*y"))
    >>> converted(g) is converted(g)
    True
    """
    if ("sympy",) not in graph.cache:
        graph.cache[("sympy",)] = to_sympy(graph)
    return graph.cache[("sympy",)]


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

    if all(name in graph.variable_nodes for name in graph.bindings):
        return expr  # no intermediates
    plain = converted(graph)
    return expr.subs(
        {
            sp.Symbol(name, real=True): plain[node]
            for name, node in graph.bindings.items()
            if name not in graph.variable_nodes
        }
    )


def _checked(expr: Any) -> Any:
    """``expr``, unless it is a rational number of more than :data:`MAX_EXACT_DIGITS` digits."""
    if (
        getattr(expr, "is_Rational", False)
        and max(int(expr.p).bit_length(), int(expr.q).bit_length()) > MAX_EXACT_BITS
    ):
        raise ExactTooLarge
    return expr


def _check_power(base: Any, exponent: Any) -> None:
    """Refuse ``base**exponent`` before it is built if its exact value would be too long.

    >>> import sympy as sp
    >>> _check_power(sp.Rational(1000000001, 10**9), sp.Integer(1000))
    Traceback (most recent call last):
    gradcalc.symbolic.translate.convert.ExactTooLarge: an exact constant would have more than ...
    """
    if getattr(base, "is_Rational", False) and getattr(exponent, "is_Integer", False):
        bits = max(int(base.p).bit_length(), int(base.q).bit_length())
        if bits > 1 and bits * abs(int(exponent)) > MAX_EXACT_BITS:
            raise ExactTooLarge


def exact_at(expr: Any, values: Mapping[Any, Any]) -> Any:
    """``expr`` with ``values`` put for its symbols (a structural replacement), refused before
    it is built if an exact power would have more than :data:`MAX_EXACT_DIGITS` digits: such a
    power is computed in C, where no deadline can stop it.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> exact_at(x**3 + 1, {x: sp.Rational(1, 2)})
    9/8
    >>> exact_at((x**999)**999, {x: sp.Rational(10**19 + 1, 10**19)})
    Traceback (most recent call last):
    gradcalc.symbolic.translate.convert.ExactTooLarge: an exact constant would have more than ...
    """
    _exact_bits(expr, values, {})
    return expr.xreplace(values)


def _exact_bits(
    expr: Any, values: Mapping[Any, Any], seen: dict[Any, tuple[int, int]]
) -> tuple[int, int]:
    """Upper bounds on the bits of the numerator and denominator of ``expr``'s exact value
    at ``values`` (a symbol without a value, or an inexact part, counts as 1 bit); raises
    :class:`ExactTooLarge` at a power that would pass :data:`MAX_EXACT_DIGITS` digits."""
    if expr in seen:
        return seen[expr]
    if expr in values:
        bits = _exact_bits(values[expr], {}, seen)
    elif getattr(expr, "is_Rational", False):
        bits = int(expr.p).bit_length(), int(expr.q).bit_length() - 1
    elif not expr.args:  # a free symbol, a float, pi: not an exact rational built here
        bits = 1, 0
    elif expr.is_Pow:
        bits = _power_bits(expr, values, seen)
    else:
        parts = [_exact_bits(arg, values, seen) for arg in expr.args]
        if expr.is_Mul:
            bits = sum(n for n, _ in parts), sum(d for _, d in parts)
        elif expr.is_Add:  # over the product of the denominators, a carry per term
            den = sum(d for _, d in parts)
            bits = max(n + den - d for n, d in parts) + len(parts).bit_length(), den
        else:  # a function's value is no longer than its arguments
            bits = max(n for n, _ in parts), max(d for _, d in parts)
    seen[expr] = bits
    return bits


def _power_bits(
    expr: Any, values: Mapping[Any, Any], seen: dict[Any, tuple[int, int]]
) -> tuple[int, int]:
    """:func:`_exact_bits` of ``base**exponent``: the exponent's value first, then the power's
    size from it, before anything is built."""
    num, den = _exact_bits(expr.base, values, seen)
    _exact_bits(expr.exp, values, seen)
    exponent = expr.exp.xreplace(values) if expr.exp.free_symbols else expr.exp
    if not getattr(exponent, "is_Rational", False):
        return num, den  # stays a symbolic power
    times = abs(int(exponent.p))  # a root of base**p: base**p is built
    if max(num, den) > 1 and max(num, den) * times > MAX_EXACT_BITS:
        raise ExactTooLarge
    return (num * times, den * times) if exponent >= 0 else (den * times, num * times)


@functools.lru_cache(maxsize=4096)
def constant_to_sympy(text: str) -> Any:
    """A literal as an exact sympy number: ``0.1`` is 1/10, ``pi`` is pi; ``0e99999999`` is 0
    without building 10^99999999, and a number of more than :data:`MAX_EXACT_DIGITS` digits
    is refused. Remembered by text (sympy's numbers are immutable): a stream of jobs reads
    the same few literals again and again.

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
    if shift >= 0:
        return sp.Integer(int(digits) * 10**shift)
    return sp.Rational(int(digits), 10**-shift)
