"""What a command reads first: the expression (text or ``-``), the points
(``--at`` or ``--points``), the names of ``--wrt`` and ``--of``; and the compiled session.

>>> session = Session(None, "x^2*y", ["x=1,y=2"], None, None)
>>> session.graph.variables, session.many
(('x', 'y'), False)
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gradcalc.cli.console import Writer, chunks_with_progress, with_progress
from gradcalc.cli.reading import given_values, named_at
from gradcalc.core.errors import GradcalcError, InputError

if TYPE_CHECKING:
    from gradcalc.io.files import Skipped


def names(option: str | None) -> list[str] | None:
    """The names of ``--wrt a,b`` (None when the option is not given).

    >>> names(" a, b ")
    ['a', 'b']
    """
    if option is None:
        return None
    names = [n.strip() for n in option.split(",") if n.strip()]
    if not names:
        raise InputError("expected a comma-separated list of names, e.g. --wrt x,y")
    return names


class Session:
    """What every command does first: read the expression and the points, compile.

    From a points file, the columns read are ``columns`` (``--columns``), else those the
    expression uses (and ``--wrt`` names): an id, a label or any other column is ignored,
    ``id_column`` (``--id``) is carried along as text.
    """

    def __init__(
        self,
        context: Any,
        expression: str,
        at: list[str] | None,
        points: str | None,
        of: str | None,
        skip_bad_rows: bool = False,
        columns: str | None = None,
        id_column: str | None = None,
        wrt: str | None = None,
    ):
        from gradcalc.core.collector import freeze_after_pauses
        from gradcalc.engine.evaluate.points import points_from_rows
        from gradcalc.engine.run.api import compile_expression
        from gradcalc.lang.intake import read
        from gradcalc.lang.literals import at_rows

        if at and points:
            raise InputError("give points with --at or with --points, not both")
        if skip_bad_rows and not points:
            raise InputError("--skip-bad-rows is for a file of points: use it with --points")
        if (columns or id_column) and not points:
            raise InputError("--columns and --id choose columns of a file: use them with --points")
        text = expression_text(expression, points)
        at = named_at(at, text)  # --at 3: the one variable's value
        if context is not None and context.one_command:
            freeze_after_pauses()  # (what this command builds lasts until the process ends)
        self.skipped: Skipped | None = None
        if skip_bad_rows:  # (the file readers are imported only for a file of points)
            from gradcalc.io.files import Skipped

            self.skipped = Skipped()
        self.header: tuple[str, ...] | None = None
        compiled: dict[tuple[str, ...], Any] = {}  # the graph compiled to choose the columns
        if points:

            def choose(header: tuple[str, ...] | None) -> list[str] | None:
                self.header = header
                if columns is not None or header is None:
                    return None if columns is None else names(columns)
                candidates = candidate_columns(header, id_column)
                graph = compile_expression(text, candidates, names(of))
                compiled[tuple(candidates)] = graph
                return columns_read(graph, candidates, names(wrt))

            self.chunks = point_chunks(context, points, self.skipped, choose, id_column)
        else:
            self.chunks = iter([points_from_rows(at_rows(at or []))])  # (read, then valued)
        self.first = next(self.chunks)
        self.graph = (
            compiled.get(self.first.names)
            or read(text, self.first.names, of=names(of), values=given_values(at)).graph
        )  # (compiled once when the file's columns are all read)
        header = (self.header or self.first.names) if points else None
        check_given(self.graph, self.first.names, header, id_column, columns)
        self.many = bool(points) or len(at or []) > 1

    def each_chunk(self, rows: int | None = None) -> Any:
        """Every chunk of points, the first one included; cut into parts of at most ``rows``
        points (``None``: as the file's reader made them)."""
        for chunk in itertools.chain([self.first], self.chunks):
            yield from [chunk] if rows is None else chunk.parts(rows)

    def rows_per_chunk(self, outputs: int, least: int = 1) -> int:
        """Points per chunk when each point prints ``outputs`` numbers and its tape records
        one per node (:func:`gradcalc.core.budget.rows_per_chunk`): a 200-target Jacobian
        computes and writes a few thousand points at a time, a gradient the file's chunks.

        >>> Session(None, "x^2*y", ["x=1,y=2"], None, None).rows_per_chunk(3)
        524288
        """
        from gradcalc.core.budget import rows_per_chunk

        return rows_per_chunk(len(self.graph.nodes) + outputs, least)

    def run(
        self, view: Any, compute: Callable[[Any], Any], writer: Writer, per_target: int = 0
    ) -> int:
        """Compute and write chunk by chunk; the writer's exit code. ``per_target``: the
        numbers each point prints per target (default: the value and one per variable) --
        chunks are cut so that memory stays flat in the points and targets (a table shows
        its first rows whole, so its chunks keep as many)."""
        from gradcalc.render.pieces.gradient import MAX_TABLE_ROWS

        writer.skipped = self.skipped
        outputs = len(self.graph.targets) * (per_target or 1 + len(self.graph.variables))
        least = MAX_TABLE_ROWS if writer.shows_table else 1
        try:
            for chunk in self.each_chunk(self.rows_per_chunk(outputs, least)):
                writer.write(view, compute(chunk))
            writer.close()
        except BaseException:  # (a bad row, --timeout, Ctrl-C: no --out file that looks done)
            writer.abandon()
            raise
        return writer.exit_code


def used_columns(
    text: str,
    header: tuple[str, ...] | None,
    id_column: str | None = None,
    wrt: list[str] | None = None,
    of: list[str] | None = None,
) -> list[str] | None:
    """The columns of a points file that the expression reads (and those ``wrt`` names); all
    the columns that are names when it reads none. ``None`` for a file without names.

    >>> used_columns("x*y", ("id", "x", "label", "y", "z"), "id")
    ['x', 'y']
    >>> used_columns("2*e", ("x", "e"))  # a column shadows a constant, as in --at
    ['e']
    """
    from gradcalc.engine.run.api import compile_expression

    if header is None:
        return None
    candidates = candidate_columns(header, id_column)
    return columns_read(compile_expression(text, candidates, of), candidates, wrt)


def candidate_columns(header: tuple[str, ...], id_column: str | None = None) -> list[str]:
    """The columns that can be variables: names (not the id column), each once, in order.

    >>> candidate_columns(("id", "x", "2nd", "x", "y"), "id")
    ['x', 'y']
    """
    from gradcalc.io.files import check_header, check_headers

    try:
        check_headers([(name, column) for column, name in enumerate(header, 1)], "points file")
        names: Sequence[str] = header  # (every cell a name, the usual case: one check)
    except InputError:
        names = []
        for column, name in enumerate(header, 1):
            try:
                check_header(name, column, "points file")
            except InputError:
                continue  # not a name: never a variable
            names.append(name)
    return list(dict.fromkeys(n for n in names if n != id_column))  # (each once, in order)


def columns_read(graph: Any, candidates: list[str], wrt: list[str] | None = None) -> list[str]:
    """Of ``candidates``, those the compiled expression reads or ``wrt`` names (all of them
    when it reads none)."""
    read = {i for node in graph.nodes for i in node.inputs} | set(graph.targets)
    chosen = set(wrt or [])
    used = [
        n
        for n in candidates
        if graph.variable_nodes.get(n) in read or n in chosen or n not in graph.variable_nodes
    ]
    return used or candidates


def check_given(
    graph: Any,
    given: tuple[str, ...],
    header: tuple[str, ...] | None,
    id_column: str | None = None,
    columns: str | None = None,
) -> None:
    """Refuse points that miss a variable of the expression (a misspelling, or a column the
    points file has not: ``header``, its columns; ``None`` for --at), saying why a column the
    file has is not read: it is the ``id_column`` (``--id``), or ``columns`` (``--columns``)
    leaves it out.

    >>> from gradcalc.engine.run.api import compile_expression
    >>> check_given(compile_expression("x*y", ["x"]), ("x",), ("id", "x"))
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: the points file has no column y (its columns: id, x): ...
    >>> check_given(compile_expression("x*y", ["x"]), ("x",), ("x", "y"), columns="x")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: --columns x leaves out y, a variable of the expression: ...
    """
    from gradcalc.io.headers import refuse_separated, shown_columns

    _misspelled_point(graph, given)
    missing = [v for v in graph.variables if v not in set(given)]
    if header is None or not missing:
        return
    name = missing[0]
    if name == id_column:
        raise InputError(
            f"--id {name} is a variable of the expression: the id column is carried as text, "
            "never read as a value; give --id another column, or drop it"
        )
    if columns is not None and name in header:
        raise InputError(
            f"--columns {columns} leaves out {name}, a variable of the expression: add it "
            f"(--columns {columns},{name}), or drop --columns"
        )
    refuse_separated(header, "points file")
    raise InputError(
        f"the points file has no column {name} ({shown_columns(header)}): add one, "
        "or give the points with --at"
    )


def _misspelled_point(graph: Any, given: tuple[str, ...]) -> None:
    """Refuse a point that names ``yy`` but not the expression's ``y``: a misspelling."""
    from gradcalc.core.errors import closest
    from gradcalc.engine.evaluate.names import as_product
    from gradcalc.lang.slips import likely_meaning

    used = {i for node in graph.nodes for i in node.inputs} | set(graph.targets)
    unused = [
        name
        for name in given
        if name in graph.variable_nodes and graph.variable_nodes[name] not in used
    ]
    named = set(given)
    if not unused or named.issuperset(graph.variables):
        return  # nothing to have mistaken, or nothing missing (fast for 10,000 variables)
    for name in graph.variables:
        if name in named or as_product(name, list(given)) or likely_meaning(name):
            continue  # (xy, ex: a product, told by the missing value's own message)
        guess = closest(name, unused)
        if guess is not None:
            raise InputError(
                f"no value given for {name}; did you mean {name}, not {guess}? "
                f"(the expression has no {guess})"
            )


def engine_options(no_check: bool, subgradient: bool, check_timeout: float, exact: bool) -> Any:
    """The engine's options from the command line's.

    >>> engine_options(True, False, 5.0, False).check
    False
    """
    from gradcalc.engine.run.api import Options

    return Options(
        check=not no_check,
        subgradient=subgradient,
        check_timeout=check_timeout,
        exact=exact,
        strict=False,
    )


def number(text: str, option: str) -> float:
    """The value of one number of an option, such as ``--direction 1,pi/4``.

    >>> number(" 1/4 ", "--direction")
    0.25
    """
    from gradcalc.engine.evaluate.points import constant_value

    try:
        return constant_value(text.strip())
    except GradcalcError as error:
        raise InputError(f"{option}: {error.message}") from None


def expression_text(argument: str, points: str | None) -> str:
    """The expression itself, or stdin for ``-``. Text starting with ``@`` is refused: only
    ``gradcalc --file`` reads ``@FILE``, in the command line's own argument
    (:meth:`gradcalc.cli.context.AppContext.call`), so text passed as data never names a file.

    >>> expression_text("x^2", None)
    'x^2'
    """
    if argument == "-":
        if points == "-":
            raise InputError("stdin cannot hold both the expression and the points")
        from gradcalc.io.lines import open_stdin, read_whole

        with open_stdin("the expression") as stream:
            return read_whole(stream, "expression on stdin")
    if argument.startswith("@"):  # gradcalc --file has read it already: this is data
        raise InputError(
            "EXPRESSION is text, never a file name: to read it from FILE, run "
            "gradcalc --file COMMAND @FILE"
        )
    return argument


def point_chunks(
    context: Any,
    path: str,
    skipped: Any = None,
    choose: Callable[[tuple[str, ...] | None], list[str] | None] = lambda header: None,
    id_column: str | None = None,
) -> Any:
    """The chunks of a points file (any kind :mod:`gradcalc.io.sources` reads, or a dataset of
    Parquet files, :mod:`gradcalc.io.datasets`, read part after part) of the columns
    ``choose(header)`` picks, after a first pass has checked every row: a bad row far down
    fails before anything is printed, so a partial result is never presented as complete.
    Standard input is spooled to a temporary file for the two passes. With ``skipped``
    (--skip-bad-rows), bad rows are counted there, reported on stderr and left out.
    """
    from gradcalc.io.datasets import is_dataset, open_dataset
    from gradcalc.io.files import Skipped
    from gradcalc.io.sources import open_points

    dataset = is_dataset(path)
    with open_dataset(path) if dataset else open_points(path) as source:
        columns = choose(source.names())

        def lines(stream: Any) -> Any:
            return with_progress(context, stream, source.size)

        checked = source.read(columns, id_column, skipped, lines)
        if source.stream is None:  # (a CSV's bar follows its bytes, in lines)
            checked = chunks_with_progress(context, checked, source.size, source.rows())
        for _ in checked:
            pass
        if skipped is not None and skipped.count:
            print(
                f"warning: {skipped.summary('dataset' if dataset else 'points file')}",
                file=sys.stderr,
            )
        again = None if skipped is None else Skipped()
        yield from source.read(columns, id_column, again)
