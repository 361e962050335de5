"""Taylor polynomials, linearisation and tangent lines and planes, from nested tapes.

The coefficients come from gradcalc's own tapes (``order`` nested tapes for one variable; the
gradient and the Hessian for two or more, up to order 2); the polynomial comes exactly from
sympy's derivatives at the exact centre; the two are compared coefficient by coefficient.
Order 1 is the tangent line (one variable) or plane (two), written as an equation.

>>> t = taylor("exp(x)sin(x)", ["x=0"], 5)
>>> t.text
'x + x^2 + x^3/3 - x^5/30'
>>> t.status
'agree'
>>> taylor("x^2 + y^2", ["x=1,y=2"], 1).equation
'z = 5 + 2(x - 1) + 4(y - 2)'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.engine.evaluate.higher import check_variables
from gradcalc.engine.evaluate.names import require_values
from gradcalc.engine.evaluate.points import parse_at
from gradcalc.engine.evaluate.singular import side_text
from gradcalc.engine.judge.kinks import PIECEWISE
from gradcalc.engine.run.api import (
    Options,
    compile_expression,
    derivatives_at,
    gradient_at,
    hessian_at,
)
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, exact_value, time_limit, to_sympy
from gradcalc.symbolic.crosscheck.simplify import simplest
from gradcalc.symbolic.translate.notation import join_terms, shifted_term, user_latex, user_text

#: Coefficients from nested tapes must match sympy's to this relative tolerance.
RTOL = 1e-7
#: Highest order for one variable (each order is one more nested tape).
MAX_ORDER = 12
#: The tape alone (the check is the comparison with sympy's coefficients, made here).
UNCHECKED = Options(check=False)
#: The note where a piecewise part switches at the centre (and every derivative exists).
SWITCHING = (
    "a piecewise part switches at the centre, where sympy's derivatives are conventions "
    "(Heaviside(0) = 1/2): the coefficients are f's one-sided limits, which agree there, "
    "not sympy's exact values"
)


@dataclass(frozen=True)
class Coefficient:
    """The coefficient of one monomial: ``powers`` per variable, the tape's value, sympy's
    exact value (``None`` past the budget) and whether they agree."""

    powers: tuple[int, ...]
    tape: float
    exact: Any | None
    agree: bool | None


@dataclass
class TaylorResult:
    """The Taylor polynomial of order ``order`` about ``center``.

    ``polynomial`` is sympy's exact polynomial (``None`` past the budget: then ``text`` is
    the tape's, with decimals); ``status`` is ``agree``, ``disagree`` or ``skipped``.
    """

    expression: str
    variables: tuple[str, ...]
    center: dict[str, float]
    center_text: dict[str, str]
    order: int
    coefficients: list[Coefficient]
    polynomial: Any | None
    status: str
    notes: list[str] = field(default_factory=list)
    #: f's limit at the centre where f itself is undefined there (a removable singularity:
    #: the polynomial is then the extended f's, from sympy's series); None elsewhere.
    limit: Any | None = None

    @property
    def text(self) -> str:
        """The polynomial in the user's notation, by ascending degree."""
        return join_terms([_term_text(self, c) for c in self.coefficients])

    @property
    def latex(self) -> str:
        """The exact polynomial in LaTeX (the tape's decimals past the budget)."""
        return user_latex(self.polynomial) if self.polynomial is not None else self.text

    @property
    def equation(self) -> str | None:
        """The tangent line ``y = ...`` or plane ``z = ...`` (order 1, one or two variables)."""
        if self.order != 1 or len(self.variables) > 2:
            return None
        return f"{'y' if len(self.variables) == 1 else 'z'} = {self.text}"


def taylor(expression: str, at: Sequence[str], order: int, budget: float = 5.0) -> TaylorResult:
    """The Taylor polynomial of ``expression`` of order ``order`` about the point ``at``.

    Args:
        expression: one function (not a list).
        at: one ``--at`` spec naming every variable (``["x=0"]``, ``["x=pi/4"]``).
        order: 1 (linearisation) or more; with several variables at most 2.
        budget: seconds for sympy's exact polynomial.

    Raises:
        InputError: a bad expression, point or order.
        UndefinedError: the function or a derivative is undefined at the point.

    >>> taylor("sqrt(x)", ["x=4"], 2).text
    '2 + (x - 4)/4 - (x - 4)^2/64'
    """
    if len(at) != 1:
        raise InputError("taylor expands about one point: give one, --at x=...")
    points = parse_at(at)
    graph = compile_expression(expression, points.names)
    if len(graph.targets) != 1:
        raise InputError("taylor takes one function: give one expression")
    variables = tuple(graph.variables)
    _check_question(graph, variables, points.names, order)
    center = {v: float(points.arrays[v]) for v in variables}
    texts = dict(points.exact[0]) if points.exact else {v: repr(center[v]) for v in variables}
    switching = _refuse_kinks(graph, variables, texts, order)
    notes: list[str] = []
    try:
        tape = _tape_coefficients(graph, points, variables, order)
        found = (
            None if switching else _exact_coefficients(graph, variables, texts, tape, budget, notes)
        )
        past = None if found is None else _rounded_past(found, texts)
        if past is not None:  # (float64 rounded past a singularity: in exact arithmetic, none)
            raise UndefinedError(past)
    except (UndefinedError, InputError):  # (undefined at the centre, or too many records
        # for the nested tapes there: sin(x)/x's 12th order needs no tape where it is undefined)
        extended = _extended(expression, graph, points, texts, order, budget)
        if extended is None:
            raise
        return extended
    notes += [SWITCHING] if switching else []  # sympy's values there are conventions
    return _compared(expression, (variables, center, texts), order, tape, found, notes)


def _compared(expression, where, order, tape, found, notes) -> TaylorResult:
    """The result: the tape's coefficients beside sympy's exact ones (``found``, None past
    the budget), about the centre ``where`` = (variables, floats, exact texts)."""
    variables, center, texts = where
    exact = None if found is None else {powers: truth for powers, (truth, _) in found.items()}
    coefficients = []
    for powers, value in tape.items():
        truth, form = (None, None) if found is None else found[powers]
        agree = None if found is None else _agrees(value, truth, form, texts, center)
        coefficients.append(Coefficient(powers, value, truth, agree))
    polynomial = None if exact is None else _polynomial(variables, texts, exact)
    if exact is None:
        status = "skipped"
    else:
        status = "agree" if all(c.agree for c in coefficients) else "disagree"
    shown = {v: texts[v] for v in variables}
    return TaylorResult(
        expression, variables, center, shown, order, coefficients, polynomial, status, notes
    )


def _rounded_past(found: dict, texts: dict[str, str]) -> str | None:
    """Where the tape computed every coefficient but sympy's exact one of the lowest order
    is not a finite real number, float64 rounded past a singularity: why (None elsewhere).

    >>> import sympy as sp
    >>> _rounded_past({(0,): (sp.Integer(1), None), (1,): (sp.zoo, None)}, {"x": "0"})[:50]
    "f's derivative of order 1 is undefined at x=0: sym"
    """
    from gradcalc.engine.judge.rounded import ROUNDED_PAST
    from gradcalc.symbolic.decide.defined import finite_real

    undefined = [p for p, (truth, _) in found.items() if finite_real(truth) is not True]
    if not undefined:
        return None
    powers = min(undefined, key=sum)
    what = "f" if not sum(powers) else f"f's derivative of order {sum(powers)}"
    point = ", ".join(f"{name}={text}" for name, text in texts.items())
    return f"{what} is undefined at {point}: {ROUNDED_PAST}"


def _check_question(graph, variables, given, order: int) -> None:
    """Refuse a point without every variable, or an order out of range."""
    require_values(graph, given)
    check_variables(graph, variables, "a Taylor polynomial")
    if not 1 <= order <= (MAX_ORDER if len(variables) == 1 else 2):
        most = MAX_ORDER if len(variables) == 1 else 2
        several = "" if len(variables) == 1 else " with several variables"
        raise InputError(f"--order must be 1 to {most}{several} (got {order})")


def _extended(expression, graph, points, texts, order, budget) -> TaylorResult | None:
    """Where f itself is undefined at the centre, op by op (``sin(x)/x`` at 0; ``x^2/x``,
    which sympy would cancel, too) but has a finite real limit there, the same from both
    sides, its series the same from both sides, and is defined on both sides in gradcalc's
    reading (the tape computes it at the centre ± 10^-6): the Taylor polynomial of f
    extended by that limit -- sympy's series about the centre, when it is a polynomial of
    degree ``order``. None otherwise (one variable only), or where sympy cannot tell.

    >>> result = taylor("sin(x)/x", ["x=0"], 4)
    >>> result.text, result.limit, result.status
    ('1 - x^2/6 + x^4/120', 1, 'skipped')
    """
    import sympy as sp

    from gradcalc.symbolic.decide.defined import finite_real, undefined_at

    (name,) = graph.variables if len(graph.variables) == 1 else (None,)
    if name is None or not _defined_beside(graph, points, name):
        return None
    x, t = sp.Symbol(name, real=True), sp.Dummy("t", real=True)
    try:
        with time_limit(budget):
            centre = exact_value(texts[name])
            if not undefined_at(graph, {name: centre}, budget):
                return None  # (f is defined there: a derivative is what is missing)
            near = to_sympy(graph)[graph.targets[0]].subs(x, centre + t)
            limit = sp.limit(near, t, 0, "+")
            if finite_real(limit) is not True or sp.limit(near, t, 0, "-") != limit:
                return None
            series = sp.series(near, t, 0, order + 1).removeO()
            if not series.is_polynomial(t):
                return None  # (a log, or a fractional or negative power)
            left = sp.series(near, t, 0, order + 1, dir="-").removeO()
            if sp.expand(series - left) != 0:
                return None  # (x*atan(1/x): slopes -pi/2 and pi/2 on the two sides)
            exact = {(k,): series.coeff(t, k) if k else series.subs(t, 0) for k in range(order + 1)}
            if any(finite_real(value) is not True for value in exact.values()):
                return None
    except (CheckTimeout, TypeError, ValueError, NotImplementedError, RecursionError, sp.PoleError):
        return None  # (a PoleError: sin(1/x) about 0 has no expansion)
    note = (
        f"f is undefined at {name} = {texts[name]} but tends to {user_text(limit)} there from "
        "both sides (a removable singularity): this is the Taylor polynomial of f extended by "
        "that limit, from sympy's series"
    )
    coefficients = [Coefficient(p, math.nan, value, None) for p, value in exact.items()]
    polynomial = _polynomial((name,), texts, exact)
    center, shown = {name: float(points.arrays[name])}, {name: texts[name]}
    return TaylorResult(
        expression,
        (name,),
        center,
        shown,
        order,
        coefficients,
        polynomial,
        "skipped",
        [note],
        limit,
    )


def _defined_beside(graph, points, name: str) -> bool:
    """Does the tape compute f at the centre ± 10^-6 (relative to the centre beyond 1):
    defined on both sides as gradcalc reads f (``sqrt(x)`` is not, left of 0)?"""
    from gradcalc.engine.evaluate.points import Points

    centre = float(points.arrays[name])
    step = 1e-6 * max(1.0, abs(centre))
    try:
        for side in (centre - step, centre + step):
            gradient_at(graph, Points((name,), {name: np.array(side)}, None), [name], UNCHECKED)
    except UndefinedError:
        return False
    return True


def _refuse_kinks(graph, variables, texts, order: int) -> bool:
    """At a point where a piecewise part switches in exact arithmetic (``abs(sin(x))`` at
    pi: float64 rounds past it), f's one-sided derivatives up to ``order`` must agree
    (:func:`gradcalc.engine.judge.kinks.higher_limits`, as for ``hessian`` and ``--order``).
    Whether the point is such a one.

    Raises:
        UndefinedError: they differ (no Taylor polynomial of that order), with both sides.
    """
    from gradcalc.core.errors import UndefinedError
    from gradcalc.engine.judge.kinks import higher_limits
    from gradcalc.symbolic.decide.kinks import at_switch, one_sided

    if not any(node.op in PIECEWISE for node in graph.nodes):
        return False
    f = to_sympy(graph)[graph.targets[0]]
    point = {v: exact_value(texts[v]) for v in variables}
    if not at_switch(f, point):
        return False
    where = ", ".join(f"{v}={texts[v]}" for v in variables)
    sides = one_sided(f, point, variables)
    for v, (left, right) in sides.items():
        if left is None or left != right:
            raise UndefinedError(
                f"{graph.text} is not differentiable at {where}: a piecewise part switches "
                f"there; one-sided: ∂f/∂{v} = {side_text(left)} from the left, "
                f"{side_text(right)} from the right"
            )
    if len(variables) == 1:
        paths = [variables * k for k in range(2, order + 1)]
    else:
        paths = [(a, b) for a in variables for b in variables] if order > 1 else []
    first = {v: left for v, (left, _) in sides.items()}
    _, missing = higher_limits(f, point, paths, first)
    if missing is not None:
        singular = missing.singularity(graph.text, np.array([0]))
        raise UndefinedError(
            f"{singular.summary(where)}: {singular.reason}; --order {len(missing.path) - 1} exists"
            if missing.sides is not None
            else f"{singular.summary(where)}: {singular.reason}"
        )
    return True


def _tape_coefficients(graph, points, variables, order) -> dict[tuple[int, ...], float]:
    """{powers: coefficient} from nested tapes, by ascending degree."""
    options = UNCHECKED
    if len(variables) == 1:
        run = derivatives_at(graph, points, variables[0], order, options)
        values = [float(run.value), *(float(d) for d in run.orders)]
        return {(k,): values[k] / math.factorial(k) for k in range(order + 1)}
    hess: Any
    if order == 1:  # (the gradient alone: the Hessian need not exist)
        (hess,) = gradient_at(graph, points, list(variables), options)
    else:
        hess = hessian_at(graph, points, list(variables), options)
    n = len(variables)
    out: dict[tuple[int, ...], float] = {(0,) * n: float(hess.value)}
    for i, v in enumerate(variables):
        g = hess.gradient[v]
        out[_unit(n, i)] = 0.0 if g is None else float(g)
    if order == 2:
        for i in range(n):
            for j in range(i, n):
                h = float(hess.matrix[i, j])
                out[tuple(np.add(_unit(n, i), _unit(n, j)))] = h / 2 if i == j else h
    return out


def _unit(n: int, i: int) -> tuple[int, ...]:
    return tuple(int(k == i) for k in range(n))


def _exact_coefficients(graph, variables, texts, tape, budget, notes) -> dict | None:
    """{powers: (sympy's coefficient at the exact centre, its form in the variables)}, or
    None past the budget."""
    import sympy as sp

    symbols = [sp.Symbol(v, real=True) for v in variables]
    try:
        with time_limit(budget):
            f = to_sympy(graph)[graph.targets[0]]
            center = {s: exact_value(texts[v]) for s, v in zip(symbols, variables)}
            out = {}
            for powers in tape:
                derivative = f
                for s, k in zip(symbols, powers):
                    derivative = sp.diff(derivative, s, k) if k else derivative
                form = derivative / math.prod(math.factorial(k) for k in powers)
                value = form.subs(center)  # (exact: its shortest form shown)
                out[powers] = simplest(value, budget / (2 * len(tape))).expr, form
            return out
    except CheckTimeout as stop:
        notes.append(f"sympy could not give the exact polynomial {stop.within(budget)}")
    except (TypeError, ValueError, RecursionError, AttributeError) as failure:
        notes.append(f"sympy could not form the exact polynomial ({type(failure).__name__})")
    return None


def _agrees(value: float, exact: Any, form: Any, texts, center) -> bool:
    """The check's one rule (:func:`~gradcalc.symbolic.crosscheck.values.agrees`): within
    RTOL of sympy's ``exact`` coefficient, with no absolute slack but where it is 0 -- or
    of its ``form`` at the float64 centre the tape was given (``pi/4`` is not a float64
    number), to 50 digits.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> exact = sp.exp(-30)  # 9.4e-14: wrong in sign, it is within 1e-12 of the truth
    >>> _agrees(9.357622968840175e-14, exact, sp.exp(x), {"x": "-30"}, {"x": -30.0})
    True
    >>> _agrees(-9.357622968840175e-14, exact, sp.exp(x), {"x": "-30"}, {"x": -30.0})
    False
    """
    import sympy as sp

    from gradcalc.symbolic.crosscheck.values import agrees, at_nearest_floats

    def within(truth: float) -> bool:
        return bool(agrees(np.array([value]), np.array([truth]), RTOL)[0])

    number = sp.N(exact, 30)
    if number.is_real and within(float(number)):
        return True
    symbols = {v: sp.Symbol(v, real=True) for v in center}
    exact_centre = {symbols[v]: exact_value(texts[v]) for v in center}
    nearest = at_nearest_floats(form, exact_centre, {symbols[v]: c for v, c in center.items()})
    return nearest is not None and within(nearest)


def _polynomial(variables, texts, exact) -> Any:
    import sympy as sp

    return sp.Add(*(c * _monomial(variables, texts, powers) for powers, c in exact.items()))


def _monomial(variables, texts, powers) -> Any:
    import sympy as sp

    return sp.Mul(
        *((sp.Symbol(v, real=True) - exact_value(texts[v])) ** k for v, k in zip(variables, powers))
    )


def _term_text(result: TaylorResult, c: Coefficient) -> str:
    """One term, exact where known (``x^3/3``, ``(x - 4)/4``); empty for a zero term."""
    import sympy as sp

    if c.exact is not None:
        value = c.exact
    elif c.tape == int(c.tape):
        value = sp.Integer(int(c.tape))  # the tape's 2.0 as 2 (the status says: not exact)
    else:
        value = sp.Float(repr(c.tape), "")  # as many digits as the tape's repr
    centers = {v: exact_value(result.center_text[v]) for v in result.variables}
    return shifted_term(value, dict(zip(result.variables, c.powers)), centers)
