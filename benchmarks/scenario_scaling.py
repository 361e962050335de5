"""Scenario 4, scaling: generated expressions of n terms, phase by phase, and the CLI.

Shapes: the sum ``x1*sin(x2) + x2*sin(x3) + … + xn*sin(x1)`` over n variables; the nest
``sin(sin(…sin(x)…))`` n deep (gradcalc refuses nesting beyond its parser's depth limit,
so the same chain is also timed as a program ``y1 = sin(x); y2 = sin(y1); …``). Phases:
parse (``gradcalc.lang.parser.parse_program``), lower (``gradcalc.lang.graph.lower``), record and
differentiate with respect to every variable at one point (``gradient_at``, check off),
and the symbolic check (``gradient_at`` with the check on, minus the time without it) under
its time budget. sympy's ``parse_expr`` on the same text is the peer (in a subprocess).
The growth exponent is the least-squares slope of log(time) against log(n).
"""

from __future__ import annotations

import functools
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import jobs
from backends import gradcalc_options
from harness import (
    Section,
    Skipped,
    Target,
    attempt,
    best_of,
    growth_exponent,
    ratio_text,
    run_worker,
    seconds_text,
    time_command,
    timed,
    verify,
)

FULL_SIZES = (10, 100, 1_000, 10_000)
QUICK_SIZES = (10, 100, 1_000)
PHASES = ("parse", "lower", "record+diff")
#: Issue 17's targets: parse+lower+record grows at most as n^1.1 between 10^3 and 10^4
#: terms, and the 10,000-term sum with its 10,001 partials takes under 1 s through the CLI.
GROWTH_LIMIT = 1.1
GROWTH_FROM = 1_000
CLI_LIMIT = 1.0


@dataclass
class Case:
    """One generated expression: its shape, size, text and point."""

    shape: str
    n: int
    text: str
    point: dict[str, float]


@dataclass
class Outcome:
    """What happened to one case: seconds per phase, the check, sympy's parse, the gradient."""

    times: dict[str, float] = field(default_factory=dict)
    check: str = ""
    sympy: str = ""
    sympy_seconds: float | None = None
    refused: str = ""
    gradient: dict = field(default_factory=dict)


def value(i: int) -> float:
    """A simple, exactly written value for variable number ``i``."""
    return 0.5 + (i % 7) / 10


def sum_case(n: int) -> Case:
    """``x1*sin(x2) + … + xn*sin(x1)``."""
    text = " + ".join(f"x{i}*sin(x{i % n + 1})" for i in range(1, n + 1))
    return Case("sum", n, text, {f"x{i}": value(i) for i in range(1, n + 1)})


def nest_case(n: int) -> Case:
    """``sin(sin(…sin(x)…))`` n deep."""
    return Case("nest", n, "sin(" * n + "x" + ")" * n, {"x": 0.5})


def chain_case(n: int) -> Case:
    """The nest as a program of n statements ``y1 = sin(x); …; yn = sin(y(n-1))``."""
    statements = ["y1 = sin(x)", *(f"y{i} = sin(y{i - 1})" for i in range(2, n + 1))]
    return Case("nest as program", n, "; ".join(statements), {"x": 0.5})


def one_point(case: Case) -> object:
    """The case's point as a gradcalc ``Points`` (values with their exact text, as --at)."""
    import numpy as np

    from gradcalc.engine.evaluate.points import Points

    return Points(
        tuple(case.point),
        {k: np.array(v) for k, v in case.point.items()},
        [{k: repr(v) for k, v in case.point.items()}],
    )


def gradcalc_phases(case: Case, budget: float, quick: bool) -> Outcome:
    """Time parse, lower, record+diff and the check of one case in this process."""
    from gradcalc.core.errors import InputError
    from gradcalc.engine.run.api import gradient_at
    from gradcalc.lang.graph import lower
    from gradcalc.lang.parser import parse_program

    outcome = Outcome()
    points = one_point(case)
    try:
        program = parse_program(case.text)
    except InputError as error:
        outcome.refused = str(error).split(":")[0]
        return outcome
    graph = lower(program)
    repeats, spend = (2, 0.3) if quick else (5, 1.0)
    outcome.times["parse"] = best_of(lambda: parse_program(case.text), repeats, spend)
    outcome.times["lower"] = best_of(lambda: lower(program), repeats, spend)
    unchecked = gradcalc_options(check=False)
    first, results = timed(lambda: gradient_at(graph, points, None, unchecked))
    outcome.gradient = dict(results[0].gradient)
    again = best_of(lambda: gradient_at(graph, points, None, unchecked), repeats, spend, 1)
    record = outcome.times["record+diff"] = min(first, again)
    outcome.times["total"] = sum(outcome.times[p] for p in PHASES)
    seconds, results = timed(
        lambda: gradient_at(graph, points, None, gradcalc_options(check=True, check_timeout=budget))
    )
    outcome.times["check"] = max(seconds - record, 0.0)
    outcome.check = results[0].check.status
    return outcome


def sympy_parse(case: Case) -> tuple[float | None, str]:
    """sympy's ``parse_expr`` on the case's text (programs are not sympy syntax)."""
    if case.shape == "nest as program":
        return None, "n/a"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "expression.txt"
        path.write_text(case.text)
        try:
            answer = run_worker("sympy-parse", path, timeout=120)
        except Skipped as why:
            return None, f"fails ({why})"
    if "fails" in answer:
        return None, f"fails ({answer['fails']})"
    return answer["seconds"], seconds_text(answer["seconds"])


def check_text(outcome: Outcome, budget: float) -> str:
    """``agree 1.2 s``, ``skipped 5.0 s`` or ``BLOCKED 30 s`` (over budget + 1 s)."""
    seconds = outcome.times["check"]
    status = "BLOCKED" if seconds > budget + 1.0 else outcome.check
    return f"{status} {seconds_text(seconds)}"


def run(quick: bool) -> list[Section]:
    """The phase table with growth exponents, and the end-to-end CLI table."""
    sizes = QUICK_SIZES if quick else FULL_SIZES
    budget = 1.0 if quick else 5.0
    section = Section(
        f"Scaling with expression size (one point; symbolic check budget {budget:g} s)",
        [
            "shape",
            "n",
            "parse (x sympy)",
            "lower",
            "record+diff",
            "sum of 3",
            "check",
            "sympy parse_expr",
        ],
    )
    grown: dict[str, dict[int, Outcome]] = {}
    for make in (sum_case, nest_case, chain_case):
        for n in sizes:
            case = make(n)
            outcome = gradcalc_phases(case, budget, quick)
            outcome.sympy_seconds, outcome.sympy = sympy_parse(case)
            grown.setdefault(case.shape, {})[n] = outcome
            section.rows.append(phase_row(case, outcome, budget))
        section.rows.append(exponent_row(case.shape, grown[case.shape]))
    section.raw = {
        shape: {n: {k: v for k, v in vars(o).items() if k != "gradient"} for n, o in per.items()}
        for shape, per in grown.items()
    }
    section.targets = targets(grown, budget)
    section.notes += [
        "sum of 3 = parse + lower + record+diff; check = time with the symbolic check on minus "
        "the time without it; BLOCKED would mean it overran its budget by more than 1 s",
        "the growth row is the fitted exponent of each column over n (1 = linear)",
    ]
    return [section, cli_section(sizes[-1], grown["sum"][sizes[-1]], quick)]


def phase_row(case: Case, outcome: Outcome, budget: float) -> list[str]:
    """One case's row."""
    if outcome.refused:
        return [
            case.shape,
            f"{case.n:,}",
            f"refused: {outcome.refused}",
            "",
            "",
            "",
            "",
            outcome.sympy,
        ]
    t = outcome.times
    return [
        case.shape,
        f"{case.n:,}",
        f"{seconds_text(t['parse'])} ({ratio_text(t['parse'], outcome.sympy_seconds)})",
        seconds_text(t["lower"]),
        seconds_text(t["record+diff"]),
        seconds_text(t["total"]),
        check_text(outcome, budget),
        outcome.sympy,
    ]


def exponent_row(shape: str, per_size: dict[int, Outcome]) -> list[str]:
    """The fitted growth exponent of every column of one shape."""

    def fit(read: Callable[[Outcome], float | None]) -> str:
        pairs = [(n, read(o)) for n, o in per_size.items() if read(o)]
        exponent = growth_exponent([n for n, _ in pairs], [t for _, t in pairs])
        return "–" if exponent is None else f"n^{exponent:.2f}"

    cells = [fit(lambda o, p=p: o.times.get(p)) for p in (*PHASES, "total", "check")]
    return [f"{shape}: growth", "", *cells, fit(lambda o: o.sympy_seconds)]


def targets(grown: dict[str, dict[int, Outcome]], budget: float) -> list[Target]:
    """Linear growth of parse+lower+record per shape from :data:`GROWTH_FROM` terms on (from
    the smallest size in a quick run; not met when a size is refused); the check never
    blocks."""
    found = []
    for shape, per_size in grown.items():
        largest = max(per_size)
        start = GROWTH_FROM if largest > GROWTH_FROM else min(per_size)
        pairs = [(n, o.times["total"]) for n, o in per_size.items() if not o.refused]
        pairs = [(n, t) for n, t in pairs if n >= start]
        exponent = growth_exponent([n for n, _ in pairs], [t for _, t in pairs])
        refused = [n for n, o in per_size.items() if o.refused]
        measured = "–" if exponent is None else f"n^{exponent:.2f}"
        met = None if exponent is None else exponent <= GROWTH_LIMIT
        if refused:  # a size gradcalc cannot do at all is not linear growth
            measured += f"; n = {', '.join(f'{n:,}' for n in refused)} refused"
            met = False
        span = f"{start:,} to {largest:,} terms"
        found.append(
            Target(f"{shape}: parse+lower+record <= n^{GROWTH_LIMIT:g} ({span})", measured, met)
        )
    worst = max(o.times.get("check", 0.0) for per in grown.values() for o in per.values())
    found.append(
        Target(
            f"symbolic check degrades, never blocks (budget {budget:g} s)",
            f"longest check {seconds_text(worst)}",
            worst <= budget + 1.0,
        )
    )
    return found


def cli_section(n: int, reference: Outcome, quick: bool) -> Section:
    """The n-term sum end to end through the CLI: expression from @file, point from a
    --points CSV, --no-check --format json, with and without the tape in the output."""
    section = Section(
        f"The {n:,}-term sum end to end through the CLI (median of {1 if quick else 3})",
        ["command", "median", "x floor"],
    )
    case = sum_case(n)
    floor_command = [sys.executable, "-c", "import sympy, numpy, typer, rich"]
    floor = time_command(floor_command, 3).median
    section.rows.append(
        ["floor: python -c 'import sympy, numpy, typer, rich'", seconds_text(floor), "1.00x"]
    )
    section.raw["floor"] = floor
    with tempfile.TemporaryDirectory() as folder:
        expression, points = write_case(case, Path(folder))
        flags = "--no-check --format json"
        for label, extra in (("with tape", []), ("--no-tape", ["--no-tape"])):
            command = [
                *jobs.gradcalc_command(),
                "--file",
                "grad",
                f"@{expression}",
                "--points",
                str(points),
                "--no-check",
                "--format",
                "json",
                *extra,
            ]
            shown = " ".join([f"gradcalc grad @sum.txt --points point.csv {flags}", *extra])
            runs = 1 if quick else 3
            seconds = attempt(section, label, functools.partial(time_cli, command, reference, runs))
            if seconds is None:
                continue
            section.raw[label] = seconds
            section.rows.append([shown.strip(), seconds_text(seconds), ratio_text(seconds, floor)])
    best = min(
        (section.raw[k] for k in ("with tape", "--no-tape") if k in section.raw), default=None
    )
    section.targets = [
        Target(
            f"{n:,}-term sum through the CLI < {CLI_LIMIT:g} s",
            "not run" if best is None else f"{seconds_text(best)} (fastest of the two)",
            None if best is None or n < 10_000 else best < CLI_LIMIT,
        )
    ]
    section.notes.append("both outputs are checked against the in-process gradient")
    return section


def write_case(case: Case, folder: Path) -> tuple[Path, Path]:
    """The expression file and the one-row points CSV of a case."""
    expression, points = folder / "sum.txt", folder / "point.csv"
    expression.write_text(case.text + "\n")
    points.write_text(",".join(case.point) + "\n" + ",".join(map(repr, case.point.values())) + "\n")
    return expression, points


def time_cli(command: list[str], reference: Outcome, runs: int) -> float:
    """Median seconds of the command; its JSON gradient must match the in-process one."""
    timing = time_command(command, runs, warmup=False)
    answer = json.loads(timing.stdout)
    if isinstance(answer, list):
        answer = answer[0]
    verify("gradcalc CLI", reference.gradient, answer["gradient"])
    return timing.median
