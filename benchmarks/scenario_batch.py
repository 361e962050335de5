"""Scenario 2, batch: the gradient of expressions (a)-(d) at many points, in process.

Every tool runs in its default mode and its best one (JAX jit, PyTorch ``torch.compile``,
TensorFlow with XLA; gradcalc as ``grad()`` with every default, and compiled once with its
native kernels, its numpy steps and numexpr's kernels). Each cell
is the median of at least 3 timed calls after an untimed warm-up, shown with its spread and
its ratio to the floor (numpy evaluating the expression alone); set-up (compiling, tracing,
gradcalc's parsing and recording) has its own column. Every tool's gradient is compared with
gradcalc's at every point of every size before its figures count. Peak memory at the largest
batch is measured per (tool, expression) in a fresh subprocess (see worker.py). The fixed
cost at the smallest size is compared once more with gradcalc and PyTorch eager called in
turns (:func:`~harness.in_turns`): the table's cells of two tools are taken minutes apart.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import backends
from harness import (
    Section,
    Skipped,
    Target,
    Timing,
    WrongAnswer,
    attempt,
    in_turns,
    megabytes,
    ratio_text,
    run_worker,
    seconds_text,
    timed,
    timings,
    verify,
)

FULL_SIZES = (1_000, 100_000, 1_000_000)
QUICK_SIZES = (1_000, 50_000)  # 50,000: two of the replay's slices
MEMORY_LIMIT_MB = 300
#: The calls of each of gradcalc and PyTorch eager, in turns, at the smallest size.
TURNS = 200
API = "gradcalc-api"  # the row of the Python API's defaults
OURS = "gradcalc"  # compiled once, native kernels: the row compared with the peers' best modes


@dataclass
class Figures:
    """One tool on one expression: the timed calls and the set-up per size, memory at the
    largest size (KiB, baseline and peak)."""

    times: dict[int, Timing] = field(default_factory=dict)
    compile: dict[int, float] = field(default_factory=dict)
    memory: dict = field(default_factory=dict)

    def median(self, count: int) -> float | None:
        """The median call at ``count`` points (None if not timed)."""
        timing = self.times.get(count)
        return None if timing is None else timing.median


def size_label(count: int) -> str:
    """``10^6`` for a power of ten."""
    exponent = len(str(count)) - 1
    return f"10^{exponent}" if count == 10**exponent else f"{count:,}"


def time_tool(
    tool: backends.Backend, key: str, sizes, quick: bool, references: dict[int, dict]
) -> Figures:
    """Time one tool on one expression at every size, verifying its answer at each first.

    Raises:
        WrongAnswer: when its gradient differs from ``references[size]`` (gradcalc's).
    """
    text, names = backends.EXPRESSIONS[key]
    figures = Figures()
    for count in sizes:
        prepared = tool.prepare(text, names, backends.make_points(names, count))
        with prepared.running():
            if not tool.is_floor:
                verify(f"{tool.name} at {size_label(count)}", references[count], prepared.call())
            figures.times[count] = timings(prepared.call, budget=1.0 if quick else 3.0)
        if prepared.compile_seconds is not None:
            figures.compile[count] = prepared.compile_seconds
    return figures


def fixed_cost_in_turns(key: str, count: int, reference: dict, rounds: int) -> list[Timing]:
    """gradcalc compiled once and PyTorch eager on one expression at ``count`` points, each
    verified, then called in turns ``rounds`` times (one call of each per round)."""
    text, names = backends.EXPRESSIONS[key]
    arrays = backends.make_points(names, count)
    prepared = [backends.backend(tool).prepare(text, names, arrays) for tool in (OURS, "torch")]
    with prepared[0].running(), prepared[1].running():
        for tool, one in zip((OURS, "torch"), prepared):
            verify(f"{tool} at {size_label(count)} in turns", reference, one.call())
        measures = [lambda call=one.call: timed(call)[0] for one in prepared]
        return [Timing(times) for times in in_turns(measures, rounds)]


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
        "Batch gradient over many points (median of >= 3 calls ± half their range; "
        "x floor = numpy forward alone)",
        [
            "expr",
            "tool",
            *map(size_label, sizes),
            "set-up",
            f"peak / +increment @{size_label(largest)}",
        ],
        left=2,
    )
    tools = [t for t in backends.BACKENDS if t.available() and (t.quick or not quick)]
    for missing in (t for t in backends.BACKENDS if not t.available()):
        section.skip(missing.name, f"{missing.module} is not installed")
    if quick:
        section.notes.append(
            "--quick: torch.compile and XLA (minutes of compiling) and the JAX and TensorFlow "
            "eager modes left out"
        )
    results: dict[str, dict[str, Figures]] = {key: {} for key in backends.EXPRESSIONS}
    references = {
        key: {count: reference(text, names, count) for count in sizes}
        for key, (text, names) in backends.EXPRESSIONS.items()
    }
    rows: dict[str, list[list[str]]] = {key: [] for key in backends.EXPRESSIONS}
    turns: dict[str, list[Timing]] = {}  # gradcalc and PyTorch eager in turns, smallest size
    # tool by tool: PyTorch compiles before TensorFlow is loaded (the two in one process
    # crashed inside torch.compile)
    for tool in tools:
        for key in backends.EXPRESSIONS:
            try:
                figures = time_tool(tool, key, sizes, quick, references[key])
            except WrongAnswer as error:
                section.fail(error)
                continue
            except Exception as error:  # a peer's mode that does not work here
                section.skip(f"{tool.name} on ({key})", f"{type(error).__name__}: {error}"[:200])
                continue
            if tool.key.startswith("gradcalc") or (tool.quick and not quick):
                measure_memory(tool, key, largest, figures)  # (a fresh process compiles anew)
            results[key][tool.key] = figures
            rows[key].append(row(key, tool, figures, results[key]["floor"], sizes))
            if tool.key == "torch" and OURS in results[key]:
                pair = attempt(
                    section,
                    f"gradcalc and PyTorch eager in turns on ({key})",
                    functools.partial(
                        fixed_cost_in_turns,
                        key,
                        sizes[0],
                        references[key][sizes[0]],
                        TURNS // 4 if quick else TURNS,
                    ),
                )
                if pair is not None:
                    turns[key] = pair
    section.rows = [r for key in backends.EXPRESSIONS for r in rows[key]]
    section.raw = {"sizes": list(sizes), "results": as_raw(results), **section.raw}
    section.raw["fixed cost in turns"] = {k: [t.times for t in pair] for k, pair in turns.items()}
    section.targets = targets(results, sizes, turns)
    section.notes += notes(text_of_expressions())
    if turns:
        section.notes.append(
            f"fixed cost at {size_label(sizes[0])}, gradcalc compiled once and PyTorch eager "
            f"called in turns ({len(next(iter(turns.values()))[0].times)} calls each, their "
            "medians; the target reads these): "
            + "; ".join(
                f"({key}) {seconds_text(mine.median)} vs {seconds_text(theirs.median)}"
                for key, (mine, theirs) in turns.items()
            )
        )
    return [section]


def reference(text: str, names: tuple[str, ...], count: int) -> backends.Gradient:
    """gradcalc's gradient at ``count`` points with numpy's steps (bit for bit its tape's):
    what every tool's answer is compared with."""
    prepared = backends.prepare_gradcalc(text, names, backends.make_points(names, count))
    with prepared.running():
        return prepared.call()


def cell(timing: Timing | None, floor: Timing | None) -> str:
    """``12.3 ms ±2% (1.04x)``: the median call, its spread and its ratio to the floor's."""
    if timing is None:
        return "–"
    ratio = ratio_text(timing.median, None if floor is None else floor.median)
    return f"{seconds_text(timing.median)} ±{timing.spread:.0%} ({ratio})"


def row(key: str, tool: backends.Backend, figures: Figures, floor: Figures, sizes) -> list[str]:
    """The table row of one tool on one expression."""
    memory = figures.memory
    if "peak_kb" in memory:
        peak = f"{megabytes(memory['peak_kb'])} / +{megabytes(memory['increment_kb'])}"
    else:
        peak = "–"
    return [
        f"({key})",
        tool.name,
        *(cell(figures.times.get(n), floor.times.get(n)) for n in sizes),
        seconds_text(max(figures.compile.values(), default=None)),
        peak,
    ]


def as_raw(results: dict[str, dict[str, Figures]]) -> dict:
    """The figures as plain JSON-able dictionaries (every timed call kept)."""
    return {
        key: {
            tool: {
                "times": {n: t.times for n, t in f.times.items()},
                "compile": f.compile,
                "memory": f.memory,
            }
            for tool, f in per_tool.items()
        }
        for key, per_tool in results.items()
    }


def targets(
    results: dict[str, dict[str, Figures]], sizes, turns: dict[str, list[Timing]]
) -> list[Target]:
    """Issue 17's batch targets: the API's defaults at the largest size within 2.5x the floor
    and 300 MiB; compiled once, no slower than the best peer in its best mode at each size
    from 10^5 up; the fixed cost per call at the smallest size no more than PyTorch's (its
    medians called in turns, where measured; else the table's)."""
    largest, smallest = sizes[-1], sizes[0]
    at = size_label(largest)
    floor_parts, memory_parts, fixed_parts = [], [], []
    versus: dict[int, list[tuple[str, bool]]] = {n: [] for n in sizes[1:]}
    for key, per_tool in results.items():
        floor, api, ours = per_tool.get("floor"), per_tool.get(API), per_tool.get(OURS)
        if api is not None and floor is not None:
            ratio = api.median(largest) / floor.median(largest)
            floor_parts.append((f"({key}) {ratio:.2f}x", ratio <= 2.5))
            kb = api.memory.get("peak_kb")
            memory_parts.append(
                (f"({key}) {megabytes(kb)}", kb is not None and kb / 1024 <= MEMORY_LIMIT_MB)
            )
        if ours is None:
            continue
        for count in versus:
            best = {
                tool.key: per_tool[tool.key].median(count)
                for tool in backends.BACKENDS
                if tool.best and tool.key in per_tool and tool.key != OURS
            }
            best = {k: v for k, v in best.items() if v is not None}
            if best:
                peer = min(best, key=best.get)
                ratio = ours.median(count) / best[peer]
                versus[count].append((f"({key}) {ratio:.2f}x {peer}", ratio <= 1.0))
        torch = per_tool.get("torch")
        if key in turns:
            mine, theirs = (timing.median for timing in turns[key])
            text = f"({key}) {seconds_text(mine)} vs {seconds_text(theirs)} in turns"
            fixed_parts.append((text, mine <= theirs))
        elif torch is not None:
            mine, theirs = ours.median(smallest), torch.median(smallest)
            fixed_parts.append(
                (f"({key}) {seconds_text(mine)} vs {seconds_text(theirs)}", mine <= theirs)
            )
    return [
        all_met(f"batch {at}: grad() defaults <= 2.5x numpy floor", floor_parts),
        all_met(f"batch {at}: grad() defaults peak memory <= {MEMORY_LIMIT_MB} MiB", memory_parts),
        *(
            all_met(
                f"batch {size_label(n)}: gradcalc compiled once no slower than the best peer "
                "in its best mode",
                parts,
            )
            for n, parts in versus.items()
        ),
        all_met(
            f"batch {size_label(smallest)}: fixed cost per call (gradcalc compiled once) <= "
            "PyTorch eager's",
            fixed_parts,
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
        "each cell: one untimed warm-up call, then the median of at least 3 timed calls (up "
        "to 7 within 3 s), ± half the range of those calls relative to the median",
        "set-up (the longest over the sizes): compiling and tracing for the jit modes "
        "(torch.compile's first call; it compiles once for every size), parsing, lowering and "
        "recording the forward-and-reverse program (and compiling its kernels) for gradcalc "
        "compiled once; grad() does all of that in every call (its native kernel is compiled "
        "once per process, from 20,000 points)",
        "peak = peak resident set size of a fresh process computing the gradient once; "
        "+increment = peak minus the resident size after imports, inputs and set-up (not "
        "measured for torch.compile and XLA, whose fresh processes would compile again, nor "
        "for the eager modes)",
        "every tool's gradient agrees with gradcalc's at every point of every size (within "
        "1e-8 of the component's scale) before its figures are shown",
        "best modes (compared in the targets): gradcalc compiled once with native kernels, "
        "JAX jit, "
        "torch.compile, TensorFlow with XLA, HIPS autograd (one mode)",
    ]
