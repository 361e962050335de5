"""Judge one tape computation for the public API: which points are undefined and why,
warnings about kinks taken conventionally and unused variables, the symbolic check, the
shown (exact where known) values and the diagnostics -- everything a result carries
besides the tape's numbers.

>>> from gradcalc.engine.run.api import compile_expression
>>> from gradcalc.engine.evaluate.evaluate import evaluate
>>> from gradcalc.engine.evaluate.points import Points
>>> graph = compile_expression("x*y + x", ["x", "y", "z"])
>>> at = Points(("x", "y", "z"), {"x": np.array(2.0), "y": np.array(3.0), "z": np.array(0.0)}, None)
>>> (result,) = gradient_results(evaluate(graph, at.arrays), at, Options(check=False))
>>> float(result.gradient["x"]), result.warnings
(4.0, ['z is not used by f: it is independent (gradient 0)'])
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from gradcalc.core.errors import UndefinedError
from gradcalc.core.ops import NOT_DIFFERENTIABLE
from gradcalc.core.problems import Problem
from gradcalc.engine.evaluate.diagnostics import diagnose, non_finite, settle_units
from gradcalc.engine.evaluate.evaluate import Evaluation, TapeRow
from gradcalc.engine.evaluate.findings import KINDS, Finding
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.evaluate.results import GradResult, Options
from gradcalc.engine.evaluate.singular import GRADIENT, Singularity, singularities
from gradcalc.engine.judge.exact import (
    below_float64,
    exact_texts,
    settled,
    settled_value,
    value_texts,
)
from gradcalc.engine.judge.kinks import HigherDerivative, checked_at_kinks, settle, settled_findings
from gradcalc.engine.judge.tangent import tangent
from gradcalc.lang.graph import Graph

if TYPE_CHECKING:  # (the check itself is imported when it runs: --no-check never loads it)
    from gradcalc.symbolic.crosscheck.crosscheck import CheckInput, CheckReport

#: The check of a constant: no variable, so no derivative to compare (never "agree").
NO_VARIABLES = "not checked: there are no variables, so there is no derivative to compare"


@dataclass(eq=False)
class Computed:
    """What a tape computation produced for one target, before it is judged and checked."""

    graph: Graph
    target: int
    sources: tuple[str, ...]
    value: np.ndarray
    gradient: Mapping[str, np.ndarray | None]
    rows: Sequence[TapeRow]
    problems: list[Problem]
    #: the diagnostic findings when already known (from the replay), else diagnosed here
    findings: list[Finding] | None = None
    #: the check's label for a source's derivative, where it is not the source's name
    labels: dict[str, str] = field(default_factory=dict)
    #: rows naming the problems' records, where ``rows`` are not (see :class:`Evaluation`)
    named_by: list[TapeRow] | None = None
    #: higher derivatives (``∂²f/∂x∂y``): checked for overflow too, and at a kink for
    #: existence (f's one-sided derivatives of that order)
    higher: Sequence[HigherDerivative] = ()

    @property
    def naming_rows(self) -> Sequence[TapeRow]:
        """The rows that name the problems' and findings' records."""
        return self.rows if self.named_by is None else self.named_by

    def beside_the_question(self, record: int) -> bool:
        """Whether tape record ``record`` reaches no variable differentiated by: ``abs(x)``
        in ``abs(x)*y``, differentiated by y only. The derivatives asked for (of every
        order) never use its slope, so a kink or a saturated slope there concerns none."""
        graph, sources, rows = self.graph, self.sources, self.naming_rows
        if not all(s in graph.variable_nodes for s in sources):
            return False  # (by a statement's name: its dependencies are the statement's)
        if not 0 < record <= len(rows):
            return False
        node = rows[record - 1].node
        return node is not None and not graph.variables_under(node) & set(sources)


Result = TypeVar("Result", bound=GradResult)


def gradient_results(run: Evaluation, points: Points, options: Options) -> list[GradResult]:
    """One judged and checked :class:`GradResult` per target of an evaluation."""
    return [
        finish(
            GradResult,
            Computed(
                run.graph,
                k,
                run.sources,
                run.values[k],
                run.gradients[k],
                run.rows[k],
                run.problems[k],
                None if run.findings is None else run.findings[k],
                named_by=None if run.named_by is None else run.named_by[k],
            ),
            points,
            options,
            functools.partial(_cross_check, run.graph, k, run.gradients[k]),
        )
        for k in range(len(run.graph.targets))
    ]


def _cross_check(
    graph: Graph, target: int, gradients: Mapping[str, np.ndarray | None], where: CheckInput
) -> CheckReport:
    """:func:`~gradcalc.symbolic.crosscheck.crosscheck.cross_check`, imported as it runs."""
    from gradcalc.symbolic.crosscheck.crosscheck import cross_check

    return cross_check(graph, target, gradients, where)


def filled(value: bool | int, shape: tuple[int, ...]) -> np.ndarray:
    """A read-only array of ``value``: for many points a view of one number (filling 10^6
    entries costs a millisecond), for a few one array made once per shape and shared (a
    point's result, or a batch's, needs no fresh one: filling costs a microsecond each).

    >>> filled(False, (2,)), filled(-1, (10**6,)).strides
    (array([False, False]), (0,))
    >>> filled(False, ()) is filled(False, ()), filled(False, ()).flags.writeable
    (True, False)
    """
    if math.prod(shape) < 4096:
        return _shared(value, shape)
    return np.broadcast_to(np.asarray(value), shape)


@functools.lru_cache(maxsize=256, typed=True)  # (False and 0 are equal keys otherwise)
def _shared(value: bool | int, shape: tuple[int, ...]) -> np.ndarray:
    """One read-only array of ``value`` in ``shape`` (see :func:`filled`)."""
    array = np.full(shape, value)
    array.flags.writeable = False
    return array


@dataclass(eq=False)
class _Verdict:
    """The singularities of one computation and the points they concern."""

    found: list[Singularity]
    undefined: np.ndarray
    value_undefined: np.ndarray
    conventional: np.ndarray  # kinks given their conventional value (``subgradient``)
    first_reason: np.ndarray
    gradient: Mapping[str, Any]  # the tape's, with the limits at differentiable kinks
    decided: np.ndarray  # points whose kink was decided differentiable on the whole f
    higher: dict[str, Any]  # higher derivatives by label, with their limits at decided points


def _per_point(mask: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A problem's mask in the points' shape: a tensor op's record may keep an axis of
    length 1 where the points have none (a nested tape's ``reshape`` in ``dot``'s rule, at
    one point: (1,) for a 0-d value).

    >>> _per_point(np.array([True]), ()).shape, _per_point(np.array(True), (3,)).tolist()
    ((), [True, True, True])
    """
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != shape and mask.size == math.prod(shape):
        return mask.reshape(shape)
    return np.broadcast_to(mask, shape)


def _judge(run: Computed, points: Points, options: Options, warnings: list[str]) -> _Verdict:
    """Find the undefined points; with ``subgradient``, kinks take their conventional value
    with a warning; with ``strict``, any singularity left raises :class:`UndefinedError`."""
    graph, k = run.graph, run.target
    name = graph.target_names[k]
    shape = run.value.shape
    problems = [
        p
        for p in run.problems
        if p.kind != NOT_DIFFERENTIABLE or not run.beside_the_question(p.record.index)
    ]
    found = singularities(graph, problems, run.naming_rows, points, k, run.sources)
    pairs = (problems, found)
    kinks = settle(graph, k, run.sources, run.gradient, points, pairs, options.check, run.higher)
    problems, found = kinks.problems, kinks.found
    warnings.extend(kinks.notes)
    masks = [p.mask for p in problems] + [mask.reshape(shape) for _, mask in kinks.exact_kinks]
    found = found + [singular for singular, _ in kinks.exact_kinks]
    undefined = value_undefined = conventional = filled(False, shape)
    if found:
        undefined, value_undefined = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool)
        conventional = np.zeros(shape, dtype=bool)
    for singular, mask in zip(found, masks):
        if singular.kind == NOT_DIFFERENTIABLE and options.subgradient:
            warnings.append(
                f"{singular.describe(points, name)}; --subgradient: using the conventional value"
            )
            conventional |= _per_point(mask, shape)
            continue
        undefined |= _per_point(mask, shape)
        if singular.value_undefined:
            value_undefined |= _per_point(mask, shape)
    if points.bad is not None:  # a value that was not a number: never checked nor shown
        bad = _per_point(points.bad, shape)
        undefined, value_undefined = undefined | bad, value_undefined | bad
    if options.subgradient:
        found = [s for s in found if s.kind != NOT_DIFFERENTIABLE]
    decided = np.zeros(math.prod(shape), dtype=bool)
    decided[list(kinks.decided)] = True  # (a kink whose one-sided derivatives agree)
    explained = undefined | conventional | decided.reshape(shape)
    for overflow in unexplained_gradients(run, explained, name):
        undefined = undefined | _per_point(overflow.mask, shape)
        found.append(overflow.singularity)
    if options.strict and found:
        raise UndefinedError(found[0].describe(points, name))
    size = max(math.prod(shape), 1)
    first_reason = np.full(size, -1) if found else filled(-1, (size,))
    for i, singular in reversed(list(enumerate(found))):
        first_reason[singular.points] = i
    return _Verdict(
        found,
        undefined,
        value_undefined,
        conventional,
        first_reason,
        kinks.gradient,
        decided.reshape(shape),
        kinks.higher,
    )


@dataclass(eq=False)
class _Unexplained:
    """A derivative that is NaN or infinite where no record's problem explains it."""

    singularity: Singularity
    mask: np.ndarray


def unexplained_gradients(run: Computed, explained: np.ndarray, name: str) -> list[_Unexplained]:
    """The derivatives that overflow float64 (or are NaN) at points no singularity explains:
    in ``1/x`` at 1e-200 every record is finite, but ∂f/∂x = -1e400 is not a float64. The
    derivative exists; it is undefined here only as a float64, and said so (never checked,
    never shown as -inf)."""
    found = []
    named = {f"∂{name}/∂{source}": g for source, g in run.gradient.items()}
    for subject, gradient in {**named, **{h.name: h.values for h in run.higher}}.items():
        if gradient is None:
            continue
        with np.errstate(all="ignore"):
            bad = ~np.isfinite(gradient)
        mask = np.broadcast_to(bad, run.value.shape) & ~explained
        if not mask.any():
            continue
        infinite = np.isinf(np.where(mask, gradient, 0.0)).any()
        reason = "overflow: beyond float64's largest number, 1.8e308" if infinite else "NaN"
        points = np.flatnonzero(mask.reshape(-1))
        found.append(_Unexplained(Singularity(GRADIENT, subject, 0, "", reason, points), mask))
    return found


def _checked(
    run: Computed,
    points: Points,
    options: Options,
    verdict: _Verdict,
    check: Callable[[CheckInput], CheckReport],
    warnings: list[str],
) -> tuple[CheckReport | None, np.ndarray, _Verdict]:
    """The symbolic check's report (``None`` without ``check``), the value to show, and the
    verdict with the points where float64 rounded past a singularity undefined."""
    if not options.check:
        return None, run.value, verdict
    from gradcalc.symbolic.crosscheck.crosscheck import NOTHING_COMPARED, CheckInput, CheckReport

    if not run.gradient:  # a constant (a job or a call with no variables): nothing to compare
        warnings.append(NO_VARIABLES)
        return CheckReport("skipped", note=NO_VARIABLES), run.value, verdict

    # a convention is no derivative to confirm; a kink decided on the whole f is confirmed
    skip = verdict.undefined | verdict.conventional | verdict.decided
    where = CheckInput(
        points.arrays, points.exact, skip, options.check_timeout, options.exact, run.value
    )
    report = check(where)
    verdict = _rounded_past(run, points, options, verdict, report)
    columns = {run.labels.get(s, s): g for s, g in verdict.gradient.items()}
    checked_at_kinks(report, verdict.decided & ~verdict.undefined, {**columns, **verdict.higher})
    shown_value = run.value
    if report.status != "skipped":
        shown_value, report.value_exact = settled_value(run.graph, run.target, run.value, where)
    if report.note and report.note != NOTHING_COMPARED:  # (the reasons are on stderr)
        warnings.append(report.note)
    if report.status == "disagree":
        from gradcalc.engine.judge.disagreement import disagreement  # (only when it is one)

        warnings.append(disagreement(report, run.graph.target_names[run.target], points))
    return report, shown_value, verdict


def _rounded_past(
    run: Computed, points: Points, options: Options, verdict: _Verdict, report: CheckReport
) -> _Verdict:
    """``verdict`` with the points where float64 rounded past a singularity
    (:mod:`gradcalc.engine.judge.rounded`) undefined, and taken out of ``report``."""
    if report.status != "disagree":  # (only a point that disagrees can be one)
        return verdict
    from gradcalc.engine.judge.rounded import rounded_past, taken_out, value_undefined

    shape = verdict.undefined.shape
    where = rounded_past(report, max(math.prod(shape), 1))
    if not where.any():
        return verdict
    name = run.graph.target_names[run.target]
    singular = taken_out(report, where, name)
    if options.strict:
        raise UndefinedError(singular.describe(points, name))
    first_reason = np.where(
        where & (verdict.first_reason < 0), len(verdict.found), verdict.first_reason
    )
    mask = where.reshape(shape)
    return replace(
        verdict,
        found=[*verdict.found, singular],
        undefined=verdict.undefined | mask,
        value_undefined=verdict.value_undefined
        | value_undefined(run.graph, run.target, points, where).reshape(shape),
        first_reason=first_reason,
    )


def finish(
    kind: type[Result],
    run: Computed,
    points: Points,
    options: Options,
    check: Callable[[CheckInput], CheckReport],
    **extra: Any,
) -> Result:
    """Judge the undefined points, warn about unused variables, run the symbolic check; build
    the ``kind`` of result with its own fields in ``extra``."""
    graph = run.graph
    name = graph.target_names[run.target]
    warnings: list[str] = [*graph.ambiguities, *points.warnings]
    verdict = _judge(run, points, options, warnings)
    for source in run.sources:
        if run.gradient[source] is None and source in graph.variable_nodes:
            warnings.append(f"{source} is not used by {name}: it is independent (gradient 0)")
    report, shown_value, verdict = _checked(run, points, options, verdict, check, warnings)
    result = kind(
        expression=graph.text,
        target=name,
        sources=run.sources,
        points=points,
        value=_masked(run.value, verdict.value_undefined),
        gradient={s: _masked(g, verdict.undefined) for s, g in verdict.gradient.items()},
        tape=run.rows,
        singularities=verdict.found,
        undefined=verdict.undefined,
        value_undefined=verdict.value_undefined,
        first_reason=verdict.first_reason,
        check=report,
        warnings=warnings,
        read_as=graph.read_as,
        read_warnings=graph.ambiguities,
        higher=verdict.higher,
        **extra,
    )
    labels = {s: run.labels.get(s, s) for s in run.gradient}
    result.shown = {
        s: None if g is None else settled(g, report, labels[s]) for s, g in verdict.gradient.items()
    }
    result.exact = {s: exact_texts(report, labels[s]) for s in run.gradient}
    result.shown_value = shown_value
    result.exact_value = value_texts(report, options.exact)
    result.diagnostics = _diagnostics(result, run, options, verdict.decided)
    result.tangent = tangent(result) if options.tangent else None
    return result


def _masked(values: Any, undefined: np.ndarray) -> Any:
    """``values`` with NaN where ``undefined`` (the tape's -2 for ∂/∂x of log(x)*y at -1 is
    no number); ``None`` (an independent source) as it is."""
    if values is None or not np.any(undefined):
        return values
    with np.errstate(invalid="ignore"):
        return np.where(undefined, np.nan, np.asarray(values, dtype=float))


def _diagnostics(
    result: Result, run: Computed, options: Options, decided: np.ndarray
) -> list[Finding]:
    """The result's findings: a kink's settled where f's one-sided derivatives agree, a
    saturated or off unit where other paths carry the gradient of the variables behind it;
    none about a record beside the question (a variable not differentiated by)."""
    if run.findings is None:
        findings = diagnose(result, options.thresholds)
    else:  # NaN and infinity are the problems', the others the replay's (sorted by kind)
        findings = non_finite(result) + run.findings
    findings = _underflowed(result, run, options, findings)
    asked = [
        f
        for f in findings
        if f.kind not in ("saturated", "kink")
        or f.record is None
        or not run.beside_the_question(f.record)
    ]
    settled = settled_findings(asked, decided)
    rows_at = functools.partial(_rows_at, run, result.points, result.value.shape)
    return settle_units(settled, result, options.thresholds, rows_at)


def _underflowed(
    result: Result, run: Computed, options: Options, findings: list[Finding]
) -> list[Finding]:
    """``findings`` with a vanishing one for each component float64 shows as 0 where the
    check knows it is not (``exp(-x^2)``'s at 30: -60·exp(-900)); only an exact 0 is none."""
    if result.check is None:
        return findings
    shape, count = result.value.shape, max(result.value.size, 1)
    reported = {f.source for f in findings if f.kind == "vanishing"}
    extra = []
    for name in result.gradient:
        label = run.labels.get(name, name)
        mask = below_float64(result.check, label, count).reshape(shape) & ~result.undefined
        if name not in reported and mask.any():
            k = int(np.flatnonzero(mask.reshape(-1))[0])
            texts = exact_texts(result.check, label)
            exact = texts[k] if k < len(texts) else None
            if exact is None:  # (a long exact value: 10^(-400) written out)
                assert result.check is not None  # (below_float64 found it)
                exact = str(result.check.partials[label].exact_values[k].evalf(3)).replace("E", "e")
            said = f" = {exact}"
            if exact.lstrip("-").startswith("0.e"):  # (no digit known: evalf bounds it only)
                said = f", not 0 but below 1{exact.split('.', 1)[1]},"
            message = (
                f"∂{result.target}/∂{name}{said} is below {options.thresholds.vanishing:g}: "
                "float64 shows 0, to which it underflows"
            )
            extra.append(Finding("vanishing", message, None, mask, name))
    return sorted(findings + extra, key=lambda f: KINDS.index(f.kind)) if extra else findings


def _rows_at(
    run: Computed, points: Points, shape: tuple[int, ...], where: np.ndarray
) -> Sequence[TapeRow]:
    """The target's full tape at some of the points (flat indices ``where``)."""
    from gradcalc.engine.evaluate.evaluate import evaluate

    arrays = {
        v: np.broadcast_to(points.arrays[v], shape).reshape(-1)[where] for v in run.graph.variables
    }
    return evaluate(run.graph, arrays, run.sources).rows[run.target]
