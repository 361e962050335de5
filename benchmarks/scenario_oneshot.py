"""Scenario 1, one-shot latency: whole processes computing the headline gradient.

Every command runs ``runs`` times (the median shrugs off a first run with a cold file
cache); the table shows the median wall time and its ratio to the floor,
``python -c "import sympy, numpy, typer, rich"`` (the import cost of gradcalc's own stack).
"""

from __future__ import annotations

import functools
import json
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
    ratio_text,
    run_command,
    seconds_text,
    time_command,
)

PEERS = Path(__file__).resolve().parent / "peers"
HEADLINE_GRADIENT = [36.0, 10.0]
FLOOR = "floor: python -c 'import sympy, numpy, typer, rich'"
HEADLINE_TABLE = "gradcalc grad (table)"
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
        Command("python -c 'import sympy'", python("-c", "import sympy")),
        Command("python -c 'pass'", python("-c", "pass")),
        Command(HEADLINE_TABLE, gradcalc(*headline)),
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


def run(quick: bool) -> list[Section]:
    """Time every command and build the table."""
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
    section.targets = targets(section.raw)
    section.notes.append(
        "maxima and qalc compute the headline over x, y (qalc reads w1 as watts); "
        "every peer's printed gradient is checked to be [36, 10]"
    )
    return [section]


def targets(raw: dict) -> list[Target]:
    """The one-shot targets: the headline within 1.10x of the floor; --help and --version
    importing neither sympy nor numpy."""
    found = []
    floor, headline = raw.get(FLOOR, {}).get("median"), raw.get(HEADLINE_TABLE, {}).get("median")
    if floor and headline:
        ratio = headline / floor
        measured = f"{seconds_text(headline)} = {ratio:.2f}x floor ({seconds_text(floor)})"
        found.append(Target("headline one-shot <= 1.10x import floor", measured, ratio <= 1.10))
    else:
        found.append(Target("headline one-shot <= 1.10x import floor", "not run", None))
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
