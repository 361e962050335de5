"""Scenario 2, batch: the gradient of expressions (a)-(d) at many points, in process.

Each figure is the best of a few calls after set-up (imports, input conversion and, for
JAX and TensorFlow, compilation -- reported in its own column), with its ratio to the floor:
numpy evaluating the expression alone. Every tool's gradient is compared with gradcalc's
at every point of the smallest batch before any of its figures is shown. Peak memory at the
largest batch is measured per (tool, expression) in a fresh subprocess (see worker.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import backends
from harness import (
    Section,
    Skipped,
    Target,
    WrongAnswer,
    best_of,
    megabytes,
    run_worker,
    seconds_text,
    verify,
    with_ratio,
)

FULL_SIZES = (1_000, 100_000, 1_000_000)
QUICK_SIZES = (1_000, 10_000)
MEMORY_LIMIT_MB = 300


@dataclass
class Figures:
    """One tool on one expression: best time and compile time per size, memory at the
    largest size (KiB, baseline and peak), and why it was skipped if it was."""

    times: dict[int, float] = field(default_factory=dict)
    compile: dict[int, float] = field(default_factory=dict)
    memory: dict = field(default_factory=dict)


def size_label(count: int) -> str:
    """``10^6`` for a power of ten."""
    exponent = len(str(count)) - 1
    return f"10^{exponent}" if count == 10**exponent else f"{count:,}"


def time_tool(tool: backends.Backend, key: str, sizes, quick: bool, reference: dict) -> Figures:
    """Time one tool on one expression at every size; verify it first (smallest size).

    Raises:
        WrongAnswer: when its gradient differs from ``reference`` (gradcalc's).
    """
    text, names = backends.EXPRESSIONS[key]
    figures = Figures()
    for count in sizes:
        prepared = tool.prepare(text, names, backends.make_points(names, count))
        if count == sizes[0] and not tool.is_floor:
            verify(tool.name, reference, prepared.call())
        repeats, budget = (3, 0.5) if quick else (7, 3.0)
        figures.times[count] = best_of(prepared.call, repeats, budget)
        if prepared.compile_seconds is not None:
            figures.compile[count] = prepared.compile_seconds
    return figures


def measure_memory(tool: backends.Backend, key: str, count: int, figures: Figures) -> None:
    """Peak memory of the tool on the expression at ``count`` points, in a subprocess."""
    try:
        figures.memory = run_worker("memory", tool.key, key, count)
    except Skipped as why:
        figures.memory = {"skipped": str(why)}


def run(quick: bool) -> list[Section]:
    """Every available tool on every expression at every size, plus memory."""
    sizes = QUICK_SIZES if quick else FULL_SIZES
    largest = sizes[-1]
    section = Section(
        "Batch gradient over many points (best of repeats; x floor = numpy forward alone)",
        [
            "expr",
            "tool",
            *map(size_label, sizes),
            "compile",
            f"peak / +increment @{size_label(largest)}",
        ],
        left=2,
    )
    tools = [t for t in backends.BACKENDS if t.available()]
    for missing in (t for t in backends.BACKENDS if not t.available()):
        section.skip(missing.name, f"{missing.module} is not installed")
    results: dict[str, dict[str, Figures]] = {}
    for key, (text, names) in backends.EXPRESSIONS.items():
        reference = backends.prepare_gradcalc(
            text, names, backends.make_points(names, sizes[0])
        ).call()
        results[key] = {}
        for tool in tools:
            try:
                figures = time_tool(tool, key, sizes, quick, reference)
            except WrongAnswer as error:
                section.fail(error)
                continue
            if tool.key == "gradcalc" or not quick:  # quick: gradcalc's memory only
                measure_memory(tool, key, largest, figures)
            results[key][tool.key] = figures
            section.rows.append(row(key, tool, figures, results[key]["floor"], sizes))
    section.raw = {"sizes": list(sizes), "results": as_raw(results), **section.raw}
    section.targets = targets(results, largest)
    section.notes += notes(text_of_expressions())
    return [section]


def row(key: str, tool: backends.Backend, figures: Figures, floor: Figures, sizes) -> list[str]:
    """The table row of one tool on one expression."""
    largest = sizes[-1]
    memory = figures.memory
    if "peak_kb" in memory:
        peak = f"{megabytes(memory['peak_kb'])} / +{megabytes(memory['increment_kb'])}"
    else:
        peak = "–"
    return [
        f"({key})",
        tool.name,
        *(with_ratio(figures.times[n], floor.times[n]) for n in sizes),
        seconds_text(figures.compile.get(largest)),
        peak,
    ]


def as_raw(results: dict[str, dict[str, Figures]]) -> dict:
    """The figures as plain JSON-able dictionaries."""
    return {
        key: {tool: vars(figures) for tool, figures in per_tool.items()}
        for key, per_tool in results.items()
    }


def targets(results: dict[str, dict[str, Figures]], largest: int) -> list[Target]:
    """At the largest size, on every expression: gradcalc <= 2.5x the floor, no slower than
    the best peer, peak memory increment under 300 MB."""
    floor_ratios, peer_ratios, memory = [], [], []
    for key, per_tool in results.items():
        ours = per_tool.get("gradcalc")
        if ours is None:
            continue
        time = ours.times[largest]
        floor_ratios.append((key, time / per_tool["floor"].times[largest]))
        peers = {k: f.times[largest] for k, f in per_tool.items() if k not in ("floor", "gradcalc")}
        if peers:
            best = min(peers, key=peers.get)
            peer_ratios.append((key, time / peers[best], best))
        memory.append((key, ours.memory.get("increment_kb")))
    at = size_label(largest)
    return [
        all_met(
            f"batch {at}: gradcalc <= 2.5x numpy floor",
            [(f"({k}) {r:.2f}x", r <= 2.5) for k, r in floor_ratios],
        ),
        all_met(
            f"batch {at}: gradcalc no slower than the best peer",
            [(f"({k}) {r:.2f}x {best}", r <= 1.0) for k, r, best in peer_ratios],
        ),
        all_met(
            f"batch {at}: gradcalc peak memory increment < {MEMORY_LIMIT_MB} MB",
            [
                (f"({k}) {megabytes(kb)}", kb is not None and kb / 1024 < MEMORY_LIMIT_MB)
                for k, kb in memory
            ],
        ),
    ]


def all_met(goal: str, parts: list[tuple[str, bool]]) -> Target:
    """A target met when every part is; the measured text lists the parts."""
    if not parts:
        return Target(goal, "not measured", None)
    return Target(goal, ", ".join(text for text, _ in parts), all(ok for _, ok in parts))


def text_of_expressions() -> list[str]:
    """The expressions as one note each (a long sum as its first two terms … its last)."""
    lines = []
    for key, (text, names) in backends.EXPRESSIONS.items():
        terms = text.split(" + ")
        if len(terms) > 3:
            text = " + ".join([*terms[:2], "…", terms[-1]])
        lines.append(f"({key}) `{text}` over {', '.join(names)}")
    return lines


def notes(expressions: list[str]) -> list[str]:
    """What the reader needs to read the table."""
    return [
        *expressions,
        f"points: float64, uniform in [{backends.LOW}, {backends.HIGH}), seed {backends.SEED}",
        "peak = peak resident set size of a fresh process computing the gradient once; "
        "+increment = peak minus the resident size after imports, inputs and set-up",
        "every tool's gradient agrees with gradcalc's at every point of the smallest batch",
    ]
