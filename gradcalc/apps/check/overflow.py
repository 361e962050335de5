"""Derivatives past float64 at an exact point: judged from sympy's exact values.

The tape computes in float64, so at ``x=-17`` the derivative of ``e^(-x^3)``,
``-867·e^4913``, overflows: ``grad`` says so and exits 3, for it has nothing to show. A
question about the derivative there (``check --expect``) has an exact answer all the
same. Where every problem the tape found is float64's own -- a value or derivative that
overflows (or is NaN from an overflow), or a part that underflowed to 0 -- and none is the
function's (a point outside a domain, a kink), sympy decides instead: the function must be
defined at the exact point (every op with a domain rule a finite real number there:
:func:`~gradcalc.symbolic.decide.defined.defined_at`), and each derivative's exact value
must be a finite real number. Where sympy finds the function undefined, that is exit 3
still; where it cannot tell in time, or the expression has a piecewise part (whose
switches the tape could not look for past float64), the value is unknown: the check says
it could not decide, never guesses.

>>> from gradcalc.engine.run.api import compile_expression
>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> graph = compile_expression("e^(-x^3)")
>>> exact_values(graph, {"x": "-17"}, lambda: [sp.diff(sp.exp(-(x**3)), x)], "f")
([-867*exp(4913)], '')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gradcalc.core.errors import UndefinedError
from gradcalc.core.problems import NON_FINITE_ADJOINT, NON_FINITE_VALUE
from gradcalc.engine.evaluate.singular import GRADIENT, Singularity
from gradcalc.engine.judge.kinks import PIECEWISE
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, exact_at, exact_value, time_limit
from gradcalc.symbolic.decide.defined import defined_at, finite_real
from gradcalc.symbolic.decide.patience import patient
from gradcalc.symbolic.decide.precision import EVALF_MAX_DIGITS
from gradcalc.symbolic.translate.derivative import symbol

__all__ = ["as_float", "exact_values", "float64_only"]

#: The singularities that are float64's, not the function's: overflow, and NaN after one.
FLOAT64 = frozenset({NON_FINITE_VALUE, NON_FINITE_ADJOINT, GRADIENT})
#: Seconds of sympy for the function's definedness, and again for the exact values.
SECONDS = 3.0


def float64_only(results: Sequence[Any], error: UndefinedError) -> None:
    """Return when every singularity of ``results`` (gradient results at one point, judged
    without ``strict``) is float64's own; else raise the first that is the function's
    (``error``, the strict run's, when there is none at all).

    >>> from gradcalc.engine.run.api import grad
    >>> float64_only([grad("e^(-x^3)", at=["x=-17"], strict=False)], UndefinedError(""))
    >>> float64_only([grad("ln(x)", at=["x=-1"], strict=False)], UndefinedError(""))
    Traceback (most recent call last):
    gradcalc.core.errors.UndefinedError: ln(x) is undefined at x=-1: ln is undefined ...
    """
    found = [(result, singular) for result in results for singular in result.singularities]
    if not found:
        raise error
    for result, singular in found:
        if not _float64s(singular):
            raise UndefinedError(singular.describe(result.points, result.target))


def _float64s(singular: Singularity) -> bool:
    """Whether a singularity is float64's: an overflow (or a NaN from one), or a part that
    underflowed to 0 -- not a domain, a kink, or a higher derivative that does not exist."""
    if singular.derivative or singular.undecided:
        return False
    return singular.kind in FLOAT64 or bool(singular.underflow)


def exact_values(
    graph: Graph, texts: Mapping[str, str], derivatives: Callable[[], list], name: str
) -> tuple[list[Any], str]:
    """sympy's exact value of each of ``derivatives()`` (sympy expressions, built within
    the time limit) at the point given exactly by ``texts`` (``{"x": "-17"}``), each None
    where sympy does not find a finite real number in time (all of them: an empty list);
    and why, when one is None.

    Raises:
        UndefinedError: sympy finds the function ``name`` undefined at the point.
    """
    where = ", ".join(f"{n}={t}" for n, t in texts.items())
    point = {n: exact_value(t) for n, t in texts.items()}
    defined = defined_at(graph, point, patient(SECONDS))
    if defined is False:
        raise UndefinedError(
            f"{name} is undefined at {where}: sympy finds it so in exact arithmetic "
            "(where float64 cannot compute it)"
        )
    ops = {node.op for node in graph.nodes}
    if ops & PIECEWISE:
        return [], (
            f"{name} has a piecewise part ({', '.join(sorted(PIECEWISE & ops))}), and "
            "float64 cannot show whether it switches there"
        )
    if defined is None:
        return [], f"sympy could not tell in time whether {name} is defined there"
    try:
        with time_limit(patient(SECONDS)):
            substitution = {symbol(n): v for n, v in point.items()}
            values = [exact_at(expr, substitution) for expr in derivatives()]
            known = [v if v.is_number and finite_real(v) is True else None for v in values]
    except (CheckTimeout, TypeError, ValueError, ArithmeticError, RecursionError, MemoryError):
        return [], "sympy could not find its exact value in time"
    unknown = "" if None not in known else "sympy finds no finite real value for it there"
    return known, unknown


def as_float(exact: Any) -> float:
    """An exact value's float64: infinite past its range, 0 below it, NaN for None.

    >>> import sympy as sp
    >>> as_float(-867 * sp.exp(4913)), as_float(sp.Rational(1, 2)), as_float(None)
    (-inf, 0.5, nan)
    """
    if exact is None:
        return math.nan
    try:
        with time_limit(patient(SECONDS)):
            return float(exact.evalf(20, strict=True, maxn=EVALF_MAX_DIGITS))
    except (CheckTimeout, TypeError, ValueError, ArithmeticError, RecursionError):
        return math.nan
