"""Scenario 3, scripting throughput: many small gradient jobs from a script.

gradcalc's streaming mode (``gradcalc grad --jobs -``, JSON lines in and out) answers all
the jobs in one command, and so does Maxima given every job in one ``--batch-string`` (its
best mode for many small jobs: one start-up); the other alternatives are shell loops of
one-shot calls (gradcalc, Maxima, qalc), timed as a bash script of one call per line over
the first few jobs. gradcalc's stream is timed with its default (a worker process per CPU on
Linux, whatever ``--threads`` says: it is what a user gets) and in one process (``--workers
1``), which is what is compared with Maxima's one process; these streams and Maxima's batch
run in turns (:func:`~harness.in_turns`), so that each median, and each ratio to Maxima's
run beside it, shares the machine's moment. The floor loop runs ``python -c
"import sympy, numpy, typer, rich"`` per job: no one-shot call of a tool on this stack can
beat it. The jobs are distinct small expressions of six templates (``benchmarks/jobs.py``),
at random points.
"""

from __future__ import annotations

import functools
import json
import shlex
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import jobs
from harness import (
    Section,
    Skipped,
    Target,
    WrongAnswer,
    attempt,
    in_turns,
    max_relative_difference,
    paired_ratios,
    run_command,
)

FLOOR = "floor: loop of python -c 'import sympy, numpy, typer, rich'"
MAXIMA = "loop of maxima --batch-string"
MAXIMA_BATCH = "maxima, every job in one --batch-string (one process)"
#: The stream targets (issue 17): jobs per second with the check on, and with --no-check.
CHECKED_TARGET = 500
UNCHECKED_TARGET = 2000
STREAM = "gradcalc grad --jobs - (streaming, symbolic check on, default: a worker per CPU)"
STREAM_UNCHECKED = "gradcalc grad --jobs - --no-check (streaming, default: a worker per CPU)"
STREAM_ONE = "gradcalc grad --jobs - --workers 1 (one process, check on)"
STREAM_ONE_UNCHECKED = "gradcalc grad --jobs - --workers 1 --no-check (one process)"


@functools.cache
def streaming_available() -> bool:
    """Whether ``gradcalc grad --help`` mentions ``--jobs`` (asked once per run: every
    stream of both tables asks)."""
    _, done = run_command([*jobs.gradcalc_command(), "grad", "--help"])
    return "--jobs" in done.stdout


def check(label: str, got: list[float], job: jobs.Job) -> None:
    """Raise :class:`WrongAnswer` unless ``got`` is gradcalc's gradient of ``job``
    (within 1e-6: qalc prints ten significant digits)."""
    want = jobs.expected_gradient(job)
    if len(got) != len(want) or max_relative_difference({"g": want}, {"g": got}) > 1e-6:
        raise WrongAnswer(f"{label} answered {got} for {job.expr} at {job.at()}, not {want}")


@dataclass(frozen=True)
class Stream:
    """One way of answering every job in one command: its label, the command and its
    input, and how to verify its output (a note; raises :class:`WrongAnswer`)."""

    label: str
    command: list[str]
    stdin: str | None
    verify: Callable[[str], str]

    @property
    def inputs(self) -> tuple[list[str], str | None]:
        """``run_command``'s arguments: the command and its input."""
        return self.command, self.stdin


def gradcalc_stream(label: str, all_jobs: list[jobs.Job], extra: list[str]) -> Stream:
    """gradcalc's streaming mode (with ``extra`` options) over every job.

    Raises:
        Skipped: when the mode does not exist yet.
    """
    if not streaming_available():
        raise Skipped("gradcalc grad has no --jobs option yet")

    def verify(stdout: str) -> str:
        lines = stdout.splitlines()
        if len(lines) != len(all_jobs):
            raise WrongAnswer(f"--jobs answered {len(lines)} lines for {len(all_jobs)} jobs")
        for job, line in list(zip(all_jobs, lines))[:20]:
            gradient = json.loads(line).get("gradient")
            if not isinstance(gradient, dict):
                return "answers not verified: no 'gradient' object in the output"
            check(label, [gradient[name] for name in job.wrt], job)
        return "the first 20 answers agree with gradcalc's in-process gradient"

    stdin = "".join(job.json_line() + "\n" for job in all_jobs)
    command = [*jobs.gradcalc_command(), "grad", "--jobs", "-", *extra]
    return Stream(label, command, stdin, verify)


def maxima_batch(all_jobs: list[jobs.Job]) -> Stream:
    """Maxima answering every job in one process (``run_command`` skips it where Maxima is
    not installed)."""

    def verify(stdout: str) -> str:
        answers = jobs.maxima_batch_answers(stdout)
        if len(answers) != len(all_jobs):
            raise WrongAnswer(
                f"the Maxima batch printed {len(answers)} answers for {len(all_jobs)}"
            )
        for job, answer in list(zip(all_jobs, answers))[:20]:
            check(MAXIMA_BATCH, answer, job)
        return "the first 20 answers agree with gradcalc's in-process gradient"

    return Stream(MAXIMA_BATCH, jobs.maxima_batch_command(all_jobs), None, verify)


#: gradcalc's streams: label and options.
STREAMS: tuple[tuple[str, list[str]], ...] = (
    (STREAM, []),
    (STREAM_UNCHECKED, ["--no-check"]),
    (STREAM_ONE, ["--workers", "1"]),
    (STREAM_ONE_UNCHECKED, ["--workers", "1", "--no-check"]),
)


def every_stream(
    section: Section, all_jobs: list[jobs.Job], which: Sequence[tuple[str, list[str]]]
) -> list[Stream]:
    """gradcalc's streams ``which`` (label, options) over ``all_jobs``, then Maxima's batch
    (a stream that cannot be made is noted in ``section``)."""
    made = [
        attempt(section, label, functools.partial(gradcalc_stream, label, all_jobs, extra))
        for label, extra in which
    ]
    return [stream for stream in made if stream is not None] + [maxima_batch(all_jobs)]


def streams_in_turns(
    section: Section, streams: list[Stream], runs: int
) -> dict[str, tuple[list[float], str]]:
    """Each stream's ``runs`` wall times, taken in turns (:func:`~harness.in_turns`), and its
    verification note, by label; a stream that cannot run, or answers wrongly, is noted in
    ``section`` and left out."""
    working: list[Stream] = []
    for stream in streams:  # one untimed run of each (the warm-up): one that fails is left out
        if attempt(section, stream.label, functools.partial(run_command, *stream.inputs)):
            working.append(stream)
    outputs: dict[str, str] = {}

    def measure(stream: Stream) -> float:
        seconds, done = run_command(*stream.inputs)
        outputs[stream.label] = done.stdout
        return seconds

    times = in_turns([functools.partial(measure, s) for s in working], runs, warmup=False)
    found = {}
    for stream, seconds in zip(working, times):
        verify = functools.partial(stream.verify, outputs[stream.label])
        note = attempt(section, stream.label, verify)
        if note is not None:
            found[stream.label] = seconds, note
    return found


def time_loop(
    label: str,
    command: Callable[[jobs.Job], list[str]],
    answer: Callable[[str], list[float]] | None,
    loop_jobs: list[jobs.Job],
) -> float:
    """Seconds for a bash script of one ``command`` per job (after checking the first
    job's answer, when ``answer`` can read it).

    Raises:
        Skipped: when the tool is missing or fails; WrongAnswer: for a wrong answer.
    """
    first = command(loop_jobs[0])
    _, done = run_command(first)
    if answer is not None:
        check(label, answer(done.stdout), loop_jobs[0])
    script = "\n".join(shlex.join(command(job)) for job in loop_jobs) + "\n"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "loop.sh"
        path.write_text("set -e\n" + script)
        seconds, _ = run_command(["bash", str(path)], timeout=600)
    return seconds


def loops() -> list[tuple[str, Callable, Callable | None]]:
    """The shell loops: label, command per job, answer reader."""
    floor = [sys.executable, "-c", "import sympy, numpy, typer, rich"]
    return [
        (FLOOR, lambda job: floor, None),
        ("loop of gradcalc grad (plain, --no-check)", jobs.gradcalc_plain, jobs.numbers_in),
        (MAXIMA, jobs.maxima_command, jobs.maxima_answer),
        ("loop of qalc", jobs.qalc_command, jobs.qalc_answer),
    ]


def run(quick: bool) -> list[Section]:
    """Jobs per second of the streaming mode and of every shell loop."""
    stream_count, loop_count = (100, 5) if quick else (1000, 20)
    all_jobs = jobs.random_jobs(stream_count)
    section = Section(
        "Scripting throughput (small jobs like the headline, random points)",
        ["how", "jobs", "seconds", "jobs/s", "x floor loop", "x maxima batch"],
    )
    rates: dict[str, dict] = {}
    runs = 1 if quick else 3
    timed = streams_in_turns(section, every_stream(section, all_jobs, STREAMS), runs)
    for label, (times, note) in timed.items():
        rates[label] = {"jobs": stream_count, "seconds": statistics.median(times), "times": times}
        section.notes.append(f"{label}: {note}")
    for label, command, answer in loops():
        loop = functools.partial(time_loop, label, command, answer, all_jobs[:loop_count])
        seconds = attempt(section, label, loop)
        if seconds is not None:
            rates[label] = {"jobs": loop_count, "seconds": seconds}
    for rate in rates.values():
        rate["per_second"] = rate["jobs"] / rate["seconds"]
    section.rows = [table_row(label, rate, rates) for label, rate in rates.items()]
    section.raw.update(rates)
    section.targets = targets(rates)
    section.notes.append(
        "each loop is a bash script of one call per job; every tool's first answer is checked "
        "against gradcalc's in-process gradient"
    )
    return [section, start_up_section(all_jobs, runs, rates)]


#: The one-process streams split into start-up and each further job, beside Maxima's batch.
SPLIT = (
    (STREAM_ONE_UNCHECKED, ["--workers", "1", "--no-check"]),
    (STREAM_ONE, ["--workers", "1"]),
)


def start_up_section(all_jobs: list[jobs.Job], runs: int, rates: dict) -> Section:
    """The one-process rates taken apart: the seconds for one job (start-up) and the cost of
    each further job, ``(T(n) - T(1)) / (n - 1)``, for gradcalc's one-process streams and
    Maxima's batch; and from how many jobs on each stream is ahead of Maxima's batch."""
    section = Section(
        "One process: start-up and each further job",
        ["how", "1 job (start-up)", "each further job", "ahead of maxima's batch from"],
    )
    split: dict[str, tuple[float, float]] = {}
    which = [(label, extra) for label, extra in SPLIT if label in rates]
    # only the streams the first table measured (Maxima's batch included only if it ran)
    streams = [s for s in every_stream(section, all_jobs[:1], which) if s.label in rates]
    for label, (times, _) in streams_in_turns(section, streams, runs).items():
        start = statistics.median(times)
        whole, count = rates[label]["seconds"], rates[label]["jobs"]
        split[label] = start, (whole - start) / max(count - 1, 1)
    for label, (start, each) in split.items():
        section.rows.append(
            [label, f"{start * 1e3:.0f} ms", f"{each * 1e3:.3f} ms", break_even(label, split)]
        )
    section.raw.update({label: {"start": s, "each": e} for label, (s, e) in split.items()})
    section.notes.append(
        "start-up: the median of the one-job run; each further job: the median time of the "
        f"{len(all_jobs):,}-job run less the start-up, over the further jobs"
    )
    if any(each <= 0 for _, each in split.values()):
        section.notes.append(
            "a cost per job of 0 or less: the one-job run took as long as the whole run, "
            "the split is within the noise (run more jobs: without --quick)"
        )
    return section


def break_even(label: str, split: dict[str, tuple[float, float]]) -> str:
    """From how many jobs on ``label`` (start-up s, each job e) takes less time than Maxima's
    batch: ``(s - s_m) / (e_m - e)`` when it starts later but answers each job sooner.

    >>> break_even("g", {"g": (0.3, 0.0005), MAXIMA_BATCH: (0.1, 0.0007)})
    '1,001 jobs'
    >>> break_even("g", {"g": (0.3, 0.002), MAXIMA_BATCH: (0.1, 0.0007)})
    'never (each job is slower)'
    """
    if label == MAXIMA_BATCH or MAXIMA_BATCH not in split:
        return "–"
    start, each = split[label]
    maxima_start, maxima_each = split[MAXIMA_BATCH]
    if start <= maxima_start and each <= maxima_each:
        return "1 job"
    if each >= maxima_each:
        return "never (each job is slower)"
    return f"{int((start - maxima_start) / (maxima_each - each)) + 1:,} jobs"


def table_row(label: str, rate: dict, rates: dict) -> list[str]:
    """One row: jobs, seconds, jobs/s and the speed relative to the floor loop and to Maxima
    as one batch process."""

    def relative(other: str) -> str:
        return f"{rate['per_second'] / rates[other]['per_second']:.1f}x" if other in rates else "–"

    return [
        label,
        str(rate["jobs"]),
        f"{rate['seconds']:.2f}",
        f"{rate['per_second']:.1f}",
        relative(FLOOR),
        relative(MAXIMA_BATCH),
    ]


def targets(rates: dict) -> list[Target]:
    """The checked stream at >= 500 jobs/s and the unchecked one at >= 2,000, as a user runs
    it (its default workers: every core); and each ahead of Maxima given every job in one
    batch process -- compared one process with one process (``--workers 1``), since Maxima
    answers on one core."""
    found = []
    for default, alone, limit, which in (
        (STREAM, STREAM_ONE, CHECKED_TARGET, "check on"),
        (STREAM_UNCHECKED, STREAM_ONE_UNCHECKED, UNCHECKED_TARGET, "--no-check"),
    ):
        name = f"streaming ({which}, default workers) >= {limit:,} jobs/s"
        if default in rates:
            speed = rates[default]["per_second"]
            found.append(Target(name, f"{speed:.0f} jobs/s", speed >= limit))
        else:
            found.append(Target(name, "not run", None))
        ahead = f"streaming ({which}, one process) ahead of maxima as one batch"
        if alone not in rates:
            found.append(Target(ahead, "not run", None))
        elif MAXIMA_BATCH in rates:
            # each run of Maxima's over the run of gradcalc's taken beside it (in turns)
            ratios = paired_ratios(rates[MAXIMA_BATCH]["times"], rates[alone]["times"])
            times = statistics.median(ratios)
            runs = f"{len(ratios)} run{'s' if len(ratios) > 1 else ''} in turns"
            measured = f"{times:.2f}x maxima's jobs/s (the median of {runs})"
            found.append(Target(ahead, measured, times > 1))
        else:
            found.append(Target(ahead, "maxima not installed", None))
    return found
