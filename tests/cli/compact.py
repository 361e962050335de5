"""Compact JSON (many points: docs/cli-reference.md) read back as one object per point, so
that a test can look at point k as a script would."""

from __future__ import annotations

from typing import Any


def per_point(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """Each point's fields: its id, point, value, gradient, exact, check and reason."""
    common = {k: obj[k] for k in ("expression", "read_as", "target", "independent", "symbolic")}
    rows = []
    for k in range(obj["rows"]):
        undefined = obj["undefined"][k]
        status = "undefined" if undefined else obj["check"]["status"]
        row = {
            **common,
            "point": {n: column[k] for n, column in obj["points"].items()},
            "value": obj["value"][k],
            "gradient": {n: column[k] for n, column in obj["gradient"].items()},
            "exact": {n: t[k] for n, t in obj["exact"].items() if t[k] is not None},
            "check": {**obj["check"], "status": status, "agree": obj["agree"][k]},
            "undefined": undefined,
            "warnings": obj["warnings"],
        }
        row.update({key: obj[key] for key in ("skipped_rows",) if key in obj})
        if "id" in obj:
            row = {"id": obj["id"][k], **row}
        rows.append(row)
    return rows


def answers(stdout: str) -> list[dict[str, Any]]:
    """The answers of grad's JSON, one per point, whatever its shape: one object (one
    point), compact JSON (many points), or one object a line (``--jobs``)."""
    import json

    text = stdout.strip()
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines()]
    if isinstance(parsed, list):
        return parsed
    if "per_point" in parsed:
        return each_point(parsed)
    return per_point(parsed) if "rows" in parsed else [parsed]


def each_point(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """JSON of many points as one object per point: the fields written once (the shared
    ones) put back into each point's own (``hessian``, ``jacobian``, ``--order``)."""
    shared = {k: v for k, v in obj.items() if k not in ("per_point", "rows")}
    assert obj["rows"] == len(obj["per_point"])
    return [{**shared, **point} for point in obj["per_point"]]
