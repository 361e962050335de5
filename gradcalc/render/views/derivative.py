"""Render a point-free derivative (:class:`gradcalc.apps.derive.diff.DiffResult`): text, JSON,
Markdown, plain lines. Pure functions: nothing here prints or computes.

The result is read by its fields (``kind``, ``entries``, ``shape``, ``determinant``,
``verification``, ``notes``), so this module needs nothing from the layers above it.
"""

from __future__ import annotations

from typing import Any

from gradcalc.symbolic.translate.notation import user_text


def verification_line(result: Any) -> str:
    """``verified: tape = symbolic at 96 random points of the domain``, or why not.

    >>> from types import SimpleNamespace as N
    >>> verification_line(N(verification=N(status="verified", points=96, detail="")))
    'verified: tape = symbolic at 96 random points of the domain'
    """
    check = result.verification
    if check.status == "verified":
        return f"verified: tape = symbolic at {check.points} random points of the domain"
    if check.status == "differs":
        return f"NOT verified: {check.detail}"
    return f"not verified: {check.detail}"


def function_line(result: Any) -> str:
    """``f(x, y) = x^2*y`` (each target of a Jacobian on its own line), in all the
    function's variables, though only some are differentiated by (``--wrt y``)."""
    variables = ", ".join(result.variables or result.sources)
    return "\n".join(
        f"{name}({variables}) = {user_text(expr)}"
        for name, expr in zip(result.targets, result.function)
    )


def to_lines(result: Any, latex: bool = False) -> list[str]:
    """The answer as lines of text: the function, each derivative, the verification.

    A Hessian or Jacobian is also written as a matrix, one row per line.
    """
    lines = [function_line(result), ""]
    for entry in _all(result):
        lines.append(f"{entry.label} = {entry.text}")
        if latex:
            lines.append(f"  LaTeX: {entry.latex}")
    if result.kind in ("hessian", "jacobian") and result.entries:
        lines += ["", _matrix_name(result) + " ="] + [
            "  [" + ", ".join(row) + "]" for row in _rows(result, lambda e: e.text)
        ]
        if latex:
            lines.append(f"  LaTeX: {matrix_latex(result)}")
    lines += ["", verification_line(result)]
    lines += [f"note: {note}" for note in result.notes]
    return lines


def to_plain(result: Any) -> list[str]:
    """One line per derivative in the user's notation (row-major; the determinant last)."""
    return [entry.text for entry in _all(result)]


def to_markdown(result: Any) -> str:
    """The answer as Markdown, each derivative also in LaTeX (``$...$``)."""
    lines = [f"## `{function_line(result)}`", ""]
    for entry in _all(result):
        lines.append(f"- {entry.label} = `{entry.text}`  ($ {entry.latex} $)")
    if result.kind in ("hessian", "jacobian") and result.entries:
        lines += ["", f"$$ {matrix_latex(result)} $$"]
    lines += ["", f"*{verification_line(result)}*"]
    lines += [f"- note: {note}" for note in result.notes]
    return "\n".join(lines)


def to_json(result: Any) -> dict[str, Any]:
    """Plain types only: every entry's text (the user's notation), LaTeX, sympy form and the
    rewrite that simplified it; the matrix for a Hessian or Jacobian; the verification."""
    check = result.verification
    return {
        "expression": result.expression,
        "kind": result.kind,
        "function": {t: user_text(e) for t, e in zip(result.targets, result.function)},
        "variables": list(result.sources),
        "order": result.order,
        "derivatives": [_entry_json(entry) for entry in result.entries],
        "matrix": (
            _rows(result, lambda e: e.text) if result.kind in ("hessian", "jacobian") else None
        ),
        "determinant": _entry_json(result.determinant) if result.determinant else None,
        "verification": {"status": check.status, "points": check.points, "detail": check.detail},
        "notes": list(result.notes),
    }


def matrix_latex(result: Any) -> str:
    r"""The Hessian or Jacobian as a LaTeX ``bmatrix``."""
    rows = _rows(result, lambda e: e.latex)
    return r"\begin{bmatrix}" + r" \\ ".join(" & ".join(row) for row in rows) + r"\end{bmatrix}"


def _entry_json(entry: Any) -> dict[str, Any]:
    return {
        "label": entry.label,
        "with_respect_to": list(entry.variables),
        "text": entry.text,
        "latex": entry.latex,
        "sympy": str(entry.expr),
        "raw": str(entry.raw),
        "simplified_by": entry.form.method,
    }


def _all(result: Any) -> list[Any]:
    return [*result.entries, *([result.determinant] if result.determinant else [])]


def _rows(result: Any, show: Any) -> list[list[str]]:
    _, columns = result.shape
    texts = [show(entry) for entry in result.entries]
    return [texts[k : k + columns] for k in range(0, len(texts), columns)]


def _matrix_name(result: Any) -> str:
    return "H" if result.kind == "hessian" else "J"


def to_latex(result: Any) -> str:
    r"""Each derivative as a line of an ``align*`` environment (and the matrix)."""
    rows = [f"{entry.latex_label} &= {entry.latex}" for entry in _all(result)]
    if result.kind in ("hessian", "jacobian") and result.entries:
        rows.append(f"{_matrix_name(result)} &= {matrix_latex(result)}")
    return "\n".join([r"\begin{align*}", " \\\\\n".join(rows), r"\end{align*}"])


class DiffView:
    """``gradcalc diff`` (and ``grad``, ``hessian``, ``jacobian`` without a point): the
    simplified derivatives, verified on the tape, in every document format."""

    def __init__(self, latex: bool = False):
        self.latex_lines = latex

    def tables(self, result: Any, digits: int | None, tape: bool, several: bool) -> list[Any]:
        return ["\n".join(to_lines(result, self.latex_lines))]

    def records(self, result: Any, tape: bool) -> list[dict[str, Any]]:
        return [to_json(result)]

    def plain(self, result: Any, digits: int | None) -> list[str]:
        return to_plain(result)

    def markdown(self, result: Any, digits: int | None) -> str:
        return to_markdown(result)

    def latex(self, result: Any, digits: int | None) -> str:
        return to_latex(result)
