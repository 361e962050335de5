"""Scenario 1, one-shot latency: whole processes computing the headline gradient.

Every command runs ``runs`` times (the median shrugs off a first run with a cold file
cache); the table shows the median wall time and its ratio to the floor,
``python -c "import sympy, numpy, typer, rich"`` (the import cost of gradcalc's own stack).
The headline's target is read from a second table: the headline and the floor run in turns
(:func:`~harness.in_turns`), each run's ratio to the floor's run beside it, so that the
machine's drift between the first table's rows cannot decide it. Beside the wall-clock
ratio, the same runs' CPU time (user + system) is paired too: on a machine shared with other
work a run that waits for a core loses wall time but not CPU time.
"""

from __future__ import annotations

import functools
import json
import math
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jobs
from harness import (
    ProcessTiming,
    Section,
    Skipped,
    Target,
    WrongAnswer,
    attempt,
    in_turns,
    paired_ratios,
    ratio_text,
    run_command,
    seconds_text,
    time_command,
)

PEERS = Path(__file__).resolve().parent / "peers"
HEADLINE_GRADIENT = [36.0, 10.0]
FLOOR = "floor: python -c 'import sympy, numpy, typer, rich'"
NO_SYMPY_FLOOR = "floor without sympy: python -c 'import numpy, typer, rich'"
HEADLINE_TABLE = "gradcalc grad (table)"
UNCHECKED_TABLE = "gradcalc grad --no-check (table)"
LEAST_TABLE = "least typer+rich+numpy program printing the table"
LEAST_CHECKED = "least program with sympy's derivative beside"
HEAVY = ("sympy", "numpy")


@dataclass(frozen=True)
class Command:
    """A timed command: its label, how to build it (may raise Skipped), how to read the
    gradient from its output (None: output not checked)."""

    label: str
    argv: Callable[[], list[str]]
    answer: Callable[[str], list[float]] | None = None


def python(*args: str) -> Callable[[], list[str]]:
    """This interpreter with ``args``."""
    return lambda: [sys.executable, *args]


def peer_script(module: str, name: str) -> Command:
    """A one-file peer script, run only when its library can be imported."""

    def argv() -> list[str]:
        import importlib.util

        if importlib.util.find_spec(module) is None:
            raise Skipped(f"{module} is not installed (pip install 'gradcalc[bench]')")
        return [sys.executable, str(PEERS / f"oneshot_{name}.py")]

    return Command(f"{name} script", argv, last_line_numbers)


def least_program(headline: list[str]) -> Callable[[], list[str]]:
    """peers/oneshot_least.py with the headline's arguments: the cost of any typer command
    that prints a rich table of numpy's numbers, beside which gradcalc's own is read."""
    return python(str(PEERS / "oneshot_least.py"), *headline[1:])


def gradcalc(*args: str) -> Callable[[], list[str]]:
    """This interpreter's gradcalc with ``args``."""
    return lambda: [*jobs.gradcalc_command(), *args]


def last_line_numbers(stdout: str) -> list[float]:
    """The numbers on the last line of the output."""
    return jobs.numbers_in(stdout.strip().splitlines()[-1])


def commands() -> list[Command]:
    """Everything timed, floor first."""
    headline = ["grad", jobs.HEADLINE.expr, "--at", "w1=5,w2=3"]
    return [
        Command(FLOOR, python("-c", "import sympy, numpy, typer, rich")),
        Command(NO_SYMPY_FLOOR, python("-c", "import numpy, typer, rich")),
        Command("python -c 'import sympy'", python("-c", "import sympy")),
        Command("python -c 'pass'", python("-c", "pass")),
        Command(HEADLINE_TABLE, gradcalc(*headline)),
        Command(UNCHECKED_TABLE, gradcalc(*headline, "--no-check")),
        Command(LEAST_TABLE, least_program(headline), last_line_numbers),
        Command(LEAST_CHECKED, least_program([*headline, "--check"]), last_line_numbers),
        Command(
            "gradcalc grad --format plain --no-check",
            gradcalc(*headline, "--format", "plain", "--no-check"),
            jobs.numbers_in,
        ),
        Command("gradcalc --version", gradcalc("--version")),
        Command("gradcalc --help", gradcalc("--help")),
        peer_script("sympy", "sympy"),
        peer_script("autograd", "autograd"),
        peer_script("torch", "torch"),
        peer_script("jax", "jax"),
        peer_script("tensorflow", "tensorflow"),
        Command(
            "maxima --batch-string",
            lambda: jobs.maxima_command(jobs.HEADLINE_XY),
            jobs.maxima_answer,
        ),
        Command("qalc", lambda: jobs.qalc_command(jobs.HEADLINE_XY), jobs.qalc_answer),
    ]


def checked_timing(command: Command, runs: int) -> ProcessTiming:
    """The command's ``runs`` wall times; raises :class:`WrongAnswer` unless it printed the
    headline gradient (and :class:`Skipped` when it cannot run)."""
    timing = time_command(command.argv(), runs, warmup=False)
    if command.answer is not None:
        got = command.answer(timing.stdout)
        if got != HEADLINE_GRADIENT:
            raise WrongAnswer(f"{command.label} printed {got}, not {HEADLINE_GRADIENT}")
    return timing


def heavy_imports(argument: str) -> list[str]:
    """Which of sympy and numpy ``gradcalc ARGUMENT`` imports (run through its entry point,
    which ends the process itself: the names are printed by an exit handler)."""
    code = (
        "import atexit, json, sys\n"
        "from importlib.metadata import entry_points\n"
        f"sys.argv = ['gradcalc', {argument!r}]\n"
        f"atexit.register(lambda: print(json.dumps(sorted(m for m in {HEAVY!r} "
        "if m in sys.modules))))\n"
        "entry_points(group='console_scripts', name='gradcalc')[0].load()()\n"
    )
    _, done = run_command([sys.executable, "-c", code])
    names: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return names


def in_turns_with_floor(headline: Command, floor: Command, pairs: int) -> dict[str, list[float]]:
    """The wall times of ``pairs`` runs of the headline and of the floor taken in turns, and
    each headline run's ratio to the floor run beside it, in wall time and (where the system
    reports it) in CPU time (raises :class:`Skipped` when either fails)."""
    commands = [headline.argv(), floor.argv()]
    cpu: list[list[float]] = [[], []]
    measures = [functools.partial(time_once, c, cpu[k]) for k, c in enumerate(commands)]
    times = in_turns(measures, pairs)
    figures = {"headline": times[0], "floor": times[1], "ratios": paired_ratios(*times)}
    cpu = [seconds[-pairs:] for seconds in cpu]  # (the untimed first run of each left out)
    if all(math.isfinite(s) for seconds in cpu for s in seconds):
        figures.update(headline_cpu=cpu[0], floor_cpu=cpu[1], cpu_ratios=paired_ratios(*cpu))
    return figures


def time_once(command: list[str], cpu: list[float]) -> float:
    """The wall time of one run of ``command``; its CPU time is appended to ``cpu``."""
    before = children_cpu()
    seconds = run_command(command)[0]
    cpu.append(children_cpu() - before)
    return seconds


def children_cpu() -> float:
    """The CPU seconds (user + system) of this process's finished children; NaN where the
    system does not say (Windows)."""
    try:
        import resource
    except ImportError:
        return math.nan
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def paired_section(
    figures: dict[str, list[float]], headline: str = HEADLINE_TABLE, floor: str = FLOOR
) -> Section:
    """The table of a command (the headline) and its floor run in turns."""
    pairs = len(figures["ratios"])
    section = Section(
        f"{headline} against its floor, run in turns ({pairs} pairs, the order alternating)",
        ["", "median", "lowest", "highest"],
    )
    rows = [
        (floor, "floor", seconds_text),
        (headline, "headline", seconds_text),
        ("each headline run / the floor run beside it", "ratios", "{:.2f}x".format),
        ("the same in CPU time (user + system)", "cpu_ratios", "{:.2f}x".format),
    ]
    for label, key, text in rows:
        values = figures.get(key)
        if not values:
            continue
        section.rows.append([label, *(text(f(values)) for f in (statistics.median, min, max))])
    section.raw = figures
    section.notes.append(
        "the target reads the median of the paired ratios: the table above times each "
        "command's runs together, minutes apart from the floor's, while this machine's "
        "speed drifts by up to half within minutes"
    )
    return section


def run(quick: bool) -> list[Section]:
    """Time every command and build the tables."""
    runs = 3 if quick else 7
    section = Section(
        f"One-shot latency (median of {runs} runs, whole processes)",
        ["command", "median", "x floor", "fastest", "slowest"],
    )
    floor = None
    for command in commands():
        timing = attempt(section, command.label, functools.partial(checked_timing, command, runs))
        if timing is None:
            continue
        floor = floor or timing.median
        section.raw[command.label] = {"times": timing.times, "median": timing.median}
        section.rows.append(
            [
                command.label,
                seconds_text(timing.median),
                ratio_text(timing.median, floor),
                seconds_text(min(timing.times)),
                seconds_text(max(timing.times)),
            ]
        )
    section.notes.append(
        "maxima and qalc compute the headline over x, y (qalc reads w1 as watts); "
        "every peer's printed gradient is checked to be [36, 10]"
    )
    by_label = {command.label: command for command in commands()}
    paired = attempt(
        section,
        "the headline and the floor in turns",
        functools.partial(
            in_turns_with_floor, by_label[HEADLINE_TABLE], by_label[FLOOR], 5 if quick else 15
        ),
    )
    unchecked = attempt(
        section,
        "--no-check and its floor in turns",
        functools.partial(
            in_turns_with_floor,
            by_label[UNCHECKED_TABLE],
            by_label[NO_SYMPY_FLOOR],
            5 if quick else 15,
        ),
    )
    sections = [section]
    for least, floor in ((LEAST_CHECKED, FLOOR), (LEAST_TABLE, NO_SYMPY_FLOOR)):
        figures = attempt(
            section,
            f"{least} and its floor in turns",
            functools.partial(
                in_turns_with_floor, by_label[least], by_label[floor], 5 if quick else 15
            ),
        )
        if figures is not None:  # what any program pays beyond the floor: the targets' context
            sections.append(paired_section(figures, least, floor))
            section.raw[f"{least} in turns"] = figures
    if paired is not None:
        sections.append(paired_section(paired))
        section.raw["in turns"] = paired
    if unchecked is not None:
        sections.append(paired_section(unchecked, UNCHECKED_TABLE, NO_SYMPY_FLOOR))
        section.raw["unchecked in turns"] = unchecked
    section.targets = targets(section.raw)
    return sections


def paired_text(figures: dict[str, list[float]]) -> str:
    """The paired ratios in words: the median of the wall-clock ones (the target's), their
    range, and the median of the CPU-time ones where measured.

    >>> paired_text({"ratios": [0.9, 1.0, 1.2], "cpu_ratios": [0.8, 0.9, 1.0]})
    '1.00x, median of 3 runs in turns (0.90x-1.20x; CPU time 0.90x)'
    """
    ratios = figures["ratios"]
    text = f"{statistics.median(ratios):.2f}x, median of {len(ratios)} runs in turns "
    text += f"({min(ratios):.2f}x-{max(ratios):.2f}x"
    if figures.get("cpu_ratios"):
        text += f"; CPU time {statistics.median(figures['cpu_ratios']):.2f}x"
    return text + ")"


def targets(raw: dict) -> list[Target]:
    """The one-shot targets (issue 35): the headline within 1.00x of its floor, --no-check
    within 1.10x of its own; --help and --version importing neither sympy nor numpy."""
    found = []
    floor, headline = raw.get(FLOOR, {}).get("median"), raw.get(HEADLINE_TABLE, {}).get("median")
    goals = (
        ("in turns", "headline one-shot <= 1.00x import floor", 1.00, LEAST_CHECKED),
        (
            "unchecked in turns",
            "--no-check one-shot <= 1.10x its floor (numpy, typer, rich)",
            1.10,
            LEAST_TABLE,
        ),
    )
    for key, goal, limit, least in goals:
        paired = raw.get(key)
        if not paired:
            found.append(Target(goal, "not run", None))
            continue
        measured = paired_text(paired)
        if key == "in turns" and floor and headline:
            measured += f"; medians of the first table {headline / floor:.2f}x"
        if raw.get(f"{least} in turns"):
            least_ratio = statistics.median(raw[f"{least} in turns"]["ratios"])
            measured += f"; the least such program: {least_ratio:.2f}x"
        found.append(Target(goal, measured, statistics.median(paired["ratios"]) <= limit))
    for argument in ("--help", "--version"):
        try:
            heavy = heavy_imports(argument)
        except Skipped as why:
            found.append(Target(f"gradcalc {argument} imports no sympy/numpy", str(why), None))
            continue
        raw[f"imports of gradcalc {argument}"] = heavy
        measured = "imports " + (", ".join(heavy) if heavy else "neither")
        found.append(Target(f"gradcalc {argument} imports no sympy/numpy", measured, not heavy))
    return found
