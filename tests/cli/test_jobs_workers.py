"""`gradcalc grad --jobs --workers N`: the same answers, in the same order, as one process."""

from __future__ import annotations

import io
import json
import math
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from gradcalc.cli import jobs, limits
from gradcalc.core.workers import available

forks = pytest.mark.skipif(available() == 1, reason="workers are forked on Linux only")

TEMPLATES = [
    "{a}*x^2+{b}*x*y",
    "exp({a}*x)*y-{b}*x*y^2",
    "log(1+x^2)*y+{a}*cos(y)",
    "{a}*abs(x)+sqrt({b}*y)",
    "u = {a}*x*y; v = u^2 + {b}/x",
]


def _mixed_stream(seed: int, count: int) -> list[str]:
    """Ordinary jobs with every kind of odd one among them: malformed, undefined at the
    point, a wrong formula (a failed check cannot be made by a user; see below), order > 1,
    several targets, comments, blank lines and a line too long to read."""
    rng = random.Random(seed)
    odd = [
        "{not json",
        "x^\tx=1",
        "1/x\tx=0",
        "# a comment",
        "",
        '{"expr": "x^3*y", "at": {"x": 2, "y": 1}, "order": 3, "wrt": ["x"]}',
        '{"expr": "y = x^2; z = y^2", "at": {"x": 3}, "of": ["y", "z"]}',
        "x" * (jobs.MAX_LINE + 5),
        "abs(x)*y\tx=0,y=2",
    ]
    lines = []
    for _ in range(count):
        if rng.random() < 0.2:
            lines.append(rng.choice(odd))
            continue
        numbers = {k: str(round(rng.uniform(0.2, 3.0), 2)) for k in "ab"}
        point = {
            v: rng.choice(["0", "1", "-2.5", "1e300", str(round(rng.uniform(-3, 3), 3))])
            for v in "xy"
        }
        lines.append(json.dumps({"expr": rng.choice(TEMPLATES).format(**numbers), "at": point}))
    return lines


def _stream(lines: list[str], workers: int, **options) -> tuple[int, str]:
    out = io.StringIO()
    code = jobs.run_jobs(iter(lines), out, workers=workers, **options)
    return code, out.getvalue()


@forks
@pytest.mark.parametrize("check", [False, True])
def test_workers_answer_exactly_as_one_process(check) -> None:
    lines = _mixed_stream(5, 80 if check else 300)
    one = _stream(lines, 1, check=check)
    assert _stream(lines, 2, check=check) == one
    assert _stream(lines, 3, check=check) == one
    numbers = [json.loads(line)["job"] for line in one[1].splitlines()]
    assert numbers == sorted(numbers) and len(numbers) == sum(
        1 for line in lines if line.strip() and not line.startswith("#")
    )


@forks
def test_a_job_that_fails_its_check_fails_the_stream_in_workers_too(monkeypatch) -> None:
    """Status 1 travels back from a worker: a tape made wrong (sin's rule gives sin, not
    cos; the forks inherit it) fails the check as in one process."""
    import dataclasses

    import gradcalc.core.ops as ops

    rule = (lambda g, ans, x: g * ans,)  # sin's made to give sin, in both of its forms
    wrong = dataclasses.replace(ops.REGISTRY["sin"], grads=rule, array_grads=rule)
    monkeypatch.setitem(ops.REGISTRY, "sin", wrong)
    lines = ["x^2\tx=3", "sin(x)*y\tx=1,y=2", "x^3\tx=1"]
    code, text = _stream(lines, 2)
    assert code == 1 and (code, text) == _stream(lines, 1)
    assert [json.loads(line)["check"]["status"] for line in text.splitlines()] == [
        "agree", "disagree", "agree",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("status", "code", "words"),
    [
        (limits.CPU_EXIT, 2, "CPU time limit reached"),
        (-signal.SIGKILL, 2, "was killed"),
        (-signal.SIGSEGV, 70, "internal error"),
        (1, 70, "internal error"),
    ],
)
def test_a_lost_jobs_answer_says_why(status, code, words) -> None:
    text, exit_code = jobs._lost((12, "x^2\tx=1"), status)
    answer = json.loads(text)
    assert exit_code == code == answer["exit_code"] and answer["job"] == 12
    assert words in answer["error"]


def test_workers_need_a_stream(cli) -> None:
    done = cli.invoke(["grad", "x^2", "--at", "x=1", "--workers", "2"])
    assert done.exit_code == 2 and "--workers is for a stream of jobs" in done.output
    for count in ("-1", "65"):  # 65: past the cap, so that a typo cannot fork thousands
        done = cli.invoke(["grad", "--jobs", "-", "--workers", count], input="")
        assert done.exit_code == 2 and "--workers" in done.output


@forks
@pytest.mark.parametrize("count", ["0", "1", "2"])
def test_the_command_line_answers_the_same_with_any_workers(cli, count) -> None:
    lines = _mixed_stream(9, 40)
    done = cli.invoke(["grad", "--jobs", "-", "--workers", count], input="\n".join(lines) + "\n")
    code, text = _stream(lines, 1, check=True)
    assert (done.exit_code, done.stdout) == (code, text)


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as listing:
        return [int(child) for child in listing.read().split()]


@forks
@pytest.mark.slow
def test_killing_a_worker_loses_at_most_its_own_job() -> None:
    """A worker killed mid-stream (as the OOM killer would): every other job is answered,
    right and in order; the one it was answering, if any, says it was killed."""
    lines = [f"{k}*x^2*sin(y) + exp(x/{k})\tx=1,y=2" for k in range(1, 401)]
    process = subprocess.Popen(
        [sys.executable, "-c", "from gradcalc.cli.app import main; main()", "grad", "--jobs", "-",
         "--workers", "2"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        process.stdin.write("\n".join(lines[:200]) + "\n")
        process.stdin.flush()
        for _ in range(600):  # the workers are forked once the stream starts
            if len(_children(process.pid)) == 2:
                break
            time.sleep(0.05)
        os.kill(_children(process.pid)[0], signal.SIGKILL)
        out, err = process.communicate("\n".join(lines[200:]) + "\n", timeout=300)
    finally:
        process.kill()
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["job"] for a in answers] == list(range(1, 401)), err[-300:]
    lost = [a for a in answers if "error" in a]
    assert len(lost) <= 1 and all("was killed" in a["error"] for a in lost)
    assert process.returncode == (2 if lost else 0)
    for answer in answers:
        if "error" not in answer:
            k = answer["job"]
            assert answer["gradient"]["x"] == pytest.approx(
                2 * k * math.sin(2) + math.exp(1 / k) / k, rel=1e-12
            )
