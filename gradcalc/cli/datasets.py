"""``grad --points DATASET --out DIR/ [--cluster ADDRESS]``: the gradient over a partitioned
Parquet dataset, one output part per input part, in this process or on a Dask cluster.

The client reads the columns of the first part, compiles and checks the expression once
(sympy's derivatives travel to the workers with the job); the parts run in this process one
after the other, or as one Dask task each (:func:`gradcalc.cli.partitions.run_part`, the same
function either way: the same bytes); the end of the run renames the parts into place and
reports the rows skipped, the points undefined and the warnings, with the exit code one
process would give.

Only ``grad`` with ``--cluster`` or ``--out DIR/`` runs here: the dataset machinery (Parquet,
the part jobs, Dask's address) is imported when such a run starts, not by every ``grad``.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gradcalc.cli.inputs import (
    candidate_columns,
    check_given,
    columns_read,
    expression_text,
    names,
)
from gradcalc.core.errors import ExitCode, InputError, reason_of
from gradcalc.core.numbers import counted

if TYPE_CHECKING:
    from gradcalc.cli.partitions import PartJob, PartSummary
    from gradcalc.io.datasets import DatasetOut

SAMPLE_ROWS = 1024  # rows of the first part the client computes to build the check


@dataclass(frozen=True)
class DatasetRequest:
    """The options of ``grad`` that a dataset run uses, as given on the command line."""

    expression: str
    points: str | None
    out: str | None
    cluster: str | None  # (None: $GRADCALC_CLUSTER, else this process)
    columns: str | None
    id_column: str | None
    skip_bad_rows: bool
    wrt: str | None
    of: str | None
    digits: int | None
    diagnose: bool
    latex: bool
    options: Any


def is_directory_out(out: str | None) -> bool:
    """Whether ``--out`` names a dataset to write (:func:`gradcalc.io.datasets.is_directory_out`);
    without ``--out``, no dataset module is imported.

    >>> is_directory_out(None), is_directory_out("results/")
    (False, True)
    """
    if out is None:
        return False
    from gradcalc.io.datasets import is_directory_out as names_a_directory

    return names_a_directory(out)


def refuse_with_dataset(
    points: str | None,
    out: str | None,
    at: list[str] | None,
    order: int,
    direction: str | None,
    output: str,
) -> None:
    """Refuse what a dataset run does not do: it reads --points and writes --out DIR/ the
    gradient's rows (CSV's columns, in Parquet).

    >>> refuse_with_dataset("data/", None, None, 1, None, "table")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: --cluster writes a Parquet dataset: give --out DIR/ ...
    """
    if not is_directory_out(out):
        raise InputError(
            "--cluster writes a Parquet dataset: give --out DIR/ (a directory, ending in /)"
        )
    if at or not points:
        raise InputError("--out DIR/ writes the results of a dataset: give it with --points")
    if order != 1 or direction is not None:
        raise InputError("--out DIR/ writes the gradient's rows: drop --order and --direction")
    if output not in ("table", "csv"):
        raise InputError(f"--out writes CSV or Parquet rows: drop --format {output}")


def run_dataset(request: DatasetRequest, refused: tuple[Any, int, str | None, str]) -> int:
    """Compute every part, write the dataset, report; the exit code (as one process).
    ``refused``: ``--at``, ``--order``, ``--direction`` and ``--format``, checked first."""
    from gradcalc.io.cluster import parse_cluster
    from gradcalc.io.datasets import DatasetOut

    refuse_with_dataset(request.points, request.out, *refused)
    assert request.points is not None and request.out is not None  # (refused otherwise)
    parts = _parts(request.points)
    out = DatasetOut(request.out)
    job = _job(request, parts[0], out.run)
    cluster = request.cluster or os.environ.get("GRADCALC_CLUSTER") or None
    if cluster is not None:
        parse_cluster(cluster)  # (a wrong address before anything is written)
    out.prepare()
    try:
        summaries = list(_summaries(job, parts, out, cluster))
        failed = next((s for s in summaries if s.error is not None), None)
        if failed is not None:
            raise InputError(failed.error or "")
        written = out.finish({s.index: s.temporary for s in summaries if s.temporary})
    except BaseException:
        out.fail()  # (no part left that looks finished)
        raise
    return _report(summaries, written, out.directory)


def _parts(points: str) -> list[str]:
    """The Parquet files to read: a dataset's, or one file."""
    from gradcalc.io.datasets import dataset_parts, is_dataset
    from gradcalc.io.parquet import PARQUET

    if is_dataset(points):
        return dataset_parts(points)
    if not points.lower().endswith(PARQUET):
        raise InputError(
            f"--out DIR/ and --cluster read Parquet files: {points} is not one (convert it, "
            "or write the results to --out FILE.csv)"
        )
    return [points]


def _job(request: DatasetRequest, first: str, run: str) -> PartJob:
    """The expression compiled for the columns of the first part and checked on its first
    rows (errors surface here, before any part runs); the job every part computes."""
    from gradcalc.cli.partitions import PartJob, symbolic_state
    from gradcalc.engine.run.api import compile_expression, gradient_at
    from gradcalc.io.files import Skipped
    from gradcalc.io.parquet import read_table_file, table_columns

    text = expression_text(request.expression, request.points)
    of, wrt = names(request.of), names(request.wrt)
    header = table_columns(first)
    chosen = names(request.columns)
    if chosen is None:
        candidates = candidate_columns(header, request.id_column)
        chosen = columns_read(compile_expression(text, candidates, of), candidates, wrt)
    graph = compile_expression(text, chosen, of)
    skipped = Skipped() if request.skip_bad_rows else None
    rows = read_table_file(first, chosen, request.id_column, skipped, SAMPLE_ROWS)
    sample = next(rows, None)
    check_given(graph, tuple(chosen), header, request.id_column, request.columns)
    options = dataclasses.replace(request.options, tape=False)
    if sample is not None and options.check:
        gradient_at(graph, sample, wrt, options)  # sympy, once
    return PartJob(
        run,
        text,
        tuple(chosen),
        None if of is None else tuple(of),
        None if wrt is None else tuple(wrt),
        request.id_column,
        request.skip_bad_rows,
        request.digits,
        request.diagnose,
        request.latex,
        options,
        symbolic_state(graph),
    )


def _summaries(
    job: PartJob, parts: list[str], out: DatasetOut, cluster: str | None
) -> Iterator[PartSummary]:
    """Each part's summary, in this process (stopping at the first error) or on a cluster."""
    from gradcalc.cli.partitions import run_part

    if cluster is None:
        for index, path in enumerate(parts):
            summary = run_part(job, index, path, out)
            yield summary
            if summary.error is not None:
                return
        return
    from gradcalc.io.cluster import connect

    with connect(cluster) as client:
        yield from _on_cluster(client, job, parts, out, cluster)


def _on_cluster(
    client: Any, job: PartJob, parts: list[str], out: DatasetOut, cluster: str
) -> Iterator[PartSummary]:
    """One Dask task per part; a task lost with its worker is run again by Dask. The first
    input error, or a cluster that cannot finish, cancels the rest."""
    import distributed

    from gradcalc.cli.partitions import run_part

    futures = [
        client.submit(run_part, job, index, path, out, key=f"gradcalc-{out.run}-{index}")
        for index, path in enumerate(parts)
    ]
    try:
        for future in distributed.as_completed(futures):
            summary = future.result()
            yield summary
            if summary.error is not None:
                break
    except (distributed.KilledWorker, OSError, TimeoutError) as error:
        raise InputError(
            f"the run on --cluster {cluster} failed ({reason_of(error)}): "
            "no part was finished; run it again"
        ) from None
    finally:
        client.cancel(futures)


def _report(summaries: list[PartSummary], written: list[str], directory: str) -> int:
    """Print the run's warnings once each, the rows skipped and undefined, what was written;
    the exit code: 1 if a check failed, else 3 if a point was undefined, else 0."""
    from gradcalc.io.files import Skipped

    messages = dict.fromkeys(m for s in summaries for m in s.messages)
    for message in messages:
        print(message, file=sys.stderr)
    skipped = [s.skipped for s in summaries if s.skipped is not None]
    if skipped and sum(s.count for s in skipped):
        merged = Skipped(
            sum(s.count for s in skipped),
            sum(s.rows for s in skipped),
            [reason for s in skipped for reason in s.reasons][:3],
        )
        print(f"warning: {merged.summary('dataset')}", file=sys.stderr)
    rows = sum(s.rows for s in summaries)
    undefined = sum(s.undefined for s in summaries)
    if undefined:
        print(f"gradcalc: undefined at {undefined:,} of {rows:,} points", file=sys.stderr)
    parts = f"{counted(len(written), 'part')}, {counted(rows, 'row')}"
    print(f"wrote {directory} ({parts})", file=sys.stderr)
    codes = {s.exit_code for s in summaries}
    for code in (ExitCode.CHECK_FAILED, ExitCode.UNDEFINED):
        if code in codes:
            return int(code)
    return int(ExitCode.OK)
