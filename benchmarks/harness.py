"""Shared pieces of the benchmark: timing, processes, workers, result sections and targets.

Every scenario builds :class:`Section` objects (a table of formatted cells, the raw figures
behind them, notes and :class:`Target` checks); :mod:`report` prints them with rich, writes
them as markdown and as JSON. Nothing here knows about a particular scenario.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

HERE = Path(__file__).resolve().parent
WORKER = HERE / "worker.py"
T = TypeVar("T")


@dataclass
class Target:
    """One goal from issue 7 with the figure measured for it (``met`` is ``None`` when the
    figure could not be measured, e.g. a skipped peer or a mode that does not exist yet)."""

    goal: str
    measured: str
    met: bool | None

    @property
    def verdict(self) -> str:
        """``met``, ``not met`` or ``not measured``."""
        return {True: "met", False: "not met", None: "not measured"}[self.met]


@dataclass
class Section:
    """One table of one scenario: header, formatted rows, raw figures, notes, targets, and
    the tools whose answers were wrong (their figures are not shown; the run fails)."""

    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    raw: dict = field(default_factory=dict)
    wrong: list[str] = field(default_factory=list)
    left: int = 1  # how many leading columns hold text (left-aligned); the rest are figures

    def skip(self, tool: str, why: object) -> None:
        """Note that ``tool`` was skipped, and why."""
        self.notes.append(f"{tool} skipped: {why}")
        self.raw.setdefault("skipped", {})[tool] = str(why)

    def fail(self, error: WrongAnswer) -> None:
        """Record a wrong answer (shown as a note; the benchmark exits with status 1)."""
        self.wrong.append(str(error))
        self.notes.append(f"WRONG: {error}")


class Skipped(Exception):
    """A tool or mode is not available here; the message says why (shown as a note)."""


class WrongAnswer(Exception):
    """A tool's gradient differs from gradcalc's: its figures must not be compared."""


def attempt(section: Section, label: str, measure: Callable[[], T]) -> T | None:
    """``measure()``; ``None`` when it is skipped or answers wrongly (noted in ``section``).

    >>> attempt(Section("t", []), "tool", lambda: 1.5)
    1.5
    """
    try:
        return measure()
    except Skipped as why:
        section.skip(label, why)
    except WrongAnswer as error:
        section.fail(error)
    return None


# --- timing ---------------------------------------------------------------------------


def best_of(
    function: Callable[[], object], repeats: int = 5, budget: float = 2.0, minimum: int = 2
) -> float:
    """The fastest of up to ``repeats`` timed calls, in seconds: at least ``minimum``, and no
    more once ``budget`` seconds have been spent -- one call alone if it took longer than the
    whole budget (a 10 s call gains nothing from a second one)."""
    times: list[float] = []
    spent = 0.0
    while len(times) < repeats and (len(times) < minimum or spent < budget):
        if times and times[0] > budget:
            break
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
        spent += times[-1]
    return min(times)


@dataclass
class Timing:
    """Every timed call of one cell, in seconds."""

    times: list[float]

    @property
    def median(self) -> float:
        """The median call."""
        return statistics.median(self.times)

    @property
    def spread(self) -> float:
        """Half the range of the calls, relative to the median (0.05: +-5%)."""
        return (max(self.times) - min(self.times)) / 2 / self.median


def timings(
    function: Callable[[], object], minimum: int = 3, repeats: int = 7, budget: float = 3.0
) -> Timing:
    """One untimed warm-up call, then at least ``minimum`` timed calls and up to ``repeats``
    while the timed calls have taken less than ``budget`` seconds in all."""
    function()
    times: list[float] = []
    while len(times) < minimum or (len(times) < repeats and sum(times) < budget):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return Timing(times)


def in_turns(
    measures: Sequence[Callable[[], float]], rounds: int, warmup: bool = True
) -> list[list[float]]:
    """``rounds`` figures of each measure (after one untimed call each, unless ``warmup`` is
    false), taken in turns: one of each per round, the order reversed every other round.

    This machine's speed drifts by half within minutes (the same command took 460 ms and,
    ten minutes later, 900 ms), so two medians taken minutes apart can differ by more than
    any target's margin; taken in turns, the i-th figures of two measures share their
    moment, and their ratio is a paired ratio (:func:`paired_ratios`).

    >>> calls = []
    >>> in_turns([lambda: calls.append("a") or 1.0, lambda: calls.append("b") or 2.0], 2)
    [[1.0, 1.0], [2.0, 2.0]]
    >>> "".join(calls)
    'ababba'
    """
    for measure in measures if warmup else ():
        measure()
    figures: list[list[float]] = [[] for _ in measures]
    for round_ in range(rounds):
        order = range(len(measures)) if round_ % 2 == 0 else reversed(range(len(measures)))
        for index in order:
            figures[index].append(measures[index]())
    return figures


def paired_ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    """Each figure over the one taken beside it (see :func:`in_turns`).

    >>> paired_ratios([2.0, 3.0], [1.0, 4.0])
    [2.0, 0.75]
    """
    return [a / b for a, b in zip(numerators, denominators, strict=True)]


def timed(function: Callable[[], object]) -> tuple[float, object]:
    """``(seconds, result)`` of one call."""
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


@dataclass
class ProcessTiming:
    """Wall-clock seconds of repeated runs of one command, and its last output."""

    times: list[float]
    stdout: str

    @property
    def median(self) -> float:
        """The median run time in seconds."""
        return statistics.median(self.times)


def run_command(
    command: Sequence[str], stdin: str | None = None, timeout: float = 300.0
) -> tuple[float, subprocess.CompletedProcess]:
    """Run a command to completion; ``(wall seconds, completed process)``.

    Raises:
        Skipped: when the command fails (exit code not 0) or does not finish in time.
    """
    start = time.perf_counter()
    try:
        done = subprocess.run(
            list(command),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=quiet_environment(),
        )
    except subprocess.TimeoutExpired:
        raise Skipped(f"{command[0]} did not finish in {timeout:.0f} s") from None
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise Skipped(f"exit code {done.returncode}: {last[:200]}")
    return seconds, done


def time_command(
    command: Sequence[str], runs: int, stdin: str | None = None, warmup: bool = True
) -> ProcessTiming:
    """Run a command ``runs`` times (after one untimed warm-up run that fills the OS file
    cache, unless ``warmup`` is false) and keep every wall time."""
    if warmup:
        run_command(command, stdin)
    times, stdout = [], ""
    for _ in range(runs):
        seconds, done = run_command(command, stdin)
        times.append(seconds)
        stdout = done.stdout
    return ProcessTiming(times, stdout)


def limit_threads(threads: int) -> None:
    """Ask every tool (gradcalc's replay, numpy's BLAS, numexpr, PyTorch, TensorFlow, XLA)
    to use ``threads`` threads, through the environment, before any of them is imported; 0
    leaves each tool's default. Children inherit it."""
    if threads <= 0:
        return
    n = str(threads)
    for name in (
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "TF_NUM_INTRAOP_THREADS",
        "TF_NUM_INTEROP_THREADS",
        "GRADCALC_THREADS",
    ):
        os.environ[name] = n
    multi = "true" if threads > 1 else "false"
    os.environ["XLA_FLAGS"] = (
        f"--xla_cpu_multi_thread_eigen={multi} intra_op_parallelism_threads={n}"
    )


def quiet_environment() -> dict[str, str]:
    """The environment for child processes: TensorFlow's and JAX's start-up chatter off."""
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    env.setdefault("JAX_PLATFORMS", "cpu")
    return env


def run_worker(task: str, *args: object, timeout: float = 300.0) -> dict:
    """Run ``worker.py TASK ARGS...`` in a fresh interpreter and return the JSON object it
    prints on its last line (raising :class:`Skipped` with its message if it reports one)."""
    command = [sys.executable, str(WORKER), task, *map(str, args)]
    _, done = run_command(command, timeout=timeout)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    if "skipped" in answer:
        raise Skipped(answer["skipped"])
    return answer


# --- arithmetic on figures ------------------------------------------------------------


def growth_exponent(sizes: Sequence[float], seconds: Sequence[float]) -> float | None:
    """Least-squares slope of log(seconds) against log(size): 1 is linear growth.

    None with fewer than two usable (positive) figures.
    """
    pairs = [(math.log(n), math.log(t)) for n, t in zip(sizes, seconds) if t and t > 0]
    if len(pairs) < 2:
        return None
    mean_x = sum(x for x, _ in pairs) / len(pairs)
    mean_y = sum(y for _, y in pairs) / len(pairs)
    covariance = sum((x - mean_x) * (y - mean_y) for x, y in pairs)
    variance = sum((x - mean_x) ** 2 for x, _ in pairs)
    return covariance / variance


def max_relative_difference(reference: Mapping[str, object], other: Mapping[str, object]) -> float:
    """The largest ``|a - b|`` over every point, relative to the component's scale
    ``max(1, max |a|)`` (normwise, so a gradient near 0 at one point is no false alarm)."""
    import numpy as np

    worst = 0.0
    for name, ref in reference.items():
        a = np.asarray(ref, dtype=float)
        b = np.asarray(other[name], dtype=float).reshape(a.shape)
        scale = max(1.0, float(np.max(np.abs(a), initial=0.0)))
        worst = max(worst, float(np.max(np.abs(a - b), initial=0.0)) / scale)
    return worst


def verify(
    tool: str,
    reference: Mapping[str, object],
    other: Mapping[str, object],
    tolerance: float = 1e-8,
) -> None:
    """Raise :class:`WrongAnswer` unless ``other`` agrees with ``reference`` (see
    :func:`max_relative_difference`) within ``tolerance``."""
    worst = max_relative_difference(reference, other)
    if not worst <= tolerance:
        raise WrongAnswer(f"{tool}'s gradient differs from gradcalc's (by {worst:.2g})")


# --- formatting -----------------------------------------------------------------------


def seconds_text(seconds: float | None) -> str:
    """``0.52 s``, ``31 ms``, ``85 µs`` (three significant digits at most)."""
    if seconds is None:
        return "–"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def ratio_text(value: float | None, floor: float | None) -> str:
    """``1.23x`` (``0.0031x`` below 0.1) of the floor (``–`` when either is missing)."""
    if value is None or not floor:
        return "–"
    ratio = value / floor
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"


def with_ratio(value: float | None, floor: float | None) -> str:
    """``0.52 s (1.04x)``: a time and its ratio to the floor."""
    if value is None:
        return "–"
    return f"{seconds_text(value)} ({ratio_text(value, floor)})"


def megabytes(kilobytes: float | None) -> str:
    """``123 MB`` from kibibytes (as /proc and ru_maxrss report them)."""
    return "–" if kilobytes is None else f"{kilobytes / 1024:.0f} MB"
