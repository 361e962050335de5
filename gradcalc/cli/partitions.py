"""One part of a dataset run (``grad --points DATASET --out DIR/``): read the part through the
single-file reader, compute its gradients chunk by chunk, write its rows (the columns of
``--out FILE.parquet``) under a temporary name, and count what the end of the run reports.

The same function runs in one process and on Dask workers, so both give the same bytes. A
worker compiles the expression once per run (:func:`compiled`), seeded with the symbolic
derivatives the client has already built (``PartJob.symbolic``): sympy runs once, on the
client.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.cli.console import Writer
from gradcalc.core.errors import ExitCode, GradcalcError
from gradcalc.io.datasets import DatasetOut
from gradcalc.io.files import Skipped


@dataclass(frozen=True)
class PartJob:
    """What every part of a run computes (sent to each worker with its parts)."""

    run: str  # the run's id: a worker compiles once per run
    text: str
    columns: tuple[str, ...]  # the columns read as variables
    of: tuple[str, ...] | None
    wrt: tuple[str, ...] | None
    id_column: str | None
    skip_bad_rows: bool
    digits: int | None
    diagnose: bool
    latex: bool
    options: Any  # gradcalc.engine.evaluate.results.Options
    symbolic: dict = field(default_factory=dict, compare=False)  # the client's derivatives


@dataclass
class PartSummary:
    """What one part gave: its temporary file (``None``: no row), its rows, the rows
    skipped, the undefined points, the exit code and the warnings; or an input error."""

    index: int
    temporary: str | None = None
    rows: int = 0
    skipped: Skipped | None = None
    undefined: int = 0
    exit_code: int = ExitCode.OK
    messages: list[str] = field(default_factory=list)
    error: str | None = None
    worker: int = field(default_factory=os.getpid)


_COMPILED: dict[str, Any] = {}  # run id -> graph, in this process


def compiled(job: PartJob) -> Any:
    """The job's expression compiled once in this process (per run), its symbolic cache
    seeded with the client's derivatives.

    >>> job = PartJob("r1", "x*y", ("x", "y"), None, None, None, False, None, False, False, None)
    >>> compiled(job) is compiled(job), compiled(job).variables
    (True, ('x', 'y'))
    """
    graph = _COMPILED.get(job.run)
    if graph is None:
        from gradcalc.engine.run.api import compile_expression

        graph = compile_expression(job.text, job.columns, job.of)
        graph.cache.update(job.symbolic)
        _COMPILED.clear()  # (one run at a time per process: the last one kept)
        _COMPILED[job.run] = graph
    return graph


def symbolic_state(graph: Any) -> dict:
    """The entries of a checked graph's cache that travel to workers: the symbolic
    derivatives (and a check's time-out), not the compiled replay or numpy functions (which
    do not pickle: each worker makes its own).

    >>> from gradcalc.engine.run.api import compile_expression, gradient_at

    >>> from gradcalc.engine.evaluate.given import as_points
    >>> graph = compile_expression("x**3", ["x"])
    >>> _ = gradient_at(graph, as_points({"x": 2.0}))
    >>> state = symbolic_state(graph)
    >>> str(state["gradient", 0, ("x",)][0]["x"])
    '3*x**2'
    """
    kept = {}
    for key, value in graph.cache.items():
        try:
            pickle.dumps(value)
        except (pickle.PicklingError, TypeError, AttributeError):
            continue
        kept[key] = value
    return kept


class _PartWriter(Writer):
    """The command's writer, keeping its warnings for the end of the run (on the client)
    instead of printing them, and counting the undefined points."""

    def __init__(self, job: PartJob, path: str, summary: PartSummary):
        super().__init__(None, "csv", job.digits, False, True, job.id_column, path)
        self.summary = summary

    def _once(self, message: str) -> None:
        if message not in self.summary.messages:
            self.summary.messages.append(message)

    def write(self, view: Any, computed: Any) -> None:
        super().write(view, computed)
        results = view.results(computed)
        undefined = np.logical_or.reduce(
            [np.broadcast_to(r.undefined, (r.points.count,)) for r in results]
        )
        self.summary.undefined += int(np.count_nonzero(undefined))
        self.summary.rows += results[0].points.count

    def close(self) -> None:
        self.results.close()


def run_part(job: PartJob, index: int, path: str, out: DatasetOut) -> PartSummary:
    """Part ``index`` (the Parquet file ``path``) computed and written to a temporary file
    of ``out``; an input error (a bad row, a missing column) is returned with its message,
    not raised.
    """
    from gradcalc.engine.run.api import gradient_at
    from gradcalc.io.parquet import read_table_file
    from gradcalc.render.views.views import GradView

    summary = PartSummary(index, skipped=Skipped(part=path) if job.skip_bad_rows else None)
    temporary = out.temporary(index)
    try:
        graph = compiled(job)
        view = GradView(job.diagnose, job.latex)
        writer = _PartWriter(job, temporary, summary)
    except GradcalcError as error:
        summary.error, summary.exit_code = error.message, int(error.exit_code)
        return summary
    try:
        wrt = None if job.wrt is None else list(job.wrt)
        for chunk in read_table_file(path, job.columns, job.id_column, summary.skipped):
            writer.write(view, gradient_at(graph, chunk, wrt, job.options))
        writer.close()
    except BaseException as error:
        writer.abandon()  # (the part's file is not left half-written)
        if not isinstance(error, GradcalcError):
            raise
        summary.error, summary.exit_code = error.message, int(error.exit_code)
        return summary
    summary.exit_code = int(writer.exit_code)
    summary.temporary = temporary if os.path.exists(temporary) else None
    return summary
