"""symbolic.numeric: the numeric evaluation of sympy's results does not depend on what the
user named things. Property test: variables named after every public numpy, sympy and
mpmath name the parser accepts as a variable, in expressions with piecewise parts (printed
with numpy's ``select``) and the constants E and pi, checked at several points (the
float64 path) and at high precision (the mpmath path) against values computed here."""

from __future__ import annotations

import keyword

import mpmath
import numpy as np
import pytest
import sympy as sp

from gradcalc.core.errors import InputError
from gradcalc.engine.run.api import compile_expression, grad
from gradcalc.symbolic.decide.precision import mp_function
from gradcalc.symbolic.translate.numeric import LAMBDIFY_MODULES, lambdify


def _usable(name: str) -> bool:
    if name.startswith("_") or keyword.iskeyword(name) or not name.isidentifier():
        return False
    try:
        return compile_expression(f"{name}^2", [name]).variables == (name,)
    except InputError:
        return False


NAMES = sorted({n for module in (np, sp, mpmath) for n in dir(module)} | {"e", "E", "pi", "I"})
USABLE = [n for n in NAMES if _usable(n)]
BATCHES = [USABLE[k : k + 25] for k in range(0, len(USABLE), 25)]


def test_many_names_are_tried() -> None:
    assert len(USABLE) > 500 and {"select", "e", "where", "nan", "inf"} <= set(USABLE)


@pytest.mark.parametrize("batch", BATCHES, ids=lambda b: f"{b[0]}..{b[-1]}")
def test_checked_gradients_whatever_the_names(batch: list[str]) -> None:
    """f = sum of abs(v)*v + e*v + pi*v^2 over the names (the constants written exp(1) and
    acos(-1): E, e and pi are among the names): ∂f/∂v = 2|v| + e + 2·pi·v, checked by
    sympy's lambdified derivative at three points (it must agree, not fail)."""
    text = " + ".join(f"abs({v})*{v} + exp(1)*{v} + acos(-1)*{v}^2" for v in batch)
    values = np.array([-1.5, 0.25, 2.0])
    result = grad(text, at={v: values + k / 7 for k, v in enumerate(batch)})
    assert result.check is not None and result.check.status == "agree", result.check.meaning
    for k, v in enumerate(batch):
        x = values + k / 7
        assert np.allclose(result.gradient[v], 2 * np.abs(x) + np.e + 2 * np.pi * x)


@pytest.mark.parametrize("batch", BATCHES[::3], ids=lambda b: f"{b[0]}..{b[-1]}")
def test_lambdified_functions_whatever_the_names(batch: list[str]) -> None:
    symbols = [sp.Symbol(v, real=True) for v in batch]
    expr = sum(sp.Piecewise((s, s > 0), (sp.E, True)) + sp.pi * s for s in symbols)
    point = [1.5 if k % 2 else -2.0 for k in range(len(batch))]
    truth = sum((x if x > 0 else np.e) + np.pi * x for x in point)
    assert lambdify(symbols, expr, LAMBDIFY_MODULES)(*point) == pytest.approx(truth)
    with mpmath.workdps(30):
        value = mp_function(symbols, [expr])(*(mpmath.mpf(x) for x in point))[0]
        assert float(value) == pytest.approx(truth)


def test_a_column_e_beside_the_constant_e() -> None:
    """The issue's case: a data column named e, and Euler's number written E."""
    e = np.array([1.0, 2.0, -0.5])
    result = grad("e*E + e^2", at={"e": e})
    assert result.check is not None and result.check.status == "agree"
    assert np.allclose(result.gradient["e"], np.e + 2 * e)
