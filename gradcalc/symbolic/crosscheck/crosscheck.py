"""Cross-check the tape's gradients against sympy's symbolic derivatives.

The op graph is turned into sympy expressions with the registry's sympy
counterparts (no text is parsed here), differentiated symbolically, and evaluated
at the point: exactly when the point was given exactly (``--at x=pi/4``), with
``lambdify`` when there are many points (and a sample of them again to 50 digits: floats
cancel as the tape does, :func:`~.values.sample_at_high_precision`). All of it runs under
the request's symbolic budget (:mod:`gradcalc.core.budget`), so a large expression degrades
to "symbolic check skipped" instead of blocking, and a piece that ran out is remembered on
the graph, not tried again; exact constants are size-capped before they are built
(:data:`MAX_EXACT_DIGITS`).

>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> graph = lower(parse_program("3*w1**2 + 2*w1*w2"))
>>> derivatives = symbolic_gradient(graph, 0, ["w1", "w2"])
>>> [str(d) for d in derivatives.values()]
['6*w1 + 2*w2', '2*w1']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from gradcalc.core.budget import CheckTimeout, current
from gradcalc.core.budget import symbolic_limit as time_limit  # every sympy call: the budget
from gradcalc.core.numbers import counted
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.crosscheck.confirm import (
    confirm_mismatches,
    residue_how,
    rounded_points,
    zero_residues,
)
from gradcalc.symbolic.crosscheck.values import (  # noqa: F401 (SHORT_EXACT: used from here)
    RTOL,
    SHORT_EXACT,
    agrees,
    exact_value,
    high_precision,
    mismatch,
    real_value,
    relative_error,
    sample_at_high_precision,
    short_text,
    tape_column,
)
from gradcalc.symbolic.decide.removable import Limit, limit_at
from gradcalc.symbolic.translate.convert import (  # noqa: F401 (the conversion's names, used from here)
    MAX_EXACT_DIGITS,
    ExactTooLarge,
    constant_to_sympy,
    converted,
    exact_at,
    in_variables,
    to_sympy,
)
from gradcalc.symbolic.translate.derivative import derivative
from gradcalc.symbolic.translate.numeric import LAMBDIFY_MODULES, lambdify
from gradcalc.symbolic.translate.shapes import (
    active,
    printed,
    shared_gradient,
    shared_target,
    shared_value,
    sharing,
)

EXACT_POINT_LIMIT = 16  # more points than this are checked with lambdify


def symbolic_gradient(graph: Graph, target: int, sources: Sequence[str]) -> dict[str, Any]:
    """sympy's derivative of target number ``target`` with respect to each source.

    A source that is a statement name (an intermediate) is differentiated as the
    tape does: through the paths that pass through it, the other inputs held fixed.
    The result may contain the intermediate's name (``dz/dy = 2*y``); see
    :func:`~gradcalc.symbolic.translate.convert.in_variables` for the same in terms of the
    free variables.
    """
    import sympy as sp

    shared = shared_gradient(graph, target, sources)
    if shared is not None:
        return shared
    plain = converted(graph)
    result: dict[str, Any] = {}
    for source in sources:
        symbol = sp.Symbol(source, real=True)
        if source in graph.variable_nodes:
            result[source] = derivative(plain[graph.targets[target]], symbol)
        else:
            cut_expr = to_sympy(graph, {graph.bindings[source]: symbol})[graph.targets[target]]
            result[source] = derivative(cut_expr, symbol)
    return result


@dataclass
class Partial:
    """sympy's derivative with respect to one source and its values at the points."""

    source: str
    derivative: Any
    values: np.ndarray
    exact: list[str | None] = field(default_factory=list)
    exact_values: list[Any] = field(default_factory=list)  # sympy numbers, None if skipped
    mismatch: np.ndarray | None = None  # per point: does the tape disagree?
    limits: list[Limit] = field(default_factory=list)  # where sympy's form was 0/0
    kinks: np.ndarray | None = None  # points whose value is f's equal one-sided slopes
    #: per point: is ``values`` exact or high-precision (else sympy's derivative in floats)?
    confirmed: np.ndarray | bool = True
    precise: int = 0  # points whose value is 50 digits, the exact one being out of reach
    #: flat point -> the derivative at the float64 point the tape was given, where the exact
    #: point typed is not a float64 number and the tape agrees with it there (not here)
    rounded: dict[int, float] = field(default_factory=dict)
    #: flat point -> the allowance, where the truth is exactly 0 and the tape's value is
    #: float64's rounding of the derivative's terms (:func:`.confirm.zero_residues`)
    residue: dict[int, float] = field(default_factory=dict)


@dataclass
class CheckReport:
    """How the tape's gradient compares with sympy's, for one target.

    ``status`` is ``"agree"``, ``"disagree"`` or ``"skipped"`` (then ``note`` says why).
    ``mismatch`` marks the points where some component disagrees.
    """

    status: str
    partials: dict[str, Partial] = field(default_factory=dict)
    max_difference: float = 0.0
    mismatch: np.ndarray | None = None
    note: str = ""
    method: str = ""  # "exact values", or "float64" (sympy's derivative lambdified)
    points: int = 0  # the points compared
    kinks: int = 0  # of them, kinks where f's equal one-sided derivatives were compared
    #: the target's own exact value per point (flat; sympy numbers, None where not found),
    #: where the points were given exactly (:func:`gradcalc.engine.judge.exact.settled_value`)
    value_exact: list[Any] = field(default_factory=list)
    #: the worst disagreement: (label, flat point index, tape's value, sympy's value)
    worst: tuple[str, int, float, float] | None = None
    sampled: int = 0  # float64: points at high precision (the sample, and where floats part)
    sample_cut: bool = False  # float64: the time for that sample ran out

    @functools.cached_property
    def derivative_texts(self) -> dict[str, str]:
        """Each source's symbolic derivative as text: printed once, shown at every point.

        >>> import sympy as sp
        >>> partial = Partial("x", 2 * sp.Symbol("x"), np.zeros(1))
        >>> CheckReport("agree", {"x": partial}).derivative_texts
        {'x': '2x'}
        """
        return {name: printed(p.derivative) for name, p in self.partials.items()}

    def meaning(self) -> str:
        """What an agreement rests on, in words: the tape (float64) within RTOL of sympy's
        exact values, or of sympy's derivative evaluated in float64 and at a sample of the
        points to 50 digits -- numeric evidence for the tape at these points, not a proof.

        >>> print(CheckReport("agree", method="float64", points=20, sampled=16).meaning())
        agrees within rtol 1e-7 at 20 points (16 of them at high precision, sympy's derivative
        to 40+ digits at a sample spread over the points and where the floats part; the rest
        with sympy's derivative evaluated in floats, not a proof)
        """
        if self.status == "skipped" or not self.method:
            return self.note
        verb = "agrees within" if self.status == "agree" else "differs by more than"
        where = f"at {counted(self.points, 'point')}"
        if self.status != "agree" and self.mismatch is not None:
            where = f"at {int(np.count_nonzero(self.mismatch)):,} of {self.points:,} points"
        how = "with sympy's exact values"
        if self.method == "float64":
            how = _float_how(self.sampled, self.points, self.sample_cut)
        if self.kinks:  # (engine.judge.kinks)
            how = (how + "; at" if self.method != ONE_SIDED else "at") + f" {KINK_HOW}"
        if any(p.limits for p in self.partials.values()):
            how += "; where sympy's form is 0/0, with its limit"
        rounded = max((len(p.rounded) for p in self.partials.values()), default=0)
        if rounded:
            how += (
                f"; at {rounded} the point typed is not a float64 number: the tape agrees with "
                "the derivative at its nearest float64"
            )
        residues = [s for p in self.partials.values() for s in p.residue.values()]
        if residues:
            how += "; " + residue_how(len(residues), max(residues))
        precise = max((p.precise for p in self.partials.values()), default=0)
        if precise:
            how += f"; at {precise} with 50-digit values, the exact ones being too large"
        return f"{verb} rtol {RTOL:.0e} {where} ({how})".replace("e-0", "e-")


def _float_how(confirmed: int, points: int, cut: bool) -> str:
    """How a check at many points compared them: sympy's derivative in floats, and at
    ``confirmed`` of the ``points`` at high precision (``cut``: the sample's time ran out).

    >>> print(_float_how(0, 20, True))
    float64: sympy's derivative evaluated in floats, not a proof; none at high precision: the
    time for it (a share of --check-timeout) ran out
    """
    if confirmed >= points > 0:
        return "each at high precision: sympy's derivative to 40+ digits"
    if not confirmed:
        late = "; none at high precision: the time for it (a share of --check-timeout) ran out"
        return "float64: sympy's derivative evaluated in floats, not a proof" + late * cut
    return (
        f"{confirmed:,} of them at high precision, sympy's derivative to 40+ digits at a sample "
        "spread over the points and where the floats part; the rest with sympy's "
        "derivative evaluated in floats, not a proof"
    )


@dataclass
class CheckInput:
    """Where and how to compare: the points (floats, and exact text when known), the points
    to skip (undefined there), the time budget, and whether to show long exact values."""

    point: Mapping[str, np.ndarray]
    exact_point: Sequence[Mapping[str, str]] | None
    skip: np.ndarray
    timeout: float = 5.0
    exact_text: bool = False
    value: np.ndarray | None = None  # the target's values (where the sample looks)


def cross_check(
    graph: Graph,
    target: int,
    gradients: Mapping[str, np.ndarray | None],
    where: CheckInput,
) -> CheckReport:
    """Compare the tape's ``gradients`` of target ``target`` with sympy's derivatives.

    A source that is a statement name is differentiated through that statement (see
    :func:`symbolic_gradient`). In a stream that shares derivatives between expressions of
    one shape (:mod:`gradcalc.symbolic.translate.shapes`), a disagreement found with the shared
    derivative is checked again with the expression's own before it is reported.
    """
    key = ("gradient", target, tuple(gradients))
    report = check_against(
        graph,
        key,
        lambda: symbolic_gradient(graph, target, list(gradients)),
        gradients,
        where,
        lambda source, point: shared_value(graph, target, source, point),
    )
    if report.status == "disagree" and active() is not None:
        with sharing(None):
            report = check_against(
                graph,
                (*key, "unshared"),
                lambda: symbolic_gradient(graph, target, list(gradients)),
                gradients,
                where,
            )
    return report


def target_expression(graph: Graph, target: int) -> Any:
    """sympy's expression of target number ``target`` (converted once per graph, or
    through the shared shape in a stream that shares them).

    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> target_expression(lower(parse_program("x*e")), 0)
    E*x
    """
    shared = shared_target(graph, target)
    return converted(graph)[graph.targets[target]] if shared is None else shared


def check_against(
    graph: Graph,
    key: tuple,
    build: Callable[[], Mapping[str, Any]],
    tape_values: Mapping[str, np.ndarray | None],
    where: CheckInput,
    numeric: Callable[[str, Mapping[str, str]], Fraction | float | None] | None = None,
) -> CheckReport:
    """Compare tape values with sympy expressions at the points, within the time budget.

    Args:
        graph: the op graph (its cache keeps ``build``'s result under ``key``).
        key: names the symbolic quantities, for the cache.
        build: makes ``{label: sympy expression}`` (run inside the time limit); the labels
            are those of ``tape_values``. Expressions may name intermediates.
        tape_values: the tape's value per label (``None``: 0, an unconnected source).
        where: the points and options.
        numeric: gives a label's value at an exactly given point where that replaces
            sympy's exact arithmetic: a :class:`~fractions.Fraction` (exact), or a float to
            many digits (then there is no exact value or text); ``None`` there and by
            default: sympy's.
    """
    if ("timed out", key) in graph.cache:  # not tried again: not per chunk, not per job
        return CheckReport("skipped", note=graph.cache["timed out", key])
    sample = (0, False)  # (float64: the points evaluated again to 50 digits; time ran out)
    try:
        with time_limit(where.timeout, (id(graph), key)):
            if key not in graph.cache:
                shown = build()
                graph.cache[key] = shown, {k: in_variables(graph, e) for k, e in shown.items()}
            shown, expanded = graph.cache[key]
            method = "float64"
            if where.exact_point is not None and len(where.exact_point) <= EXACT_POINT_LIMIT:
                partials, method = _exact_partials(expanded, where, numeric), "exact values"
                rounded_points(partials, expanded, tape_values, where)
            else:
                partials = _lambdified_partials(graph, key, expanded, where.point, where.skip)
                confirm_mismatches(graph, partials, expanded, tape_values, where)
            zero_residues(partials, expanded, tape_values, where)
            for label, partial in partials.items():
                partial.derivative = shown[label]
        if method == "float64":  # (its own share of the time: outside the limit above)
            account = graph.cache.setdefault(("sampled", key), {})
            sample = sample_at_high_precision(partials, expanded, tape_values, where, account)
    except CheckTimeout as stop:
        note = f"symbolic check skipped: {stop} ({stop.advice})"
        if (id(graph), key) in current().timed_out:  # it ran out (was not just left out):
            graph.cache["timed out", key] = note  # later chunks and jobs skip it at once
        return CheckReport("skipped", note=note)
    except (ValueError, TypeError, ZeroDivisionError, AttributeError, RecursionError) as failure:
        return CheckReport("skipped", note=f"symbolic check skipped: sympy failed ({failure})")
    except (MemoryError, ArithmeticError) as failure:  # mpmath's tanh(exp(3^30)): 2^47-bit shift
        why = f"a value at the point is out of reach ({type(failure).__name__})"
        return CheckReport("skipped", note=f"symbolic check skipped: {why}")
    report = _compare(partials, tape_values, where.skip)
    report.method, report.points = method, int(np.count_nonzero(~where.skip))
    report.sampled, report.sample_cut, report.note = *sample, _limits_note(partials)
    if not report.points:  # nothing compared: no pass (the points say why: undefined)
        report.status, report.method, report.note = "skipped", "", NOTHING_COMPARED
    return report


NOTHING_COMPARED = "not checked: the derivative is undefined at every point"  # (no point)
ONE_SIDED = "one-sided derivatives"  # the method when only kinks were compared
KINK_HOW = "a kink, with f's equal one-sided derivatives: 30-digit quotients, not a proof"


def _limits_note(partials: Mapping[str, Partial]) -> str:
    """What the check compared where sympy's form was 0/0: its limit ("" if nowhere)."""
    used = {s: p.limits for s, p in partials.items() if p.limits}
    if not used:
        return ""
    one_sided = any(limit.one_sided for limits in used.values() for limit in limits)
    side = " (from one side: on the other the expression is not real)" if one_sided else ""
    names = ", ".join(used)
    return (
        f"sympy's derivative by {names} is 0/0 at the point as sympy writes it: the check "
        f"compared the tape with its limit there{side}"
    )


def _exact_partials(derivatives, where: CheckInput, numeric=None) -> dict[str, Partial]:
    import sympy as sp

    exact_point, skip, exact_text = where.exact_point, where.skip, where.exact_text
    assert exact_point is not None  # the caller checked
    substitutions: dict[int, dict] = {}  # made when sympy evaluates at a point (rarely)

    def substitution(k: int) -> dict:
        if k not in substitutions:
            point = exact_point[k].items()
            substitutions[k] = {sp.Symbol(n, real=True): exact_value(t) for n, t in point}
        return substitutions[k]

    partials = {}
    for source, expr in derivatives.items():
        values: list[float] = []
        shown: list[str | None] = []
        exacts: list[str | None] = []
        limits: list[Limit] = []
        precise = 0
        for k in range(len(exact_point)):
            skipped = bool(skip.reshape(-1)[k] if skip.ndim else skip)
            known = None if skipped or numeric is None else numeric(source, exact_point[k])
            exact = limit = None
            if isinstance(known, Fraction):  # an exact rational
                exact = sp.Rational(known.numerator, known.denominator)
            elif known is None and not skipped:
                try:
                    exact = _substitute(expr, substitution(k))
                    limit = _limit_of_nan(expr, exact, substitution(k))
                except ExactTooLarge:  # (1 + x)^(1/x) at 1e-10: 50 digits, never skipped
                    known, precise = high_precision(expr, substitution(k)), precise + 1
            if exact is None or limit is not None:  # skipped, many digits, or a 0/0 form
                limits += [] if limit is None else [limit]
                values.append(np.nan if skipped else limit.value if limit else float(known or 0))
                shown.append(None)
                exacts.append(None)
                continue
            values.append(real_value(exact))
            shown.append(short_text(exact, exact_text))
            exacts.append(exact)
        array = np.array(values).reshape(skip.shape)
        partials[source] = Partial(
            source, expr, array, shown, exacts, limits=limits, precise=precise
        )
    return partials


def _limit_of_nan(form: Any, exact: Any, substitution: Mapping[Any, Any]) -> Limit | None:
    """Where sympy's form of a derivative is 0/0 (NaN) at a rational point, its limit
    there (:mod:`gradcalc.symbolic.decide.removable`); None anywhere else."""
    import sympy as sp

    if exact is not sp.nan or not all(v.is_Rational for v in substitution.values()):
        return None
    return limit_at(form, {str(s): v for s, v in substitution.items()})


def _substitute(expr: Any, values: dict) -> Any:
    """``expr`` at the point: a structural replacement (several times faster than ``subs``)
    when that gives a number, else sympy's ``subs``."""
    exact = exact_at(expr, values)
    return exact if exact.is_number else expr.subs(values)


def _lambdified_partials(graph: Graph, key: tuple, derivatives, point, skip) -> dict[str, Partial]:
    import sympy as sp

    symbols = [sp.Symbol(v, real=True) for v in graph.variables]
    arrays = [np.asarray(point[v], dtype=float) for v in graph.variables]
    cache_key = ("lambdified", *key)
    if cache_key not in graph.cache:
        graph.cache[cache_key] = {
            source: lambdify(symbols, expr, modules=LAMBDIFY_MODULES)
            for source, expr in derivatives.items()
        }
    functions = graph.cache[cache_key]
    partials = {}
    for source, expr in derivatives.items():
        function = functions[source]
        with np.errstate(all="ignore"):
            values = np.broadcast_to(np.asarray(function(*arrays), dtype=float), skip.shape)
        values = np.where(skip, np.nan, values)
        partials[source] = Partial(source, expr, values, confirmed=np.zeros(skip.shape, bool))
    return partials


def _marked(points: Mapping[int, float], skip: np.ndarray) -> np.ndarray:
    """True at the flat ``points`` of an array shaped as ``skip``."""
    marked = np.zeros(skip.size, dtype=bool)
    marked[list(points)] = True
    return marked.reshape(skip.shape)


def _compare(partials, gradients, skip) -> CheckReport:
    disputed = np.zeros(skip.shape, dtype=bool)
    largest, worst, worst_error = 0.0, None, -1.0
    for source, partial in partials.items():
        tape = tape_column(gradients[source], skip.shape)
        symbolic = np.array(partial.values, dtype=float)
        symbolic.reshape(-1)[list(partial.rounded)] = list(partial.rounded.values())
        bad = mismatch(tape, symbolic, skip, partial.confirmed) & ~_marked(partial.residue, skip)
        with np.errstate(all="ignore"):
            difference = np.abs(tape - symbolic)
        partial.mismatch = bad
        if np.any(~skip):
            finite = difference[~skip & np.isfinite(difference)]
            largest = max(largest, float(finite.max()) if finite.size else 0.0)
        if bad.any():  # the component farthest off, for the words of the disagreement
            errors = np.nan_to_num(np.broadcast_to(relative_error(tape, symbolic), skip.shape))
            k = int(np.argmax(np.where(bad, errors, -1.0).reshape(-1)))
            if errors.reshape(-1)[k] > worst_error:
                point_tape = float(np.broadcast_to(tape, skip.shape).reshape(-1)[k])
                worst = (source, k, point_tape, float(symbolic.reshape(-1)[k]))
                worst_error = float(errors.reshape(-1)[k])
        disputed |= bad
    status = "disagree" if disputed.any() else "agree"
    return CheckReport(status, partials, largest, disputed, worst=worst)
