"""gradcalc.core.workers: a map over forked workers, answers in input order, a dead worker
costing only its own task."""

from __future__ import annotations

import os
import random
import signal
import time

import pytest

from gradcalc.core import workers
from gradcalc.core.workers import available, ordered_map

forks = pytest.mark.skipif(available() == 1, reason="workers are forked on Linux only")


def _lost(task: object, status: int) -> tuple[str, object, int]:
    return ("lost", task, status)


def _slow_square(task: int) -> int:
    """Uneven work, so that the workers finish out of order."""
    time.sleep(random.Random(task).choice([0, 0, 0.002, 0.01]))
    return task * task


@forks
@pytest.mark.parametrize("count", [2, 3])
def test_answers_come_in_input_order(count) -> None:
    tasks = list(range(300))
    assert list(ordered_map(_slow_square, iter(tasks), count, _lost)) == [t * t for t in tasks]


@forks
def test_the_tasks_are_answered_in_the_workers() -> None:
    pids = set(ordered_map(lambda task: os.getpid(), iter(range(200)), 2, _lost))
    assert os.getpid() not in pids and len(pids) == 2


def _die_on(victim: int):
    def answer(task: int) -> tuple[int, int]:
        if task == victim:
            os.kill(os.getpid(), signal.SIGKILL)
        return task, os.getpid()

    return answer


@forks
def test_a_dead_worker_costs_only_the_task_it_was_answering() -> None:
    got = list(ordered_map(_die_on(37), iter(range(120)), 2, _lost))
    assert got[37] == ("lost", 37, -signal.SIGKILL)
    rest = got[:37] + got[38:]
    assert [task for task, _ in rest] == [t for t in range(120) if t != 37]
    # every other task is answered: by the live worker, or here for those queued behind
    assert len({pid for _, pid in rest}) >= 2


@forks
def test_when_every_worker_dies_the_caller_answers_the_rest() -> None:
    def answer(task: int) -> tuple[int, int]:
        if task in (3, 4) and os.getpid() != caller:
            os.kill(os.getpid(), signal.SIGKILL)
        return task, os.getpid()

    caller = os.getpid()
    got = list(ordered_map(answer, iter(range(40)), 2, _lost))
    lost = [g for g in got if g[0] == "lost"]
    assert len(lost) == 2 and {g[1] for g in lost} == {3, 4}
    answered = [g for g in got if g[0] != "lost"]
    assert [t for t, _ in answered] == [t for t in range(40) if t not in (3, 4)]
    assert answered[-1][1] == caller  # once both are dead, the rest is answered here


@forks
def test_an_error_reading_the_tasks_comes_after_the_answers_before_it() -> None:
    def tasks():
        yield from range(5)
        raise ValueError("bad line 6")

    got = []
    with pytest.raises(ValueError, match="bad line 6"):
        for answer in ordered_map(lambda t: -t, tasks(), 2, _lost):
            got.append(answer)
    assert got == [0, -1, -2, -3, -4]


@forks
def test_stopping_early_ends_the_workers_at_once() -> None:
    stream = ordered_map(
        lambda t: (time.sleep(0.01), os.getpid())[1], iter(range(10_000)), 2, _lost
    )
    pids = {next(stream), next(stream), next(stream)}
    stream.close()
    for pid in pids - {os.getpid()}:
        with pytest.raises(ChildProcessError):  # reaped: no zombie, no process left
            os.waitpid(pid, os.WNOHANG)


def test_one_worker_is_the_calling_process() -> None:
    assert set(ordered_map(lambda t: os.getpid(), iter(range(5)), 1, _lost)) == {os.getpid()}


def test_as_many_as_cpus(monkeypatch) -> None:
    monkeypatch.setattr(workers.sys, "platform", "darwin")
    assert available() == 1
    monkeypatch.setattr(workers.sys, "platform", "linux")
    monkeypatch.setattr(workers.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert available() == workers.MAX_AUTO
