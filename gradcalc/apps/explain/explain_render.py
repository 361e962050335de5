"""How an explanation reads: Markdown, LaTeX and rich panels of the
:class:`~gradcalc.apps.explain.explanation.Explanation` that
:func:`~gradcalc.apps.explain.explain.explain` builds, in the user's notation. Pure: nothing
here prints; importing it registers how an explanation shows in a notebook
(:mod:`gradcalc.engine.evaluate.display`).

>>> from gradcalc.apps.explain.explain import explain
>>> print(to_markdown(explain("x*sin(x)", at={"x": 0})).splitlines()[0])
# Explaining `f(x) = x·sin(x)` at x=0
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from gradcalc.apps.explain.explanation import (
    Derivation,
    Explanation,
    ForwardStep,
    Operand,
    ReverseStep,
    RuleStep,
    Term,
)
from gradcalc.core.numbers import format_number
from gradcalc.core.ops import REGISTRY
from gradcalc.core.ops.arith import LOGARITHMIC
from gradcalc.engine.evaluate import display
from gradcalc.lang.intake import reading_line
from gradcalc.lang.unparsing import operation
from gradcalc.symbolic.translate.derivative import symbol
from gradcalc.symbolic.translate.notation import user_latex, user_printer, user_text

#: An expression with more nodes than this is not printed (its size is said instead).
MAX_SHOWN_NODES = 150
_SINGLE_STAR = re.compile(r"(?<!\*)\*(?!\*)")


# --- rendering: shared prose --------------------------------------------------------------


def _factor(text: str) -> str:
    """A number as a factor of a product: negative ones in parentheses."""
    return f"({text})" if text.startswith("-") else text


def _infix(op_name: str, texts: Sequence[str]) -> str:
    """A record's formula from its operands' texts, written as the tape writes it (an
    operator's negative operand in parentheses: ``2·(-3)``)."""
    return operation(op_name, [_factor(t) for t in texts] if REGISTRY[op_name].symbol else texts)


def _prose(expr: Any, values: Mapping[Any, float] | None = None) -> str:
    """A local derivative as prose, in the reading's notation: ``2·y``, ``1/sqrt(1 - #4^2)``,
    ``1/x`` for ln's; with ``values``, its symbols become numbers (a negative one in
    parentheses, but once only as a function's argument: ``exp(-1)``)."""
    numbers = {s.name: _factor(format_number(v)) for s, v in (values or {}).items()}
    text = user_printer(numbers).doprint(expr).replace("**", "^")
    text = _DOUBLED.sub(r"(\1)", _SINGLE_STAR.sub("·", text))
    return f"({text})" if _needs_parentheses(expr) else text


#: A negative number in parentheses as a function's whole argument: ``exp((-1))``.
_DOUBLED = re.compile(r"\(\((-[0-9.e+-]+|-inf|nan)\)\)")


def _needs_parentheses(expr: Any) -> bool:
    """Does a factor need parentheses: a sum, or a negative term (``-1/x**2``)?"""
    return expr.is_Add or expr.could_extract_minus_sign()


def _values(operands: Sequence[Operand]) -> dict[Any, float]:
    return {o.symbol: o.value for o in operands if o.symbol.is_Symbol}


def _forward_line(step: ForwardStep) -> str:
    formula = _infix(step.op, [o.name for o in step.operands])
    numbers = _infix(step.op, [format_number(o.value) for o in step.operands])
    return _chain([step.name, formula, numbers, format_number(step.value)])


def _numbered(step: ForwardStep) -> str:
    """A forward line after its record's number, unless the line starts with it (a record
    no statement names): ``#1 = w1 ** 2 = 1``, ``#2  y = sin(#1) = 0.84``."""
    line = _forward_line(step)
    return line if step.name == f"#{step.index}" else f"#{step.index}  {line}"


def _reverse_line(step: ReverseStep) -> str:
    """``adjoint(y) = ∂z/∂y · adjoint(z) = 2·y · 1 = 2·9 · 1 = 18`` (equal stages once)."""
    parts = [f"adjoint({step.name})"]
    if step.terms:
        parts += [
            " + ".join(f"∂{t.consumer}/∂{step.name} · adjoint({t.consumer})" for t in step.terms),
            " + ".join(f"{_prose(t.local)} · {_adjoint_factor(t)}" for t in step.terms),
            " + ".join(
                f"{_prose(t.local, _values(t.operands))} · {_adjoint_factor(t)}" for t in step.terms
            ),
        ]
    return _chain([*parts, format_number(step.adjoint)])


def _adjoint_factor(term: Term) -> str:
    return _factor(format_number(term.consumer_adjoint))


def _chain(parts: Sequence[str]) -> str:
    """``a = b = c``, a part equal to the one before it left out."""
    return " = ".join(part for k, part in enumerate(parts) if k == 0 or part != parts[k - 1])


def _gradient_line(e: Explanation, source: str) -> str:
    value = e.gradient[source]
    if value is None:
        return f"∂{e.target}/∂{source} = 0 ({e.target} does not depend on {source})"
    return f"∂{e.target}/∂{source} = {format_number(value)}"


def _is_total(step: RuleStep) -> bool:
    """Is the chain rule's outer function one of a single variable (``d``, not ``∂``)?"""
    return len(step.outer) == 1 and len(step.outer[0][1].free_symbols) == 1


def _node_count(expr: Any, limit: int) -> int:
    """How many nodes ``expr`` has written out, counting stopped past ``limit`` (shared
    subexpressions are visited once, so a huge tree costs little)."""
    sizes: dict[Any, int] = {}
    stack = [expr]
    while stack:
        top = stack[-1]
        pending = [a for a in top.args if a not in sizes]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        sizes[top] = 1 + sum(sizes[a] for a in top.args)
        if sizes[top] > limit:
            return sizes[top]
    return sizes[expr]


def _too_large(expr: Any) -> bool:
    return _node_count(expr, MAX_SHOWN_NODES) > MAX_SHOWN_NODES


def _text(expr: Any) -> str:
    """An expression as text (too large ones are only described)."""
    if _too_large(expr):
        return f"… (too large to show: over {MAX_SHOWN_NODES} nodes)"
    return user_text(expr)  # (as the student types it: x^2, 2x, ln)


def _rule_text(step: RuleStep) -> str:
    """``power rule``; ``chain rule: d/du sin(u) = cos(u)``."""
    if step.rule == LOGARITHMIC:
        return f"{step.rule}: ln(u^v) = v·ln(u), so d(u^v) = u^v·(dv·ln(u) + v·du/u)"
    if not step.outer:
        return step.rule
    d = "d" if _is_total(step) else "∂"
    said = [f"{d}/{d}{u} {_text(f)} = {_text(df)}" for u, f, df in step.outer]
    return f"{step.rule}: " + "; ".join(said)


def _rule_lines(d: Derivation) -> list[tuple[int, str, str, str | None]]:
    """Per shown step: its number, ``d/dx [y] = 2*x``, its rule, a statement's definition."""
    numbered = []
    for k, step in enumerate(d.steps, start=1):
        number = k + d.omitted if k == len(d.steps) else k
        definition = None
        if step.definition is not None:
            definition = f"{_text(step.subject)} = {_text(step.definition)}"
        formula = f"d/d{d.source} [{_text(step.subject)}] = {_text(step.result)}"
        numbered.append((number, formula, _rule_text(step), definition))
    return numbered


def _result_line(e: Explanation, d: Derivation) -> str:
    """``∂z/∂x = 4*x*y = 4*x**3``, or why there is no result."""
    if d.result is None:
        return f"∂{e.target}/∂{d.source}: {d.note}"
    shown = [d.result] if d.expanded is None else [d.result, d.expanded]
    return _chain([f"∂{e.target}/∂{d.source}", *map(_text, shown)])


def _simplified_line(e: Explanation, d: Derivation) -> str | None:
    """``simplified (factor): ∂f/∂x = x*(x + 2)*exp(x)`` in the user's notation; None at a
    point (there is none) or past the budget."""
    form = e.simplified.get(d.source)
    if form is None:
        return None
    how = "already the shortest form" if form.method == "as differentiated" else form.method
    how = how if form.complete else f"{how}; {form.note}"
    return f"simplified: ∂{e.target}/∂{d.source} = {user_text(form.expr)}   ({how})"


def _title(e: Explanation, quote: str = "") -> str:
    """``z in y = x^2; z = y^2`` for a program's statement, ``f(x) = x·sin(x)`` for an
    expression (every command's ``read as:`` line: :func:`gradcalc.lang.intake.reading_line`)."""
    where = "" if e.point is None else f" at {e.point}"
    reading = e.read_as or _one_line(e.expression)
    if e.target == e.root:  # a statement of a program
        return f"{e.target} in {quote}{reading}{quote}{where}"
    line = reading_line(reading, e.variables).removeprefix("read as: ")
    return f"{quote}{line}{quote}{where}"


def _seed_note(e: Explanation) -> str:
    return "seed" if e.target == e.root else f"seed; {e.root} is {e.target}"


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


# --- markdown ------------------------------------------------------------------------------


def to_markdown(e: Explanation) -> str:
    """The explanation as Markdown: a heading per section, numbered steps, math in backticks.

    >>> from gradcalc.apps.explain.explain import explain
    >>> print(to_markdown(explain("sin(x)", at={"x": 0})).split("## ")[2])
    Reverse pass
    <BLANKLINE>
    1. `adjoint(#1) = 1` (seed; #1 is f)
    2. `adjoint(x) = ∂#1/∂x · adjoint(#1) = cos(x) · 1 = cos(0) · 1 = 1`
    <BLANKLINE>
    """
    lines = [f"# Explaining {_title(e, '`')}", ""]
    lines += [f"> warning: {warning}\n" for warning in e.warnings]
    if e.point is not None:
        lines += ["## Forward pass", ""]
        lines += [f"{s.index}. `{_forward_line(s)}`" for s in e.forward] or ["(no operations)"]
        lines += ["", "## Reverse pass", ""]
        for k, step in enumerate(e.reverse, start=1):
            note = "" if step.terms else f" ({_seed_note(e)})"
            lines.append(f"{k}. `{_reverse_line(step)}`{note}")
        lines += ["", "## Gradient", ""]
        lines += [f"- `{_gradient_line(e, source)}`" for source in e.gradient]
        lines += [""]
    lines += ["## Symbolic derivative, rule by rule"]
    for d in e.derivations:
        lines += ["", f"### ∂{e.target}/∂{d.source}"]
        lines += [""] if d.steps else []
        for number, formula, rule, definition in _rule_lines(d):
            if number > len(d.steps):  # the last step, after the omitted ones
                lines.append(f"- … ({d.omitted} more steps)")
            note = rule if definition is None else f"{rule}; `{definition}`"
            lines.append(f"{number}. `{formula}` ({note})")
        lines += ["", f"Result: `{_result_line(e, d)}`"]
        simplified = _simplified_line(e, d)
        lines += [] if simplified is None else ["", f"Simplified: `{simplified}`"]
    return "\n".join(lines)


# --- rich ----------------------------------------------------------------------------------


def to_rich(e: Explanation) -> Any:
    """The explanation as a ``rich`` renderable: a titled panel per section.

    >>> from gradcalc.apps.explain.explain import explain
    >>> import io
    >>> from rich.console import Console
    >>> console = Console(record=True, width=72, file=io.StringIO())
    >>> console.print(to_rich(explain("x*sin(x)", at={"x": 0})))
    >>> print(console.export_text())
    read as: f(x) = x·sin(x) at x=0
    ╭─ Forward pass ───────────────────────────────────────────────────────╮
    │ #1 = sin(x) = sin(0) = 0                                             │
    │ #2 = x·#1 = 0·0 = 0                                                  │
    ╰──────────────────────────────────────────────────────────────────────╯
    ╭─ Reverse pass ───────────────────────────────────────────────────────╮
    │ adjoint(#2) = 1   (seed; #2 is f)                                    │
    │ adjoint(#1) = ∂#2/∂#1 · adjoint(#2) = x · 1 = 0 · 1 = 0              │
    │ adjoint(x) = ∂#1/∂x · adjoint(#1) + ∂#2/∂x · adjoint(#2) = cos(x) ·  │
    │ 0 + #1 · 1 = cos(0) · 0 + 0 · 1 = 0                                  │
    ╰──────────────────────────────────────────────────────────────────────╯
    ╭─ Gradient ───────────────────────────────────────────────────────────╮
    │ ∂f/∂x = 0                                                            │
    ╰──────────────────────────────────────────────────────────────────────╯
    ╭─ Symbolic derivative, rule by rule ──────────────────────────────────╮
    │ ∂f/∂x:                                                               │
    │   d/dx [sin(x)] = cos(x)   (derivative of sin: d/du sin(u) = cos(u)) │
    │   d/dx [x*sin(x)] = x*cos(x) + sin(x)   (product rule)               │
    │   ∂f/∂x = x*cos(x) + sin(x)                                          │
    ╰──────────────────────────────────────────────────────────────────────╯
    <BLANKLINE>
    """
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    def panel(title: str, lines: list[str]) -> Panel:
        return Panel(Text("\n".join(lines)), title=title, title_align="left")

    reverse = [_reverse_line(s) + ("" if s.terms else f"   ({_seed_note(e)})") for s in e.reverse]
    rule_by_rule = panel("Symbolic derivative, rule by rule", _symbolic_lines(e))
    heading = [
        Text(f"read as: {_title(e)}"),
        *(Text(f"warning: {warning}", style="yellow") for warning in e.warnings),
    ]
    if e.point is None:
        return Group(*heading, rule_by_rule)
    return Group(
        *heading,
        panel(
            "Forward pass",
            [_numbered(s) for s in e.forward] or ["(no operations)"],
        ),
        panel("Reverse pass", reverse),
        panel("Gradient", [_gradient_line(e, source) for source in e.gradient]),
        rule_by_rule,
    )


# --- LaTeX ---------------------------------------------------------------------------------


def _symbolic_lines(e: Explanation) -> list[str]:
    """The rule-by-rule panel's lines: per source, its steps, result and simplified form."""
    lines = []
    for d in e.derivations:
        lines.append(f"∂{e.target}/∂{d.source}:")
        for number, formula, rule, definition in _rule_lines(d):
            if number > len(d.steps):  # the last step, after the omitted ones
                lines.append(f"  … ({d.omitted} more steps)")
            note = rule if definition is None else f"{rule}; {definition}"
            lines.append(f"  {formula}   ({note})")
        lines.append(f"  {_result_line(e, d)}")
        simplified = _simplified_line(e, d)
        lines += [] if simplified is None else [f"  {simplified}"]
    return lines


def _latex(expr: Any, values: Mapping[Any, float] | None = None) -> str:
    """``sympy.latex`` with ``\\cdot``, ``#k`` names escaped, and ``values`` as numbers."""
    import sympy as sp

    if _too_large(expr):
        return rf"\ldots\text{{ (too large to show: over {MAX_SHOWN_NODES} nodes)}}"
    names = {s: s.name.replace("#", r"\#") for s in expr.free_symbols if "#" in s.name}
    for named, value in (values or {}).items():
        names[named] = _latex_factor(_latex_number(value))
    return sp.latex(expr, mul_symbol="dot", symbol_names=names)


def _latex_number(value: float) -> str:
    """``1e-09`` as ``1 \\times 10^{-9}``."""
    text = format_number(value)
    mantissa, e, exponent = text.partition("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}" if e else text


def _latex_name(name: str) -> str:
    return _latex(symbol(name))


def _latex_text(text: str) -> str:
    """Text for ``\\text{...}``, special characters escaped."""
    special = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
    return "".join(special.get(c, "\\" + c if c in "#$%&_{}" else c) for c in text)


def _align(title: str, rows: list[str]) -> list[str]:
    body = " \\\\\n".join(rows) if rows else r"&\text{(none)}"
    return [rf"\paragraph{{{title}}}", r"\begin{align*}", body, r"\end{align*}"]


def _latex_forward(step: ForwardStep) -> str:
    import sympy as sp

    expr = REGISTRY[step.op].sympy(sp, *(o.symbol for o in step.operands))
    numbers = _latex(expr, _values(step.operands))
    return f"{_latex_name(step.name)} &= " + _chain(
        [_latex(expr), numbers, _latex_number(step.value)]
    )


def _latex_factor(number: str) -> str:
    return rf"\left({number}\right)" if number.startswith("-") else number


def _latex_reverse(step: ReverseStep) -> str:
    def adjoint(name: str) -> str:
        return rf"\operatorname{{adjoint}}\left({_latex_name(name)}\right)"

    def local(term: Term, values: Mapping[Any, float] | None = None) -> str:
        text = _latex(term.local, values)
        text = rf"\left({text}\right)" if _needs_parentheses(term.local) else text
        return rf"{text} \cdot {_latex_factor(_latex_number(term.consumer_adjoint))}"

    parts = []
    if step.terms:
        parts += [
            " + ".join(
                rf"\frac{{\partial {_latex_name(t.consumer)}}}{{\partial {_latex_name(step.name)}}}"
                rf" \cdot {adjoint(t.consumer)}"
                for t in step.terms
            ),
            " + ".join(local(t) for t in step.terms),
            " + ".join(local(t, _values(t.operands)) for t in step.terms),
        ]
    parts.append(_latex_number(step.adjoint))
    return f"{adjoint(step.name)} &= " + _chain(parts)


def _latex_rule(step: RuleStep, source: str) -> str:
    rule = rf"\text{{{_latex_text(step.rule)}}}"
    if step.outer:
        d = "d" if _is_total(step) else r"\partial"
        rule += r"\text{: } " + r",\ ".join(
            rf"\frac{{{d}}}{{{d} {u}}} {_latex(f)} = {_latex(df)}" for u, f, df in step.outer
        )
    if step.definition is not None:
        rule += rf";\ {_latex(step.subject)} = {_latex(step.definition)}"
    return (
        rf"\frac{{d}}{{d {_latex_name(source)}}}\left[{_latex(step.subject)}\right]"
        rf" &= {_latex(step.result)} && {rule}"
    )


def _latex_derivation(e: Explanation, d: Derivation) -> list[str]:
    rows = [_latex_rule(step, d.source) for step in d.steps]
    if d.omitted:
        rows.insert(len(rows) - 1, rf"&\ldots && \text{{({d.omitted} more steps)}}")
    partial = rf"\frac{{\partial {_latex_name(e.target)}}}{{\partial {_latex_name(d.source)}}}"
    if d.result is None:
        result = rf"{partial} &: \text{{{_latex_text(d.note)}}}"
    else:
        shown = [d.result] if d.expanded is None else [d.result, d.expanded]
        form = e.simplified.get(d.source)
        simplified = [] if form is None else [user_latex(form.expr)]
        result = f"{partial} &= " + _chain([*(_latex(x) for x in shown), *simplified])
    title = rf"Symbolic derivative with respect to ${_latex_name(d.source)}$, rule by rule"
    return _align(title, [*rows, result])


def to_latex(e: Explanation) -> str:
    r"""The explanation as LaTeX: an ``align*`` environment per section.

    >>> from gradcalc.apps.explain.explain import explain
    >>> print(to_latex(explain("y = x**2; z = y**2", at={"x": 3})).splitlines()[3])
    y &= x^{2} = 3^{2} = 9 \\
    """
    lines = [f"% read as: {_title(e)}"]
    lines += [f"% warning: {warning}" for warning in e.warnings]
    if e.point is None:
        for d in e.derivations:
            lines += _latex_derivation(e, d)
        return "\n".join(lines)
    lines += _align("Forward pass", [_latex_forward(s) for s in e.forward])
    lines += _align("Reverse pass", [_latex_reverse(s) for s in e.reverse])
    gradient = []
    for source, value in e.gradient.items():
        partial = rf"\frac{{\partial {_latex_name(e.target)}}}{{\partial {_latex_name(source)}}}"
        shown = r"0 \quad \text{(independent)}" if value is None else _latex_number(value)
        gradient.append(f"{partial} &= {shown}")
    lines += _align("Gradient", gradient)
    for d in e.derivations:
        lines += _latex_derivation(e, d)
    return "\n".join(lines)


def _html(e: Explanation) -> str:
    from gradcalc.render.notebook.html import to_html

    return to_html([to_rich(e)])


display.register("text/html", Explanation, _html)
display.register("text/markdown", Explanation, to_markdown)
