"""Many points at once for the public API: replay the recorded tape chunk by chunk
(:mod:`gradcalc.engine.compile.replay`), then compute just the points that need explaining
(undefined, at a kink, NaN) on a full tape and merge them back, with the diagnoses of the
replay's findings told by a full tape at one point each.

>>> from gradcalc.engine.run.api import compile_expression
>>> graph = compile_expression("log(x)")
>>> points = Points(("x",), {"x": np.linspace(-1.0, 1.0, 300)}, None)
>>> run = swept(graph, points, None, Options(check=False, strict=False))
>>> int(np.isnan(run.values[0]).sum()), len(run.problems[0])
(150, 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.core.problems import Problem
from gradcalc.engine.evaluate.evaluate import Evaluation, TapeRow, evaluate, lazy_rows, source_names
from gradcalc.engine.evaluate.findings import KINDS, Finding
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.evaluate.results import Options
from gradcalc.engine.judge.judge import gradient_results
from gradcalc.lang.graph import Graph

if TYPE_CHECKING:
    from gradcalc.engine.compile.replay import SweepResult

#: Fewer points than this are computed on a full tape (the replay only pays off for batches).
SWEEP_MIN_POINTS = 256


def swept(
    graph: Graph, points: Points, wrt: Sequence[str] | None, options: Options
) -> Evaluation | None:
    """The evaluation by replaying the recorded tape, with the points that need explaining
    computed again on a full tape; ``None`` when the caller wants the full tape
    (``options.tape``) or there are few points."""
    if options.tape or points.count < SWEEP_MIN_POINTS or not graph.elementwise:
        return None
    if any(v not in points.arrays or points.arrays[v].ndim > 1 for v in graph.variables):
        return None  # the full tape reports the missing value, or holds the matrix
    sources = source_names(graph, wrt)
    columns = [points.arrays[v] for v in graph.variables]
    if len({c.shape for c in columns}) > 1:
        columns = list(np.broadcast_arrays(*columns))
    arrays = dict(zip(graph.variables, columns))
    # (imported here: a command at one point never replays, and need not start with the
    # replay's thread pool and fused kernels)
    from gradcalc.engine.compile.replay import run_sweep
    from gradcalc.engine.compile.sweep import sweep_for

    out = run_sweep(sweep_for(graph, sources), arrays, options.thresholds)
    targets = range(len(graph.targets))
    rows: list[Sequence[TapeRow]] = [[] for _ in targets]
    if options.tape is None:  # recorded on a full tape if anyone looks
        rows = lazy_rows(graph, arrays, sources)
    findings = _findings(graph, points, sources, options, out)  # tracked for one target only
    run = Evaluation(
        graph,
        sources,
        out.values,
        out.gradients,
        rows,
        [[] for _ in targets],
        [findings] + [[] for _ in graph.targets[1:]],
    )
    if out.flagged is not None:
        _explain(run, points, arrays, out.flagged, options)
    return run


def _explain(
    run: Evaluation,
    points: Points,
    arrays: Mapping[str, np.ndarray],
    flagged: np.ndarray,
    options: Options,
) -> None:
    """Compute the ``flagged`` points of a replayed batch on a full tape and merge them into
    ``run``: their values and gradients, the problems (masks over every point) and the
    diagnostic findings."""
    where = np.flatnonzero(flagged)
    subset = Points(
        points.names,
        {n: arrays[n][where] if n in arrays else a for n, a in points.arrays.items()},
        None if points.exact is None else [points.exact[k] for k in where],
    )
    tape = evaluate(run.graph, {v: arrays[v][where] for v in run.graph.variables}, run.sources)
    explained = gradient_results(tape, subset, replace(options, check=False, strict=False))
    run.named_by = [list(r) for r in tape.rows]
    assert run.findings is not None  # set by _swept
    for k, result in enumerate(explained):
        run.values[k][where] = tape.values[k]
        for source, column in run.gradients[k].items():
            if column is not None:
                column[where] = tape.gradients[k][source]
        run.problems[k] = [
            Problem(p.record, p.kind, p.reason, _spread(p.mask, where, flagged.shape))
            for p in tape.problems[k]
        ]
        spread = [
            replace(f, mask=_spread(f.mask, where, flagged.shape))
            for f in result.diagnostics
            if f.kind != "non-finite"  # found again from the merged problems
        ]
        run.findings[k] = _merge_findings(run.findings[k], spread, run.sources)


def _spread(mask: np.ndarray, where: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A mask over the points ``where`` as a mask over every point."""
    full = np.zeros(shape, dtype=bool)
    full[where] = np.broadcast_to(mask, where.shape)
    return full


def _merge_findings(
    replayed: list[Finding], explained: list[Finding], sources: Sequence[str]
) -> list[Finding]:
    """One finding per kind and subject (source or record), the points of both merged and
    the message of whichever came first, in :func:`diagnose`'s order."""

    def key(f: Finding) -> tuple[Any, ...]:
        subject = sources.index(f.source) if f.source is not None else f.record
        return (KINDS.index(f.kind), subject, f.message if f.kind == "kink" else "")

    merged: dict[tuple[Any, ...], Finding] = {}
    for finding in replayed + explained:
        known = merged.get(key(finding))
        if known is None:
            merged[key(finding)] = finding
            continue
        first = min((known, finding), key=lambda f: int(np.argmax(f.mask)))
        merged[key(finding)] = replace(first, mask=known.mask | finding.mask)
    return [merged[k] for k in sorted(merged)]


def _findings(
    graph: Graph, points: Points, sources: Sequence[str], options: Options, out: SweepResult
) -> list[Finding]:
    """The diagnoses of a replayed batch: the replay marked the points of each finding; a
    full tape at the first of them says which op is to blame, in :func:`diagnose`'s words."""
    findings = []
    diagnosed: dict[int, list[Finding]] = {}  # several findings often share their first point

    def diagnoses_at(k: int) -> list[Finding]:
        if k not in diagnosed:
            single = Points(
                points.names,
                {n: np.atleast_1d(a)[k : k + 1] for n, a in points.arrays.items()},
                None if points.exact is None else points.exact[k : k + 1],
            )
            full_tape = evaluate(graph, single.arrays, sources)
            at_k = gradient_results(full_tape, single, replace(options, check=False))
            diagnosed[k] = at_k[0].diagnostics
        return diagnosed[k]

    for (kind, key), mask in out.findings.items():
        if not mask.any():
            continue
        there = next(
            f
            for f in diagnoses_at(int(np.argmax(mask)))
            if f.kind == kind and (f.record == key or f.source == key)
        )
        findings.append(replace(there, mask=mask))
    return findings
