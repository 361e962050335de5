"""How every command shows what it read: the ``read as:`` line and the warnings, in every
format (:func:`show_read`), and ``--at 3`` for an expression of one variable (:func:`named_at`).

Where each format carries them: table, markdown and latex at the top of the output (LaTeX as
``%`` comments); JSON as the fields ``read_as`` and ``warnings``, the warnings also on
stderr; CSV, plain and the drawings (dot, mermaid, svg) keep stdout for data, and the
warnings go to stderr. A text is read once, by :func:`gradcalc.lang.intake.read`.

>>> named_at(["3"], "x^2"), named_at(["x=1"], "x*y")
(['x=3'], ['x=1'])
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any

from gradcalc.core.errors import InputError

#: The formats whose output starts with the reading (``read as:`` and the warnings).
HEADED = ("table", "markdown", "latex")


def named_at(at: list[str] | None, text: str) -> list[str] | None:
    """``--at`` with a bare value (``--at 3``) named after the expression's one variable;
    refused, with the names to use, when the expression has several.

    >>> named_at(["2", "-1/2"], "sin(x)")
    ['x=2', 'x=-1/2']
    >>> named_at(["3"], "x*y")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradcalc.core.errors.InputError: --at 3 gives a value but no name, and x*y has 2 ...
    """
    if not at or all("=" in spec for spec in at):
        return at
    from gradcalc.lang.parser import parse_program

    variables = parse_program(text).free_variables
    bare = next(spec for spec in at if "=" not in spec)
    if len(variables) != 1:
        names = ",".join(f"{v}=..." for v in variables) or "no variables: drop --at"
        raise InputError(
            f"--at {bare} gives a value but no name, and {_short(text)} has "
            f"{len(variables)} variables: write --at {names}"
        )
    return [spec if "=" in spec else f"{variables[0]}={spec}" for spec in at]


def given_names(at: Sequence[str] | None) -> list[str]:
    """The names an ``--at`` list gives values for.

    >>> given_names(["x=1,y=atan2(1, 2)", "x=2,y=3"])
    ['x', 'y']
    """
    from gradcalc.lang.literals import split_top_level

    pairs = (pair for spec in at or () for pair in split_top_level(spec))
    return list(dict.fromkeys(pair.partition("=")[0].strip() for pair in pairs if "=" in pair))


def given_values(at: Sequence[str] | None) -> list[str]:
    """The value texts of an ``--at`` list: read with the expression, they are warned about
    as it is (``1/2pi`` is (1/2)·pi).

    >>> given_values(["x=1/2pi,y=atan2(1, 2)", "3"])
    ['1/2pi', 'atan2(1, 2)', '3']
    """
    from gradcalc.lang.literals import split_top_level

    pairs = (pair for spec in at or () for pair in split_top_level(spec))
    return [pair.rpartition("=")[2].strip() for pair in pairs]


def bound_values(text: str | None, between: str) -> list[str]:
    """The ends of a ``--in`` region (``x=0..1/2pi``, between ``..``) or of a ``--range``
    (``0:1/2pi``, between ``:``): read with the expression, they are warned about as any
    value is.

    >>> bound_values("x=0..1/2pi,y=-1..1", ".."), bound_values("-pi:pi", ":")
    (['0', '1/2pi', '-1', '1'], ['-pi', 'pi'])
    """
    from gradcalc.lang.literals import split_top_level

    ends: list[str] = []
    for part in split_top_level(text) if text else ():
        low, _, high = part.rpartition("=")[2].partition(between)
        ends += [low.strip(), high.strip()]
    return ends


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def show_read(
    context: Any,
    view: Any,
    data: Any,
    output: str,
    readings: Sequence[Any],
    digits: int | None = None,
    *,
    headed: bool = True,
    hints: Sequence[str] = (),
    **extra: Any,
) -> None:
    """Write ``data`` through ``view`` in ``output`` (:func:`gradcalc.cli.console.show`)
    with the reading of ``readings[0]`` and the warnings of all ``readings`` (an expression
    and its answers, a model) and the result's ``hints`` -- at the top of a human format
    (:data:`HEADED`; unless ``headed`` is False: the view shows them itself), else as JSON
    fields and on stderr -- and the JSON fields ``extra``.

    >>> from gradcalc.cli.context import AppContext
    >>> from gradcalc.lang.intake import read
    >>> class Value:
    ...     def plain(self, data, digits): return [str(data)]
    ...     def records(self, data, tape): return [{"value": data}]
    >>> show_read(AppContext(), Value(), 7.389, "json", [read("e^2")])
    {"value": 7.389, "read_as": "e^2", "warnings": []}
    """
    from gradcalc.cli.console import show
    from gradcalc.lang.intake import read_all

    warnings = [*read_all(readings), *hints]
    if output in HEADED:
        if headed:
            show_heading(context, output, readings, hints)
        show(context, view, data, output, digits, **extra)
        return
    extra |= {"read_as": readings[0].read_as, "warnings": list(warnings)}
    show(context, view, data, output, digits, **extra)
    warn(warnings)


def show_heading(
    context: Any, output: str, readings: Sequence[Any], hints: Sequence[str] = ()
) -> None:
    """The reading of ``readings[0]`` (its ``read as:`` line) and the warnings of all
    ``readings`` and ``hints``, at the top of a human format (:data:`HEADED`): before a
    result (:func:`show_read`), or before the error that stops a command at its point (exit
    3), so that every output shows how the input was read.

    >>> from gradcalc.cli.context import AppContext
    >>> from gradcalc.lang.intake import read
    >>> show_heading(AppContext(), "latex", [read("abs(x)*y")])
    % read as: f(x, y) = abs(x)·y
    """
    from gradcalc.lang.intake import read_all

    warnings = [*read_all(readings), *hints]
    _heading(context, output, [readings[0].heading(), *(f"warning: {w}" for w in warnings)])


def show_reading_first(context: Any, output: str, readings: Sequence[Any]) -> None:
    """How the input was read, before the error that stops a command: its heading in a
    human format (:func:`show_heading`), its warnings on stderr in the others -- an error
    that a misreading explains (``xe^x``: "2 answers needed, for xe and x") comes with the
    warning that says so.

    >>> from gradcalc.cli.context import AppContext
    >>> from gradcalc.lang.intake import read
    >>> show_reading_first(AppContext(), "latex", [read("xe^x")])  # doctest: +ELLIPSIS
    % read as: f(xe, x) = xe^x
    % warning: xe is read as one name, a variable; if you mean x·e, write x*e (or x e)
    """
    from gradcalc.lang.intake import read_all

    if output in HEADED:
        show_heading(context, output, readings)
    else:
        warn(read_all(readings))


def _heading(context: Any, output: str, lines: list[str]) -> None:
    """The reading at the top: as rich text (table), paragraphs (markdown), comments (latex)."""
    if output == "table":
        console = context.console()
        for line in lines:
            console.print(line, markup=False, soft_wrap=True)
    elif output == "markdown":
        print("\n\n".join(lines) + "\n")
    else:
        print("\n".join(f"% {line}" for line in lines))


def warn(warnings: Iterable[str]) -> None:
    """Each warning on stderr as ``warning: ...`` (once)."""
    for warning in dict.fromkeys(warnings):
        print(f"warning: {warning}", file=sys.stderr)
