"""What the commands print through: rich consoles, the streaming writer, progress bars.

Nothing here is imported before a command runs, and rich only inside the functions, so
``gradcalc --help`` stays fast.

>>> show_plot("a plot", None)
a plot
"""

from __future__ import annotations

import contextlib
import csv
import functools
import json
import os
import sys
from typing import Any

from gradcalc.cli.options import Format
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
    from rich.console import Console

    if color is None and os.environ.get("NO_COLOR"):
        color = False
    options: dict[str, Any] = {"stderr": stderr, "highlight": False, "soft_wrap": False}
    if color is False:
        options.update(color_system=None, no_color=True)
    elif color is True:
        options.update(force_terminal=True, no_color=False)
    kind = _wide_console() if wide else Console
    console = kind(**options)
    if color is True and console.color_system is None:  # no terminal, or TERM=dumb
        console = kind(**options, color_system="standard")
    return console


@functools.cache
def _wide_console() -> Any:
    """A rich Console printing each renderable at its natural width (``--wide``)."""
    from rich.console import Console
    from rich.measure import Measurement

    class WideConsole(Console):
        def __init__(self, **options: Any):
            super().__init__(width=_WIDEST, **options)

        def print(self, *objects: Any, **options: Any) -> None:
            if len(objects) == 1 and "width" not in options:
                natural = Measurement.get(self, self.options, objects[0]).maximum
                options["width"] = max(natural, 1)
            super().print(*objects, **options)

    return WideConsole


_WIDEST = 100_000  # columns a --wide table may take


class Writer:
    """Renders results as they come (chunk by chunk) through a view; tracks the exit code."""

    def __init__(
        self,
        context: Any,
        output: Format,
        digits: int | None,
        tape: bool,
        many: bool,
        id_column: str | None = None,
        out: str | None = None,
    ):
        self.output, self.digits, self.tape, self.many = output, digits, tape, many
        self.exit_code = ExitCode.OK
        self.started = False
        self.console = context.console()
        self.errors = context.console(stderr=True)
        self.warned: set[str] = set()
        self.skipped: Any = None  # rows --skip-bad-rows left out (points.Skipped)
        self.id_column = id_column  # --id: each point's text, first in CSV and JSON
        self.out: Any = None  # --out FILE: the rows go there (gradcalc.io.results)
        if out is not None:
            if output not in (Format.table, Format.csv):
                raise InputError(f"--out writes CSV or Parquet rows: drop --format {output.value}")
            from gradcalc.io.results import open_results

            self.out, self.out_path = open_results(out, [id_column or ""]), out

    def write(self, view: Any, computed: Any) -> None:
        for result in view.results(computed):
            self._note_status(result)
        ids = view.results(computed)[0].points.ids if self.id_column else None
        if self.out is not None:
            self.out.write(*self._rows(view, computed, ids))
        elif self.output is Format.json:
            self._write_json(view, computed, ids)
        elif self.output is Format.csv:
            out = csv.writer(sys.stdout, lineterminator="\n")
            header, rows = self._rows(view, computed, ids)
            if not self.started:
                out.writerow(header)
            out.writerows(rows)
        elif self.output is Format.plain:
            sys.stdout.write("".join(f"{line}\n" for line in view.plain(computed, self.digits)))
        else:
            parts = (
                view.many(computed, self.digits)
                if self.many
                else view.single(computed, self.digits, self.tape)
            )
            for part in parts:
                self.console.print(part)
                self.console.print()
        self.started = True

    def _note_status(self, result: Any) -> None:
        if result.check is not None and result.check.status == "disagree":
            self.exit_code = ExitCode.CHECK_FAILED
        elif result.undefined.any() and self.exit_code == ExitCode.OK:
            self.exit_code = ExitCode.UNDEFINED
        for warning in result.warnings:
            self._once(f"warning: {warning}")
        for singular in result.singularities:
            self._once(f"gradcalc: {singular.describe(result.points, result.target)}")

    def _once(self, message: str) -> None:
        if message not in self.warned:
            self.warned.add(message)
            self.errors.print(message, markup=False, soft_wrap=True)

    def _rows(self, view: Any, computed: Any, ids: list[str] | None) -> tuple[list[str], Any]:
        """The CSV header and rows, the --id column first."""
        header, rows = view.csv_header(computed), view.csv_rows(computed, self.digits)
        if ids is None:
            return header, rows
        return [self.id_column, *header], ([i, *row] for i, row in zip(ids, rows))

    def _write_json(self, view: Any, computed: Any, ids: list[str] | None) -> None:
        count = view.results(computed)[0].points.count
        objects = [
            {"id": ids[k], **obj} if ids is not None else obj
            for k in range(count)
            for obj in view.json(computed, k, self.tape)
        ]
        if self.skipped is not None:
            for obj in objects:
                obj["skipped_rows"] = self.skipped.count
        if not self.many and len(objects) == 1:
            print(json.dumps(objects[0]))
            return
        for obj in objects:
            print(("[" if not self.started else ",") + json.dumps(obj))
            self.started = True

    def close(self) -> None:
        if self.out is not None:
            self.out.close()
            print(f"wrote {self.out_path}", file=sys.stderr)
        elif self.output is Format.json and self.started and self.many:
            print("]")


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
    """Yield the lines of ``stream`` (bounded: :func:`gradcalc.io.files.bounded_lines`),
    showing a progress bar on stderr when it is a terminal."""
    from gradcalc.io.files import bounded_lines

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


def show_plot(text: str | None, out: str | None) -> None:
    if out is not None:
        print(f"wrote {out}", file=sys.stderr)
    else:
        print(text)
