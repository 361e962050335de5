"""sympy expressions evaluated in double precision over arrays (``sympy.lambdify``).

numpy has no erf, so the tape's own forward stands in for it; a complex intermediate (sympy's
``I``) that reaches it becomes NaN, so the caller sees "not a real number" rather than a
TypeError.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> sp.lambdify([x], sp.erf(x) + 1, modules=LAMBDIFY_MODULES)(np.array([0.0, 1.0]))
array([1.        , 1.84270079])
"""

from __future__ import annotations

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


#: What ``sympy.lambdify`` is given: our erf, then numpy for everything else.
LAMBDIFY_MODULES: list[Any] = [{"erf": real_erf}, "numpy"]
