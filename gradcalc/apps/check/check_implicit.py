"""Judge dy/dx of an implicit curve: ``gradcalc check "x^2 + y^2 = 25" --implicit y --answer
"-x/y"``.

The right answer is -F_x/F_y (sympy, from the equation read by gradcalc's parser as
F = left - right). Your answer, a function of x and y, only has to agree with it **on the
curve**: ``-x*y/(25 - x^2)`` is right too. It is decided by
:func:`gradcalc.symbolic.decide.oncurve.decide_on_curve` (a proof, or high precision at points of
the curve), one verdict per independent variable.

>>> v = check_implicit("x^2 + y^2 = 25", "y", ["-x/y"])[0]
>>> v.component, v.verdict, v.correct
('dy/dx', 'equivalent', '-x/y')
"""

from __future__ import annotations

from collections.abc import Sequence

from gradcalc.apps.check.gaps import with_curve_holes
from gradcalc.apps.check.verdicts import Verdict, Verdicts
from gradcalc.apps.derive.implicit import implicit
from gradcalc.core.errors import InputError
from gradcalc.core.numbers import counted
from gradcalc.engine.run.api import compile_expression
from gradcalc.lang.answers import answer_form, shape_of
from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_equation
from gradcalc.symbolic.decide.oncurve import decide_on_curve
from gradcalc.symbolic.translate.convert import converted
from gradcalc.symbolic.translate.derivative import symbol
from gradcalc.symbolic.translate.notation import user_text


def check_implicit(
    equation: str, dependent: str, answers: Sequence[str], wrt: Sequence[str] | None = None
) -> Verdicts:
    """One verdict per d(dependent)/d(other variable), in ``wrt`` order.

    Raises:
        InputError: not an equation, the wrong number of answers, an answer that uses a
            name the equation does not have.
    """
    result = implicit(equation, dependent, wrt)
    if not result.entries:
        raise InputError(f"could not decide: {'; '.join(result.notes) or 'no derivative'}")
    texts = _answer_texts(answers, [entry.variables[0] for entry in result.entries], dependent)
    if len(texts) != len(result.entries):
        raise InputError(
            f"{counted(len(texts), 'answer')} given; "
            f"{len(result.entries)} needed, in this order: "
            + ", ".join(entry.label for entry in result.entries)
        )
    graph = lower(parse_equation(equation))
    symbols = [symbol(v) for v in graph.variables]
    verdicts = []
    for entry, text in zip(result.entries, texts):
        answer = compile_expression(text, graph.variables)
        extra = [v for v in answer.variables if v not in graph.variables]
        if extra:
            raise InputError(
                f"the answer {text!r} uses {extra[0]}, which is not a variable of the "
                f"equation ({', '.join(graph.variables)})"
            )
        mine = converted(answer)[answer.targets[0]]  # (kept: the domain check reads it too)
        decision = decide_on_curve(
            mine, entry.raw, result.function, symbols, symbol(dependent), typed=answer
        )
        shown = user_text(entry.form.expr)
        verdict = Verdict(
            entry.label, text, shown, decision.verdict, decision.detail, evidence=decision.evidence
        )
        if verdict.ok:  # a proof of sympy's reading (x/x is 1) says nothing of holes
            verdict = with_curve_holes(
                verdict, answer, graph, entry.raw, result.function, dependent
            )
        verdicts.append(verdict)
    labels = ", ".join(entry.label for entry in result.entries)
    where = "curve" if len(graph.variables) == 2 else "surface"
    return Verdicts(verdicts, equation, question=f"{labels} on the {where}", equation=True)


def _answer_texts(answers: Sequence[str], others: Sequence[str], dependent: str = "y") -> list[str]:
    """The answers in the order of ``others`` (the variables the dependent one is
    differentiated by): as given, or each named by its head as on paper (``dy/dx = ...``,
    ``y' = ...``), as the check of an explicit function reads them.

    >>> _answer_texts(["dy/dx = -x/y"], ["x"]), _answer_texts(["-x/z, -y/z"], ["x", "y"])
    (['-x/y'], ['-x/z', '-y/z'])
    >>> _answer_texts(["dz/dy = -y/z", "dz/dx = -x/z"], ["x", "y"])
    ['-x/z', '-y/z']

    Raises:
        InputError: a head naming no derivative asked for, or some left out.
    """
    form = answer_form(list(answers))
    if isinstance(form, list):
        return list(shape_of(form).entries)
    if sorted(form) != sorted(others):
        raise InputError(
            f"--answer names the derivative of {dependent} with respect to {', '.join(form)}; "
            f"asked for: with respect to {', '.join(others)} "
            f"(d{dependent}/d{others[0]} = ...)"
        )
    return [form[v] for v in others]
