"""The pieces of a piecewise difference: where ``step``, ``relu``, ``abs``, ``max``/``min``
and ``sign`` switch, and on which pieces sympy proves the difference of two sides is 0.

A difference with piecewise parts is rewritten as one ``Piecewise`` (sympy's
``piecewise_fold``); each piece of positive measure is either proven 0 (its expression
simplifies to 0) or left *open*, to be tested at points inside it. A piece on a set of
measure zero (``x = 1000``) is ignored: a derivative there is a convention, not a value a
student is asked for. ``floor`` and ``ceiling`` switch at infinitely many places: no finite
set of tests covers them (:attr:`Pieces.stairs`).

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> p = pieces_of(sp.Heaviside(x - 1000, 0), [x], 2.0)
>>> p.total, [str(condition) for _, condition in p.open], [str(g) for g in p.switches]
(2, ['x - 1000 > 0'], ['x - 1000'])
>>> pieces_of(x / sp.Abs(x) - sp.sign(x), [x], 2.0).proven
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from time import monotonic
from typing import Any

from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.symbolic.decide.patience import FAILURES

__all__ = [
    "MAX_PAIRS",
    "Pieces",
    "has_pieces",
    "pieces_of",
    "solved_switches",
    "switch_arguments",
]

MAX_PAIRS = 45  # pairs of a max/min's arguments whose ties are switches (10 arguments)


@dataclass(frozen=True)
class Pieces:
    """The difference's pieces of positive measure (``total``), those not proven 0
    (``open``: (expression, condition) pairs), the expressions whose zero sets are the
    switches, and whether ``floor``/``ceiling`` make infinitely many pieces."""

    total: int
    open: tuple[tuple[Any, Any], ...]
    switches: tuple[Any, ...]
    stairs: bool

    @property
    def proven(self) -> bool:
        """The difference is 0 on every piece (and has finitely many)."""
        return not self.open and not self.stairs


def _kinds() -> tuple[tuple[type, ...], tuple[type, ...]]:
    import sympy as sp

    return (sp.Abs, sp.sign, sp.Heaviside, sp.Max, sp.Min, sp.Piecewise), (sp.floor, sp.ceiling)


def has_pieces(expr: Any) -> bool:
    """Does ``expr`` have a piecewise part (finite or a staircase)?

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> has_pieces(sp.Max(x, 0) + x), has_pieces(sp.sin(x))
    (True, False)
    """
    finite, stairs = _kinds()
    return bool(expr.atoms(*finite, *stairs))


def switch_arguments(expr: Any) -> list[Any]:
    """The expressions g whose zero set is where a part of ``expr`` switches: the argument
    of abs/sign/step and of floor/ceiling, a - b for every two arguments of a max/min, and
    the two sides of a Piecewise's comparisons.

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> switch_arguments(sp.Max(0, x - 150) + sp.Abs(x * y))
    [150 - x, x*y]
    """
    import sympy as sp

    finite, stairs = _kinds()
    found: list[Any] = []
    for node in sp.preorder_traversal(expr):
        arguments: Any = node.args
        if isinstance(node, (sp.Max, sp.Min)):
            pairs = list(combinations(node.args, 2))[:MAX_PAIRS]
            found.extend(a - b for a, b in pairs)
        elif isinstance(node, sp.Piecewise):
            for _, condition in node.args:
                found.extend(r.lhs - r.rhs for r in condition.atoms(sp.core.relational.Relational))
        elif isinstance(node, (*finite, *stairs)):
            found.append(arguments[0])
    return _distinct(found)


def pieces_of(difference: Any, symbols: Sequence[Any], seconds: float) -> Pieces | None:
    """The pieces of ``difference`` (a sympy expression in ``symbols``), each proven 0
    within ``seconds`` (wall clock) or left open; None when sympy cannot fold the
    difference into one Piecewise in time.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> p = pieces_of(sp.Max(x, 0) - x * sp.Heaviside(x, 0) + sp.Abs(x - 1), [x], 2.0)
    >>> p.proven, p.total, len(p.open)
    (False, 2, 2)
    """
    import sympy as sp

    deadline = monotonic() + seconds
    switches = tuple(switch_arguments(difference))
    _, stairs = _kinds()
    try:
        with time_limit(seconds):
            folded = sp.piecewise_fold(difference.rewrite(sp.Piecewise))
    except FAILURES:
        return None
    parts = folded.args if isinstance(folded, sp.Piecewise) else ((folded, sp.true),)
    total, open_ = 0, []
    for expression, exclusive in _exclusive(parts):
        condition = _generic(exclusive)
        if condition == sp.false:
            continue
        total += 1
        if not _zero(expression, deadline):
            open_.append((expression, condition))
    return Pieces(total, tuple(open_), switches, bool(difference.atoms(*stairs)))


def _exclusive(parts: Sequence[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """A Piecewise's (expression, condition) pairs with each condition made exclusive: a
    later piece holds only where no earlier one does."""
    import sympy as sp

    out: dict[Any, Any] = {}
    before = sp.false
    for expression, condition in parts:  # (pieces with one expression are joined)
        exclusive = sp.And(condition, sp.Not(before))
        out[expression] = sp.Or(out.get(expression, sp.false), exclusive)
        before = sp.Or(before, condition)
    return list(out.items())


def _generic(condition: Any) -> Any:
    """``condition`` off the switches (where no compared g is 0), as comparisons g > 0 and
    g < 0 combined and simplified by boolean logic; ``false`` when it holds only on
    switches -- a set of measure zero (``x >= y & x - y < 0`` off ``x = y``, ``x = 0``).

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> _generic((x >= y) & (x - y < 0)), _generic(sp.Eq(x, 0) | (x - y > 0))
    (False, x - y > 0)
    """
    import sympy as sp

    atoms: dict[Any, Any] = {}

    def positive(g: Any) -> tuple[Any, bool]:
        """The boolean atom of g > 0, and whether it stands for -g > 0 instead."""
        flipped = bool(g.could_extract_minus_sign())
        key = -g if flipped else g
        atoms.setdefault(key, sp.Symbol(f"p{len(atoms)}"))
        return atoms[key], flipped

    replaced = {}
    for r in condition.atoms(sp.core.relational.Relational):
        g = sp.expand(r.lhs - r.rhs)
        atom, flipped = positive(g)
        above, below = (~atom, atom) if flipped else (atom, ~atom)  # g > 0, g < 0 off g = 0
        kind = type(r)
        if kind in (sp.StrictGreaterThan, sp.GreaterThan):
            replaced[r] = above
        elif kind in (sp.StrictLessThan, sp.LessThan):
            replaced[r] = below
        else:
            replaced[r] = sp.false if kind is sp.Eq else sp.true
    logic = sp.simplify_logic(condition.xreplace(replaced))
    if logic in (sp.true, sp.false):
        return logic
    negated = {sp.Not(atom): g < 0 for g, atom in atoms.items()}
    return logic.xreplace(negated).xreplace({atom: g > 0 for g, atom in atoms.items()})


def _zero(expression: Any, deadline: float) -> bool:
    """Is ``expression`` 0 (at once, expanded as exponentials, or by ``simplify``)?"""
    import sympy as sp

    if expression == 0:
        return True
    left = deadline - monotonic()
    if left <= 0:
        return False
    try:
        with time_limit(left):
            if sp.expand(expression.rewrite(sp.exp)) == 0:
                return True
            return bool(sp.simplify(expression) == 0)
    except FAILURES:
        return False


def branch_arguments(*exprs: Any) -> list[Any]:
    """The expressions g whose zero set is where one of ``exprs`` may change its formula
    without a piecewise part: a radicand (a base to a non-integer power: sqrt((x + a)^2) is
    |x + a|), a logarithm's argument, a denominator; each once.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> branch_arguments(sp.sqrt(x**2 + 2 * x + 1) + sp.log(x - 3) + 1 / (x + 5))
    [x + 5, x - 3, x**2 + 2*x + 1]
    """
    import sympy as sp

    found: list[Any] = []
    for node in (n for expr in exprs for n in sp.preorder_traversal(expr)):
        if isinstance(node, sp.log):
            found.append(node.args[0])
        elif node.is_Pow and (not node.exp.is_integer or node.exp.is_negative):
            found.append(node.base)
    return _distinct(found)


def _distinct(found: list[Any]) -> list[Any]:
    """The expressions of ``found`` with a variable, each once (g and -g are one zero set).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> _distinct([x - 1, 1 - x, sp.Integer(2), x])
    [x, x - 1]
    """
    unique: list[Any] = []
    for g in found:
        if g.free_symbols and g not in unique and -g not in unique:
            unique.append(g)
    return sorted(unique, key=str)


def solved_switches(
    switches: Sequence[Any], symbols: Sequence[Any], seconds: float
) -> list[tuple[Any, Any]]:
    """(variable, solution) pairs: each switch g = 0 solved for each of its variables in
    terms of the others (sympy's ``solve``, real solutions, within ``seconds`` in all).

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> solved_switches([x * y - 1000], [x, y], 2.0)
    [(x, 1000/y), (y, 1000/x)]
    """
    import sympy as sp

    deadline = monotonic() + seconds
    out: list[tuple[Any, Any]] = []
    for g in switches:
        for s in [s for s in symbols if s in g.free_symbols]:
            left = deadline - monotonic()
            if left <= 0:
                return out
            try:
                with time_limit(left):
                    solutions = sp.solve(g, s)
            except (*FAILURES, NotImplementedError):
                continue
            out.extend((s, v) for v in solutions if v.is_real is not False)
    return out
