"""gradcalc's benchmark against its peers (issue 7); see docs/performance.md.

    python benchmarks/run.py                      # every scenario (about 10 minutes)
    python benchmarks/run.py --quick              # a smoke run with small sizes
    python benchmarks/run.py --only batch --only scaling
    python benchmarks/run.py --json raw.json --markdown tables.md

Prints one table per scenario (each figure with its ratio to a floor measured in the same
run, targets marked met / not met), writes the raw figures as JSON and, with --markdown,
the tables as markdown for docs/performance.md. Peers that are not installed are skipped
with a note. Exit status 1 when a tool's answer disagreed with gradcalc's.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import importlib.metadata
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import report
from harness import Section, limit_threads
from rich.console import Console

SCENARIOS = ("oneshot", "batch", "throughput", "scaling", "mlp", "formats")  # modules scenario_NAME
PACKAGES = (
    "gradcalc",
    "numpy",
    "sympy",
    "typer",
    "rich",
    "torch",
    "jax",
    "autograd",
    "tensorflow-cpu",
    "tensorflow",
)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few runs: a smoke test")
    parser.add_argument(
        "--only",
        action="append",
        choices=SCENARIOS,
        help="run only this scenario (repeatable; default: all)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=Path("benchmark-results.json"),
        help="where to write the raw figures (default: %(default)s)",
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        help="also write the tables as markdown here (into a file with the table markers, "
        "such as docs/performance.md, only between the markers)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads each tool may use (default: %(default)s, like numpy; 0: each tool's own "
        "default)",
    )
    return parser.parse_args(argv)


def command_output(command: list[str]) -> str:
    """A command's stdout, or '' when it cannot run."""
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def cpu_model() -> str:
    """The CPU model name from lscpu (or the platform's processor string)."""
    for line in command_output(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def versions() -> dict[str, str]:
    """Versions of gradcalc's stack and of the peers that are installed."""
    found = {}
    for name in PACKAGES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    for program, flag in (("maxima", "--version"), ("qalc", "--version")):
        text = command_output([program, flag]).strip()
        if text:
            found[program] = text.splitlines()[0]
    return found


def machine() -> dict[str, object]:
    """What the figures were measured on."""
    return {
        "date": datetime.date.today().isoformat(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "versions": versions(),
        "load_start": load_average(),
    }


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages (``uptime``), or '' where there are none: on
    a shared machine, what else was running."""
    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return ""


def header(info: dict) -> str:
    """The markdown header: the machine and the run."""
    listed = ", ".join(f"{k} {v}" for k, v in info["versions"].items())
    kind = "quick run (--quick)" if info["quick"] else "full run"
    if info.get("only"):
        kind = f"{kind}, only {', '.join(info['only'])}"
    threads = info["threads"] or "each tool's default number of"
    load = ""
    if info.get("load_start"):
        load = (
            f" Load average (1, 5, 15 min) {info['load_start']} at the start and "
            f"{info['load_end']} at the end: other jobs shared the cores."
        )
    return (
        f"Measured {info['date']} ({kind}, {info['seconds'] / 60:.1f} minutes, {threads} "
        f"thread(s) per tool) on {info['cpu']}, {info['cores']} cores, {info['system']}, "
        f"Python {info['python']}; {listed}.{load}\n"
    )


def compile_bytecode() -> None:
    """Byte-compile gradcalc, as ``pip install .`` does: an editable install run with
    ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile its source again in every process
    (about 0.1 s), which no installed copy pays."""
    import compileall

    import gradcalc

    compileall.compile_dir(str(Path(gradcalc.__file__).parent), quiet=1)


def main(argv: list[str] | None = None) -> int:
    """Run the chosen scenarios, print and write their tables; 1 if any answer was wrong."""
    args = arguments(argv)
    limit_threads(args.threads)  # before any tool is imported
    compile_bytecode()
    console = Console(width=None if sys.stdout.isatty() else 150)
    info = machine()
    console.print(f"[bold]gradcalc benchmark[/bold] on {info['cpu']}, {info['cores']} cores")
    start = time.perf_counter()
    sections: list[Section] = []
    for name in args.only or SCENARIOS:
        scenario = importlib.import_module(f"scenario_{name}")
        with console.status(f"running {name}…"):
            produced = scenario.run(args.quick)
        for section in produced:
            report.print_section(section, console)
        sections += produced
    seconds = time.perf_counter() - start
    every = [t for s in sections for t in s.targets]
    console.print(report.target_table(every, "All targets"))
    run_info = {
        **info,
        "seconds": seconds,
        "quick": args.quick,
        "only": args.only,
        "threads": args.threads,
        "load_end": load_average(),
    }
    report.write_json(args.json, sections, run_info)
    console.print(f"raw figures: {args.json}")
    if args.markdown:
        tables = report.markdown(sections, header(run_info))
        report.write_markdown(args.markdown, tables, partial=bool(args.only))
        console.print(f"markdown tables: {args.markdown}")
    wrong = [w for s in sections for w in s.wrong]
    for line in wrong:
        console.print(f"[red]WRONG:[/red] {line}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
