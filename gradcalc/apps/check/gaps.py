"""An answer equal to the derivative except at single points where, as typed, it is undefined.

``2x(x - 3)/(x - 3)`` is ``2x`` to sympy, so the proof that it is the derivative of x^2
holds only where it is defined: at x = 3 it divides by zero while the derivative is 6.
Sampling never lands on such a point, so after a pass the answer's holes
(:func:`gradcalc.symbolic.decide.holes.holes`, each confirmed exactly) are tried: a hole
where the function is defined, sympy's derivative is a finite real number and the tape's
derivative agrees with it is a witness that the answer is wrong there. Where sympy could
not solve some op's zeros (out of time, or ``x - cos(x)``), a hole may be missing: the pass
is then *could not decide*, saying which.

>>> import sympy as sp
>>> from gradcalc.engine.run.api import compile_expression
>>> x = sp.Symbol("x", real=True)
>>> answer, f = compile_expression("2x*(x - 3)/(x - 3)"), compile_expression("x^2")
>>> hole_witness(answer, f, 2 * x, lambda point: 6.0)
'differs at x=3: yours undefined, correct 6'
>>> hole_witness(compile_expression("2x"), f, 2 * x, lambda point: 6.0) is None
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from gradcalc.apps.check.numbers import exact_short, is_zero
from gradcalc.apps.check.verdicts import Verdict
from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.core.errors import UndefinedError
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.decide.decision import NOT_EQUIVALENT, UNDECIDED, point_text
from gradcalc.symbolic.decide.defined import defined_at, finite_real
from gradcalc.symbolic.decide.holes import BASES, Holes, holes, holes_on
from gradcalc.symbolic.decide.patience import FAILURES
from gradcalc.symbolic.translate.derivative import symbol
from gradcalc.symbolic.translate.notation import user_text

__all__ = [
    "AGREE",
    "curve_hole_witness",
    "failed_at",
    "hole_witness",
    "with_curve_holes",
    "with_holes",
]

DIVIDES_SECONDS = 1.0  # for sympy to tell whether an unsolved operand divides the derivative
#: How closely (relative) the tape's derivative at a hole must agree with sympy's exact one.
AGREE = 1e-6
SHORT = 24  # characters of an exact value shown as it is


def hole_witness(
    answer: Graph, graph: Graph, truth: Any, tape_at: Callable[[Mapping[str, Any]], float]
) -> str | None:
    """``differs at x=3: yours undefined, correct 6`` for the first hole of ``answer`` where
    ``graph``'s derivative ``truth`` (sympy) exists (``graph``'s other variables fixed at
    the first of :data:`~gradcalc.symbolic.decide.holes.BASES`); None when there is none.
    ``tape_at`` gives the tape's derivative at a point (name -> exact number), raising
    UndefinedError where it has none."""
    return _witness(holes(answer), graph, truth, tape_at)


def _witness(found: Holes, graph: Graph, truth: Any, tape_at) -> str | None:
    """:func:`hole_witness` among the holes ``found``."""
    import sympy as sp

    for hole in found:
        point = {n: hole.get(n, sp.Rational(BASES[0])) for n in graph.variables}
        if defined_at(graph, point) is not True:
            continue  # f itself is undefined there (or not known to be): so is f'
        value = truth.subs({symbol(n): v for n, v in point.items()}, simultaneous=True)
        if finite_real(value) is not True:
            continue
        try:
            tape = tape_at(point)
        except UndefinedError:
            continue
        exact = float(sp.N(value, 20))
        if not math.isclose(tape, exact, rel_tol=AGREE, abs_tol=AGREE * 1e-6):
            continue  # the tape at a rounded point is not the derivative at the exact one
        return _differs(point, value)
    return None


def with_holes(verdict: Verdict, answer: Graph, graph: Graph, truth: Any, tape_at) -> Verdict:
    """``verdict``, a pass, unless the answer as typed is undefined at a point where the
    derivative is not (:func:`hole_witness`): then a fail there, and equal elsewhere.

    >>> import sympy as sp
    >>> from gradcalc.engine.run.api import compile_expression
    >>> x = sp.Symbol("x", real=True)
    >>> passed = Verdict("df/dx", "2x*x/x", "2x", "equivalent", "sympy proves the difference is 0")
    >>> f, answer = compile_expression("x^2"), compile_expression("2x*x/x")
    >>> with_holes(passed, answer, f, 2 * x, lambda point: 0.0).detail
    'differs at x=0: yours undefined, correct 0; elsewhere sympy proves the difference is 0'
    """
    found = holes(answer)
    return failed_at(verdict, _witness(found, graph, truth, tape_at), _unsolved(found, truth))


def failed_at(verdict: Verdict, gap: str | None, unsolved: str = "") -> Verdict:
    """``verdict``, a pass of sympy's reading, as a fail at the hole ``gap`` describes (and
    equal elsewhere); as it is when there is no hole (``gap`` None) -- unless the search
    for holes could not solve ``unsolved``: then undecided, saying so.

    >>> passed = Verdict("df/dx", "2/(x - cos(x))", "", "equivalent", "sympy proves it")
    >>> undecided = failed_at(passed, None, "x - cos(x) = 0")
    >>> undecided.verdict, undecided.detail.endswith("sympy could not solve x - cos(x) = 0")
    ('could not decide', True)
    """
    if gap is None:
        if not unsolved:
            return verdict
        detail = (
            f"{verdict.detail} where your answer is defined, but could not find every point "
            f"where it is not, as typed: sympy could not solve {unsolved}"
        )
        return replace(verdict, verdict=UNDECIDED, detail=detail, evidence="", where="")
    detail = f"{gap}; elsewhere {verdict.detail}"
    return replace(verdict, verdict=NOT_EQUIVALENT, detail=detail, evidence="domain", where="")


def curve_hole_witness(
    answer: Graph, equation: Graph, truth: Any, curve: Any, dependent: str
) -> str | None:
    """:func:`hole_witness` for an implicit derivative: the first hole of ``answer`` on
    ``curve`` = 0 (sympy, from ``equation`` as typed) where the equation is defined, F_y is
    not 0 (so that dy/dx exists: not at a singular point of the curve) and ``truth``
    (-F_x/F_y) is a finite real number; None when there is none.

    >>> import sympy as sp
    >>> from gradcalc.engine.run.api import compile_expression
    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_equation
    >>> x, y = sp.symbols("x y", real=True)
    >>> circle = lower(parse_equation("x^2 + y^2 = 25"))
    >>> answer = compile_expression("-x/y + 0/(x - 4)")
    >>> curve_hole_witness(answer, circle, -x / y, x**2 + y**2 - 25, "y")
    'differs at x=4, y=3: yours undefined, correct -4/3'
    """
    return _curve_witness(
        holes_on(answer, curve, equation.variables, dependent), equation, truth, curve, dependent
    )


def with_curve_holes(
    verdict: Verdict, answer: Graph, equation: Graph, truth: Any, curve: Any, dependent: str
) -> Verdict:
    """:func:`with_holes` for an implicit derivative on ``curve`` = 0."""
    found = holes_on(answer, curve, equation.variables, dependent)
    gap = _curve_witness(found, equation, truth, curve, dependent)
    return failed_at(verdict, gap, _unsolved(found, truth))


def _unsolved(found: Holes, truth: Any) -> str:
    """What the search for holes could not solve, but for an operand whose zeros are zeros of
    the denominator of the derivative ``truth`` too (no witness can be there: the derivative
    is undefined where the answer is): "" when nothing is left.

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> found = Holes()
    >>> found.unsolved = [(x + 6 * y - 8, "x + 6y - 8 = 0 on the curve")]
    >>> _unsolved(found, (-2 * x - y - sp.cos(x)) / (x + 6 * y - 8))
    ''
    >>> _unsolved(found, -x / y)
    'x + 6y - 8 = 0 on the curve'
    """
    left = [text for zero, text in found.unsolved if not _divides(zero, truth)]
    return left[0] if left else ""


def _divides(zero: Any, truth: Any) -> bool:
    """Is ``zero`` a factor of the denominator of ``truth``, as sympy writes it?"""
    import sympy as sp

    if zero is None:
        return False
    try:
        with time_limit(DIVIDES_SECONDS):
            quotient = sp.cancel(sp.denom(sp.together(truth)) / zero)
            return not (sp.denom(quotient).free_symbols & zero.free_symbols)
    except (*FAILURES, sp.PolynomialError):
        return False


def _curve_witness(found: Holes, equation: Graph, truth: Any, curve: Any, dependent: str):
    """:func:`curve_hole_witness` among the holes ``found``."""
    f_y = curve.diff(symbol(dependent))  # (dy/dx exists where F_y is not 0)
    for point in found:
        if defined_at(equation, point) is not True:
            continue
        at = {symbol(n): v for n, v in point.items()}
        slope = f_y.subs(at, simultaneous=True)
        value = truth.subs(at, simultaneous=True)  # (simultaneously: 0/0 is not read as 0)
        if finite_real(slope) is True and is_zero(slope) is False and finite_real(value) is True:
            return _differs(point, value)
    return None


def _differs(point: Mapping[str, Any], value: Any) -> str:
    where = ", ".join(f"{n}={_text(v)}" for n, v in point.items())
    return f"differs at {where}: yours undefined, correct {_text(value)}"


def _text(value: Any) -> str:
    """An exact number as a student writes it (3, 2/7, pi/2), or to 10 digits when long.

    >>> import sympy as sp
    >>> t = sp.Symbol("t")
    >>> _text(sp.Rational(-3, 5)), _text(sp.pi / 2), _text(sp.CRootOf(t**5 - t - 1, 0))
    ('-0.6', 'pi/2', '1.167303978')
    """
    if value.is_Rational:
        return point_text(value)
    text = user_text(value)
    return text if len(text) <= SHORT and "Root" not in text else exact_short(value) or text
