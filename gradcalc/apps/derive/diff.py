"""Derivatives without a point: the simplified symbolic answer, verified on the tape.

:func:`differentiate` gives the derivative of order N, the gradient, the Hessian or the
Jacobian (with its determinant) of an expression as sympy expressions, each simplified
(:mod:`gradcalc.symbolic.crosscheck.simplify`), and then compares every entry with gradcalc's own
tape
at random points of the domain: a simplification that changed the mathematics cannot go
unnoticed. All symbolic work shares one time budget.

>>> result = differentiate("x^2*sin(x)")
>>> [(entry.label, entry.text) for entry in result.entries]
[('df/dx', 'x^2*cos(x) + 2x*sin(x)')]
>>> result.verification.status, result.verification.points >= 12
('verified', True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.core.errors import InputError
from gradcalc.core.naming import derivative_label, label_latex
from gradcalc.engine.evaluate.evaluate import source_names
from gradcalc.engine.evaluate.higher import check_variables
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.run.api import (
    Options,
    compile_expression,
    derivatives_at,
    gradient_at,
    hessian_at,
    jacobian_at,
)
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.crosscheck.crosscheck import (
    CheckTimeout,
    in_variables,
    symbolic_gradient,
    time_limit,
)
from gradcalc.symbolic.crosscheck.crosscheck import to_sympy as graph_to_sympy
from gradcalc.symbolic.crosscheck.simplify import Simplified, simplest
from gradcalc.symbolic.translate.derivative import derivative, symbol
from gradcalc.symbolic.translate.notation import user_latex, user_text
from gradcalc.symbolic.translate.numeric import LAMBDIFY_MODULES, lambdify

#: Random points drawn for the verification (those outside the domain are left out).
SAMPLES = 96
#: At least this many points of the domain are needed to call an answer verified.
ENOUGH = 12
#: Relative tolerance between the tape and the symbolic value in double precision; a larger
#: difference is confirmed with 30-digit arithmetic before it is reported.
RTOL = 1e-7
SEED = 20261201
#: The share of the budget that differentiating and simplifying may use; the rest is kept
#: for the verification on the tape.
REWRITING = 0.7


@dataclass(frozen=True)
class Entry:
    """One derivative: its label (``∂f/∂x``, ``d²f/dx²``, ``∂²f/∂x∂y``), the variables
    differentiated in turn, sympy's raw result, the simplified form, and the name of what
    is differentiated (``det J`` for a determinant: no variables)."""

    label: str
    variables: tuple[str, ...]
    raw: Any
    form: Simplified
    target: str = "f"

    @property
    def latex_label(self) -> str:
        r"""The label in LaTeX: ``\frac{\partial f}{\partial x}``, ``\det J``."""
        return label_latex(self.label) if self.variables else r"\det J"

    @property
    def expr(self) -> Any:
        """The simplified derivative."""
        return self.form.expr

    @property
    def text(self) -> str:
        """The simplified derivative in the user's notation."""
        return user_text(self.form.expr)

    @property
    def latex(self) -> str:
        """The simplified derivative in LaTeX."""
        return user_latex(self.form.expr)


@dataclass(frozen=True)
class Verification:
    """How the symbolic entries compare with the tape at random points of the domain.

    ``status`` is ``verified`` (equal at ``points`` points), ``differs`` (``detail`` names
    the first point where they differ) or ``unverified`` (too few points of the domain, or
    no time left: ``detail`` says which).
    """

    status: str
    points: int
    detail: str = ""


@dataclass
class DiffResult:
    """The point-free derivative of an expression.

    ``kind`` is ``derivative`` (one variable, order N), ``gradient``, ``hessian`` or
    ``jacobian``; ``entries`` are row-major (``shape`` rows by columns); ``determinant`` is
    the square Jacobian's determinant as one more entry. ``notes`` say where a budget ran out.
    """

    expression: str
    kind: str
    function: list[Any]
    targets: tuple[str, ...]
    sources: tuple[str, ...]
    order: int
    shape: tuple[int, int]
    entries: list[Entry]
    determinant: Entry | None
    verification: Verification
    notes: list[str] = field(default_factory=list)
    variables: tuple[str, ...] = ()  # the function's own, of which ``sources`` are some

    @property
    def ok(self) -> bool | None:
        """True when verified, False when the tape disagrees, None when unverified."""
        return {"verified": True, "differs": False}.get(self.verification.status)


def differentiate(
    expression: str,
    wrt: Sequence[str] | None = None,
    order: int = 1,
    kind: str | None = None,
    budget: float = 5.0,
) -> DiffResult:
    """The simplified, tape-verified derivative of ``expression`` (no point needed).

    Args:
        expression: an expression, a comma-separated list (the Jacobian) or a program.
        wrt: the variables (default: all, in order of first appearance).
        order: the order; 2 with several variables is the Hessian.
        kind: ``gradient``, ``hessian`` or ``jacobian`` to ask for one (default: from the
            expression, ``wrt`` and ``order``).
        budget: seconds for all symbolic work (differentiating, simplifying, verifying).

    Raises:
        InputError: a bad expression, names, order or kind; a symbolic derivative that could
            not be formed within the budget is not an error (see ``notes``).

    >>> r = differentiate("x^3 - 3x + y^2", kind="hessian")
    >>> [entry.text for entry in r.entries], r.shape
    (['6x', '0', '0', '2'], (2, 2))
    >>> r = differentiate("r*cos(t), r*sin(t)")
    >>> r.kind, r.determinant.text
    ('jacobian', 'r')
    """
    graph = _compiled(expression, order)
    sources = source_names(graph, wrt)
    kind = _kind(graph, sources, order, kind)
    start = time.monotonic()
    deadline = start + budget
    rewriting = start + REWRITING * budget  # the rest is kept for the verification
    notes: list[str] = []
    raw = _raw(graph, sources, order, kind, budget, notes)
    labels = _labels(graph, sources, order, kind)
    if raw is None or _not_real(raw, labels, notes):
        return _unfinished(graph, expression, kind, sources, order, notes)
    entries = _simplified(raw, labels, rewriting, notes)
    determinant = None
    if kind == "jacobian" and len(graph.targets) == len(sources):
        determinant = _determinant(entries, len(sources), rewriting, notes)
    rows = len(graph.targets) if kind == "jacobian" else len(sources) if kind == "hessian" else 1
    result = DiffResult(
        expression=expression,
        kind=kind,
        function=_functions(graph),
        targets=graph.target_names,
        sources=sources,
        order=order,
        shape=(rows, len(entries) // rows),
        entries=entries,
        determinant=determinant,
        verification=Verification("unverified", 0),
        notes=notes,
        variables=graph.variables,
    )
    result.verification = _verified(graph, result, max(deadline - time.monotonic(), 1.0))
    return result


def _compiled(expression: str, order: int) -> Graph:
    """The expression's graph, once the order is known to be sound and it has variables."""
    if order < 1:
        raise InputError(f"--order must be 1 or more (got {order})")
    graph = compile_expression(expression)
    if not graph.variables:
        raise InputError(f"{expression!r} has no variables to differentiate with respect to")
    return graph


def _verified(graph: Graph, result: DiffResult, seconds: float) -> Verification:
    """Every entry (and the determinant) checked against the tape at points."""
    shown = [*result.entries, *([result.determinant] if result.determinant else [])]
    return verify(graph, shown, lambda points: _tape_values(graph, result, points), seconds)


# --- what is asked -------------------------------------------------------------------------


def _kind(graph: Graph, sources: Sequence[str], order: int, kind: str | None) -> str:
    several = len(graph.targets) > 1
    if kind is None:
        if several:
            kind = "jacobian"
        elif order == 1:
            kind = "gradient"
        else:
            kind = "hessian" if order == 2 and len(sources) > 1 else "derivative"
    if kind == "jacobian":
        if order != 1:
            raise InputError("a Jacobian is of first derivatives: leave out --order")
        return kind
    if several:
        raise InputError(
            f"the {kind} takes one target; this has {len(graph.targets)} "
            f"({', '.join(graph.target_names)}): ask for the Jacobian"
        )
    if kind == "hessian" or order > 1:
        check_variables(graph, sources, "a derivative of order 2 or more")
    if kind == "hessian":
        if order not in (1, 2):
            raise InputError("the Hessian is of second derivatives: leave out --order")
        return kind
    if kind == "derivative" or order > 1:
        if len(sources) != 1:
            raise InputError(
                f"--order {order} with several variables: give one (--wrt x), or --order 2 "
                "for the Hessian"
            )
        return "derivative"
    return "gradient"


def _labels(graph: Graph, sources: Sequence[str], order: int, kind: str) -> list[tuple]:
    """(label, variables differentiated in turn, target name) per entry, row-major."""
    f = graph.target_names[0]
    if kind == "jacobian":
        return [(derivative_label(t, [s]), (s,), t) for t in graph.target_names for s in sources]
    if kind == "hessian":
        return [(derivative_label(f, [a, b]), (a, b), f) for a in sources for b in sources]
    ordinary = len(graph.variables) == len(sources) == 1
    if kind == "derivative" and order > 1:
        s = sources[0]
        return [(derivative_label(f, [s] * order, ordinary), (s,) * order, f)]
    return [(derivative_label(f, [s], ordinary), (s,), f) for s in sources]


# --- symbolic work -----------------------------------------------------------------------


def _raw(graph, sources, order, kind, budget, notes) -> list[Any] | None:
    """sympy's derivatives, row-major, in the free variables; None past the budget."""
    try:
        with time_limit(budget):
            if kind == "jacobian":
                rows = []
                for k in range(len(graph.targets)):
                    first = symbolic_gradient(graph, k, list(sources))
                    rows += [in_variables(graph, first[s]) for s in sources]
                return rows
            if kind == "derivative":
                expr = graph_to_sympy(graph)[graph.targets[0]]
                return [derivative(expr, symbol(sources[0]), order)]
            first = symbolic_gradient(graph, 0, list(sources))
            first = {s: in_variables(graph, e) for s, e in first.items()}
            if kind == "gradient":
                return [first[s] for s in sources]
            return [derivative(first[a], symbol(b)) for a in sources for b in sources]
    except CheckTimeout as stop:
        notes.append(f"budget exceeded: sympy could not differentiate {stop.within(budget)}")
    except (RecursionError, ValueError, TypeError, AttributeError) as failure:
        notes.append(f"sympy could not differentiate this ({type(failure).__name__})")
    return None


def _not_real(raw: list[Any], labels: list[tuple], notes: list[str]) -> bool:
    """Whether a derivative of sympy's is no real formula -- NaN, complex infinity or the
    imaginary unit in it (``0^x``: 0^x·log(0); ``(-2)^x``, real at integers only, has
    I·pi) -- which is said in ``notes``: no formula is printed then.

    >>> import sympy as sp
    >>> x, notes = sp.Symbol("x", real=True), []
    >>> _not_real([sp.Integer(-2) ** x * sp.log(-2)], [("df/dx", ("x",))], notes)
    True
    >>> notes[0].split(": ")[0]
    "sympy's df/dx is (-2)^x*(ln(2) + I*pi)"
    """
    import sympy as sp

    for expr, (label, *_) in zip(raw, labels):
        expanded = sp.expand_log(expr, force=True) if expr.has(sp.log) else expr
        if expanded.has(sp.nan, sp.zoo, sp.I):
            notes.append(
                f"sympy's {label} is {user_text(expanded)}: no real formula (f is real only "
                "on a set without an interval there, or sympy cannot write its derivative)"
            )
            return True
    return False


def _simplified(raw: list[Any], labels: list[tuple], deadline: float, notes: list[str]):
    """Each entry simplified within an equal share of what is left of the budget."""
    entries = []
    for k, (expr, (label, variables, target)) in enumerate(zip(raw, labels)):
        share = (deadline - time.monotonic()) / (len(raw) - k)
        form = simplest(expr, share)
        if form.note:
            notes.append(f"{label}: {form.note}")
        entries.append(Entry(label, variables, expr, form, target))
    return entries


def _determinant(entries: list[Entry], n: int, deadline: float, notes: list[str]) -> Entry:
    import sympy as sp

    matrix = sp.Matrix(n, n, [entry.expr for entry in entries])
    try:
        with time_limit(max(deadline - time.monotonic(), 0.5)):
            raw = matrix.det(method="berkowitz")
    except CheckTimeout:
        notes.append("the determinant: budget exceeded")
        raw = sp.nan
    form = simplest(raw, deadline - time.monotonic()) if raw is not sp.nan else Simplified(raw, "")
    if form.note:
        notes.append(f"the determinant: {form.note}")
    return Entry("det J", (), raw, form)


def _functions(graph: Graph) -> list[Any]:
    """Each target as a sympy expression in the free variables."""
    exprs = graph_to_sympy(graph)
    return [exprs[t] for t in graph.targets]


def _unfinished(graph, expression, kind, sources, order, notes) -> DiffResult:
    return DiffResult(
        expression,
        kind,
        [],
        graph.target_names,
        tuple(sources),
        order,
        (0, 0),
        [],
        None,
        Verification("unverified", 0, "there is no symbolic answer to verify"),
        notes,
        graph.variables,
    )


# --- verification on the tape ----------------------------------------------------------------


def verify(
    graph: Graph,
    entries: Sequence[Entry],
    tape_values: Callable[[Points], tuple[list[np.ndarray], np.ndarray]],
    budget: float,
) -> Verification:
    """Compare every entry with the tape at random points of the domain.

    ``tape_values`` gives the tape's value of each entry at the points, and where all are
    defined; the other points are left out. A point where the two differ in double
    precision is confirmed with 30-digit arithmetic.
    """
    points = _sample(graph)
    tape, defined = tape_values(points)
    try:
        with time_limit(budget):
            symbolic = [_numeric(entry.expr, graph, points) for entry in entries]
            for entry, mine, theirs in zip(entries, symbolic, tape):
                bad = defined & ~np.isclose(mine, theirs, rtol=RTOL, atol=RTOL * 1e-3)
                for k in np.flatnonzero(bad):
                    where = {v: float(points.arrays[v][k]) for v in graph.variables}
                    exact = _exact(entry.expr, where)
                    if exact is None or not np.isclose(exact, theirs[k], rtol=1e-6, atol=1e-9):
                        shown = ", ".join(f"{v}={w:.6g}" for v, w in where.items())
                        return Verification(
                            "differs",
                            int(np.sum(defined)),
                            f"{entry.label} differs at {shown}: symbolic "
                            f"{'undefined' if exact is None else f'{exact:.10g}'}, "
                            f"tape {theirs[k]:.10g} (a bug: please report it)",
                        )
    except CheckTimeout:
        return Verification("unverified", 0, f"no time left to verify (budget {budget:g} s)")
    except (ValueError, TypeError, NameError, KeyError, AttributeError, RecursionError) as error:
        return Verification(
            "unverified", 0, f"sympy's answer could not be evaluated ({type(error).__name__})"
        )
    count = int(np.sum(defined))
    if count < ENOUGH:
        return Verification(
            "unverified", count, f"only {count} of {SAMPLES} random points are in the domain"
        )
    return Verification("verified", count)


def _sample(graph: Graph) -> Points:
    """Random points: a third in [-3, 3], a third in (0, 3], a third in [-10, 10]."""
    rng = np.random.default_rng(SEED)
    third = SAMPLES // 3
    arrays = {
        name: np.concatenate(
            [
                rng.uniform(-3, 3, third),
                rng.uniform(0.05, 3, third),
                rng.uniform(-10, 10, SAMPLES - 2 * third),
            ]
        )
        for name in graph.variables
    }
    return Points(tuple(graph.variables), arrays, None)


def _tape_values(graph, result: DiffResult, points: Points) -> tuple[list[np.ndarray], np.ndarray]:
    """The tape's value of every entry (and the determinant) at the points, and where all
    of them are defined."""
    options = Options(check=False, strict=False, tape=False)
    shape = (SAMPLES,)
    sources = list(result.sources)
    if result.kind == "jacobian":
        jac = jacobian_at(graph, points, sources, options)
        columns = [jac.matrix[i, j] for i in range(len(jac.rows)) for j in range(len(sources))]
        if jac.determinant is not None:
            columns.append(jac.determinant)
        undefined = np.any([row.undefined for row in jac.rows], axis=0)
    elif result.kind == "hessian":
        hess = hessian_at(graph, points, sources, options)
        columns = [hess.matrix[i, j] for i in range(len(sources)) for j in range(len(sources))]
        undefined = hess.undefined
    elif result.kind == "derivative" and result.order > 1:
        orders = derivatives_at(graph, points, sources[0], result.order, options)
        columns, undefined = [orders.derivative], orders.undefined
    else:
        run = gradient_at(graph, points, sources, options)[0]
        columns, undefined = [run.gradient[s] for s in sources], run.undefined
    values = [
        np.broadcast_to(0.0 if c is None else np.asarray(c, dtype=float), shape) for c in columns
    ]
    defined = ~np.broadcast_to(undefined, shape) & np.all(np.isfinite(values), axis=0)
    return values, defined


def _numeric(expr: Any, graph: Graph, points: Points) -> np.ndarray:
    """``expr`` at every point in double precision (NaN where it is not a real number)."""

    symbols = [symbol(v) for v in graph.variables]
    function = lambdify(symbols, expr, modules=LAMBDIFY_MODULES)
    with np.errstate(all="ignore"):
        values = function(*(points.arrays[v] for v in graph.variables))
        values = np.broadcast_to(np.asarray(values), (SAMPLES,))
    if np.iscomplexobj(values):
        values = np.where(values.imag == 0, values.real, np.nan)
    return values.astype(float)


def _exact(expr: Any, where: dict[str, float]) -> float | None:
    """``expr`` at the point with 30 digits, or None where it is not a finite real."""
    import sympy as sp

    subs = {symbol(n): sp.Rational(v) for n, v in where.items()}
    try:
        value = complex(expr.evalf(30, subs=subs))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return value.real if value.imag == 0 and np.isfinite(value.real) else None
