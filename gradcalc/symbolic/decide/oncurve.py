"""Decide whether two expressions agree on a curve (or surface) F = 0: dy/dx of an
implicit curve is a function of x and y that only matters on the curve, so ``-x/y`` and
``-x*y/(25 - x^2)`` are both right for x² + y² = 25.

The evidence, strongest first, as in :mod:`gradcalc.symbolic.decide.equivalence`:

- **proof**: the difference is 0, or (F a polynomial) the numerator of the difference is a
  polynomial multiple of F, or ``simplify`` reduces the difference to 0;
- **high precision on the curve**: points of the curve are found by fixing the other
  variables at random decimals -- by turns in [-3, 3] and of either sign with a magnitude
  from 0.01 to 30,000, since a curve may have no real points near the origin (the real
  points of 652525x²y² + 2x²y + 108xy + 12 = 0 have |x| > 2744) -- and solving F = 0 for
  the dependent one with mpmath at 120
  digits (a sign change of F bracketing each root); where that finds too few, the
  dependent variable is fixed instead and F solved for each other one it is a polynomial in
  (the real points of 2xy² + 679306x + 17 = 0 have x in (-2.6·10^-5, 0)). Both sides are
  evaluated there at 60 and 120 digits. A point where they part far above that precision
  is a witness; 12 points where they share 40+ digits make "equivalent" -- unless your answer
  is undefined at a point of the curve where dy/dx is not (``1/(3x^(2/3))`` on y³ = x, at
  x < 0): it is not judged on part of the curve only, so that is "could not decide". The
  answer's domain is looked for both ways, fixing the dependent variable too (the ends of
  x² + y² = 25, where ``0*sqrt(4.5 - x)`` is undefined, have |x| > 3).

Otherwise "could not decide", with the reason.

>>> import sympy as sp
>>> x, y = sp.symbols("x y", real=True)
>>> circle = x**2 + y**2 - 25
>>> decide_on_curve(-x * y / (25 - x**2), -x / y, circle, [x, y], y).detail
'yours − correct is a multiple of F, which is 0 on the curve'
>>> decide_on_curve(x / y, -x / y, circle, [x, y], y).verdict
'not equivalent'
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from time import process_time
from typing import Any

from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.core.numbers import counted
from gradcalc.core.ops import REGISTRY
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.decide.decision import (
    EQUIVALENT,
    HOW,
    NOT_EQUIVALENT,
    UNDECIDED,
    Decision,
    apart,
    point_text,
)
from gradcalc.symbolic.decide.defined import undefined_at
from gradcalc.symbolic.decide.equivalence import simplifies_to_zero
from gradcalc.symbolic.decide.precision import HIGH, LOW, agreement, mp_function, mp_real, settled
from gradcalc.symbolic.translate.convert import converted

SECONDS = 4.0  # CPU seconds for the points on the curve
TRIES = 80  # values of the other variables tried
GRID = 400  # values of the dependent variable scanned for a sign change of F
SPAN = 12.0  # ... in [-SPAN, SPAN], and a few of larger magnitude
POINTS = 16  # points on the curve evaluated at most


def decide_on_curve(
    answer: Any,
    truth: Any,
    curve: Any,
    symbols: Sequence[Any],
    dependent: Any,
    seconds: float = SECONDS,
    typed: Graph | None = None,
) -> Decision:
    """Is ``answer`` equal to ``truth`` at the real points of ``curve`` = 0 (sympy
    expressions in ``symbols``; ``dependent`` is the variable solved for)?

    ``typed``: the answer's graph as typed, whose domain is judged op by op at the points of
    the curve (:func:`~gradcalc.symbolic.decide.defined.undefined_at`): sympy's form of
    ``sqrt(y)^2`` is ``y`` and of ``0*ln(y)`` is ``0``, and a proof on those forms says
    nothing of where the answer is undefined. Where sympy's form drops the argument of an
    op with a domain (``0*sqrt(2 - x)``), points cannot show the answer defined on the whole
    curve: it is not called equivalent."""
    decision = _decide(answer, truth, curve, symbols, dependent, seconds, typed)
    dropped = _dropped(typed, answer) if typed is not None else []
    if decision.verdict != EQUIVALENT or not dropped:
        return decision
    return Decision(
        UNDECIDED,
        "",
        f"sympy reads your answer without {dropped[0]}, which is undefined where its "
        "argument leaves its domain: whether that happens on the curve could not be decided "
        "(at the points tried, yours agrees)",
    )


def _dropped(typed: Graph, answer: Any) -> list[str]:
    """The subexpressions of the answer as ``typed`` whose op has a domain (not ``/``) and
    whose argument sympy's form ``answer`` no longer holds (``0*sqrt(2 - x)``).

    >>> import sympy as sp
    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> x = sp.Symbol("x", real=True)
    >>> _dropped(lower(parse_program("x + 0*sqrt(2 - x)")), x)
    ['sqrt(2 - x)']
    >>> _dropped(lower(parse_program("1/sqrt(2 - x)")), 1 / sp.sqrt(2 - x))
    []
    """
    exprs = converted(typed)  # (the conversion the check made of it: kept on the graph)
    dropped = []
    for node in typed.nodes:
        if node.kind != "op" or node.op in ("div", "pow") or REGISTRY[node.op].domain is None:
            continue
        argument = exprs[node.inputs[0]]
        if not answer.has(argument):
            dropped.append(typed.source_text(node.index))
    return dropped


def _decide(answer, truth, curve, symbols, dependent, seconds, typed) -> Decision:
    """:func:`decide_on_curve`, before a dropped domain is looked at."""
    difference = answer - truth
    proof = _quick_proof(difference, curve, symbols)
    if proof is not None and typed is None:
        return proof
    seconds = seconds if proof is None else seconds / 4  # (a proof wants only the domain)
    deadline = process_time() + seconds
    others = [s for s in symbols if s != dependent]
    try:
        functions = [mp_function([*others, dependent], expr) for expr in (curve, answer, truth)]
        functions[1] = _as_typed(functions[1], typed, [*others, dependent])
    except (TypeError, ValueError, SyntaxError, RecursionError) as failure:
        return Decision(UNDECIDED, "", f"could not evaluate on the curve ({failure})")
    agreed: list[float | str] = []  # shared digits, or where yours alone is undefined
    draw = random.Random(20261201)
    polynomial = curve.is_polynomial(dependent)
    for tries in range(TRIES):
        if process_time() > deadline or len(agreed) >= POINTS:
            break
        fixed = [_decimal(draw, tries) for _ in others]
        roots = None  # (sin(x) + y^2 = 1: a polynomial in y, but not with exact coefficients)
        if polynomial:
            roots = _polynomial_roots(curve.xreplace(dict(zip(others, fixed))), dependent)
        if roots is None:
            roots = _roots(functions[0], fixed, deadline)
        witness = _compare_at(functions[1:], fixed, roots, others, dependent, agreed)
        if witness is not None:
            return witness
    witness = _from_both_sides((answer, truth, typed), curve, others, dependent, seconds, agreed)
    if witness is not None:
        return witness
    undefined = [point for point in agreed if isinstance(point, str)]
    if undefined:
        return _undefined_at(undefined, _has_root_power(answer))
    if proof is not None:
        return proof
    if simplifies_to_zero(difference, _monotonic_deadline(seconds)):
        return Decision(EQUIVALENT, "proof", "sympy proves the difference is 0")
    said = f"agrees at only {len(agreed)} points found on the curve and sympy found no proof"
    shared = agreement([d for d in agreed if not isinstance(d, str)], "the curve")
    return shared or Decision(UNDECIDED, "", said)


def _quick_proof(difference: Any, curve: Any, symbols: Sequence[Any]) -> Decision | None:
    """A proof that needs no points: the difference is 0 as sympy reads it, or a multiple
    of F (None: neither)."""
    if difference == 0:
        return Decision(EQUIVALENT, "proof", "sympy proves the difference is 0")
    if _multiple_of(difference, curve, symbols):
        detail = "yours − correct is a multiple of F, which is 0 on the curve"
        return Decision(EQUIVALENT, "proof", detail)
    return None


def _from_both_sides(sides, curve, others, dependent, seconds, agreed) -> Decision | None:
    """More points, fixing the dependent variable (:func:`_solving_for_the_others`): when
    too few were found (x = -17/(2y² + 679306): fixing x rarely meets the curve), and
    always when the answer as typed (``sides[2]``) is judged, its domain seen from both
    sides: x in [-3, 3] never meets x² + y² = 25 near x = 5, where ``0*sqrt(4.5 - x)`` is
    undefined. The points found go to ``agreed``; a witness is returned."""
    if len(agreed) < POINTS:  # (up to POINTS in all)
        return _solving_for_the_others(sides, curve, others, dependent, seconds, agreed)
    if sides[2] is None:
        return None
    more: list[float | str] = []  # (the domain: up to POINTS more)
    witness = _solving_for_the_others(sides, curve, others, dependent, seconds, more)
    agreed.extend(more)
    return witness


def _solving_for_the_others(
    sides: tuple[Any, Any, Graph | None],
    curve: Any,
    others: Sequence[Any],
    dependent: Any,
    seconds: float,
    agreed: list[float | str],
) -> Decision | None:
    """More points of the curve, for one whose real points fixing the other variables
    rarely meets: fix the dependent variable (and the rest) instead and solve for each
    other variable in which the curve is a polynomial, within half of ``seconds`` more;
    the shared digits go to ``agreed``, and a witness is returned (``sides``: the answer,
    the truth, and the answer as typed)."""
    answer, truth, typed = sides
    deadline = process_time() + seconds / 2
    draw = random.Random(20261202)
    for solved in others:
        if not curve.is_polynomial(solved):
            continue
        free = [s for s in [*others, dependent] if s != solved]
        functions = [mp_function([*free, solved], expr) for expr in (answer, truth)]
        functions[0] = _as_typed(functions[0], typed, [*free, solved])
        for tries in range(TRIES):
            if process_time() > deadline or len(agreed) >= POINTS:
                return None
            fixed = [_decimal(draw, tries) for _ in free]
            roots = _polynomial_roots(curve.xreplace(dict(zip(free, fixed))), solved) or []
            witness = _compare_at(functions, fixed, roots, free, solved, agreed)
            if witness is not None:
                return witness
    return None


def _as_typed(function: Any, typed: Graph | None, order: Sequence[Any]) -> Any:
    """``function`` (an mpmath function of ``order``), undefined (ValueError) where the
    answer as ``typed`` is: sympy confirms it op by op at the point's 60-digit values.

    >>> import sympy as sp
    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> y = sp.Symbol("y", real=True)
    >>> squared = _as_typed(mp_function([y], y), lower(parse_program("sqrt(y)^2")), [y])
    >>> float(squared(4)), _real(squared, [], -4)
    (4.0, None)
    """
    if typed is None:
        return function
    import sympy as sp

    names = [str(s) for s in order]

    @functools.cache  # (a point is tried at LOW and at HIGH digits: the same 60 digits)
    def undefined(point: tuple[Any, ...]) -> bool:
        return undefined_at(typed, dict(zip(names, point)))

    def as_typed(*values: Any) -> Any:
        if undefined(tuple(sp.Float(v, 60) for v in values)):
            raise ValueError("undefined where the answer as typed is")
        return function(*values)

    return as_typed


def _undefined_at(points: list[str], root_power: bool) -> Decision:
    """Undecided: your answer is undefined at these points of the curve, where the right
    one is defined (``root_power``: it has a power like x^(2/3), whose reading is said).

    >>> _undefined_at(["x=-0.5, y≈-0.79370053: correct 0.529133684"], False).detail[:57]
    'yours is undefined on the curve at x=-0.5, y≈-0.79370053,'
    """
    where, correct = points[0].split(": correct ")
    convention = " (x^(p/q) is read as the principal power, undefined for x < 0)"
    return Decision(
        UNDECIDED,
        "",
        f"yours is undefined on the curve at {where}, where the derivative is {correct} "
        f"({counted(len(points), 'such point')} found); an answer is judged on the whole "
        f"curve{convention if root_power else ''}",
    )


def _has_root_power(expr: Any) -> bool:
    """Whether ``expr`` has a power whose exponent is a fraction (x^(2/3), sqrt(x)^(4/3)).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> _has_root_power(x ** sp.Rational(-2, 3)), _has_root_power(-x / (x**2 + 1))
    (True, False)
    """
    import sympy as sp

    return any(p.exp.is_Rational and not p.exp.is_integer for p in expr.atoms(sp.Pow))


def _compare_at(sides, fixed, roots, free, solved, agreed: list[float | str]) -> Decision | None:
    """Compare the two sides at each root (``free`` at ``fixed``, ``solved`` at the root):
    a witness where they differ, else each point's shared digits added to ``agreed``."""
    for root in roots:
        outcome = _compare(sides, fixed, root, free, solved)
        if isinstance(outcome, Decision):
            return outcome
        if outcome is not None:
            agreed.append(outcome)
    return None


def _decimal(draw: random.Random, turn: int) -> Any:
    """A random exact decimal: on even turns in [-3, 3] (3 decimals), on odd ones of either
    sign with a magnitude from 10^-2 to 10^4.5 (4 significant digits).

    >>> draw = random.Random(1)
    >>> [str(_decimal(draw, k)) for k in range(4)]
    ['-19/10', '-501/10', '-911/1000', '5841/100000']
    """
    import sympy as sp

    if turn % 2 == 0:
        return sp.Rational(draw.randint(-3000, 3000), 1000)
    magnitude = float(f"{10 ** draw.uniform(-2, 4.5):.4g}")
    return sp.Rational(repr(magnitude)) * draw.choice((-1, 1))


def _multiple_of(difference: Any, curve: Any, symbols: Sequence[Any]) -> bool:
    """Whether the numerator of ``difference`` is a polynomial multiple of ``curve``."""
    import sympy as sp

    try:
        with time_limit(1.0):
            numerator = sp.numer(sp.together(difference))
            if not (numerator.is_polynomial(*symbols) and curve.is_polynomial(*symbols)):
                return False
            _, remainder = sp.reduced(sp.expand(numerator), [sp.expand(curve)], *symbols)
            return bool(remainder == 0)
    except Exception:  # any failure of sympy here only means "no proof"
        return False


def _polynomial_roots(curve: Any, dependent: Any) -> list[Any] | None:
    """The real roots of a polynomial in ``dependent`` with exact coefficients, at HIGH
    digits (mpmath's polyroots; a root counts as real when its imaginary part is below
    10^-(HIGH - 20)); None when a coefficient is not a rational number (``sin(18/25)``).

    >>> import sympy as sp
    >>> y = sp.Symbol("y", real=True)
    >>> [float(r) for r in _polynomial_roots(y**2 - 4, y)], _polynomial_roots(y**2 - sp.sin(1), y)
    ([-2.0, 2.0], None)
    """
    import mpmath
    import sympy as sp

    try:
        with time_limit(1.0):
            coefficients = sp.Poly(curve, dependent).all_coeffs()
            if not all(c.is_Rational for c in coefficients):
                return None
            if len(coefficients) < 2:
                return []
            with mpmath.workdps(HIGH + 20):
                roots = mpmath.polyroots(
                    [mpmath.mpf(int(c.p)) / int(c.q) for c in coefficients],
                    maxsteps=200,
                    extraprec=2 * HIGH,
                )
                tiny = mpmath.mpf(10) ** (-(HIGH - 20))
                return [mpmath.re(r) for r in roots if abs(mpmath.im(r)) <= tiny * (1 + abs(r))]
    except Exception:  # no convergence, a failure of sympy: no points from here
        return []


def _roots(curve, fixed, deadline) -> list[Any]:
    """The real roots of ``curve(fixed..., y)`` in y that a sign change brackets, at HIGH
    digits; one within 10^-(HIGH/2) of 0 is 0 where the curve is exactly 0 there (findroot
    stops at an absolute error: y sin(x) = y^3 at x = -7379 gave y = -6.7e-139, a point off
    the curve, where two right answers differ)."""
    import mpmath

    grid = [SPAN * (2 * k / GRID - 1) for k in range(GRID + 1)]
    grid += [sign * 10.0**e for e in (1.5, 2, 3) for sign in (-1, 1)]
    grid.sort()
    values = []
    with mpmath.workdps(30):
        for y in grid:
            values.append(_real(curve, fixed, mpmath.mpf(y)))
    roots = []
    for (a, fa), (b, fb) in zip(zip(grid, values), zip(grid[1:], values[1:])):
        if process_time() > deadline:
            break
        if fa is None or fb is None or fa == 0 or (fa > 0) == (fb > 0):
            continue
        with mpmath.workdps(HIGH + 10):
            try:
                root = mpmath.findroot(
                    lambda y: _real(curve, fixed, y) or mpmath.mpf(0), (a, b), solver="anderson"
                )
            except (ValueError, ZeroDivisionError, TypeError):
                continue
            if abs(root) < mpmath.mpf(10) ** (-HIGH // 2) and _real(curve, fixed, 0) == 0:
                root = mpmath.mpf(0)  # (a root at 0 is reached only to an absolute error)
            value = _real(curve, fixed, root)
            if value is not None and abs(value) < mpmath.mpf(10) ** (-HIGH + 10):
                roots.append(root)
    return roots


def _real(function, fixed, y) -> Any:
    import mpmath

    args = [mpmath.mpf(int(v.p)) / int(v.q) for v in fixed]
    try:
        return mp_real(function(*args, y))
    except (ValueError, ZeroDivisionError, TypeError, OverflowError):
        return None


def _compare(functions, fixed, root, others, dependent) -> float | str | Decision | None:
    """Shared digits of the two sides at the point (None: not real there, or the
    evaluation lost its digits), the point (text) where yours alone is not real, or a
    witness where they differ."""
    import mpmath

    answer, truth = functions
    pairs = []
    for precision in (LOW, HIGH):
        with mpmath.workdps(precision):
            y = +root
            pairs.append((_real(answer, fixed, y), _real(truth, fixed, y)))
    where = ", ".join(
        [f"{s}={point_text(v)}" for s, v in zip(others, fixed)]
        + [f"{dependent}≈{mpmath.nstr(root, 8)}"]
    )
    if all(a is None and c is not None for a, c in pairs):
        return f"{where}: correct {mpmath.nstr(pairs[1][1], 10)}"
    if any(v is None for pair in pairs for v in pair):
        return None
    with mpmath.workdps(HIGH):
        (a_low, c_low), (a, c) = pairs
        digits = settled(a_low, c_low, a, c)
        if digits is None or digits >= 0:
            return digits
        yours, correct = apart(a, c, a - c)
    return Decision(
        NOT_EQUIVALENT,
        "high precision",
        f"differs on the curve at {where}: yours {yours}, correct {correct} ({HOW})",
    )


def _monotonic_deadline(seconds: float) -> float:
    from time import monotonic

    return monotonic() + seconds
