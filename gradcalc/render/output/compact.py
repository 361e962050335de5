"""JSON for many points, compact: what is the same for every point once (the expression, its
reading, sympy's derivatives, the check's verdict and what it rests on), and the per-point
values in columns -- one list per variable, value and derivative, in the points' order.

For 10^5 points this is one object of a few MB, written from the arrays in one pass; an
object per point repeated the expression, the reading, the derivative and the check's
sentence 10^5 times (100 MB, 8x the CSV's time). The chunks of a file of points are
merged (:func:`merged`) into one object, written when the last chunk is in.

>>> from gradcalc.engine.run.api import grad
>>> import numpy as np
>>> result = grad("x^2", at={"x": np.array([1.0, 3.0])})
>>> obj = merged([chunk_columns([result])])
>>> obj["rows"], obj["points"], obj["value"], obj["gradient"], obj["check"]["status"]
(2, {'x': [1.0, 3.0]}, [1.0, 9.0], {'x': [2.0, 6.0]}, 'agree')
>>> obj["agree"], obj["undefined"]
([True, True], [None, None])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.engine.evaluate.results import GradResult
from gradcalc.symbolic.crosscheck.crosscheck import RTOL, CheckReport


def chunk_columns(results: list[GradResult]) -> dict[str, Any]:
    """One chunk of points: the point columns, and per target its fields and columns (with
    the check's report kept, to merge the chunks' verdicts)."""
    points = results[0].points
    return {
        "rows": points.count,
        "points": {n: _flat(points.arrays[n], points.count) for n in points.names},
        "targets": [_target(result) for result in results],
    }


def _target(result: GradResult) -> dict[str, Any]:
    count = result.points.count
    undefined = np.broadcast_to(result.first_reason >= 0, (count,))
    value_undefined = np.broadcast_to(result.value_undefined, result.value.shape).reshape(-1)
    gradient = {  # (NaN, then null, where undefined: an independent component too)
        name: np.where(undefined, np.nan, np.zeros(count) if g is None else _flat(g, count))
        for name, g in result.gradient.items()
    }
    check = result.check
    agree: list[bool | None] = [None] * count
    if check is not None and check.status != "skipped":
        mismatch = np.zeros(count, dtype=bool) if check.mismatch is None else check.mismatch
        agree = _nulled(~np.broadcast_to(mismatch, (count,)).reshape(-1), ~undefined)
    reasons = [result.reason(k) for k in range(count)] if undefined.any() else [None] * count
    findings = [(f.label, f.message, int(np.count_nonzero(f.mask))) for f in result.diagnostics]
    return {
        "expression": result.expression,
        "read_as": result.read_as,
        "target": result.target,
        "independent": [n for n, g in result.gradient.items() if g is None],
        "symbolic": {} if check is None else _symbolic(check),
        "warnings": list(result.warnings),
        "report": check,
        "diagnostics": findings,
        "value": np.where(value_undefined, np.nan, _flat(result.value, count)),
        "exact_value": result.exact_value or [None] * count,
        "gradient": gradient,
        "exact": {n: list(t) for n, t in result.exact.items() if any(x is not None for x in t)},
        "agree": agree,
        "undefined": reasons,
    }


def _symbolic(check: CheckReport) -> dict[str, str]:
    return dict(check.derivative_texts)


def _flat(array: np.ndarray, count: int) -> np.ndarray:
    """An array over the points as a flat column of ``count`` floats."""
    values = np.asarray(array, dtype=float)
    return np.broadcast_to(values, (count,)) if values.ndim == 0 else values.reshape(-1)


def merged(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The chunks as one JSON object: one target's fields at the top, several as
    ``"targets"``; every column a list, ``null`` where a number is undefined."""
    first = chunks[0]
    out: dict[str, Any] = {
        **({"id": [i for c in chunks for i in c["id"]]} if "id" in first else {}),
        "rows": sum(c["rows"] for c in chunks),
        "points": {n: _column([c["points"][n] for c in chunks]) for n in first["points"]},
    }
    targets = [
        _merged_target([c["targets"][k] for c in chunks]) for k in range(len(first["targets"]))
    ]
    if len(targets) == 1:  # (what it is, then how many points and where, then the columns)
        heading = {k: targets[0][k] for k in ("expression", "read_as", "target")}
        return {**heading, **out, **targets[0]}
    return {**out, "targets": targets}


def _merged_target(parts: list[dict[str, Any]]) -> dict[str, Any]:
    first = parts[0]
    obj = {k: first[k] for k in ("expression", "read_as", "target", "independent", "symbolic")}
    obj["warnings"] = list(dict.fromkeys(w for p in parts for w in p["warnings"]))
    obj["check"] = _check([p["report"] for p in parts])
    kinds: dict[tuple[str, str], int] = {}
    for part in parts:
        for kind, message, count in part["diagnostics"]:
            kinds[kind, message] = kinds.get((kind, message), 0) + count
    obj["diagnostics"] = [{"kind": k, "message": m, "points": n} for (k, m), n in kinds.items()]
    obj["value"] = _column([p["value"] for p in parts])
    if any(t is not None for p in parts for t in p["exact_value"]):
        obj["exact_value"] = [t for p in parts for t in p["exact_value"]]
    obj["gradient"] = {n: _column([p["gradient"][n] for p in parts]) for n in first["gradient"]}
    names = dict.fromkeys(n for p in parts for n in p["exact"])
    obj["exact"] = {
        n: [t for p in parts for t in p["exact"].get(n, [None] * len(p["undefined"]))]
        for n in names
    }
    obj["agree"] = [a for p in parts for a in p["agree"]]
    obj["undefined"] = [u for p in parts for u in p["undefined"]]
    return obj


def _check(reports: list[CheckReport | None]) -> dict[str, Any]:
    """The chunks' check reports as one: the worst status, every point compared."""
    if reports[0] is None:
        return {"status": "off"}
    shown = [r for r in reports if r is not None]
    order = ["agree", "skipped", "disagree"]
    status = max((r.status for r in shown), key=order.index)
    compared = [r for r in shown if r.status != "skipped"]
    method = compared[0].method if compared else ""
    flags = [np.asarray(r.mismatch).reshape(-1) for r in compared if r.mismatch is not None]
    whole = CheckReport(
        status if compared else "skipped",
        max_difference=max((r.max_difference for r in compared), default=0.0),
        mismatch=np.concatenate(flags) if flags else None,
        note=next((r.note for r in shown if r.note), ""),
        method=method,
        points=sum(r.points for r in compared),
        kinks=sum(r.kinks for r in compared),
        sampled=sum(r.sampled for r in compared),
        sample_cut=any(r.sample_cut for r in compared),
    )
    return {
        "status": whole.status,
        "method": method or None,
        "rtol": RTOL if method else None,
        "points": whole.points,
        "max_difference": whole.max_difference,
        "meaning": whole.meaning(),
    }


def _column(parts: list[np.ndarray]) -> list[Any]:
    """Arrays joined as one list of floats, ``None`` where a number is not finite."""
    joined = np.concatenate(parts) if len(parts) > 1 else parts[0]
    finite = np.isfinite(joined)
    if finite.all():
        return joined.tolist()
    return _nulled(joined, finite)


def _nulled(values: np.ndarray, keep: np.ndarray) -> list[Any]:
    """``values`` as a list, ``None`` where ``keep`` is false."""
    out = values.astype(object)
    out[~keep] = None
    return list(out.tolist())
