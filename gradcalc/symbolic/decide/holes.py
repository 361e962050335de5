"""Where an expression as typed is undefined at single points: the holes sympy's reading hides.

sympy cancels as it builds: ``2*x*(x - 3)/(x - 3)`` is ``2*x`` to it, so a proof that an
answer equals the derivative says nothing of x = 3, where the answer as typed divides by
zero. Sampled points never land on such a point. Here the graph is taken op by op: each op
that is undefined where an operand is 0 (a division, a negative power, a logarithm; tan and
sec where the cosine is 0, csc and cot where the sine is, atanh at ±1) has that operand
solved for its real zeros, and every zero found is confirmed exactly by
:func:`~gradcalc.symbolic.decide.defined.undefined_at` before it is returned. Other
variables are fixed at a few plain values first, so ``2*x^2*y/x`` has its hole at x = 0 for
some y. Undefined stretches (``ln`` of a negative number) are left to sampling, which finds
them; an operand whose zeros cannot be solved (in time, or in closed form) is named in
:attr:`Holes.unsolved`, so that a check that needs every hole says it could not decide.

>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> holes(lower(parse_program("2*x*(x - 3)/(x - 3)")))
[{'x': 3}]
>>> holes(lower(parse_program("2*x + 0*tan(x)")))[:2]
[{'x': pi/2}, {'x': -pi/2}]
>>> holes(lower(parse_program("sqrt(x) + 1/(x^2 + 1)")))
[]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gradcalc.core.budget import CheckTimeout
from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.decide.defined import undefined_at
from gradcalc.symbolic.decide.patience import FAILURES
from gradcalc.symbolic.translate.convert import converted
from gradcalc.symbolic.translate.notation import user_text

__all__ = ["BASES", "MOST", "Holes", "holes", "holes_on"]

#: At most this many holes are returned (the first found, in the graph's order).
MOST = 6
#: The values other variables are fixed at while one is solved for.
BASES = ("2/7", "-3/5")
#: Zeros taken from an infinite family (tan's poles: π/2 + kπ) -- k = 0, 1, -1.
FAMILY = (0, 1, -1)
SECONDS = 1.0  # for sympy to solve one operand


class Holes(list):
    """The holes found (points, name -> exact sympy number), and ``unsolved``: each op's
    operand whose zeros sympy could not solve (out of time, or not in closed form:
    ``x - cos(x)``), with why, as (expression, text); empty when every one was solved --
    then no hole is missing but past :data:`MOST` and off the slices of :data:`BASES`."""

    def __init__(self) -> None:
        super().__init__()
        self.unsolved: list[tuple[Any, str]] = []
        self.missed = ""  # what the solving of the current operand could not solve

    def miss(self, text: str) -> None:
        """Say that the current operand's zeros could not all be solved (the first why)."""
        self.missed = self.missed or text


def _zeros_of(sp: Any) -> dict[str, Callable[..., list[Any]]]:
    """Per op, the expressions (of its operands) whose real zeros it is undefined at."""
    return {
        "div": lambda a, b: [b],
        "pow": lambda a, b: [a] if not (b.is_number and b.is_nonnegative) else [],
        "log": lambda a, *base: [a],
        "log10": lambda a: [a],
        "log2": lambda a: [a],
        "tan": lambda a: [sp.cos(a)],
        "sec": lambda a: [sp.cos(a)],
        "csc": lambda a: [sp.sin(a)],
        "cot": lambda a: [sp.sin(a)],
        "atanh": lambda a: [a - 1, a + 1],
    }


def holes(graph: Graph, seconds: float = SECONDS) -> Holes:
    """Points (name -> exact sympy number) where ``graph``'s target, op by op as typed, is
    undefined though they may lie inside the domain of sympy's reading of it: each
    confirmed by :func:`undefined_at`, at most :data:`MOST`, none when nothing can be
    solved within ``seconds`` per operand.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> holes(lower(parse_program("2*x^2*y/x")))
    [{'x': 0, 'y': 2/7}, {'x': 0, 'y': -3/5}]
    """
    variables = graph.variables

    def solve(sp: Any, zero: Any, found: Holes) -> list[dict[str, Any]]:
        return _solved(sp, zero, variables, seconds, found)

    return _confirmed(graph, solve, seconds)


def holes_on(
    graph: Graph, curve: Any, names: tuple[str, ...], dependent: str, seconds: float = SECONDS
) -> Holes:
    """:func:`holes`, on the curve (or surface) ``curve`` = 0 in the variables ``names``:
    each zero solved together with the curve for one other variable and ``dependent``
    (any further variables fixed at :data:`BASES`).

    >>> import sympy as sp
    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> x, y = sp.symbols("x y", real=True)
    >>> holes_on(lower(parse_program("-x/y + 0/(x - 4)")), x**2 + y**2 - 25, ("x", "y"), "y")
    [{'x': 5, 'y': 0}, {'x': -5, 'y': 0}, {'x': 4, 'y': 3}, {'x': 4, 'y': -3}]
    """

    def solve(sp: Any, zero: Any, found: Holes) -> list[dict[str, Any]]:
        return _on_curve(sp, zero, curve, (names, dependent), seconds, found)

    return _confirmed(graph, solve, seconds)


def _confirmed(graph: Graph, solve: Callable[[Any, Any, Holes], list[dict]], seconds: float):
    """The points ``solve`` finds for each op's zeros where ``graph`` is undefined."""
    import sympy as sp

    zeros_of = _zeros_of(sp)
    found = Holes()
    try:
        with time_limit(seconds * 4):
            exprs = converted(graph)  # (the check's own conversion of the answer, when made)
    except FAILURES:
        found.unsolved.append((None, "the answer (sympy ran out of time reading it)"))
        return found
    for node in graph.nodes:
        rule = zeros_of.get(node.op) if node.kind == "op" else None
        if rule is None:
            continue
        for zero in rule(*(exprs[i] for i in node.inputs)):
            found.missed = ""
            solved = solve(sp, zero, found)
            if found.missed:
                found.unsolved.append((zero, found.missed))
            for point in solved:
                if point not in found and undefined_at(graph, point):
                    found.append(point)
                if len(found) == MOST:
                    return found
    return found


def _on_curve(sp, zero, curve, asked, seconds, found: Holes) -> list[dict[str, Any]]:
    """Real points where ``zero`` and ``curve`` are both 0 (see :func:`holes_on`; ``asked``:
    the variables and the dependent one): a zero in one variable is solved alone, then the
    curve for the other one at each root; a zero in both is solved together with the curve."""
    names, dependent = asked
    symbols = {n: sp.Symbol(n, real=True) for n in names}
    inside = [n for n in names if symbols[n] in zero.free_symbols]
    first = next((n for n in inside if n != dependent), None)
    other = first or next((n for n in names if n != dependent), dependent)
    points = []
    for base in BASES if len(names) > 2 else ("",):
        fixed = {n: sp.Rational(base) for n in names if n not in (other, dependent)}
        plain = {
            n: e.subs({symbols[k]: v for k, v in fixed.items()})
            for n, e in (("zero", zero), ("curve", curve))
        }
        if len(set(inside) & {other, dependent}) == 1:
            alone = other if first else dependent
            then = dependent if first else other
            for root in _roots(sp, plain["zero"], symbols[alone], seconds, found):
                on = plain["curve"].subs(symbols[alone], root)
                for value in _roots(sp, on, symbols[then], seconds, found):
                    points.append({**fixed, alone: root, then: value})
        else:
            unknowns = [symbols[other], symbols[dependent]]
            points += _together(sp, plain, unknowns, fixed, (seconds, found))
    return [{n: point[n] for n in names} for point in points]


def _together(sp, plain, unknowns, fixed, budget: tuple[float, Holes]) -> list[dict[str, Any]]:
    """The real solutions of ``plain``'s zero and curve together, simplified (``budget``:
    the seconds, and the holes, which say where this failed)."""
    seconds, holes_found = budget
    try:
        with time_limit(seconds):
            solutions = sp.solve([plain["zero"], plain["curve"]], unknowns, dict=True)
            found = [{str(k): sp.simplify(v) for k, v in s.items()} for s in solutions[:MOST]]
    except (*FAILURES, NotImplementedError, AttributeError) as failure:
        holes_found.miss(f"{user_text(plain['zero'])} = 0 on the curve{_why(failure)}")
        return []
    names = [str(u) for u in unknowns]
    return [
        {**fixed, **point} for point in found if all(n in point and point[n].is_real for n in names)
    ]


def _solved(sp: Any, expr: Any, variables: tuple[str, ...], seconds: float, found: Holes):
    """Real points where ``expr`` is 0: each variable in turn solved for, the others fixed
    at each of :data:`BASES`."""
    names = [v for v in variables if sp.Symbol(v, real=True) in expr.free_symbols]
    points: list[dict[str, Any]] = []
    for name in names:
        others = [v for v in variables if v != name]
        for base in BASES if others else ("",):
            fixed = {v: sp.Rational(base) for v in others}
            plain = expr.subs({sp.Symbol(v, real=True): value for v, value in fixed.items()})
            for value in _roots(sp, plain, sp.Symbol(name, real=True), seconds, found):
                points.append({v: fixed.get(v, value) for v in variables})
        if points:
            return points
    return points


def _roots(sp: Any, expr: Any, x: Any, seconds: float, found: Holes) -> list[Any]:
    """A few real zeros of ``expr`` in ``x``, exact, smallest first: all of a finite set (up
    to MOST), the first of each infinite family, none when sympy cannot say in ``seconds``
    (then ``found.unsolved`` says which, unless it names one already)."""
    try:
        with time_limit(seconds):
            solved = sp.solveset(expr, x, sp.S.Reals)
            if solved.has(sp.ConditionSet):  # (x - cos(x) = 0: not in closed form)
                found.miss(f"{user_text(expr)} = 0")
            return sorted(_members(sp, solved), key=lambda v: (abs(float(v)), -float(v)))
    except (*FAILURES, NotImplementedError, AttributeError) as failure:
        found.miss(f"{user_text(expr)} = 0{_why(failure)}")
        return []


def _why(failure: Exception) -> str:
    """ " (in time)" where sympy ran out of time, else "" (it has no method)."""
    return " (in time)" if isinstance(failure, CheckTimeout) else ""


def _members(sp: Any, solved: Any) -> list[Any]:
    """Up to MOST exact members of a solution set: a finite set, an image set (the terms of
    :data:`FAMILY`), or a union of them; intervals and unsolved conditions give none."""
    if isinstance(solved, sp.FiniteSet):
        return [v for v in list(solved)[:MOST] if v.is_real]
    if isinstance(solved, sp.ImageSet):
        (k,) = solved.lamda.variables
        return [solved.lamda.expr.subs(k, n) for n in FAMILY]
    if isinstance(solved, sp.Union):
        return [v for part in solved.args for v in _members(sp, part)][:MOST]
    if isinstance(solved, sp.Intersection):  # (an image set kept to the reals)
        return [v for part in solved.args for v in _members(sp, part) if v.is_real][:MOST]
    return []
