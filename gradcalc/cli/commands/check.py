"""``gradcalc check``: is this your derivative? Numbers at a point (``--expect``) or
expressions anywhere (``--answer``)."""

from __future__ import annotations

from typing import Annotated

import typer

from gradcalc.cli.console import show
from gradcalc.cli.context import AppContext
from gradcalc.cli.inputs import expression_text, names
from gradcalc.cli.options import At, Expression, Wrt, output_option
from gradcalc.core.errors import ExitCode, InputError


def check(
    context: AppContext,
    expression: Expression,
    at: At = None,
    expect: Annotated[
        str | None,
        typer.Option("--expect", help="Your numbers, in --wrt order: 36,10 (1/3, pi/4 work)."),
    ] = None,
    answer: Annotated[
        list[str] | None,
        typer.Option(
            "--answer", help='Your derivative: "2*x*y, x^2", or name=expr (repeat the option).'
        ),
    ] = None,
    wrt: Wrt = None,
    order: Annotated[
        int, typer.Option("--order", min=1, max=12, help="Check the N-th derivative (2: Hessian).")
    ] = 1,
    rtol: Annotated[
        float | None,
        typer.Option("--rtol", min=0.0, help="Relative tolerance for --expect [default: 1e-9]."),
    ] = None,
    atol: Annotated[
        float | None,
        typer.Option("--atol", min=0.0, help="Absolute tolerance for --expect [default: 1e-12]."),
    ] = None,
    output: Annotated[str, output_option("gradcalc.render.verdicts:VerdictView")] = "table",
    latex: Annotated[
        bool, typer.Option("--latex", help="Also print the answers in LaTeX.")
    ] = False,
) -> int:
    """Check your derivative of EXPRESSION: numbers at a point, or expressions anywhere."""
    from gradcalc.apps import check as answers
    from gradcalc.render.verdicts import VerdictView

    if (expect is None) == (not answer):
        raise InputError("give your answer with --expect (numbers) or with --answer (expressions)")
    text = expression_text(expression, None)
    if expect is not None:
        from gradcalc.lang.literals import split_top_level

        tolerance = (answers.RTOL if rtol is None else rtol, answers.ATOL if atol is None else atol)
        verdicts = answers.check_expect(
            text, at or [], split_top_level(expect), names(wrt), order, *tolerance
        )
    elif rtol is not None or atol is not None:
        raise InputError(
            f"{'--rtol' if rtol is not None else '--atol'} is for numbers (--expect): "
            "--answer is decided exactly or at high precision, with no tolerance"
        )
    else:
        given = _answer_form(answer or [])
        verdicts = answers.check_answers(text, given, names(wrt), order, at or [])
    view = VerdictView(text, at, latex, *_readings(text, verdicts, answer is not None))
    show(context, view, verdicts, output)
    ok = [v.ok for v in verdicts]
    return ExitCode.OK if all(ok) else ExitCode.CHECK_FAILED


def _readings(text: str, verdicts: list, answers: bool) -> tuple[str, list[str] | None, list]:
    """How the expression and each answer were read, and the ambiguity warnings of both."""
    from gradcalc.lang.parser import parse_program
    from gradcalc.lang.reading import ambiguities, read_as

    program = parse_program(text)
    warnings = ambiguities(program)
    readings = None
    if answers:
        parsed = [parse_program(v.yours, program.free_variables) for v in verdicts]
        readings = [read_as(answer) for answer in parsed]
        warnings += [w for answer in parsed for w in ambiguities(answer)]
    return read_as(program), readings, list(dict.fromkeys(warnings))


def _answer_form(answers: list[str]) -> list[str] | dict[str, str]:
    """Positional answers, or ``name=expr`` ones (all of them, or none)."""
    import re

    named = [re.match(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*=(?!=)(.*)\Z", a, re.S) for a in answers]
    if not any(named):
        return answers
    if not all(named):
        raise InputError("give every --answer as name=expr, or none of them")
    return {m.group(1): m.group(2) for m in named if m}
