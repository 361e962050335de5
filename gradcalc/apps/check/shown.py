"""How the right answer is shown beside the student's: the shortest readable form, and LaTeX.

Display only: every verdict is made on the exact expression itself, never on what is shown.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> shortest_form((x**2 - 1) / (x - 1))
'x + 1'
>>> answer_latex(None, 0.5), answer_latex(x**2, None)
('0.5', 'x^{2}')
"""

from __future__ import annotations

from typing import Any

from gradcalc.apps.check.numbers import short
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, time_limit
from gradcalc.symbolic.crosscheck.simplify import combined_powers
from gradcalc.symbolic.translate.notation import user_text

SHOW_SECONDS = 0.5  # for a shorter form of the right derivative, to show


def shortest_form(truth: Any) -> str:
    """The right derivative as shown beside yours: the shortest of sympy's result, its
    cancelled and factored forms, each with its powers of one base combined.

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> shortest_form(sp.diff(sp.atan(y / x), x))
    '-y/(x^2 + y^2)'
    >>> n = sp.Symbol("n", real=True)
    >>> shortest_form(sp.diff(x**n, x))
    'n*x^(n - 1)'
    """
    import sympy as sp

    forms = [truth]
    try:
        with time_limit(SHOW_SECONDS):
            forms.append(sp.cancel(truth))
            forms.append(sp.factor(forms[-1]))
            forms = [combined_powers(form) for form in forms]
    except (CheckTimeout, sp.PolynomialError, TypeError, ValueError, RecursionError):
        pass
    return min((user_text(form) for form in forms), key=len)


def answer_latex(exact: Any, value: float | None) -> str:
    """The right answer in LaTeX: the exact one when there is one, else the tape's number.

    >>> answer_latex(None, 36.0)
    '36'
    """
    import sympy as sp

    if exact is not None:
        return str(sp.latex(exact))
    assert value is not None  # the tape's value is given when there is no exact one
    return short(value)
