"""Write sympy expressions the way the user types them: ``^``, ``ln``, ``abs``, ``2x``.

The text reads back through gradcalc's own parser to the same mathematics (the tests check
that), so an answer can be pasted into ``gradcalc check`` or the next command. Implicit
products are used only after a number (``2x``, ``2 sin(x)``, ``2(x + 1)``), where they cannot
be misread; other products keep their ``*``.

>>> import sympy as sp
>>> x, y = sp.symbols("x y", real=True)
>>> user_text(2 * x * sp.sin(x**2) + sp.log(x) / y)
'2x*sin(x^2) + ln(x)/y'
>>> user_latex(sp.log(x) / x**2)
'\\\\frac{\\\\ln{\\\\left(x \\\\right)}}{x^{2}}'
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

#: A standalone number (not part of a name, not an exponent or a divisor) times what follows.
_COEFFICIENT = re.compile(r"(?<![\w.^/])(\d+(?:\.\d+)?)\*(?=[A-Za-z(])")
#: After the coefficient: one letter that is the whole name (``2x``) or a longer name.
_ONE_LETTER = re.compile(r"[A-Za-z](?![\w(])")


@functools.cache
def _printer() -> type:
    """sympy's str printer (:class:`~gradcalc.symbolic.translate.printing.Printer`, which
    remembers the order of sums' terms) with gradcalc's function names (made on first use)."""
    from gradcalc.symbolic.translate.printing import Printer

    class UserPrinter(Printer):
        def __init__(self, names: Mapping[str, str]) -> None:
            super().__init__()
            self.names = names

        def _print_Symbol(self, expr: Any) -> str:
            return self.names.get(expr.name) or super()._print_Symbol(expr)

        def _print_log(self, expr: Any) -> str:
            return f"ln({self._print(expr.args[0])})"

        def _print_Abs(self, expr: Any) -> str:
            return f"abs({self._print(expr.args[0])})"

        def _print_Heaviside(self, expr: Any) -> str:
            return f"step({self._print(expr.args[0])})"

        def _print_Exp1(self, expr: Any) -> str:
            return "e"

    return UserPrinter


def user_printer(names: Mapping[str, str] | None = None) -> Any:
    """A printer for :func:`user_text`, to reuse for many expressions (it remembers the
    order of their sums' terms).

    >>> import sympy as sp
    >>> printer, x = user_printer(), sp.Symbol("x")
    >>> [user_text(e, printer=printer) for e in (3 * x**2 + 1, 5 * x**2 + 2)]
    ['3x^2 + 1', '5x^2 + 2']
    """
    return _printer()(names or {})


def user_text(expr: Any, names: Mapping[str, str] | None = None, printer: Any = None) -> str:
    """``expr`` in gradcalc's input notation; ``names`` writes some symbols as other text
    (which must read as one factor: a name, or text in parentheses); ``printer`` (from
    :func:`user_printer`, ``names`` then unused) is reused rather than made.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> user_text(3 * x**2 * sp.exp(x) + 2 * (x + 1) ** -1 + sp.E)
    '3x^2*exp(x) + e + 2/(x + 1)'
    >>> user_text(2 * sp.sqrt(x) * sp.Symbol("w1")), user_text((x + 1) ** -2)
    ('2 w1*sqrt(x)', '1/(x + 1)^2')
    >>> user_text(1 / (x + 1)), user_text(1 / x)
    ('1/(x + 1)', '1/x')
    >>> user_text(2 * x**2 - x / 3, {"x": "(x - 1)"})
    '2(x - 1)^2 - (x - 1)/3'
    """
    printer = printer or user_printer(names)
    if expr.is_Pow and expr.exp.is_negative and expr.exp.is_Rational:  # not (x + 1)^(-2)
        denominator = 1 / expr
        text = user_text(denominator, printer=printer)
        plain = denominator.is_Atom or denominator.is_Function or denominator.is_Pow
        return f"1/{text}" if plain else f"1/({text})"
    text = printer.doprint(expr).replace("**", "^")
    return _COEFFICIENT.sub(_juxtapose, text)


def coordinate_text(name: str, value: Any) -> str:
    """A coordinate's exact value as :func:`user_text` writes it, but a root of a polynomial
    without radicals (``CRootOf``) has its polynomial written in the coordinate's variable:
    sympy keeps the variable it first met that polynomial in (``t``, from another function).

    >>> import sympy as sp
    >>> t = sp.Symbol("t")
    >>> coordinate_text("x", sp.CRootOf(t**5 - t - 1, 0))
    'CRootOf(x^5 - x - 1, 0)'
    """
    import sympy as sp  # (loaded: the value is sympy's)

    if isinstance(value, sp.CRootOf):
        (gen,) = value.expr.free_symbols or {sp.Symbol(name)}
        return f"CRootOf({user_text(value.expr.subs(gen, sp.Symbol(name)))}, {value.index})"
    return user_text(value)


def _juxtapose(match: re.Match) -> str:
    """``2*x`` as ``2x``; ``2*sin`` and ``2*w1`` as ``2 sin``, ``2 w1``; ``2*(`` as ``2(``."""
    following = match.string[match.end() :]
    tight = following.startswith("(") or _ONE_LETTER.match(following)
    return match.group(1) + ("" if tight else " ")


def user_latex(expr: Any) -> str:
    """``expr`` in LaTeX, with ``\\ln`` for the natural logarithm.

    >>> import sympy as sp
    >>> user_latex(sp.sqrt(sp.Symbol("x", real=True)))
    '\\\\sqrt{x}'
    """
    import sympy as sp

    return sp.latex(expr, ln_notation=True)


def shifted_term(coefficient: Any, powers: Mapping[str, int], centers: Mapping[str, Any]) -> str:
    """``coefficient · Π (v - centre)^power`` with each ``v - centre`` kept as one factor
    (empty text for a zero coefficient).

    >>> import sympy as sp
    >>> shifted_term(sp.Rational(-1, 64), {"x": 2}, {"x": 4}), shifted_term(3, {"x": 1}, {"x": 0})
    ('-(x - 4)^2/64', '3x')
    """
    import sympy as sp

    if coefficient == 0:
        return ""
    names = {}  # a placeholder symbol per variable, written as (x - a)
    monomial = sp.S.One
    for k, (v, power) in enumerate(powers.items()):
        shift = sp.Symbol(v, real=True) - centers[v]
        names[f"shift{k}"] = v if centers[v] == 0 else f"({user_text(shift)})"
        monomial *= sp.Symbol(f"shift{k}", real=True) ** power
    return user_text(sp.sympify(coefficient) * monomial, names)


def join_terms(terms: Sequence[str]) -> str:
    """Terms joined by `` + `` or `` - `` (a term's own minus becomes the sign); empty
    terms are left out.

    >>> join_terms(["1", "", "-x", "x^2/2"])
    '1 - x + x^2/2'
    """
    shown = [t for t in terms if t]
    if not shown:
        return "0"
    text = shown[0]
    for term in shown[1:]:
        text += f" - {term[1:]}" if term.startswith("-") else f" + {term}"
    return text
