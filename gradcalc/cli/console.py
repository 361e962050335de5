"""What the commands print through: rich consoles, the streaming writer, progress bars.

Nothing here is imported before a command runs, and rich only inside the functions, so
``gradcalc --help`` stays fast.

>>> show_plot("a plot", None)
a plot
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from typing import Any

from gradcalc.core.errors import ExitCode, InputError


def make_console(color: bool | None, wide: bool, stderr: bool = False) -> Any:
    """A rich console that follows ``--color/--no-color`` (``color``), ``NO_COLOR`` and
    ``--wide``.

    rich writes no escape codes to a pipe and takes the width from the terminal (else
    ``COLUMNS``, else 80). ``NO_COLOR`` (any non-empty value) or ``--no-color`` turn off every
    escape code, bold included; ``--color`` forces them, even into a pipe.

    >>> make_console(False, False).no_color
    True
    """
    if color is None and os.environ.get("NO_COLOR"):
        color = False
    # emoji off: ":name:" is never an emoji code in gradcalc's output (and rich's table of
    # them is a 4 ms import)
    options: dict[str, Any] = {
        "stderr": stderr,
        "highlight": False,
        "soft_wrap": False,
        "emoji": False,
    }
    if not wide and not _usable_width(os.environ.get("COLUMNS")):
        options["width"] = DEFAULT_WIDTH  # COLUMNS=0 printed nothing at all, exit 0
    if color is False:
        options.update(color_system=None, no_color=True)
    elif color is True:
        options.update(force_terminal=True, no_color=False)
    kind = _console_class(wide)
    console = kind(**options)
    if color is True and console.color_system is None:  # no terminal, or TERM=dumb
        console = kind(**options, color_system="standard")
    return console


DEFAULT_WIDTH = 80  # columns when COLUMNS is set to something no table fits in
MIN_WIDTH = 20  # a COLUMNS below this (0, negative, not a number) is ignored


def _usable_width(columns: str | None) -> bool:
    """Is ``COLUMNS`` unset or a width a table can be drawn in?

    >>> [_usable_width(c) for c in (None, "120", "0", "-5", "abc", "19")]
    [True, True, False, False, False, False]
    """
    if columns is None:
        return True
    return columns.strip().isdigit() and int(columns) >= MIN_WIDTH


@functools.cache
def _console_class(wide: bool) -> Any:
    """rich's Console, whose closed pipe is the command layer's to handle; ``wide``: one that
    prints each renderable at its natural width (``--wide``)."""
    from rich.console import Console
    from rich.measure import Measurement

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            """rich's own handler exits with status 1 ("a check failed"); hand the error
            back to the command layer, which treats ``gradcalc ... | head -1`` as success."""
            raise BrokenPipeError

    class WideConsole(PipeConsole):
        def __init__(self, **options: Any):
            super().__init__(width=_WIDEST, **options)

        def print(self, *objects: Any, **options: Any) -> None:
            if len(objects) == 1 and "width" not in options:
                natural = Measurement.get(self, self.options, objects[0]).maximum
                options["width"] = max(natural, 1)
            super().print(*objects, **options)

    return WideConsole if wide else PipeConsole


_WIDEST = 100_000  # columns a --wide table may take


class Writer:
    """Renders results as they come (chunk by chunk) through a view in the ``--format``
    chosen (:mod:`gradcalc.render.output.formats`); tracks the exit code."""

    def __init__(
        self,
        context: Any,
        output: str,
        digits: int | None,
        tape: bool,
        many: bool,
        id_column: str | None = None,
        out: str | None = None,
    ):
        from gradcalc.render.output.formats import FORMATS, Sink

        self.output = output
        # (a rich console only where the format prints through one: JSON, CSV and plain text
        # start without importing rich, and the errors' console is made at the first warning)
        rich = output not in FORMATS or FORMATS[output].rich
        self.sink = Sink(sys.stdout, context.console() if rich else None, digits, tape, many)
        self.context = context
        self.exit_code = ExitCode.OK
        self.warned: set[str] = set()
        self.skipped: Any = None  # rows --skip-bad-rows left out (points.Skipped)
        self.id_column = id_column  # --id: each point's text, first in CSV and JSON
        self.results: Any = None  # --out FILE: the rows go there (gradcalc.io.results)
        self.rows = Shown()  # the rows a table of many points shows, of all
        self.health = Health()  # what the diagnostics found, where no table or JSON shows it
        if out is not None:
            if output not in ("table", "csv"):
                raise InputError(f"--out writes CSV or Parquet rows: drop --format {output}")
            from gradcalc.io.results import open_results

            self.results, self.results_path = open_results(out, [id_column or ""]), out

    @property
    def shows_table(self) -> bool:
        """Whether the rows go to a table of many points (which shows only its first ones)."""
        return self.output == "table" and self.results is None and self.sink.many

    @functools.cached_property
    def errors(self) -> Any:
        """The console on stderr that warnings and notes are printed to."""
        return self.context.console(stderr=True)

    def write(self, view: Any, computed: Any) -> None:
        from gradcalc.render.output.formats import choose

        told = self.results is not None or self.output in ("csv", "plain")
        for result in view.results(computed):
            self._note_status(result)
            if told and hasattr(result, "diagnostics"):
                self.health.take(result, getattr(view, "diagnose", False), self.sink.many)
        column = self.id_column
        ids = view.results(computed)[0].points.ids if column else None
        shown = view if ids is None or column is None else _Identified(view, column, ids)
        if self.results is not None:
            digits = self.sink.digits
            self.results.write(shown.csv_header(computed), shown.csv_rows(computed, digits))
            return
        if self.skipped is not None:
            self.sink.extra["skipped_rows"] = self.skipped.count
        if self.output == "table" and self.sink.many and not self.rows.take(view, computed):
            return  # (the table shows a prefix of the rows: this chunk is past it)
        choose(view, self.output).write(shown, computed, self.sink)

    def _note_status(self, result: Any) -> None:
        from gradcalc.engine.judge.exits import of_results

        code = of_results([result])
        if code == ExitCode.CHECK_FAILED or self.exit_code == ExitCode.OK:
            self.exit_code = code
        beside = self.output == "table" and self.results is None  # (the table's reading)
        for warning in result.warnings:
            if not (beside and warning in result.read_warnings):
                self._once(f"warning: {warning}")
        for singular in result.singularities:
            self._once(f"gradcalc: {singular.describe(result.points, result.target)}")

    def _once(self, message: str) -> None:
        if message not in self.warned:
            self.warned.add(message)
            self.errors.print(message, markup=False, soft_wrap=True)

    def abandon(self) -> None:
        """A run that failed: the ``--out`` file is not put in place (one that was there is
        left as it was)."""
        if self.results is not None:
            self.results.discard()

    def close(self) -> None:
        from gradcalc.render.output.formats import FORMATS

        for line in self.health.lines():
            self.errors.print(line, markup=False, soft_wrap=True)
        if self.results is not None:
            self.results.close()
            print(f"wrote {self.results_path}", file=sys.stderr)
        else:
            FORMATS[self.output].close(self.sink)
            if self.rows.total > self.rows.shown:
                self.sink.console.print(self.rows.summary(), markup=False, soft_wrap=True)


class Health:
    """The diagnostics of the formats whose lines hold only numbers (CSV, plain, ``--out``),
    for stderr: one point's report (:func:`~gradcalc.engine.evaluate.diagnostics.report`)
    where something is found or ``--diagnose`` asks; of many points, each finding with the
    number of points it was found at, over every chunk (settled ones with ``--diagnose``).

    >>> from gradcalc import grad
    >>> health = Health()
    >>> health.take(grad("tanh(x)", at={"x": [6.0, 0.0, 7.0]}, check=False), False, True)
    >>> [line[:52] for line in health.lines()]
    ['diagnostics: saturated at 2 of 3 points; the first: ']
    """

    def __init__(self) -> None:
        self.reports: list[str] = []  # one point each
        self.found: dict[str, list[Any]] = {}  # of many: by label, [points, first message]
        self.points = 0
        self.diagnose = False

    def take(self, result: Any, diagnose: bool, many: bool) -> None:
        """Count one result's findings (a chunk of points, or one point)."""
        import numpy as np

        from gradcalc.engine.evaluate.diagnostics import report

        self.diagnose = self.diagnose or diagnose
        shown = [f for f in result.diagnostics if diagnose or not f.settled]
        if not many:
            # at one point undefined, the exit-3 error says what the findings would: not twice
            said = bool(np.any(result.undefined))
            if diagnose or (shown and not said):
                self.reports.append(report(result.diagnostics, result))
            return
        self.points += result.points.count
        for finding in shown:
            entry = self.found.setdefault(finding.label, [0, finding.message])
            entry[0] += int(np.count_nonzero(finding.mask))

    def lines(self) -> list[str]:
        """What stderr is told, once the rows are written."""
        if self.reports:
            return self.reports
        lines = [
            f"diagnostics: {label} at {count:,} of {self.points:,} points; the first: {message}"
            for label, (count, message) in self.found.items()
        ]
        if not lines and self.diagnose and self.points:
            lines = [f"diagnostics: healthy at every one of {self.points:,} points"]
        return lines


class Shown:
    """Which rows a table of many points shows: a prefix of them, chunk by chunk, while no
    chunk was cut at :data:`~gradcalc.render.pieces.gradient.MAX_TABLE_ROWS`; then only counted, so
    the table ends with what it left out (:meth:`summary`).

    >>> rows = Shown()
    >>> rows.count(65_536), rows.count(34_464)
    (True, False)
    >>> print(rows.summary())
    showing the first 1,000 of 100,000 rows; --format csv or --out FILE for all
    """

    def __init__(self) -> None:
        self.shown = self.total = 0
        self.checked = self.disagree = 0  # points the check compared, of all the chunks

    def take(self, view: Any, computed: Any) -> bool:
        """Whether to show this chunk of results (its rows are counted either way)."""
        import numpy as np

        results = view.results(computed)
        for check in (r.check for r in results if r.check is not None):
            self.checked += check.points
            if check.status == "disagree" and check.mismatch is not None:
                self.disagree += int(np.count_nonzero(check.mismatch))
        return self.count(results[0].points.count)

    def count(self, rows: int) -> bool:
        """Count a chunk of ``rows``; whether any of it is shown."""
        from gradcalc.render.pieces.gradient import MAX_TABLE_ROWS

        show = self.shown == self.total and self.shown < MAX_TABLE_ROWS
        self.total += rows
        self.shown += min(rows, MAX_TABLE_ROWS) if show else 0
        return show

    def summary(self) -> str:
        """The line under a table that left rows out (and what the check found in all)."""
        checked = ""
        if self.checked:
            checked = f" (the check compared {self.checked:,}: {self.disagree:,} disagree)"
        return (
            f"showing the first {self.shown:,} of {self.total:,} rows{checked}; "
            "--format csv or --out FILE for all"
        )


class _Identified:
    """A view whose CSV rows and JSON objects start with each point's ``--id`` text (in CSV
    as :class:`~gradcalc.core.naming.Carried` text: the data's own, guarded there)."""

    def __init__(self, view: Any, column: str, ids: list[str]):
        from gradcalc.core.naming import Carried  # (only with --id: not on every start-up)

        self.view, self.column, self.ids = view, Carried(column), ids

    def __getattr__(self, name: str) -> Any:
        if name == "columns" and callable(getattr(self.view, "columns", None)):
            return self._columns
        return getattr(self.view, name)

    def _columns(self, computed: Any) -> dict[str, Any]:
        """Compact JSON's columns, the ``--id`` texts first."""
        return {"id": list(self.ids), **self.view.columns(computed)}

    def csv_header(self, computed: Any) -> list[str]:
        return [self.column, *self.view.csv_header(computed)]

    def csv_rows(self, computed: Any, digits: int | None) -> Any:
        from gradcalc.core.naming import Carried

        rows = self.view.csv_rows(computed, digits)
        return ([Carried(i), *row] for i, row in zip(self.ids, rows))

    def records(self, computed: Any, tape: bool) -> list[dict[str, Any]]:
        count = self.view.results(computed)[0].points.count
        return [
            {"id": self.ids[k], **obj}
            for k in range(count)
            for obj in self.view.json(computed, k, tape)
        ]


def show(
    context: Any, view: Any, data: Any, output: str, digits: int | None = None, **extra: Any
) -> None:
    """Write one result (not a stream of chunks) through ``view`` in the format ``output``;
    ``extra`` fields are added to its JSON object.

    >>> from gradcalc.cli.context import AppContext
    >>> class Pair:
    ...     def plain(self, data, digits): return [f"{data[0]} {data[1]}"]
    >>> show(AppContext(), Pair(), (1, 2), "plain")
    1 2
    """
    from gradcalc.render.output.formats import Sink, choose

    kind = choose(view, output)
    sink = Sink(sys.stdout, context.console(), digits, extra=extra)
    kind.write(view, data, sink)
    kind.close(sink)
    if not kind.rich and kind.name != "json":  # (a table shows them; JSON has "notes")
        for note in notes_of(data):
            print(f"note: {note}", file=sys.stderr)


def notes_of(data: Any) -> list[str]:
    """What a result says besides its answer -- its notes, and a verification that did not
    verify -- for the formats whose lines hold only the answer (plain, CSV, documents).

    >>> from types import SimpleNamespace as N
    >>> notes_of(N(notes=["a"], verification=N(status="unverified", detail="no points")))
    ['a', 'not verified: no points']
    >>> notes_of((1, 2))
    []
    """
    notes = list(getattr(data, "notes", None) or [])
    check = getattr(data, "verification", None)
    if check is not None and check.status != "verified":
        from gradcalc.render.views.derivative import verification_line

        notes.append(verification_line(data))
    return notes


@contextlib.contextmanager
def progress_bar(context: Any, total: int, what: str) -> Any:
    """A rich progress bar on stderr when it is a terminal; yields the update callback."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import Progress

    with Progress(transient=True, console=context.console(stderr=True)) as progress:
        task = progress.add_task(what, total=total)
        yield lambda step: progress.update(task, completed=step)


def with_progress(context: Any, stream: Any, size: int) -> Any:
    """Yield the lines of ``stream`` (bounded: :func:`gradcalc.io.lines.bounded_lines`),
    showing a progress bar on stderr when it is a terminal."""
    from gradcalc.io.lines import bounded_lines

    lines = bounded_lines(stream, "points file")
    if not sys.stderr.isatty() or size < 1_000_000:
        yield from lines
        return
    from rich.progress import Progress

    with Progress(transient=True, console=context.console(stderr=True)) as progress:
        task = progress.add_task("reading points", total=size)
        for n, line in enumerate(lines):
            if n % 10_000 == 0:
                progress.update(
                    task, completed=stream.buffer.tell() if hasattr(stream, "buffer") else 0
                )
            yield line


def chunks_with_progress(context: Any, chunks: Any, size: int, rows: int | None) -> Any:
    """Yield ``chunks`` of points (from a file of ``size`` bytes and ``rows`` points, ``None``:
    not known), showing a progress bar by points on stderr when it is a terminal and the
    file is large (never in a pipe: a script's stderr stays clean)."""
    if not sys.stderr.isatty() or size < 1_000_000:
        yield from chunks
        return
    from rich.progress import Progress

    with Progress(transient=True, console=context.console(stderr=True)) as progress:
        task = progress.add_task("reading points", total=rows)
        for chunk in chunks:
            progress.advance(task, chunk.count)
            yield chunk


def show_plot(text: str | None, out: str | None) -> None:
    if out is not None:
        print(f"wrote {out}", file=sys.stderr)
    else:
        print(text)
