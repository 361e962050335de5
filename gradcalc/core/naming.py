"""How a reading is named on its ``read as:`` line: the head before the ``=`` and the body
after it, one rule for the reading step (:func:`gradcalc.lang.intake.reading_line`) and for
the tables that style the same line (:mod:`gradcalc.render.pieces.gradient`); and the
columns of a table of results, each named once (:func:`unique_header`), whoever writes it
(CSV, Parquet, a DataFrame).

>>> function_head("x·y", ["x", "y"])
('f(x, y)', 'x·y')
"""

from __future__ import annotations

import collections
from collections.abc import Sequence

from gradcalc.core.errors import InputError

__all__ = [
    "SUPERSCRIPT_DIGITS",
    "Carried",
    "derivative_label",
    "function_head",
    "label_latex",
    "unique_header",
]

#: Digits to superscripts, as orders are written (``∂²f``).
SUPERSCRIPT_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


def function_head(read_as: str, variables: Sequence[str], name: str = "f") -> tuple[str, str]:
    """``(head, body)`` of a reading: ``f(x, y)`` for an expression of those variables;
    ``g(x)`` for a function given a name (``g = x^3``, ``g(x) = x^3``); another ``name`` as
    itself (``y``: a fitted column); no head for a program of several statements or an
    equation (a reading with its own ``=`` that is not one named function, or no ``name``).

    >>> function_head("g = x^3", ["x"]), function_head("a·x + b", ["x"], "y")
    (('g(x)', 'x^3'), ('y', 'a·x + b'))
    >>> function_head("g = a·x + b", ["x"], "y")
    ('y', 'a·x + b')
    >>> function_head("y = x^2; z = y^2", ["x"]), function_head("x^2 + y^2 = 1", ["x", "y"], "")
    (('', 'y = x^2; z = y^2'), ('', 'x^2 + y^2 = 1'))
    """
    target, equals, body = read_as.partition(" = ")
    named = bool(equals) and target.isidentifier() and "=" not in body and ";" not in body
    if not name or ("=" in read_as and not named):
        return "", read_as
    if name != "f":  # (a fitted column names the function, whatever the text called it)
        return name, body if named else read_as
    return f"{target if named else name}({', '.join(variables)})", body if named else read_as


def derivative_label(function: str, variables: Sequence[str], ordinary: bool = False) -> str:
    """The label of ``function`` differentiated by ``variables`` in turn: a partial
    derivative (``∂f/∂x``, ``∂²f/∂x²``, ``∂²f/∂x∂y``), or with ``ordinary`` (a function of
    one variable) the ordinary one (``df/dx``, ``d³f/dx³``). One rule for every command
    that names a derivative (diff, check, grad --order).

    >>> derivative_label("f", ["x"]), derivative_label("f", ["x", "y"])
    ('∂f/∂x', '∂²f/∂x∂y')
    >>> derivative_label("g", ["t"] * 3, ordinary=True), derivative_label("f", ["x", "x"])
    ('d³g/dt³', '∂²f/∂x²')
    """
    d = "d" if ordinary else "∂"
    power = "" if len(variables) == 1 else str(len(variables)).translate(SUPERSCRIPT_DIGITS)
    if len(set(variables)) == 1:
        return f"{d}{power}{function}/{d}{variables[0]}{power}"
    return f"{d}{power}{function}/" + "".join(f"{d}{name}" for name in variables)


def label_latex(label: str) -> str:
    """A label made by :func:`derivative_label` in LaTeX, the same derivative in the same
    notation (``d`` for an ordinary derivative, ``\\partial`` for a partial one).

    >>> print(label_latex("df/dx"), label_latex("∂²f/∂x∂y"))
    \\frac{d f}{d x} \\frac{\\partial^{2} f}{\\partial x \\partial y}
    >>> print(label_latex("d³g/dt³"), label_latex("∂²f/∂w1²"))
    \\frac{d^{3} g}{d t^{3}} \\frac{\\partial^{2} f}{\\partial w1^{2}}
    """
    top, _, bottom = label.partition("/")
    d = top[0]
    tex = "d" if d == "d" else "\\partial"
    rest = top[1:]
    function = rest.lstrip("⁰¹²³⁴⁵⁶⁷⁸⁹")
    power = rest[: len(rest) - len(function)].translate(_DIGITS)
    parts = []
    for part in bottom.split(d)[1:]:
        name = part.rstrip("⁰¹²³⁴⁵⁶⁷⁸⁹")
        exponent = part[len(name) :].translate(_DIGITS)
        parts.append(f"{tex} {name}" + (f"^{{{exponent}}}" if exponent else ""))
    numerator = f"{tex}^{{{power}}} {function}" if power else f"{tex} {function}"
    return f"\\frac{{{numerator}}}{{{' '.join(parts)}}}"


class Carried(str):
    """Text from the user's data -- an ``--id`` cell, the id column's name --: the one kind
    of CSV cell :func:`gradcalc.io.carried.csv_rows` guards, and in a header the id column."""

    __slots__ = ()


#: What a clash of a variable with gradcalc's own column may do instead of renaming.
KEEP_APART = "use --format json, which keeps a point's names apart"


def unique_header(header: Sequence[str], instead: str = KEEP_APART) -> list[str]:
    """``header``, whose names are all different: a variable or the ``--id`` column
    (:class:`Carried`) named like one of gradcalc's own columns (``value``, ``f1``,
    ``determinant``, ``d/dx`` ...) is refused, never written as a second column of the same
    name (which a reader would take for the first, or refuse); ``instead`` says what else
    keeps the names apart.

    >>> unique_header(["x", "value", "d/dx"])
    ['x', 'value', 'd/dx']
    >>> unique_header(["value", "x", "value", "d/dvalue", "d/dx"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: the output would have two columns named value: the ...
    >>> unique_header([Carried("d/dx"), "x", "value", "d/dx"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: ... named d/dx: the --id column d/dx and gradcalc's own; ...
    """
    counts = collections.Counter(header)
    twice = next((name for name in header if counts[name] > 1), None)
    if twice is None:
        return list(header)
    start = f"the output would have two columns named {twice}:"
    if any(isinstance(name, Carried) and name == twice for name in header):
        raise InputError(
            f"{start} the --id column {twice} and gradcalc's own; rename that column in the "
            f"points file's header, or {instead}"
        )
    if twice.isidentifier():
        raise InputError(
            f"{start} the variable {twice} and gradcalc's own; rename it (in the expression, "
            f"and in --at or the points file's header: {twice}_, say), or {instead}"
        )
    raise InputError(f"{start} the variables' names run together in it; rename one of them")
