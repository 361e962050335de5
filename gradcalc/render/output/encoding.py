"""The one JSON encoder every ``--format json`` goes through: numpy scalars and arrays,
exact fractions and sets become plain JSON, and a non-finite number becomes ``null`` (JSON
has no NaN or infinity: a script reading ``NaN`` would fail, or worse, read a number).

>>> import numpy as np
>>> from fractions import Fraction
>>> print(dumps({"n": np.int64(3), "v": np.array([1.5, np.inf]), "q": Fraction(1, 3)}))
{"n": 3, "v": [1.5, null], "q": "1/3"}
>>> print(dumps([float("nan"), np.float32(0.5), {2, 1}]))
[null, 0.5, [1, 2]]
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import numpy as np


def dumps(obj: Any, ascii_only: bool = True) -> str:
    """``obj`` as one line of JSON (see the module's docstring for what is converted)."""
    try:  # the usual case: finite numbers only, one pass
        return json.dumps(obj, ensure_ascii=ascii_only, allow_nan=False, default=_plain)
    except ValueError:  # a NaN or infinity somewhere: null it, then write
        return json.dumps(_finite(obj), ensure_ascii=ascii_only, allow_nan=False, default=_plain)


def _plain(value: Any) -> Any:
    """What JSON cannot write itself, as what it can (``json.dumps``'s ``default``)."""
    if isinstance(value, np.ndarray):
        return _finite(value.tolist())
    if isinstance(value, np.generic):
        return _finite(value.item())
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"gradcalc has no JSON form for {type(value).__name__}")


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by ``None`` (containers walked)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
