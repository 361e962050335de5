"""Scenario 6, many points in each format: ``gradcalc grad --points FILE`` with the default
check, written as CSV and as JSON (compact: the same for every point once, the values in
columns), run in turns (:func:`~harness.in_turns`) so that each JSON run's ratio is to the
CSV run beside it. Target (issue 35): JSON within 3x of CSV at 10^5 points.

    python benchmarks/run.py --only formats
"""

from __future__ import annotations

import functools
import statistics
import tempfile
from pathlib import Path

import jobs
import numpy as np
from harness import Section, Target, attempt, in_turns, paired_ratios, run_command, seconds_text

EXPRESSION = "x^2*sin(y) + exp(x)/y"
SIZES = (100_000, 1_000_000)


def points_file(folder: Path, size: int) -> Path:
    """``size`` random points (x, y) in [0.5, 3]^2, as CSV."""
    rng = np.random.default_rng(size)
    path = folder / f"points_{size}.csv"
    np.savetxt(path, rng.uniform(0.5, 3.0, (size, 2)), delimiter=",", header="x,y", comments="")
    return path


def time_format(path: Path, output: str) -> float:
    """One run's wall time, its output sent to a file (as a script would)."""
    command = [*jobs.gradcalc_command(), "grad", EXPRESSION, "--points", str(path)]
    return run_command([*command, "--format", output])[0]


def in_turns_at(folder: Path, size: int, rounds: int) -> dict[str, list[float]]:
    """CSV and JSON at ``size`` points, in turns; each JSON run over the CSV run beside it."""
    path = points_file(folder, size)
    csv, json = in_turns([functools.partial(time_format, path, f) for f in ("csv", "json")], rounds)
    return {"csv": csv, "json": json, "ratios": paired_ratios(json, csv)}


def run(quick: bool) -> list[Section]:
    """Time both formats at each size and build the table."""
    rounds = 2 if quick else 5
    section = Section(
        f"Many points: JSON against CSV ({rounds} runs of each in turns, default check)",
        ["points", "CSV median", "JSON median", "JSON / CSV (paired, median)"],
    )
    with tempfile.TemporaryDirectory() as folder:
        for size in SIZES[:1] if quick else SIZES:
            label = f"{size:,}"
            measure = functools.partial(in_turns_at, Path(folder), size, rounds)
            figures = attempt(section, label, measure)
            if figures is None:
                continue
            section.raw[label] = figures
            section.rows.append(
                [
                    label,
                    seconds_text(statistics.median(figures["csv"])),
                    seconds_text(statistics.median(figures["json"])),
                    f"{statistics.median(figures['ratios']):.2f}x",
                ]
            )
    section.notes.append(f"gradcalc grad {EXPRESSION!r} --points FILE --format csv|json")
    section.targets = targets(section.raw)
    return [section]


def targets(raw: dict) -> list[Target]:
    """JSON within 3x of CSV at 10^5 points (the paired ratios' median)."""
    figures = raw.get(f"{SIZES[0]:,}")
    goal = "JSON <= 3x CSV at 10^5 points (default check)"
    if not figures:
        return [Target(goal, "not run", None)]
    ratio = statistics.median(figures["ratios"])
    return [
        Target(goal, f"{ratio:.2f}x, median of {len(figures['ratios'])} runs in turns", ratio <= 3)
    ]
