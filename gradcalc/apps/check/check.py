"""Judge a student's answer: numbers at a point, or derivative expressions anywhere.

A number is compared with the tape's derivative (exactly, when both sides are exact). An
expression is judged by :func:`gradcalc.symbolic.decide.equivalence.decide` -- a proof, exact
arithmetic at random points, or high-precision evaluation -- at test points drawn from
where both the expression and the answer are defined (the registry's domain rules).

>>> [v.verdict for v in check_expect("3*w1**2 + 2*w1*w2", ["w1=5,w2=3"], ["36", "10"])]
['correct', 'correct']
>>> v = check_answers("x**3*sin(x)", ["3*x**2*sin(x) + x**3*cos(x)"])[0]
>>> v.verdict, v.detail
('equivalent', 'sympy proves the difference is 0')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gradcalc.apps.check.asked import at_asked
from gradcalc.apps.check.coverage import cover
from gradcalc.apps.check.gaps import with_holes
from gradcalc.apps.check.numbers import answer_value, compare_number, correct_text, short
from gradcalc.apps.check.orders import order_hints
from gradcalc.apps.check.overflow import as_float, exact_values, float64_only
from gradcalc.apps.check.sampling import domain_points, scarcity
from gradcalc.apps.check.shown import answer_latex, shortest_form
from gradcalc.apps.check.verdicts import Verdict, Verdicts
from gradcalc.apps.check.wanted import (
    Component,
    Target,
    components,
    named,
    named_order,
    not_named,
    wrong_count,
)
from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.core.naming import label_latex
from gradcalc.core.numbers import counted
from gradcalc.engine.evaluate.evaluate import evaluate, source_names
from gradcalc.engine.evaluate.names import as_product, product_clause, require_values
from gradcalc.engine.evaluate.points import Points, parse_at
from gradcalc.engine.run.api import (
    Options,
    compile_expression,
    derivatives_at,
    gradient_at,
    hessian_at,
)
from gradcalc.lang.answers import answer_form, one_group, shape_of
from gradcalc.lang.graph import Graph
from gradcalc.lang.slips import likely_meaning
from gradcalc.symbolic.crosscheck.crosscheck import (
    CheckTimeout,
    symbolic_gradient,
    time_limit,
    to_sympy,
)
from gradcalc.symbolic.decide.defined import undefined_at
from gradcalc.symbolic.decide.equivalence import decide
from gradcalc.symbolic.decide.patience import patient
from gradcalc.symbolic.decide.precision import ENOUGH, MAX_TRIED
from gradcalc.symbolic.decide.realroots import agrees_as_real_root, real_root_reading
from gradcalc.symbolic.translate.convert import converted
from gradcalc.symbolic.translate.derivative import derivative, symbol

RTOL = 1e-9
PROOF_SECONDS = 3.0
DOMAIN_TRIES = 4  # points where the tape finds your answer undefined, confirmed by sympy
BUILD_SECONDS = 10.0  # for sympy to build the derivatives and your answers


# --- numbers at a point --------------------------------------------------------------


def check_expect(
    expression: str,
    at: Sequence[str],
    expect: Sequence[str],
    wrt: Sequence[str] | None = None,
    order: int | None = None,
    rtol: float = RTOL,
    atol: float | None = None,
) -> Verdicts:
    """Judge numeric answers (``"1/3"``, ``"pi/4"``, ``"sqrt(2)"`` allowed) at one point:
    one per derivative, or one vector or matrix of them (``"(4, 1)"``, ``"[[2, 0], [0, 2]]"``).
    A decimal passes within ``rtol`` of the exact value, or within ``atol`` when given
    (:func:`gradcalc.apps.check.numbers.compare_number`).

    Raises:
        InputError: no point or several, or the wrong number of answers.
    """
    _numbers_at_one_point(expect, at)
    points = parse_at(at)
    graph = compile_expression(expression, points.names)
    require_values(graph, points.names)  # (before counting answers: x^2 at y=2 lacks x)
    said, order = order, order or 1
    if len(expect) == 1 and one_group(expect[0]):
        expect, order = _shaped(expect, graph, wrt, said)
    target = Target(expression, wrt, order)
    wanted = components(graph, target)
    if len(expect) != len(wanted):
        given = f"--expect has {counted(len(expect), 'value')}"
        raise wrong_count(given, len(expect), wanted, _product_hint(graph))
    values, exact, (past, why) = _tape_values(graph, points, target, wanted)
    verdicts = []
    for (label, _, _), text, value, exact_correct in zip(wanted, expect, values, exact):
        verdict, detail, evidence = _number(text, value, exact_correct, (past, why), rtol, atol)
        verdicts.append(
            Verdict(
                label,
                text,
                correct_text(exact_correct, value),
                verdict,
                detail,
                evidence=evidence,
                latex=answer_latex(exact_correct, value),
                latex_name=label_latex(label),
            )
        )
    result = Verdicts(verdicts, expression, at)
    if wrt is None and target.order == 1 and len(graph.target_names) == 1:
        result.hints = order_hints(
            result,
            [c.variables[0] for c in wanted],
            lambda order: check_expect(expression, at, expect, order, 1, rtol, atol),
        )
    return result


def _number(
    text: str, value: float, exact: Any, past: tuple[str, str], rtol: float, atol: float | None
) -> tuple[str, str, str]:
    """(verdict, why, evidence) for the number ``text`` against the derivative ``value``
    (``exact``: sympy's, or None); ``past``: the tape's message and why sympy has no value,
    where float64 cannot hold the derivative (:func:`_tape_values`)."""
    message, unknown = past
    yours = answer_value(text)  # (first: a text that is no number is refused, exit 2)
    if message and exact is None:  # past float64, and sympy did not say either
        return "could not decide", f"{message}, and {unknown}", ""
    verdict, detail, evidence = compare_number(text, yours, value, exact, rtol, atol)
    if message:
        detail = f"{detail} ({message}: sympy's exact value decides)"
    return verdict, detail, evidence


#: The unit vectors a textbook writes a gradient with (4i + j).
UNIT_VECTORS = {"i", "j", "k"}


def _numbers_at_one_point(expect: Sequence[str], at: Sequence[str]) -> None:
    """Refuse an expression given as ``--expect`` (``3x^2``), pointing to ``--answer`` (a
    student who writes the derivative itself is told where it goes, not that a value cannot
    hold a variable); then numbers without exactly one point."""
    for text in expect:
        try:
            variables = compile_expression(text).variables
        except InputError:
            continue  # not an expression either: answer_value says what is wrong with it
        if variables and set(variables) <= UNIT_VECTORS:  # 4i + j: a gradient, written so
            raise InputError(
                f"--expect {text!r} writes a vector with {', '.join(variables)}: --expect "
                "takes the numbers alone, in the order of the variables (4i + j is --expect 4,1)"
            )
        if variables:
            point = "its value at the point" if at else "numbers at a point (--at x=...)"
            raise InputError(
                f"--expect {text!r} uses {', '.join(variables)}: --expect takes {point}; "
                f"to check the derivative as an expression give --answer {', '.join(expect)!r}"
            )
    if len(at) != 1:
        raise InputError("--expect needs exactly one point (--at x=...,y=...)")


def _tape_values(
    graph: Graph, points: Points, target: Target, wanted: list[Component]
) -> tuple[list[float], list[Any], tuple[str, str]]:
    """The tape's values of the wanted derivatives at the point and sympy's exact values
    (None where unknown); where float64 cannot hold them, the values are sympy's alone
    (:mod:`gradcalc.apps.check.overflow`: their floats infinite where too large), with the
    tape's message and why some are unknown (else two empty texts).

    Raises:
        UndefinedError: a derivative does not exist at the point, or the function is
            undefined there (by the registry's domain rules, or past float64 by sympy).
    """
    try:
        found = _derivatives(graph, points, target, wanted, Options(strict=True, exact=True))
    except UndefinedError as error:  # float64's own problem only? then sympy's values
        loose = _derivatives(graph, points, target, wanted, Options(strict=False, exact=True))
        float64_only([result for result, _, _ in loose], error)
        assert points.exact is not None  # (--at: one point, given as text)
        name = graph.target_names[0] if len(graph.targets) == 1 else "f"
        exact, why = exact_values(
            graph, points.exact[0], lambda: _correct_expressions(graph, target, wanted), name
        )
        exact = exact or [None] * len(wanted)
        return [as_float(e) for e in exact], exact, (error.message, why)
    values = [float(0.0 if column is None else column) for _, column, _ in found]
    return values, [_exact_partial(result, key) for result, _, key in found], ("", "")


def _derivatives(
    graph: Graph, points: Points, target: Target, wanted: list[Component], options: Options
) -> list[tuple[Any, Any, str]]:
    """Each wanted derivative on the tape: (its result, its values -- ``None`` for a
    variable the output does not use --, its key among the result's checked partials)."""
    if target.order == 1:
        results = gradient_at(graph, points, target.wrt, options)
        return [
            (results[c.output], results[c.output].gradient[c.variables[0]], c.variables[0])
            for c in wanted
        ]
    if len(wanted) == 1:
        one = derivatives_at(graph, points, wanted[0].variables[0], target.order, options)
        return [(one, one.derivative, f"d{target.order}")]
    hessian = hessian_at(graph, points, target.wrt, options)
    order = {n: i for i, n in enumerate(hessian.sources)}
    return [(hessian, hessian.matrix[order[a], order[b]], f"{a},{b}") for _, (a, b), _ in wanted]


def _exact_partial(result: Any, key: str) -> str | None:
    """sympy's exact value of one partial of a result, if its check found one."""
    partials = result.check.partials if result.check is not None else {}
    found = partials.get(key)
    return found.exact_values[0] if found is not None and found.exact_values else None


# --- expressions ---------------------------------------------------------------------


def check_answers(
    expression: str,
    answers: Sequence[str] | Mapping[str, str],
    wrt: Sequence[str] | None = None,
    order: int | None = None,
    at: Sequence[str] = (),
) -> Verdicts:
    """Judge derivative expressions: positional (in ``wrt`` order, row-major for a Hessian)
    or by variable name (``{"x": "2*x"}``, ``x=2*x`` or ``df/dx = 2*x``; order 1 only), each
    with or without a head as written (:func:`gradcalc.lang.answers.answer_form`). ``at``
    adds test points, each one where the derivative asked for exists.

    Raises:
        InputError: an unparsable answer, one naming a variable the expression does not
            have, or the wrong number of answers.
        UndefinedError: the derivative asked for does not exist at a point of ``at``
            (``1/x`` at x=0: no answer is right or wrong there).
    """
    graph = compile_expression(expression)
    points = domain_points(graph, at)  # first: an undefined constant (cot(0)) is exit 3
    said, order = order, order or 1  # the order asked for, if asked: else a matrix says it
    if not isinstance(answers, Mapping):  # heads as written: df/dx = ..., f'(x) = ...
        answers = answer_form([answers] if isinstance(answers, str) else answers, order)
    if not isinstance(answers, Mapping):
        answers, order = _shaped(answers, graph, wrt, said)
    elif said is None:  # fxx = ..., fxy = ...: the names say the order
        order = named_order(answers, graph.target_names[0], source_names(graph, wrt))
    target = Target(expression, wrt, order)
    every = components(graph, target)
    given = _answer_texts(answers, every, graph.target_names[0])
    wanted = [c for c, text in zip(every, given) if text is not None]  # (named: those given)
    texts = [text for text in given if text is not None]
    tape = _tape_at(graph, points, target, wanted)  # first: it refuses undefined constants
    try:  # sympy's part, within the request's budget
        with time_limit(patient(BUILD_SECONDS)):
            correct = _correct_expressions(graph, target, wanted)  # (cot(0) is zoo: sympy chokes)
            yours = [_answer_expression(text, graph) for text in texts]
    except (CheckTimeout, ValueError, RecursionError) as stop:
        raise InputError(f"could not decide: sympy failed ({stop})") from None
    for point in at:  # a point asked about has the derivative there, as for --expect (exit 3)
        _tape_values(graph, parse_at([point]), target, wanted)
    verdicts = [
        _verdict(graph, points, (target, wanted, k, at), text, truth, values, mine)
        for k, (text, truth, values, mine) in enumerate(zip(texts, correct, tape, yours))
    ]
    result = Verdicts(verdicts, expression, at)
    result.hints = [hint for hint in [not_named(every, given, graph.target_names[0])] if hint]
    if wrt is None and order == 1 and len(graph.target_names) == 1 and texts == answers:
        result.hints = order_hints(
            result,
            [c.variables[0] for c in wanted],
            lambda order: check_answers(expression, texts, order, 1, at),
        )
    return result


def _shaped(
    answers: Sequence[str] | str, graph: Graph, wrt, said: int | None
) -> tuple[list[str], int]:
    """The entries of a list, vector (``[2x, 2y]``) or matrix answer, and the order it
    answers (``said``: the order asked for, None when not asked): a square matrix is the
    Hessian (order 2) of the ``wrt`` variables, a row or a column the gradient.

    >>> _shaped(["[[2, 0], [0, 2]]"], compile_expression("x^2 + y^2"), None, None)
    (['2', '0', '0', '2'], 2)

    Raises:
        InputError: a matrix of the wrong size, one that contradicts ``said``, or a 1×1
            matrix with no order said (the gradient and the Hessian of f(x) are both 1×1).
    """
    shape = shape_of(answers)
    rows, columns = len(shape.rows), len(shape.rows[0])
    variables = source_names(graph, wrt)
    n, outputs = len(variables), len(graph.target_names)
    if shape.kind != "matrix":
        return shape.entries, said or 1
    if outputs > 1:  # a vector function's Jacobian, row by row
        if (rows, columns) != (outputs, n) or said not in (None, 1):
            raise InputError(
                f"a {rows}×{columns} matrix answers a Jacobian; this function's is {outputs}×{n} "
                f"(rows {', '.join(graph.target_names)}; columns {', '.join(variables)})"
                + ("" if said in (None, 1) else f", and --order {said} asks for one output's")
            )
        return shape.entries, 1
    if (rows, columns) == (1, 1) and said is None:
        raise InputError(
            "a 1×1 matrix could be the gradient or the Hessian of a function of one variable: "
            "write the entry alone, with --order 2 for the second derivative"
        )
    if 1 in (rows, columns):
        return shape.entries, said or 1
    if said not in (None, 2):
        asked = "the gradient: [a, b]" if said == 1 else "one derivative"
        raise InputError(
            f"a {rows}×{columns} matrix answers a Hessian, but --order {said} asks for {asked}"
        )
    if (rows, columns) != (n, n):
        raise InputError(
            f"a {rows}×{columns} matrix answers a Hessian; the Hessian of this function in "
            f"{', '.join(variables)} is {n}×{n}"
        )
    return shape.entries, 2


def _answer_texts(answers, wanted: list[Component], function: str) -> list[str | None]:
    if isinstance(answers, Mapping):
        if any(c.output for c in wanted):
            rows: dict[int, list[str]] = {c.output: [] for c in wanted}
            for c in wanted:
                rows[c.output].append(c.label)
            shown = ", ".join(f"[{', '.join(row)}]" for row in rows.values())
            raise InputError(
                "answers named by variable are for a function of one output: give a vector "
                f"function's Jacobian row by row, [{shown}]"
            )
        return named(answers, wanted, function)
    texts: list[str | None] = list(answers)
    if len(texts) != len(wanted):
        raise wrong_count(f"{counted(len(texts), 'answer')} given", len(texts), wanted)
    return texts


def _correct_expressions(graph: Graph, target: Target, wanted: list[Component]) -> list:
    if target.order == 1:
        rows = {
            o: symbolic_gradient(graph, o, [c.variables[0] for c in wanted if c.output == o])
            for o in {c.output for c in wanted}
        }
        return [rows[c.output][c.variables[0]] for c in wanted]
    expr = to_sympy(graph)[graph.targets[0]]
    result = []
    for _, variables, _ in wanted:
        current = expr
        for name in variables:
            current = derivative(current, symbol(name))
        result.append(current)
    return result


def _answer_expression(text: str, graph: Graph):
    """The student's expression in sympy, using only the expression's variables."""
    answer = compile_expression(text, graph.variables)
    extra = [v for v in answer.variables if v not in graph.variable_nodes]
    if extra:
        meant = likely_meaning(extra[0])
        hint = product_clause(extra[0], graph.variables) or (
            f"; did you mean {meant}?" if meant else ""
        )
        raise InputError(
            f"the answer {text!r} uses {extra[0]}, which is not a variable of the expression "
            f"({', '.join(graph.variables) or 'none'}){hint}"
        )
    try:  # an undefined constant such as cot(0) is an error in the answer (and sympy's zoo)
        evaluate(answer, {v: np.zeros(()) for v in answer.variables}, wrt=[])
    except UndefinedError as error:
        raise InputError(f"the answer {text!r}: {error.message}") from None
    return answer, converted(answer)[answer.targets[0]]  # (kept: its holes read it too)


def _tape_at(graph, sampled, target: Target, wanted: list[Component]) -> list[np.ndarray]:
    """The tape's values of each wanted derivative at every test point (NaN: undefined)."""
    options = Options(check=False, strict=False)
    columns = _derivatives(graph, sampled.points, target, wanted, options)
    shape = (sampled.count,)
    out = []
    for result, column, _ in columns:
        values = np.broadcast_to(0.0 if column is None else column, shape).astype(float)
        out.append(np.where(result.undefined.reshape(shape), np.nan, values))
    return out


def _judge(label, text, truth, mine, graph, sampled, tape_values) -> Verdict:
    """An answer undefined where the derivative is defined is wrong (the registry's domain
    rules decide, not rounding); otherwise :func:`decide` judges it at the points where
    both are defined."""
    import sympy as sp

    answer_graph, answer = mine
    shown = shortest_form(truth)
    defined = np.isfinite(tape_values)
    if sampled.domain == () or not defined.any():  # (f real nowhere, or at no point tried:
        nowhere = scarcity(sampled, 0, graph.target_names[0])  # a witness would be outside)
        return Verdict(label, text, shown, "could not decide", nowhere)
    points, count = sampled.points, sampled.count
    yours, undefined = _evaluate(answer_graph, points, count)

    def exact_point(k: Any) -> dict[str, Any]:
        return {n: sp.Rational(repr(float(points.arrays[n][k]))) for n in points.names}

    for k in np.flatnonzero(defined & undefined)[:DOMAIN_TRIES]:
        if not undefined_at(answer_graph, exact_point(k)):
            continue  # a float artefact (exp(-1695) underflowed in a denominator): no witness
        at = ", ".join(f"{n}={short(float(points.arrays[n][k]))}" for n in points.names)
        if real_root_reading(answer) is not None:  # x^(2/3) at x < 0: a convention
            point = {symbol(n): v for n, v in exact_point(k).items()}
            if not agrees_as_real_root(answer, truth, point):
                continue  # no witness that rests on the convention: the points judge it
            detail = (
                f"yours is undefined at {at} with x^(p/q) read as the principal power (as "
                "gradcalc reads it), and right there with real odd roots: write cbrt(x)^2 "
                "for the real cube root of x^2, or say which you mean"
            )
            return Verdict(label, text, shown, "could not decide", detail)
        detail = f"differs at {at}: yours undefined, correct {short(tape_values[k])}"
        return Verdict(label, text, shown, "not equivalent", detail, evidence="domain")
    common = np.flatnonzero(defined & np.isfinite(yours))
    exact_points = [exact_point(k) for k in common[:MAX_TRIED]]  # (decide tries no more)
    symbols = [symbol(n) for n in graph.variables]
    decision = decide(answer, truth, symbols, exact_points, PROOF_SECONDS)
    sides = (answer, truth)
    decision, where = cover(decision, answer_graph, graph, sides, symbols, exact_points[:ENOUGH])
    detail = decision.detail
    if decision.ok is None and len(common) < ENOUGH:
        detail = scarcity(sampled, len(common), graph.target_names[0])
    verdict = Verdict(label, text, shown, decision.verdict, detail, evidence=decision.evidence)
    verdict.where = where
    return verdict


def _verdict(graph, points, asked, text, truth, values, mine) -> Verdict:
    """The verdict on the answer to ``asked`` = (target, wanted, k, at): the k-th component
    (a fail shown at a point of ``at`` where it differs there)."""
    target, wanted, k, at = asked
    label = wanted[k].label
    verdict = _judge(label, text, truth, mine, graph, points, values)
    if verdict.ok:  # a proof of sympy's reading says nothing where yours is undefined
        tape_at = _derivative_at(graph, target, wanted, k)
        verdict = with_holes(verdict, mine[0], graph, truth, tape_at)
    verdict = at_asked(verdict, mine[1], truth, at)
    verdict.latex = answer_latex(truth, None)
    verdict.latex_name = label_latex(label)
    return verdict


def _derivative_at(graph: Graph, target: Target, wanted: list[Component], k: int):
    """The tape's value of the ``k``-th wanted derivative at an exact point (rounded to
    float64), raising UndefinedError where it has none."""

    def at(point: Mapping[str, Any]) -> float:
        given = ",".join(f"{name}={float(value)!r}" for name, value in point.items())
        options = Options(check=False, strict=True)
        _, column, _ = _derivatives(graph, parse_at([given]), target, wanted, options)[k]
        return float(0.0 if column is None else column)

    return at


def _evaluate(graph: Graph, points: Points, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The answer's value at every test point (NaN where it is undefined or not finite),
    and where it is undefined by the registry's domain rules."""
    run = evaluate(graph, {n: points.arrays[n] for n in graph.variables}, wrt=[])
    value = np.broadcast_to(run.values[0], (count,)).astype(float)
    undefined = np.zeros(count, dtype=bool)
    for problem in run.problems[0]:
        if problem.kind == "undefined":
            undefined |= np.broadcast_to(problem.mask, (count,))
    return np.where(undefined, np.nan, value), undefined


def _product_hint(graph: Graph) -> str:
    """A hint when a variable's name is other variables side by side (``xy``)."""
    for name in graph.variables:
        product = as_product(name, [v for v in graph.variables if v != name])
        if product:
            return f" ({name} is one name: for a product write {product})"
    return ""
