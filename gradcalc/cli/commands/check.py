"""``gradcalc check``: is this your derivative? Numbers at a point (``--expect``) or
expressions anywhere (``--answer``)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import expression_text, names
from gradcalc.cli.options import PANELS, At, Expression, Wrt, output_option
from gradcalc.cli.reading import given_values, named_at, show_read, show_reading_first
from gradcalc.core.errors import ExitCode, InputError, UndefinedError

ANSWER = PANELS["answer"]


def check(
    context: AppContext,
    expression: Expression,
    at: At = None,
    expect: Annotated[
        str | None,
        typer.Option(
            "--expect",
            help="Your numbers, in --wrt order: 36,10 (1/3, pi/4 work).",
            rich_help_panel=ANSWER,
        ),
    ] = None,
    answer: Annotated[
        list[str] | None,
        typer.Option(
            "--answer",
            help=(
                'Your derivative: "2*x*y, x^2", or name=expr (repeat the option); heads such '
                "as df/dx = ... and f'(x) = ... are read too."
            ),
            rich_help_panel=ANSWER,
        ),
    ] = None,
    wrt: Wrt = None,
    order: Annotated[
        int | None,
        typer.Option(
            "--order",
            min=1,
            max=12,
            help="Check the N-th derivative (2: Hessian) [default: 1, or 2 for a square matrix].",
            rich_help_panel=PANELS["derivative"],
        ),
    ] = None,
    rtol: Annotated[
        float | None,
        typer.Option(
            "--rtol",
            min=0.0,
            help="Relative tolerance for --expect: a decimal this close to the derivative, "
            "relative to its size however small, passes [default: 1e-9].",
            rich_help_panel=ANSWER,
        ),
    ] = None,
    atol: Annotated[
        float | None,
        typer.Option(
            "--atol",
            min=0.0,
            help="Absolute tolerance for --expect: a decimal this close passes too "
            "[default: none; only 0 passes for a derivative of exactly 0].",
            rich_help_panel=ANSWER,
        ),
    ] = None,
    output: Annotated[str, output_option("gradcalc.render.views.verdicts:VerdictView")] = "table",
    latex: Annotated[
        bool,
        typer.Option(
            "--latex", help="Also print the answers in LaTeX.", rich_help_panel=PANELS["output"]
        ),
    ] = False,
    critical: Annotated[
        bool,
        typer.Option(
            "--critical",
            help='Your answer is the set of critical points: "{(1,0), (-1,0)}".',
            rich_help_panel=ANSWER,
        ),
    ] = False,
    region: Annotated[
        str | None,
        typer.Option(
            "--in",
            metavar="REGION",
            help="With --critical: the region, x=-5..5,y=0..pi.",
            rich_help_panel=PANELS["point"],
        ),
    ] = None,
    implicit: Annotated[
        str | None,
        typer.Option(
            "--implicit",
            metavar="Y",
            help='EXPRESSION is an equation; your answer is dY/dx on it: --implicit y "-x/y".',
            rich_help_panel=PANELS["derivative"],
        ),
    ] = None,
) -> int:
    """Check your derivative of EXPRESSION: numbers at a point, or expressions anywhere."""
    from gradcalc.cli.tensors import scalar_only
    from gradcalc.lang.intake import read_all
    from gradcalc.render.views.verdicts import VerdictView

    if (expect is None) == (not answer):
        raise InputError("give your answer with --expect (numbers) or with --answer (expressions)")
    scalar_only(at, "check")
    text = expression_text(expression, None)
    at = named_at(at, text)
    values = given_values(at)  # (warned about as the expression is: 1/2pi is (1/2)·pi)
    if expect is not None and (critical or implicit is not None):
        raise InputError(
            "--critical checks a set of points, given with --answer"
            if critical
            else f"--implicit {implicit} checks your d{implicit}/dx as a formula, given with "
            f"--answer (in the variables); for its value at a point, gradcalc diff EQUATION "
            f"--implicit {implicit} --at ... prints it"
        )
    question = (expect, answer, at, critical, implicit, region, names(wrt), order)
    try:
        verdicts = _verdicts(text, question, (rtol, atol), values)
    except (InputError, UndefinedError):  # (how the input was read, first: xe^x is xe and x)
        _show_reading(context, output, text, implicit is not None, values)
        raise
    read = _readings(text, verdicts, answer is not None, implicit is not None, critical, values)
    hints = getattr(verdicts, "hints", [])  # the answer right in another variable order
    warnings = [*read_all(read[2]), *hints]
    view = VerdictView(text, at, latex, read[0], read[1], warnings)
    show_read(context, view, verdicts, output, read[2], headed=False, hints=hints)
    ok = [v.ok for v in verdicts]
    return ExitCode.OK if all(ok) else ExitCode.CHECK_FAILED


def _verdicts(text: str, question: tuple, tolerances: tuple, values: list[str]) -> Any:
    """The verdicts on the answer to ``question`` (numbers, expressions or a set of points);
    ``values`` gains the numbers given with --expect (their reading is warned about)."""
    from gradcalc.apps.check import check as answers

    expect, answer, at, critical, implicit, region, wrt, order = question
    rtol, atol = tolerances
    if expect is not None:
        from gradcalc.lang.answers import one_group
        from gradcalc.lang.literals import split_top_level

        tolerance = (answers.RTOL if rtol is None else rtol, atol)
        numbers = [expect] if one_group(expect) else split_top_level(expect)
        numbers = [number.strip() for number in numbers]
        values += numbers
        return answers.check_expect(text, at or [], numbers, wrt, order, *tolerance)
    if rtol is not None or atol is not None:
        raise InputError(
            f"{'--rtol' if rtol is not None else '--atol'} is for numbers (--expect): "
            "--answer is decided exactly or at high precision, with no tolerance"
        )
    if critical or implicit is not None:
        return _point_free(text, answer or [], critical, implicit, region, wrt, order, at)
    return answers.check_answers(text, answer or [], wrt, order, at or [])


def _show_reading(context, output: str, text: str, equation: bool, values: list[str]) -> None:
    """The reading of ``text`` before an error, when it can be read at all."""
    from gradcalc.lang.intake import read

    try:
        reading = read(text, equation=equation, values=values)
    except InputError:
        return  # (the error is the reading's own)
    show_reading_first(context, output, [reading])


def _point_free(text, answer, critical, implicit, region, wrt, order, at) -> Any:
    """``--critical`` (a set of points) or ``--implicit Y`` (dY/dx on the curve)."""
    if critical and implicit is not None:
        raise InputError("--critical and --implicit answer different questions: give one")
    if region is not None and not critical:
        raise InputError("--in is the region of --critical")
    if order is not None or at:
        raise InputError(f"{'--critical' if critical else '--implicit'} takes no --order or --at")
    if critical:
        from gradcalc.apps.check.check_critical import check_critical

        if wrt:
            raise InputError("--critical takes the points in all variables: drop --wrt")
        return check_critical(text, ", ".join(answer), region)
    from gradcalc.apps.check.check_implicit import check_implicit

    return check_implicit(text, implicit, answer, wrt)


def _readings(
    text: str, verdicts: list, answers: bool, equation: bool, points: bool, values: list[str]
) -> tuple[Any, list[str] | None, list]:
    """How the expression (or equation) and each answer were read -- a point's coordinates
    one by one: the expression's reading (with the warnings of the ``values`` typed with
    it), each answer's text as read, and every reading (the expression's first), whose
    warnings are shown."""
    from gradcalc.lang.answers import points_of
    from gradcalc.lang.intake import read

    expression = read(text, equation=equation, values=values)
    variables = expression.program.free_variables
    everything, shown = [expression], None
    if answers:
        shown = []
        for verdict in verdicts:
            if not verdict.yours:  # a point you left out
                shown.append("")
                continue
            found = points_of(verdict.yours) if points else ()
            if points and not found:  # "{}": the answer that there are none
                shown.append(verdict.yours)
                continue
            parts = found[0] if found else ()
            parsed = [read(p, variables) if p.strip() else None for p in parts or [verdict.yours]]
            texts = [p.read_as if p is not None else "" for p in parsed]
            shown.append(f"({', '.join(texts)})" if parts else texts[0])
            everything += [p for p in parsed if p is not None]
    return expression, shown, everything
