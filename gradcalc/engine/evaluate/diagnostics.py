"""Are these gradients healthy? NaN and infinity, vanishing and exploding components,
saturated activations and kinks -- and which op on the tape is responsible.

Every finding comes from the recorded tape: its values, its adjoints and each record's
local derivative (the op's own gradient rule with an incoming adjoint of 1).

>>> from gradcalc import grad
>>> result = grad("sigmoid(sigmoid(sigmoid(20*x)))", at={"x": 1.0}, check=False)
>>> [f.kind for f in diagnose(result)]
['vanishing', 'saturated']
>>> print(report(diagnose(result), result))  # doctest: +NORMALIZE_WHITESPACE
Not healthy at x=1:
- vanishing: ∂f/∂x = 1.8e-09 is below 1e-08; the adjoint shrinks across 3 chained sigmoid
  records, by 8.9e-11 in all
- saturated: sigmoid(#1) (tape #2) is saturated: input 20, slope 2.1e-09 (below 0.0001)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.core.numbers import format_number
from gradcalc.core.ops import NOT_DIFFERENTIABLE, REGISTRY
from gradcalc.core.tensor import Tensor
from gradcalc.engine.evaluate.evaluate import TapeRow, rows_of
from gradcalc.engine.evaluate.findings import DYING, KINDS, Finding, Thresholds

_short = functools.partial(format_number, digits=2)  # findings: 2 significant digits

if TYPE_CHECKING:
    from gradcalc.engine.evaluate.results import GradResult

#: The ops whose records can be saturated or at a kink: the others' rows are never examined.
_EXAMINED = frozenset(
    name for name, op in REGISTRY.items() if op.saturates or op.domain is not None
)


def local_slopes(row: TapeRow) -> list[np.ndarray]:
    """The record's local derivative with respect to each input, at every point.

    >>> from gradcalc import grad
    >>> row = grad("sin(x)", at={"x": 0.0}, check=False).tape[0]
    >>> local_slopes(row)
    [array(1.)]
    """
    op = REGISTRY[row.op]
    if op.params and not op.keywords:  # sum_to, broadcast_to: they move values, scale none
        return [np.ones_like(row.value) for _ in op.grads]
    ans = Tensor(row.value)
    inputs = [Tensor(v) for v in row.input_values]
    one = Tensor(np.ones_like(row.value))
    with np.errstate(all="ignore"):
        slopes: list[np.ndarray] = [
            _as_shape(rule(one, ans, *inputs).value, row.value.shape) for rule in op.grads
        ]
    return slopes


def _as_shape(slope: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A slope in the record's shape: a tensor op's rule may keep an axis of length 1 where
    the record has none (``dot(x, 2)`` at one point: (1,) for a 0-d record)."""
    if slope.shape != shape and slope.size == int(np.prod(shape)):
        return slope.reshape(shape)
    return np.broadcast_to(slope, shape)


class _LazySlopes(dict[int, list[np.ndarray]]):
    """Each record's :func:`local_slopes`, computed when first asked for (most diagnoses
    need only the activations')."""

    def __init__(self, rows: Sequence[TapeRow]):
        super().__init__()
        self.rows = rows
        self.by_index: dict[int, TapeRow] = {}  # (filled when first needed: rows may be lazy)

    def __missing__(self, index: int) -> list[np.ndarray]:
        if not self.by_index:
            self.by_index = {row.index: row for row in self.rows}
        self[index] = local_slopes(self.by_index[index])
        return self[index]


def diagnose(result: GradResult, thresholds: Thresholds = Thresholds()) -> list[Finding]:
    """Every finding for a :class:`~gradcalc.engine.evaluate.results.GradResult`, in a fixed order:
    non-finite, vanishing, exploding, saturated, kink."""
    shape = result.value.shape
    defined = ~result.undefined
    slopes = _LazySlopes(result.tape)
    findings = non_finite(result)
    for name, gradient, vanishing, exploding in _out_of_range(result, defined, thresholds):
        for kind, mask, limit, compare in (
            ("vanishing", vanishing, thresholds.vanishing, "below"),
            ("exploding", exploding, thresholds.exploding, "above"),
        ):
            if mask.any():
                k = _first(mask)
                culprit = _responsible(result.tape, name, slopes, k, kind == "vanishing")
                message = (
                    f"∂{result.target}/∂{name} = {_short(_at(gradient, k))} is {compare} "
                    f"{_short(limit)}{culprit}"
                )
                findings.append(Finding(kind, message, None, mask, name))
    for row in rows_of(result.tape, _EXAMINED):
        op = REGISTRY[row.op]
        if op.saturates:
            slope = np.abs(slopes[row.index][0])
            mask = (slope < thresholds.saturation) & defined & (row.adjoint is not None)
            if np.any(mask):
                findings.append(_saturated(row, slope, np.broadcast_to(mask, shape), thresholds))
        for issue in op.issues(*row.input_values):
            if not issue.concerns([made.is_constant for made in row.inputs]):
                continue  # about the derivative with respect to a constant, e.g. x**2's 2
            if issue.kind == NOT_DIFFERENTIABLE:
                mask = np.broadcast_to(issue.mask, shape)
                message = f"{row.reading} (tape #{row.index}) is at a kink: {issue.reason}"
                findings.append(Finding("kink", message, row.index, mask))
    return sorted(findings, key=lambda f: KINDS.index(f.kind))


def _saturated(
    row: TapeRow, slope: np.ndarray, mask: np.ndarray, thresholds: Thresholds
) -> Finding:
    """The finding of an activation whose slope is below the threshold at ``mask``: a
    :data:`~gradcalc.engine.evaluate.findings.DYING` one (relu) is *off* there (slope 0)."""
    k = _first(mask)
    given = _input_text(_at(row.input_values[0], k))
    if row.op in DYING:
        message = (
            f"{row.reading} (tape #{row.index}) is off: input {given}, slope 0, so no "
            "gradient passes through it"
        )
        return Finding("saturated", message, row.index, mask, off=True)
    message = (
        f"{row.reading} (tape #{row.index}) is saturated: input {given}, slope "
        f"{_short(_at(slope, k))} (below {_short(thresholds.saturation)})"
    )
    return Finding("saturated", message, row.index, mask)


def settle_units(
    findings: list[Finding],
    result: GradResult,
    thresholds: Thresholds = Thresholds(),
    rows_at: Callable[[np.ndarray], Sequence[TapeRow]] | None = None,
) -> list[Finding]:
    """The findings with each saturated or off unit judged by the variables behind it (those
    it depends on, among the variables differentiated by): left out where there are none
    (no gradient asked for passes through it), settled where other paths carry each of them
    a gradient at least as large as the unit's own path and not vanishing, a fault where
    some of them get too little by any other path (named in the message). An off unit (slope
    exactly 0) passes nothing, so its variables' gradients are what other paths carry; a
    saturated one's path is taken out of each (:func:`_through`), where every record before
    it is elementwise (else it stays a fault: not decided). ``rows_at`` records a full tape
    at some of the points (flat indices), where the result holds none (a replay).

    >>> from gradcalc import grad
    >>> def judged(expression, at):
    ...     result = grad(expression, at=at, check=False)
    ...     return [f.label for f in settle_units(diagnose(result), result)]
    >>> judged("relu(x - 5) + x", {"x": 1}), judged("relu(w*x - 5) + x", {"w": 1, "x": 1})
    (['saturated (settled)'], ['saturated'])
    >>> judged("tanh(10*x) + x", {"x": 1}), judged("tanh(10*x)", {"x": 1})
    (['saturated (settled)'], ['saturated'])
    """
    units = [f for f in findings if f.kind == "saturated"]  # (judged again: a replay's too)
    if not units:
        return findings  # (the common case: the tape is not looked at)
    full = _full_rows(result, rows_at)
    rows = full or ([] if rows_at is None else rows_at(np.array([_first(units[0].mask)])))
    sources = [s for s, g in result.gradient.items() if g is not None]
    paths = {s: {row.index for row in _on_path(rows, s)} for s in sources}
    out = [f for f in findings if f not in units]
    for finding in units:
        behind = [s for s in sources if finding.record in paths[s]]
        if not behind:
            continue  # no gradient asked for passes through it
        mask = np.asarray(finding.mask)
        starved, names = np.zeros(mask.shape, dtype=bool), []
        for source in behind:
            through = _through_all(full, rows_at, finding, source)
            short = _starved(result, finding, source, through, thresholds.vanishing)
            names += [source] if (short & mask).any() else []
            starved |= short
        for part, settled in ((mask & starved, False), (mask & ~starved, True)):
            if part.any():
                message = finding.message.split(STARVING)[0] + ("" if settled else _starving(names))
                out.append(replace(finding, mask=part, settled=settled, message=message))
    return sorted(out, key=lambda f: KINDS.index(f.kind))


def _full_rows(
    result: GradResult, rows_at: Callable[[np.ndarray], Sequence[TapeRow]] | None
) -> Sequence[TapeRow]:
    """The result's tape where it holds every point (a replay's holds none: ``rows_at``)."""
    if rows_at is not None and not getattr(result.tape, "recorded", True):
        return []  # (a lazy tape of many points is not recorded for this)
    return result.tape


def _starved(
    result: GradResult, unit: Finding, source: str, through: np.ndarray | None, least: float
) -> np.ndarray:
    """Where ``source`` gets too little gradient by paths other than the ``unit``'s: less
    than the unit's own path passes it, or below ``least`` (everywhere, where not decided)."""
    mask = np.asarray(unit.mask)
    if through is None:
        return np.ones(mask.shape, dtype=bool)
    gradient = np.broadcast_to(np.abs(np.asarray(result.gradient[source])), mask.shape)
    passed = np.abs(np.broadcast_to(through, mask.shape))
    with np.errstate(invalid="ignore"):
        carried = gradient - passed
        enough: np.ndarray = (carried >= least) & (carried >= passed)
    return ~enough


def _through_all(
    rows: Sequence[TapeRow],
    rows_at: Callable[[np.ndarray], Sequence[TapeRow]] | None,
    unit: Finding,
    source: str,
) -> np.ndarray | None:
    """:func:`_through` at every point of the unit's mask (0 for a unit that is off): on
    the result's tape, or on one recorded at those points."""
    mask = np.asarray(unit.mask)
    if unit.off:
        return np.zeros(mask.shape)
    if rows:
        return _through(rows, _LazySlopes(rows), unit, source)
    if rows_at is None:
        return None
    where = np.flatnonzero(mask.reshape(-1))
    some = rows_at(where)
    there = _through(some, _LazySlopes(some), unit, source)
    if there is None:
        return None
    spread = np.zeros(mask.size)
    spread[where] = np.broadcast_to(there, where.shape)
    return spread.reshape(mask.shape)


#: How a unit that is a fault ends its message: the variables no other path feeds enough.
STARVING = "; no other path carries enough gradient to "


def _starving(names: Sequence[str]) -> str:
    """The end of the message of a unit that is a fault."""
    return STARVING + ", ".join(names)


def _through(
    rows: Sequence[TapeRow], slopes: dict[int, list[np.ndarray]], unit: Finding, source: str
) -> np.ndarray | None:
    """The part of ∂f/∂``source`` that passes through the ``unit``'s record: its adjoint,
    its slope, and the derivative of its input by ``source`` (forward, record by record,
    by the local slopes); ``None`` where a record before it mixes elements (a tensor op)."""
    tangents: dict[int, np.ndarray] = {}
    for row in rows:
        if row.label == source:
            tangents[row.index] = np.ones_like(row.value)
            continue
        feeding = []
        with np.errstate(all="ignore"):
            for slope, given in zip(slopes[row.index], row.inputs):
                if given.kind == "variable" and given.name == source:
                    feeding.append(slope)
                elif given.record is not None and given.record in tangents:
                    feeding.append(slope * tangents[given.record])
            tangent = np.asarray(sum(feeding))
        if not feeding:
            continue
        if not REGISTRY[row.op].elementwise:
            return None
        if row.index == unit.record:
            through: np.ndarray = np.asarray(row.adjoint) * tangent
            return through
        tangents[row.index] = tangent
    return None


def _input_text(value: float) -> str:
    """An activation's input, to 4 digits: 20 and 20.5 must not both read 20."""
    return format_number(value, digits=4)


def _out_of_range(
    result: GradResult, defined: np.ndarray, thresholds: Thresholds
) -> Iterator[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """Each gradient component vanishing or exploding at some defined point, in order, with
    the points where it vanishes and where it explodes. Its shown value decides (an exact 0
    is not vanishing). The components are compared many at a time, stacked up to
    ``_STACKED`` values: 10,000 of them one by one cost 60,000 numpy calls.
    """
    shape = result.value.shape
    components = [
        (name, gradient, _shaped(gradient if exact is None else exact, shape))
        for name, gradient in result.gradient.items()
        if gradient is not None
        for exact in [result.shown.get(name, gradient)]
    ]
    step = max(1, _STACKED // max(math.prod(shape), 1))
    for start in range(0, len(components), step):
        group = components[start : start + step]
        size = np.abs(np.stack([shown for _, _, shown in group]))
        vanishing = (size < thresholds.vanishing) & (size > 0) & defined
        exploding = (size > thresholds.exploding) & defined
        for i in np.flatnonzero((vanishing | exploding).reshape(len(group), -1).any(axis=1)):
            yield group[i][0], group[i][1], vanishing[i], exploding[i]


#: How many values :func:`_out_of_range` compares at once.
_STACKED = 1 << 16


def _shaped(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``values`` broadcast to ``shape`` (``np.broadcast_to`` costs microseconds: only
    where the shape differs)."""
    array = np.asarray(values)
    return array if array.shape == shape else np.broadcast_to(array, shape)


def non_finite(result: GradResult) -> list[Finding]:
    """The findings of NaN or infinity: the result's singularities other than kinks."""
    return [
        Finding(
            "non-finite",
            singular.describe(result.points, result.target),
            singular.record,
            _mask(result.value.shape, singular.points),
        )
        for singular in result.singularities
        if singular.kind != NOT_DIFFERENTIABLE
    ]


def report(findings: list[Finding], result: GradResult, k: int = 0) -> str:
    """The plain-words answer for point ``k``: healthy, or what is wrong and where."""
    where = result.points.label(k) if result.points.names else "the point"
    here = [f for f in findings if _at(f.mask, k)]
    unhealthy = [f for f in here if not f.settled]
    if not here:
        return (
            f"Healthy at {where}: no NaN or infinity, no vanishing or exploding gradient "
            "component, no saturated activation, no kink."
        )
    if unhealthy:
        lines = [f"Not healthy at {where}:"]
    elif all(f.kind == "kink" for f in here):
        lines = [f"Healthy at {where}: a part has a kink there, but f is differentiable:"]
    else:
        lines = [f"Healthy at {where}; to note:"]
    lines += [f"- {f.kind}: {f.message}" for f in unhealthy]
    lines += [f"- {f.label}: {f.message}; {_settled_why(f)}" for f in here if f.settled]
    return "\n".join(lines)


#: What a settled kink's line adds: why it is no problem.
SETTLED = "f's one-sided derivatives agree there, so f is differentiable"
#: What a settled unit's line adds (and, for a unit that is off, when it would be dead).
CARRIED = "other paths carry the gradient of every variable behind it here"
OFF = "a unit is dead only if it is off for every input"


def _settled_why(finding: Finding) -> str:
    """Why a settled finding is no problem."""
    if finding.kind != "saturated":
        return SETTLED
    return f"{CARRIED} ({OFF})" if finding.off else CARRIED


def _responsible(
    rows: Sequence[TapeRow], source: str, slopes: dict[int, list[np.ndarray]], k: int, shrink: bool
) -> str:
    """Which op on the path of ``source`` (:func:`_on_path`) scales the adjoint most (down
    for vanishing, up for exploding) at point k: each record's slope by its input on that
    path (the slope of ``x*y`` by x is y, whatever x is)."""
    path = _on_path(rows, source)
    reached = {row.index for row in rows if row.label == source} | {row.index for row in path}
    factors = []
    for row in path:
        if row.adjoint is None:
            continue
        for slope, operand in zip(slopes[row.index], row.inputs):
            if operand.record in reached or (operand.kind == "variable" and operand.name == source):
                factors.append((abs(float(_at(slope, k))), row))
    if not factors:
        return ""
    pick = min if shrink else max
    factor, row = pick(factors, key=lambda item: item[0])
    if (shrink and factor >= 1) or (not shrink and factor <= 1):
        return ""
    same: dict[int, float] = {}
    for f, r in factors:
        if r.op == row.op:
            same[r.index] = pick(f, same.get(r.index, f))
    length, product = _chain(path, same, pick)
    verb = "shrinks" if shrink else "grows"
    if length > 1 and (product < factor if shrink else product > factor):
        return (
            f"; the adjoint {verb} across {length} chained {row.op} records, by "
            f"{_short(product)} in all"
        )
    inputs = ", ".join(_short(_at(v, k)) for v in row.input_values)
    return (
        f"; the adjoint {verb} most at {row.reading} (tape #{row.index}): "
        f"its slope there is {_short(factor)} (input {inputs})"
    )


def _chain(
    rows: Sequence[TapeRow], factors: dict[int, float], pick: Callable[..., Any]
) -> tuple[int, float]:
    """The chain of records among ``factors`` (by record index), each feeding the next
    (directly or through other records), whose factors multiply to the most extreme
    product (``pick``: min or max): its length and that product. Records side by side
    (``sigmoid(x + 1) + sigmoid(x + 2)``) are no chain: the adjoint passes one of them.

    >>> from gradcalc import grad
    >>> rows = grad("sigmoid(sigmoid(x)) + sigmoid(x)", at={"x": 0.0}, check=False).tape
    >>> _chain(rows, {1: 0.25, 2: 0.2, 4: 0.25}, min)
    (2, 0.05)
    """
    before: dict[int, set[int]] = {}  # each record's records of ``factors`` upstream
    best: dict[int, tuple[float, int]] = {}  # the extreme chain ending at each of them
    with np.errstate(over="ignore", under="ignore"):  # (past the doubles: inf or 0, as told)
        for row in rows:
            feeding = [i.record for i in row.inputs if i.kind == "record" and i.record]
            upstream = set().union(*(before.get(r, set()) for r in feeding))
            upstream |= {r for r in feeding if r in factors}
            before[row.index] = upstream
            if row.index in factors:
                product, length = pick(
                    [(1.0, 0), *(best[r] for r in upstream)], key=lambda item: item[0]
                )
                best[row.index] = (product * factors[row.index], length + 1)
    product, length = pick(best.values(), key=lambda item: item[0])
    return length, product


def _on_path(rows: Sequence[TapeRow], source: str) -> list[TapeRow]:
    """The records that depend on ``source`` (a variable or statement name)."""
    reached = {row.index for row in rows if row.label == source}
    path = []
    for row in rows:
        if any(
            i.record in reached if i.kind == "record" else i.kind == "variable" and i.name == source
            for i in row.inputs
        ):
            path.append(row)
            reached.add(row.index)
    return path


def _mask(shape: tuple[int, ...], points: np.ndarray) -> np.ndarray:
    mask = np.zeros(int(np.prod(shape)) or 1, dtype=bool)
    mask[points] = True
    return mask.reshape(shape)


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(np.reshape(mask, -1))[0])


def _at(values: np.ndarray, k: int) -> float:
    array = np.asarray(values)
    return float(array if array.ndim == 0 else array.reshape(-1)[k])
