"""Checking a tensor program's gradient: with sympy for small tensors, by directional finite
differences beyond.

*Symbolic*: when the sources hold at most :data:`SYMBOLIC_ELEMENTS` elements and the tape at
most :data:`SYMBOLIC_WORK`, every element of every source becomes a scalar symbol
(``W[0,1]``), the program is built in sympy on arrays of them (the data stays numbers), and
each element's derivative is compared with the tape's by the symbolic check's rule
(:mod:`gradcalc.symbolic.crosscheck.values`: within SYMBOLIC_RTOL relative to sympy's value,
with slack only where that is 0 or below float64's smallest normal number). sympy's
derivative is evaluated in floats first; an element where that parts from the tape (or
overflows: ``exp(1000)``) is evaluated again with mpmath at 60 and 120 digits, so a float
overflow of sympy's side is never a disagreement.

*Directional* (gradcheck-style), otherwise or when sympy runs out of time: along
:data:`DIRECTIONS` random unit directions ``d`` (seeded), the central difference
``(f(x + h d) - f(x - h d)) / 2h`` is compared with ``grad f · d``. Each direction is tried at
two steps, ``h`` and ``h/10``; a direction where the two differences disagree (a kink such as
``relu``'s crossed, or rounding) cannot decide and another is drawn. The relative error is
``|difference - grad · d| / max(|grad · d|, |difference|, noise)``, where ``noise`` is what
rounding alone makes of ``f`` at that step.

>>> from gradcalc.engine.run.api import compile_expression
>>> from gradcalc.engine.tensors.tensorgrad import tensor_gradient
>>> result = tensor_gradient(compile_expression("sum(W@W)", ["W"]), {"W": np.eye(2) + 1})
>>> check = check_tensor(result)
>>> check.method, check.status
('symbolic', 'agree')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gradcalc.core.budget import CheckTimeout, current
from gradcalc.core.tensor import Tensor, constant
from gradcalc.engine.evaluate.evaluate import run_graph
from gradcalc.engine.tensors.tensorgrad import TensorResult

#: The most source elements expanded into scalar symbols.
SYMBOLIC_ELEMENTS = 300
#: The most elements over all the tape's records for the symbolic check (its expression grows
#: with them); beyond, the directional check.
SYMBOLIC_WORK = 200
#: How many random directions the directional check agrees along.
DIRECTIONS = 5
#: Relative error within which the tape and the check agree (symbolic).
SYMBOLIC_RTOL = 1e-9
#: Relative error within which a central difference agrees with the tape.
DIRECTIONAL_RTOL = 1e-5


@dataclass(frozen=True)
class TensorCheck:
    """The outcome: ``method`` (``symbolic`` or ``directional``), ``status`` (``agree``,
    ``disagree`` or ``skipped``), the worst relative ``error`` seen (``None`` when nothing was
    compared), and ``detail`` in words (what was compared, and why this method)."""

    method: str
    status: str
    error: float | None
    detail: str

    def __str__(self) -> str:
        if self.error is None:
            return f"check: {self.status} — {self.detail}"
        return f"check: {self.status} — {self.detail} (worst relative error {self.error:.1e})"

    def json(self) -> dict[str, Any]:
        """As a JSON object."""
        return {
            "method": self.method,
            "status": self.status,
            "error": self.error,
            "detail": self.detail,
        }


def check_tensor(result: TensorResult, seconds: float = 5.0) -> TensorCheck:
    """Check ``result``'s gradient: symbolically if small enough and in time, else along
    random directions."""
    sources = [s for s in result.sources if result.gradient[s] is not None]
    elements = sum(result.values[s].size for s in sources if s in result.values)
    work = sum(row.value.size for row in result.tape)
    statements = [s for s in sources if s not in result.values]
    if result.at_kink:
        detail = "the point lies on a kink, where the tape's gradient is one-sided by convention"
        return TensorCheck("none", "skipped", None, detail)
    if statements:
        why = f"{statements[0]} is a statement"
    elif elements > SYMBOLIC_ELEMENTS:
        why = f"the sources hold {elements:,} elements (sympy: at most {SYMBOLIC_ELEMENTS})"
    elif work > SYMBOLIC_WORK:
        why = f"the tape holds {work:,} elements (sympy: at most {SYMBOLIC_WORK:,})"
    else:
        try:
            with current().symbolic(seconds, key=("tensor check", result.graph.text)):
                symbolic = _symbolic(result, sources, elements)
            if symbolic is not None:
                return symbolic
            why = "sympy's derivative could not be evaluated at the point, even at 800 digits"
        except CheckTimeout:
            why = f"sympy ran out of its {seconds:g} s"
    return _directional(result, [s for s in sources if s in result.values], why)


def _symbolic(result: TensorResult, sources: list[str], elements: int) -> TensorCheck | None:
    """The symbolic check; None where sympy's derivative cannot be evaluated at the point
    (not even at 120 digits)."""
    import sympy as sp

    from gradcalc.symbolic.crosscheck.values import agrees, precise_values, relative_error
    from gradcalc.symbolic.translate.convert import to_sympy
    from gradcalc.symbolic.translate.numeric import LAMBDIFY_MODULES, lambdify

    graph = result.graph
    cut: dict[int, Any] = {}
    symbols: dict[str, np.ndarray] = {}
    count = 0  # every element its own symbol, named e0, e1, ... (identifiers: lambdify is fast)
    for name in graph.variables:
        value = result.values[name]
        if name in sources:
            array = np.array(
                [sp.Symbol(f"e{count + k}", real=True) for k in range(value.size)], dtype=object
            )
            count += value.size
            symbols[name] = array.reshape(value.shape)
        else:
            symbols[name] = np.array(value.tolist(), dtype=object)
        cut[graph.variable_node(name)] = symbols[name][()] if not value.shape else symbols[name]
    target = to_sympy(graph, cut)[graph.targets[0]]
    target = target.item() if isinstance(target, np.ndarray) else target
    flat = [symbol for s in sources for symbol in symbols[s].flat]
    forms = [sp.diff(target, symbol) for symbol in flat]
    point = np.concatenate([result.values[s].reshape(-1) for s in sources])
    with np.errstate(all="ignore"):  # (exp(1000) overflows float64: evaluated again below)
        exact = np.array(lambdify(flat, forms, LAMBDIFY_MODULES)(*point), dtype=float)
    tape = np.concatenate([np.asarray(result.gradient[s]).reshape(-1) for s in sources])
    suspect = np.flatnonzero(~agrees(tape, exact, SYMBOLIC_RTOL))
    if suspect.size:  # sympy's floats part from the tape: 60 and 120 digits decide
        precise = precise_values([forms[k] for k in suspect], flat, point.tolist())
        if any(value is None for value in precise):
            return None
        exact[suspect] = precise
    errors = relative_error(tape, exact)
    worst = float(np.max(errors)) if errors.size else 0.0
    status = "agree" if worst <= SYMBOLIC_RTOL else "disagree"
    detail = f"sympy's derivative, each of {elements:,} source elements a scalar symbol"
    if suspect.size:
        detail += f" ({suspect.size:,} evaluated with mpmath: float64 could not settle them)"
    return TensorCheck("symbolic", status, worst, detail)


def _directional(result: TensorResult, sources: list[str], why: str) -> TensorCheck:
    rng = np.random.default_rng(0)
    x = {s: result.values[s] for s in sources}
    size = np.sqrt(sum(float(np.sum(v * v)) for v in x.values()))
    step = 1e-6 * max(1.0, size)
    worst, agreed, tried = 0.0, 0, 0
    while agreed < DIRECTIONS and tried < 4 * DIRECTIONS:
        tried += 1
        d = {s: rng.standard_normal(v.shape) for s, v in x.items()}
        norm = np.sqrt(sum(float(np.sum(v * v)) for v in d.values()))
        d = {s: v / norm for s, v in d.items()}
        slope = sum(float(np.sum(np.asarray(result.gradient[s]) * d[s])) for s in sources)
        coarse, noise = _difference(result, x, d, step)
        fine, _ = _difference(result, x, d, step / 10)
        scale = max(abs(slope), abs(coarse), 10 * noise)
        if abs(coarse - fine) > DIRECTIONAL_RTOL * scale:
            continue  # a kink crossed, or rounding: this direction cannot decide
        worst = max(worst, abs(coarse - slope) / scale)
        agreed += 1
    if agreed < DIRECTIONS:
        detail = f"central differences could not decide along {tried} random directions"
        compared = worst if agreed else None  # (the directions that decided, if any)
        return TensorCheck("directional", "skipped", compared, f"{detail} ({why})")
    status = "agree" if worst <= DIRECTIONAL_RTOL else "disagree"
    detail = (
        f"central differences along {DIRECTIONS} random directions, step {step:.1e} "
        f"(not symbolic: {why})"
    )
    return TensorCheck("directional", status, worst, detail)


def _difference(
    result: TensorResult, x: Mapping[str, np.ndarray], d: Mapping[str, np.ndarray], h: float
) -> tuple[float, float]:
    """The central difference along ``d`` with step ``h``, and the rounding noise in it."""
    values = []
    for sign in (1, -1):
        leaves: dict[str, Tensor] = {n: constant(v) for n, v in result.values.items()}
        leaves.update({s: constant(x[s] + sign * h * d[s]) for s in x})
        values.append(float(run_graph(result.graph, leaves)[result.graph.targets[0]].value))
    noise = np.finfo(float).eps * max(abs(values[0]), abs(values[1]), 1e-300) / h
    return (values[0] - values[1]) / (2 * h), noise
