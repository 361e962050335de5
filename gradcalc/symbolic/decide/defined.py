"""Is an expression undefined at an exact point -- truly, not by float rounding?

The tape says "undefined" where the registry's domain rules fail on float values, and floats
round: ``exp(3x)/(exp(3x) + exp(6y))`` at x = -565.1 has a denominator that underflows to 0,
so the tape finds a division by zero where the function is a perfectly good 3e-737. Before
``check`` calls an answer wrong because it is undefined where the derivative is not, sympy
confirms it here: the graph is converted op by op with the point's exact values in place of
its variables (so ``exp(log(x))`` is not simplified to ``x`` first), and every op that has a
domain rule must come out a finite real number.

>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> import sympy as sp
>>> softmax = lower(parse_program("exp(3x)/(exp(3x) + exp(6y))"))
>>> undefined_at(softmax, {"x": sp.Rational(-5651, 10), "y": sp.Rational(1, 10)})
False
>>> undefined_at(lower(parse_program("2*exp(log(x))")), {"x": sp.Integer(-2)})
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gradcalc.core.budget import CheckTimeout
from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.core.errors import UndefinedError
from gradcalc.core.ops import REGISTRY
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.translate.convert import to_sympy

__all__ = ["defined_at", "finite_real", "undefined_at"]

#: Digits of a value sympy's evalf must know before its imaginary part counts.
DIGITS = 30
#: evalf's working precision at most (a denominator that cancels to ~300 digits).
MAX_DIGITS = 400
#: Seconds for one point's confirmation; past them, it is not confirmed.
SECONDS = 0.5


def undefined_at(graph: Graph, point: Mapping[str, Any], seconds: float = SECONDS) -> bool:
    """True only when sympy confirms that ``graph``'s target is undefined over the reals at
    ``point`` (name -> an exact number: a Rational, or a sympy number such as ``pi/2``): some
    op with a domain rule is, at the point's exact values, complex infinity or NaN (``1/0``,
    ``0/0``) or a number whose imaginary part is not 0 (``sqrt(-2)``, ``log(-1)``,
    ``asin(2)``). False when every such op is a finite real number, and when sympy cannot
    tell within ``seconds`` -- a rounding artefact is never a witness.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> import sympy as sp
    >>> at = lambda text, x: undefined_at(lower(parse_program(text)), {"x": sp.Rational(x)})
    >>> at("1/(x - 1)", 1), at("sqrt(x)", -2), at("asin(x)", 2), at("log(x)", "0.5")
    (True, True, True, False)
    >>> at("1/(1 - tanh(x)^2)", "147.5")  # 1 - tanh(x)^2 is 4e-128, not 0
    False
    """
    return defined_at(graph, point, seconds) is False


def defined_at(graph: Graph, point: Mapping[str, Any], seconds: float = SECONDS) -> bool | None:
    """Whether ``graph``'s target is defined over the reals at ``point`` (name -> exact
    number: a Rational, ``pi/2``), as sympy finds it: True when every op with a domain
    rule is a finite real number there, False when one is not (:func:`undefined_at`), None
    when sympy cannot tell within ``seconds`` (or a variable has no value) -- never a guess.

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> import sympy as sp
    >>> at = lambda text, x: defined_at(lower(parse_program(text)), {"x": sp.Rational(x)})
    >>> at("exp(-x^3)", -17), at("sqrt(exp(x^2) - 2exp(x^2))", 30), at("log(x)", -1)
    (True, False, False)
    """
    import sympy as sp

    variables = [node for node in graph.nodes if node.kind == "var"]
    if any(node.text not in point for node in variables):
        return None  # (a variable without a value: nothing to confirm)
    given = {node.index: point[node.text] for node in variables}
    values = {i: v if isinstance(v, sp.Basic) else sp.Rational(v) for i, v in given.items()}
    try:
        with time_limit(seconds):
            exprs = to_sympy(graph, cut=values)  # raises UndefinedError at a zoo or a NaN
            ruled = [n for n in graph.nodes if n.kind == "op" and REGISTRY[n.op].domain]
            known = [exprs[node.index] for node in ruled]
            found = [finite_real(e) for e in known if isinstance(e, sp.Basic)]
    except UndefinedError:
        return False
    except (CheckTimeout, ArithmeticError, TypeError, ValueError, RecursionError, MemoryError):
        return None  # not confirmed
    if False in found:
        return False
    return None if None in found else True


def finite_real(value: Any) -> bool | None:
    """Is ``value`` (an exact sympy number) a finite real number? True or False where sympy
    knows -- by its assumptions, or from :data:`DIGITS` digits of its value (an imaginary
    part that is not 0 there is a proof) -- and None where it cannot tell (evalf cannot get
    the digits: ``sqrt(2)**2 - 2`` left unevaluated is 0 to every precision it tries).

    >>> import sympy as sp
    >>> [finite_real(v) for v in (sp.sqrt(2), 1 / sp.Integer(0), sp.log(-sp.Rational(1, 2)))]
    [True, False, False]
    >>> finite_real(sp.asin(1 + sp.Rational(1, 10**40)))  # imaginary part 1.4e-20
    False
    """
    import sympy as sp

    if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return False
    if value.is_real is not None:
        return bool(value.is_real)
    try:
        number = value.evalf(DIGITS, strict=True, maxn=MAX_DIGITS)
    except (ArithmeticError, TypeError, ValueError):  # (evalf's PrecisionExhausted)
        return None
    if number.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return False
    real, imaginary = number.as_real_imag()
    if not (real.is_Number and imaginary.is_Number):
        return None
    return bool(imaginary == 0)
