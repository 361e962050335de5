"""The layer report: which layer's gradient vanishes or explodes, which unit is dead or
saturated, and why.

A *layer* is found on the tape by its structure: a matrix product ``A @ W`` with a variable
``W``, optionally plus a variable ``b`` (``A @ W + b``, either order), optionally followed by
an activation (an elementwise op of one input, ``relu``, ``sigmoid``, ``tanh``, ...). The sum
is the layer's *pre-activation* ``Z`` (rows x units); unit ``j`` is column ``j``. Layers count
from 1 (layer 1 is the first, nearest the data); units count from 0, as numpy indexes them:
unit 3 is ``b[3]`` and the column ``W[:, 3]``. A vector ``W`` is one unit's weights: ``A @ w``
(``W @ v`` too: ``v`` is the weight) has a row per row of ``A`` and one unit; a vector ``A``
is one row (``x @ W``).

Per layer: the norm of the loss's gradient with respect to its parameters (``W`` and ``b``
together), and its ratio to the next layer's (the one nearer the loss). A ratio below
:data:`VANISHING_RATIO` says the gradient shrinks on its way back (vanishing); above
:data:`EXPLODING_RATIO`, that it grows (exploding). A norm below ``thresholds.vanishing`` or
above ``thresholds.exploding`` is flagged on its own.

Per unit:

- a ``relu`` unit is *dead* on a row where its pre-activation is <= 0 (no gradient reaches its
  weights through that row); it is reported when that is so on at least ``dead_share`` of the
  rows (default: every row);
- an activation that saturates (``sigmoid``, ``tanh``, ... -- the registry's ``saturates``) is
  *saturated* on a row where its slope is below ``saturation`` (default 1e-4: |z| > 9.2 for
  sigmoid, |z| > 5.3 for tanh); the unit is reported when that is so on at least
  ``saturated_share`` of the rows (default: more than half).

Each finding names the unit and says why: its bias, the range of its pre-activation.

>>> from gradcalc.engine.run.api import compile_expression
>>> from gradcalc.engine.tensors.tensorgrad import tensor_gradient
>>> graph = compile_expression("mean(relu(X@W + b))", ["X", "W", "b"])
>>> values = {"X": np.array([[1.0], [2.0]]), "W": np.array([[1.0, 1.0]]), "b": np.array([0.0, -9])}
>>> print(tensor_gradient(graph, values).layers.units[0].sentence)  # doctest: +NORMALIZE_WHITESPACE
unit 1 of layer 1 (relu) is dead on 100% of 2 rows: its bias b[1] is -9,
its pre-activation max is -7, so no gradient reaches W[:, 1] or b[1]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from gradcalc.core.ops import REGISTRY
from gradcalc.core.tensor import constant, quiet
from gradcalc.engine.evaluate.findings import DYING

if TYPE_CHECKING:
    from gradcalc.engine.evaluate.evaluate import TapeRow

#: A layer's gradient norm below this share of the next layer's: vanishing on the way back.
VANISHING_RATIO = 1e-2
#: A layer's gradient norm above this multiple of the next layer's: exploding.
EXPLODING_RATIO = 1e2


@dataclass(frozen=True)
class Thresholds:
    """When a unit is reported (see the module's text for each)."""

    dead_share: float = 1.0
    saturation: float = 1e-4
    saturated_share: float = 0.5
    vanishing: float = 1e-8
    exploding: float = 1e8


@dataclass(frozen=True)
class UnitFinding:
    """One unit that is dead or saturated: ``layer`` counts from 1, ``unit`` from 0; ``share`` of
    the ``rows``; ``sentence`` says it all in words."""

    layer: int
    unit: int
    kind: str  # "dead" or "saturated"
    activation: str
    share: float
    rows: int
    bias: float | None
    low: float  # the pre-activation's range over the rows
    high: float
    sentence: str


@dataclass(frozen=True)
class Layer:
    """One layer: its parameters' names, the activation (``None``: affine only), the tape
    records of its pre-activation and output, its size, its gradient norm and verdict."""

    index: int
    weight: str
    bias: str | None
    activation: str | None
    pre_record: int
    out_record: int
    rows: int
    units: int
    gradient_norm: float | None
    ratio: float | None  # to the next layer's norm
    verdict: str  # "ok", "vanishing", "exploding", "no gradient"
    dead: int
    saturated: int


@dataclass
class LayerReport:
    """Every layer found on the tape, first to last, and every unit finding."""

    layers: list[Layer] = field(default_factory=list)
    units: list[UnitFinding] = field(default_factory=list)
    thresholds: Thresholds = field(default_factory=Thresholds)

    @property
    def healthy(self) -> bool:
        """No unit finding and every layer's gradient ok."""
        return not self.units and all(layer.verdict == "ok" for layer in self.layers)

    def lines(self) -> list[str]:
        """The findings as sentences (the layer verdicts, then the units).

        >>> LayerReport().lines()
        []
        """
        said = [_layer_sentence(layer) for layer in self.layers if layer.verdict != "ok"]
        return said + [unit.sentence for unit in self.units]


def layer_report(
    rows: list[TapeRow],
    values: Mapping[str, np.ndarray],
    gradient: Mapping[str, np.ndarray | None],
    thresholds: Thresholds | None = None,
) -> LayerReport:
    """Find the layers on the tape ``rows`` and judge them.

    ``values`` are the variables' values, ``gradient`` the loss's gradient with respect to
    each variable (``None``: no path).
    """
    thresholds = thresholds or Thresholds()
    found = _find_layers(rows)
    norms = [_norm(gradient, weight, bias) for weight, bias, _, _, _ in found]
    report = LayerReport(thresholds=thresholds)
    by_index = {row.index: row for row in rows}
    for k, (weight, bias, activation, pre, out) in enumerate(found):
        z = by_index[pre].value
        vector = weight in values and np.ndim(values[weight]) == 1  # (one unit's weights)
        table = (
            z if z.ndim == 2 else z.reshape((-1, 1) if vector else (1, -1)) if z.ndim <= 1 else None
        )
        units = (
            []
            if table is None or activation is None
            else _units(
                k + 1,
                activation,
                table,
                values.get(bias) if bias else None,
                _templates(weight, bias, vector, bias is not None and np.ndim(values[bias]) == 0),
                thresholds,
            )
        )
        report.units += units
        norm, nxt = norms[k], norms[k + 1] if k + 1 < len(norms) else None
        ratio = None if norm is None or not nxt else norm / nxt
        report.layers.append(
            Layer(
                k + 1,
                weight,
                bias,
                activation,
                pre,
                out,
                0 if table is None else table.shape[0],
                int(z.shape[-1]) if table is None else table.shape[1],
                norms[k],
                ratio,
                _verdict(norms[k], ratio, thresholds),
                sum(u.kind == "dead" for u in units),
                sum(u.kind == "saturated" for u in units),
            )
        )
    return report


def _find_layers(rows: list[TapeRow]) -> list[tuple[str, str | None, str | None, int, int]]:
    """(weight, bias, activation, pre-activation record, output record) of each layer."""
    users: dict[int, list[TapeRow]] = {}
    for row in rows:
        for given in row.inputs:
            if given.record is not None and given.kind == "record":
                users.setdefault(given.record, []).append(row)
    found = []
    for row in rows:
        weight = row.inputs[1] if row.op == "matmul" and row.node is not None else None
        if weight is None or weight.kind != "variable" or row.inputs[0].name == weight.name:
            continue
        pre, bias = row, None
        for user in users.get(row.index, []):
            other = [i for i in user.inputs if i.record != row.index]
            if user.op == "add" and len(other) == 1 and other[0].kind == "variable":
                pre, bias = user, other[0].name
                break
        out, activation = pre, None
        for user in users.get(pre.index, []):
            op = REGISTRY[user.op]
            if op.arity == 1 and (op.saturates or user.op in DYING):
                out, activation = user, user.op
                break
        found.append((row.inputs[1].name, bias, activation, pre.index, out.index))
    return found


def _norm(gradient: Mapping[str, np.ndarray | None], weight: str, bias: str | None) -> float | None:
    parts = [gradient.get(n) for n in (weight, bias) if n is not None]
    if all(p is None for p in parts):
        return None
    return float(np.sqrt(sum(float(np.sum(np.square(p))) for p in parts if p is not None)))


def _verdict(norm: float | None, ratio: float | None, thresholds: Thresholds) -> str:
    if norm is None:
        return "no gradient"
    if norm < thresholds.vanishing or (ratio is not None and ratio < VANISHING_RATIO):
        return "vanishing"
    if norm > thresholds.exploding or (ratio is not None and ratio > EXPLODING_RATIO):
        return "exploding"
    return "ok"


def _layer_sentence(layer: Layer) -> str:
    name = f"layer {layer.index} ({layer.weight}{', ' + layer.bias if layer.bias else ''})"
    if layer.gradient_norm is None:
        return f"{name}: the loss does not depend on its parameters"
    norm = f"its gradient norm is {layer.gradient_norm:.3g}"
    if layer.ratio is None:
        return f"{name}: {layer.verdict}: {norm}"
    return f"{name}: {layer.verdict}: {norm}, {layer.ratio:.3g} times the next layer's"


def _units(
    layer: int,
    activation: str,
    z: np.ndarray,
    bias: np.ndarray | None,
    names: tuple[str, str],
    thresholds: Thresholds,
) -> list[UnitFinding]:
    """The dead or saturated units of one layer's pre-activation ``z`` (rows x units);
    ``names``: unit ``j``'s weights and bias as templates of ``j`` (:func:`_templates`)."""
    rows = z.shape[0]
    if activation in DYING:
        kind, flagged, needed = "dead", z <= 0, thresholds.dead_share
    else:
        kind, needed = "saturated", thresholds.saturated_share
        flagged = _slope(activation, z) < thresholds.saturation
    shares = flagged.mean(axis=0)
    found = []
    for j in np.flatnonzero(shares >= needed if needed < 1 else shares == 1):
        column = z[:, j]
        b = _unit_bias(bias, z.shape[1], int(j))
        found.append(
            UnitFinding(
                layer,
                int(j),
                kind,
                activation,
                float(shares[j]),
                rows,
                b,
                float(column.min()),
                float(column.max()),
                _unit_sentence(layer, int(j), kind, activation, float(shares[j]), rows,
                               b, names, column, thresholds),
            )
        )  # fmt: skip
    return found


def _templates(weight: str, bias: str | None, vector: bool, scalar: bool) -> tuple[str, str]:
    """How unit ``j``'s weights and bias are written, as templates of ``j``: ``W[:, {}]`` and
    ``b[{}]``; a ``vector`` weight is one unit's (``w``), a ``scalar`` bias every unit's
    (``b``); no bias: "".

    >>> _templates("W", "b", False, False), _templates("w", "b", True, True)
    (('W[:, {}]', 'b[{}]'), ('w', 'b'))
    """
    return (
        weight if vector else f"{weight}[:, {{}}]",
        "" if bias is None else bias if scalar else f"{bias}[{{}}]",
    )


def _unit_bias(bias: np.ndarray | None, units: int, j: int) -> float | None:
    """Unit ``j``'s bias, when the bias is one number per unit (or one for all)."""
    if bias is None or bias.size not in (1, units) or bias.ndim > 2:
        return None
    return float(bias.reshape(-1)[0 if bias.size == 1 else j])


def _slope(activation: str, z: np.ndarray) -> np.ndarray:
    """The activation's derivative at each element of ``z``, by its own gradient rule."""
    op = REGISTRY[activation]
    with quiet():
        x = constant(z)
        ans = op(x)
        return np.asarray(np.abs(op.grads[0](constant(np.ones_like(z)), ans, x).value))


def _unit_sentence(
    layer: int,
    unit: int,
    kind: str,
    activation: str,
    share: float,
    rows: int,
    bias: float | None,
    names: tuple[str, str],
    column: np.ndarray,
    thresholds: Thresholds,
) -> str:
    head = f"unit {unit} of layer {layer} ({activation}) is {kind} on {share:.0%} of {rows:,} rows"
    weight, bias_name = names
    why = [] if bias is None else [f"its bias {bias_name.format(unit)} is {bias:.3g}"]
    if kind == "dead" and share == 1:
        why.append(f"its pre-activation max is {column.max():.3g}")
        reached = weight.format(unit) + ("" if bias is None else f" or {bias_name.format(unit)}")
        why.append(f"so no gradient reaches {reached}")
    elif kind == "dead":
        why.append(f"its pre-activation max is {column.max():.3g}")
    else:
        why.append(f"its slope is below {thresholds.saturation:g} there")
        why.append(f"its pre-activation runs from {column.min():.3g} to {column.max():.3g}")
    return f"{head}: {', '.join(why)}"
