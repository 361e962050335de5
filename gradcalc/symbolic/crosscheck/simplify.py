"""Simplify a derivative the way a textbook writes it, within a time budget.

sympy's ``diff`` output is the starting point; ``simplify``, ``factor``, ``cancel``,
``together`` and the trigonometric rewrites each propose a form, and the shortest in the
user's notation wins (on a tie, the one with fewer terms, then the original: the result is
never longer than what it started from, its powers combined). Every form has its powers of
one base combined first, as a textbook writes them (``n*x^(n - 1)``, not sympy's
``n*x^n/x``). Every attempt runs under a time limit; when the budget runs out, the best
form found so far is kept and the result says so.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> best = simplest(sp.diff(x / (x + 1), x), 5.0)
>>> best.expr, best.method, best.complete
((x + 1)**(-2), 'factor', True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, time_limit
from gradcalc.symbolic.translate.notation import user_text

#: Expressions with more operations than this are shown as differentiated (the rewrites'
#: cost grows faster than linearly; a 10,000-term sum would use the whole budget for nothing).
MAX_OPERATIONS = 400
#: No single rewrite gets less than this many seconds (unless less of the budget is left).
MIN_ATTEMPT = 0.05
#: The method of a derivative shown as differentiated but for its powers combined.
POWERS_COMBINED = "powers combined"


@dataclass(frozen=True)
class Simplified:
    """The chosen form of an expression.

    ``method`` names the rewrite that produced it (``as differentiated`` for the original);
    ``complete`` is False when the budget ran out or the expression was too large to try
    every rewrite, and ``note`` then says why.
    """

    expr: Any
    method: str
    complete: bool = True
    note: str = ""


def _measure(expr: Any) -> tuple[int, int]:
    """The length, then the number of top-level terms: on a tie the factored form wins
    (``x^x*(ln(x) + 1)`` over ``x^x*ln(x) + x^x``)."""
    return length(expr), len(expr.args) if expr.is_Add else 1


def length(expr: Any) -> int:
    """The length measure: characters in the user's notation.

    >>> import sympy as sp
    >>> length(sp.Symbol("x", real=True) ** 2)
    3
    """
    return len(user_text(expr))


def combined_powers(expr: Any) -> Any:
    """``expr`` with the powers of each base combined into one: ``x^a*x^b`` is ``x^(a + b)``
    for every base but 0, so the value is the same wherever ``expr`` is defined.

    >>> import sympy as sp
    >>> x, n = sp.symbols("x n", real=True)
    >>> combined_powers(sp.diff(x**n, x))
    n*x**(n - 1)
    """
    import sympy as sp

    return sp.powsimp(expr, combine="exp")


def _rewrites() -> list[tuple[str, str | None, Callable[[Any], Any]]]:
    """(name, the earlier rewrite whose result it starts from or None, function)."""
    import sympy as sp

    return [
        ("factor", None, sp.factor),
        ("cancel", None, sp.cancel),
        ("together", None, sp.together),
        ("trigsimp", None, sp.trigsimp),
        ("simplify", None, sp.simplify),
        ("simplify, then factor", "simplify", sp.factor),
    ]


def simplest(expr: Any, budget: float) -> Simplified:
    """The shortest of ``expr`` and its rewrites that could be made within ``budget`` seconds.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> simplest(sp.diff(x**2 * sp.exp(x), x), 5.0).expr
    x*(x + 2)*exp(x)
    >>> simplest(x, 0.0).note
    'simplification skipped: no time left in the budget'
    """
    import sympy as sp

    if budget <= 0:
        return Simplified(expr, "as differentiated", False, _skipped("no time left in the budget"))
    operations = sp.count_ops(expr)
    if operations > MAX_OPERATIONS:
        reason = f"the derivative has {operations} operations (over {MAX_OPERATIONS})"
        return Simplified(expr, "as differentiated", False, _skipped(reason))
    deadline = time.monotonic() + budget
    try:
        with time_limit(max(budget, MIN_ATTEMPT)):
            best = combined_powers(expr)
    except CheckTimeout:
        return Simplified(expr, "as differentiated", False, _ran_out(budget, []))
    method = "as differentiated" if best == expr else POWERS_COMBINED
    best_measure = _measure(best)
    tried: list[str] = []
    made: dict[str | None, Any] = {None: best}
    for name, start, rewrite in _rewrites():
        if start not in made:
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            return Simplified(best, method, False, _ran_out(budget, tried))
        try:
            with time_limit(max(left, MIN_ATTEMPT)):
                candidate = made[name] = combined_powers(rewrite(made[start]))
                candidate_measure = _measure(candidate)
        except CheckTimeout:
            return Simplified(best, method, False, _ran_out(budget, [*tried, name]))
        except (TypeError, ValueError, AttributeError, RecursionError, NotImplementedError):
            tried.append(name)
            continue  # sympy cannot do this rewrite here; the others may
        tried.append(name)
        if candidate_measure < best_measure and not candidate.has(sp.nan, sp.zoo, sp.I):
            best, method, best_measure = candidate, name, candidate_measure
    return Simplified(best, method)


def _skipped(reason: str) -> str:
    return f"simplification skipped: {reason}"


def _ran_out(budget: float, tried: list[str]) -> str:
    done = ", ".join(tried[:-1]) or "nothing"
    return (
        f"simplification budget of {budget:g} s ran out during {tried[-1] if tried else 'setup'} "
        f"(tried: {done}); the shortest form found so far is shown"
    )
