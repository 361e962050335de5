"""gradcalc: exact gradients from a small reverse-mode tape, cross-checked against sympy.

The public names are imported lazily, so ``gradcalc --help`` starts without numpy.

>>> from gradcalc import Tape, Variable
>>> w1, w2 = Variable(5.0), Variable(3.0)
>>> with Tape() as tape:
...     z = 3 * w1**2 + 2 * w1 * w2
>>> tape.gradient(z, [w1, w2])
[Tensor(36.), Tensor(10.)]
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Tensor": "gradcalc.core.tensor",
    "Variable": "gradcalc.core.tensor",
    "constant": "gradcalc.core.tensor",
    "zeros": "gradcalc.core.compat",
    "ones": "gradcalc.core.compat",
    "float16": "gradcalc.core.tensor",
    "float32": "gradcalc.core.tensor",
    "float64": "gradcalc.core.tensor",
    "Tape": "gradcalc.core.tape",
    "TapeError": "gradcalc.core.tape",
    "ShapeError": "gradcalc.core.errors",
    "Record": "gradcalc.core.tape",
    "Problem": "gradcalc.core.tape",
    "F": "gradcalc.core.ops",
    "REGISTRY": "gradcalc.core.ops",
    "reduce_sum": "gradcalc.core.compat",
    "reduce_mean": "gradcalc.core.compat",
    "reduce_max": "gradcalc.core.compat",
    "reduce_min": "gradcalc.core.compat",
    "reduce_logsumexp": "gradcalc.core.compat",
    "clip_by_norm": "gradcalc.core.compat",
    "custom_gradient": "gradcalc.core.custom",
    "UnconnectedGradients": "gradcalc.core.nesting",
    "stop_gradient": "gradcalc.core.tensor",
    "grad": "gradcalc.engine.run.api",
    "hessian": "gradcalc.engine.run.api",
    "jacobian": "gradcalc.engine.run.api",
    "GradResult": "gradcalc.engine.run.api",
    "HessianResult": "gradcalc.engine.evaluate.beyond",
    "JacobianResult": "gradcalc.engine.evaluate.beyond",
    "DerivativeResult": "gradcalc.engine.evaluate.beyond",
    "DirectionalResult": "gradcalc.engine.evaluate.beyond",
}

__all__ = sorted(_EXPORTS)


#: Imported with the public names: how results (``_repr_html_``) and tapes (``repr``) show.
_DISPLAY = {
    "gradcalc.engine.run.api": "gradcalc.render.notebook.html",
    "gradcalc.engine.evaluate.beyond": "gradcalc.render.notebook.html",
    "gradcalc.core.tape": "gradcalc.render.notebook.tapes",
}


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext gradcalc`` in IPython or Jupyter: the ``%gradcalc`` magic
    (``gradcalc.cli.ipython``; needs ``pip install 'gradcalc[notebook]'``)."""
    importlib.import_module("gradcalc.cli.ipython").load_ipython_extension(ipython)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    ops = importlib.import_module("gradcalc.core.ops")  # also installs Tensor's operators
    if module is not None:
        if module in _DISPLAY:
            importlib.import_module(_DISPLAY[module])
        return getattr(importlib.import_module(module), name)
    if name in ops.REGISTRY:  # every primitive: gradcalc.sin, gradcalc.relu, ...
        return ops.REGISTRY[name]
    raise AttributeError(f"module 'gradcalc' has no attribute {name!r}")


def __dir__() -> list[str]:
    ops = importlib.import_module("gradcalc.core.ops")
    return sorted(set(globals()) | set(_EXPORTS) | set(ops.REGISTRY))
