"""sympy expressions evaluated in double precision over arrays (``sympy.lambdify``).

numpy has no erf, so the tape's own forward stands in for it; a complex intermediate (sympy's
``I``) that reaches it becomes NaN, so the caller sees "not a real number" rather than a
TypeError. numpy has no cot, sec, csc, coth, sech or csch either; they are given too, so
that sympy's printer writes them as they are rather than rewriting their arguments.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> sp.lambdify([x], sp.erf(x) + 1, modules=LAMBDIFY_MODULES)(np.array([0.0, 1.0]))
array([1.        , 1.84270079])
>>> y = sp.Symbol("y", real=True)
>>> slope = sp.sign(sp.cot(sp.tanh(sp.atan2(y, sp.tanh(x) + 2)) + 2))
>>> sp.lambdify([x, y], slope, modules=LAMBDIFY_MODULES)(np.array([0.3]), np.array([-1.2]))
array([1.])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gradcalc.core.ops import REGISTRY


def real_erf(x: Any) -> np.ndarray:
    """erf where its argument is real, NaN where a complex intermediate is not: the lambdified
    derivative may meet complex values (sympy's I), which the tape's real erf cannot take.

    >>> real_erf(np.array([0.5 + 0j, 0.5 + 1j]))
    array([0.52049988,        nan])
    """
    x = np.asarray(x)
    if np.iscomplexobj(x):
        x = np.where(x.imag == 0, x.real, np.nan)
    return REGISTRY["erf"].forward(x.astype(float))


#: The reciprocal functions numpy lacks. Without them sympy's printer rewrites the whole
#: argument (``cot(tanh(u) + 2)`` in terms of tan: tanh(u) becomes -1j*tan(1j*u)), and a
#: complex intermediate then reaches numpy's arctan2, which refuses it (TypeError: the
#: four "could not be evaluated" derivatives of benchmarks/simplify_lengths.py).
RECIPROCALS = {
    "cot": lambda x: 1 / np.tan(x),
    "sec": lambda x: 1 / np.cos(x),
    "csc": lambda x: 1 / np.sin(x),
    "coth": lambda x: 1 / np.tanh(x),
    "sech": lambda x: 1 / np.cosh(x),
    "csch": lambda x: 1 / np.sinh(x),
}

#: What ``sympy.lambdify`` is given: our erf and the reciprocals, then numpy for the rest.
LAMBDIFY_MODULES: list[Any] = [{"erf": real_erf, **RECIPROCALS}, "numpy"]


def lambdify(symbols: Sequence[Any], expr: Any, modules: Any = None, **options: Any) -> Any:
    """``sympy.lambdify`` with the user's symbols renamed first (``_v0``, ``_v1``, ...): the
    generated code runs in a namespace holding numpy's or mpmath's names and every symbol's
    own, so a variable called ``select`` (numpy's, which Piecewise is printed with), ``e``
    beside the constant E, or ``pi`` must not reach it under its own name.

    >>> import sympy as sp
    >>> select = sp.Symbol("select", real=True)
    >>> f = lambdify([select], sp.Piecewise((select, select > 0), (0, True)), LAMBDIFY_MODULES)
    >>> f(np.array([-1.0, 2.0]))
    array([0., 2.])
    """
    import sympy as sp

    renamed = {s: sp.Symbol(f"_v{k}", **s.assumptions0) for k, s in enumerate(symbols)}

    def rename(part: Any) -> Any:
        if isinstance(part, (list, tuple)):
            return type(part)(rename(p) for p in part)
        return sp.sympify(part).xreplace(renamed)

    return sp.lambdify(list(renamed.values()), rename(expr), modules, **options)
