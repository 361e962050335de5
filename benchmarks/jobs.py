"""Small gradient jobs and the command line that computes one with each tool.

A :class:`Job` is an expression (in the syntax gradcalc, Maxima and qalc all read: ``^``,
``sin``, ``exp``, natural ``log``), a point and the names to differentiate by. The one-shot
and the throughput scenarios both build their commands here.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from harness import Skipped

TEMPLATES = (
    "{a}*x^2+{b}*x*y",
    "{a}*sin(x)*y+{b}*y^2",
    "exp({a}*x)*y-{b}*x*y^2",
    "{a}*x^3+{b}*x*y+{c}*y^2",
    "log(1+x^2)*y+{a}*cos(y)",
    "{a}*x*y/(1+y^2)+{b}*x",
)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class Job:
    """One gradient to compute: ``expr`` at ``point``, with respect to ``wrt``."""

    expr: str
    point: dict[str, float]

    @property
    def wrt(self) -> list[str]:
        """The names differentiated by: every name of the point, in order."""
        return list(self.point)

    def at(self) -> str:
        """The point as gradcalc's ``--at`` text: ``x=5,y=3``."""
        return ",".join(f"{name}={value!r}" for name, value in self.point.items())

    def json_line(self) -> str:
        """The job as one line of ``gradcalc grad --jobs -`` input."""
        return json.dumps({"expr": self.expr, "at": self.point, "wrt": self.wrt})


HEADLINE = Job("3*w1**2+2*w1*w2", {"w1": 5.0, "w2": 3.0})
# qalc reads w1 as watts, so the external tools get the headline over x and y.
HEADLINE_XY = Job("3*x^2+2*x*y", {"x": 5.0, "y": 3.0})


def random_jobs(count: int, seed: int = 7) -> list[Job]:
    """``count`` small jobs like the headline: a random template, coefficients and point."""
    rng = random.Random(seed)
    jobs = []
    for _ in range(count):
        coefficients = {key: round(rng.uniform(0.5, 3.0), 1) for key in "abc"}
        expr = rng.choice(TEMPLATES).format(**coefficients)
        point = {"x": round(rng.uniform(0.1, 2.0), 3), "y": round(rng.uniform(0.1, 2.0), 3)}
        jobs.append(Job(expr, point))
    return jobs


def numbers_in(text: str) -> list[float]:
    """Every decimal number in ``text``, in order."""
    return [float(match) for match in NUMBER.findall(text)]


def expected_gradient(job: Job) -> list[float]:
    """gradcalc's own gradient of a job, in process (the reference every tool must match)."""
    from gradcalc.engine.run.api import grad

    result = grad(job.expr, at=job.point, wrt=job.wrt, check=False)
    return [float(result.gradient[name]) for name in job.wrt]


def gradcalc_command() -> list[str]:
    """How to run this interpreter's gradcalc: the console script beside ``sys.executable``,
    else ``python -m gradcalc`` when the package supports it.

    Raises:
        Skipped: when neither exists.
    """
    script = Path(sys.executable).parent / "gradcalc"
    if script.exists():
        return [str(script)]
    if importlib.util.find_spec("gradcalc.__main__") is not None:
        return [sys.executable, "-m", "gradcalc"]
    raise Skipped("no gradcalc console script beside this python, and no python -m gradcalc")


def gradcalc_plain(job: Job) -> list[str]:
    """A one-shot gradcalc call printing the gradient as plain numbers, no symbolic check."""
    return [
        *gradcalc_command(),
        "grad",
        job.expr,
        "--at",
        job.at(),
        "--format",
        "plain",
        "--no-check",
    ]


def need(program: str) -> str:
    """The path of an external program.

    Raises:
        Skipped: when it is not installed.
    """
    path = shutil.which(program)
    if path is None:
        raise Skipped(f"{program} is not installed (Debian: apt-get install {program})")
    return path


def maxima_command(job: Job) -> list[str]:
    """Maxima differentiating symbolically and substituting the point, as floats."""
    point = ",".join(f"{name}={value!r}" for name, value in job.point.items())
    partials = ",".join(f"diff(f,{name})" for name in job.wrt)
    script = f"display2d:false$ f:{job.expr}$ print(float(subst([{point}],[{partials}])))$"
    return [need("maxima"), "--very-quiet", f"--batch-string={script}"]


def maxima_batch_command(batch: list[Job]) -> list[str]:
    """Maxima answering every job in one process and one ``--batch-string``: each job's
    gradient printed on its own line, ``[dx, dy]``, as floats."""
    lines = ["display2d:false$"]
    for job in batch:
        point = ",".join(f"{name}={value!r}" for name, value in job.point.items())
        partials = ",".join(f"diff(f,{name})" for name in job.wrt)
        lines.append(f"f:{job.expr}$ print(float(subst([{point}],[{partials}])))$")
    script = " ".join(lines)
    if len(script) > 120_000:  # Linux takes at most 128 KiB in one argument
        raise Skipped(f"a batch of {len(batch)} jobs is too long for one --batch-string")
    return [need("maxima"), "--very-quiet", f"--batch-string={script}"]


def maxima_batch_answers(stdout: str) -> list[list[float]]:
    """Each gradient the batch printed: the lines that are a bracketed list of numbers."""
    return [numbers_in(line) for line in stdout.splitlines() if line.strip().startswith("[")]


def maxima_answer(stdout: str) -> list[float]:
    """The gradient Maxima printed (its last line; the lines before echo the input)."""
    return numbers_in(stdout.strip().splitlines()[-1])


def qalc_command(job: Job) -> list[str]:
    """qalc: ``diff(f, v, 1, value)`` per variable, the other variables ``replace``-d."""
    partials = []
    for name in job.wrt:
        term = f"diff({job.expr}, {name}, 1, {job.point[name]!r})"
        for other, value in job.point.items():
            if other != name:
                term = f"replace({term}, {other}, {value!r})"
        partials.append(term)
    return [need("qalc"), "-t", f"[{', '.join(partials)}]"]


def qalc_answer(stdout: str) -> list[float]:
    """The gradient qalc printed, e.g. ``[36  10]``."""
    return numbers_in(stdout)
