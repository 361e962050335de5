"""Map a function over a stream in forked worker processes, answers in input order.

:func:`ordered_map` is what ``gradcalc grad --jobs`` runs its jobs through when it has more
than one CPU: each worker is a fork of the calling process, so it starts with every module
and cache the caller has (no second import of sympy), and answers the tasks handed to it
one at a time, first in first out. The caller reads the stream on a thread of its own and
hands each task to the worker with the fewest unanswered ones (at most :data:`IN_FLIGHT`
times the workers are on their way at once), so a script that writes one task and waits
for its answer before writing the next gets it at once, and memory stays bounded however
long the stream is.

A worker that dies (killed by a signal, or ending itself at a resource cap) costs only the
task it was answering: ``lost(task, status)`` is that task's answer (``status`` is the
worker's exit status, negative for a signal), the tasks queued behind it are answered in
the calling process, and no more are handed to it. Workers ignore Ctrl-C (the caller
decides), end at once on SIGTERM or SIGHUP (whatever handler the caller has for them), and
end when the caller closes their task pipe.

Forking is used only on Linux (:func:`available`): macOS's system libraries are not safe
to fork with, and Windows has no fork. Elsewhere, and for ``workers <= 1``, the map runs in
the calling process. As with any fork, a fork copies only the calling thread: call it where
no other thread of the process holds a lock that ``answer`` needs (the command line runs
no other thread).

>>> list(ordered_map(str.upper, iter(["a", "b", "c"]), 2, lambda task, status: "?"))
['A', 'B', 'C']
"""

from __future__ import annotations

import contextlib
import gc
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:  # multiprocessing is imported only when workers start
    from multiprocessing.connection import Connection

Task = TypeVar("Task")
Answer = TypeVar("Answer")

#: Tasks on their way (handed out, their answers not yet given back) per worker, at most:
#: enough to keep the workers busy while the caller writes out answers, few enough that
#: memory stays small and a slow task holds back little behind it.
IN_FLIGHT = 16
#: The most workers ``--workers 0`` (as many as CPUs) starts.
MAX_AUTO = 8
#: Seconds a worker is given to end after its task pipe closes, before it is killed.
GRACE = 2.0


def available() -> int:
    """How many workers "as many as CPUs" means here: the CPUs this process may run on (at
    most :data:`MAX_AUTO`) on Linux, and 1 (no workers: the calling process) elsewhere.

    >>> available() >= 1
    True
    """
    if sys.platform != "linux":
        return 1
    return max(1, min(MAX_AUTO, len(os.sched_getaffinity(0))))


def ordered_map(
    answer: Callable[[Task], Answer],
    tasks: Iterable[Task],
    workers: int,
    lost: Callable[[Task, int], Answer],
) -> Iterator[Answer]:
    """``answer(task)`` for each task, in order, computed in ``workers`` forked processes.

    ``answer`` must return its result, never raise (an error is a result); ``lost(task,
    status)`` is the answer of a task whose worker ended while answering it. An exception
    raised while reading ``tasks`` is raised here, after the answers of the tasks before it.
    With ``workers <= 1``, or where forking is not used (:func:`available` is 1), everything
    runs in the calling process.

    >>> list(ordered_map(len, iter(["ab", "", "xyz"]), 1, lambda task, status: -1))
    [2, 0, 3]
    """
    if workers <= 1 or available() == 1:
        yield from map(answer, tasks)
        return
    pool = _Pool(answer, workers)
    finished = False
    try:
        yield from pool.answers(tasks, lost)
        finished = True
    finally:
        pool.close(at_once=not finished)


class _Worker(Generic[Task, Answer]):
    """One forked worker: the pipe its tasks go down, the pipe its answers come up."""

    def __init__(self, answer: Callable[[Task], Answer], inherited: list[Connection]):
        import multiprocessing

        task_end, self.tasks = multiprocessing.Pipe(duplex=False)
        self.answers, answer_end = multiprocessing.Pipe(duplex=False)
        others = [*inherited, self.tasks, self.answers]  # the parent's ends, open in the fork
        self.process = multiprocessing.get_context("fork").Process(
            target=_serve, args=(answer, task_end, answer_end, others), daemon=True
        )
        self.process.start()
        task_end.close()
        answer_end.close()
        self.sent = 0  # written by the reading thread only
        self.answered = 0  # written by the answering thread only
        self.alive = True

    def unanswered(self) -> int:
        """Tasks handed to this worker and not yet answered."""
        return self.sent - self.answered

    def status(self) -> int:
        """The exit status of the ended process (negative: the signal that ended it)."""
        self.process.join(GRACE)
        return -1 if self.process.exitcode is None else self.process.exitcode


def _serve(
    answer: Callable[[Task], Answer],
    tasks: Connection,
    answers: Connection,
    inherited: list[Connection],
) -> None:
    """A worker's life: answer each task from ``tasks`` on ``answers`` until the pipe closes
    (or the caller has gone)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):  # end at once: the caller's handler unwinds the caller
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    for connection in inherited:  # the caller's ends: open here, no pipe would ever close
        connection.close()
    with contextlib.suppress(EOFError, OSError):
        while True:
            answers.send(answer(tasks.recv()))


class _Pool(Generic[Task, Answer]):
    """The workers of one :func:`ordered_map`, and the queue of tasks in input order."""

    def __init__(self, answer: Callable[[Task], Answer], workers: int):
        self.answer = answer
        self.workers: list[_Worker[Task, Answer]] = []
        gc.freeze()  # the forks' collector leaves the caller's objects (and their pages) alone
        try:
            for _ in range(workers):
                ends = [end for w in self.workers for end in (w.tasks, w.answers)]
                self.workers.append(_Worker(answer, ends))
        finally:
            gc.unfreeze()
        # (task, the worker answering it or None for this process), or the end of the stream
        self.queue: queue.Queue[tuple[Task, _Worker[Task, Answer] | None] | _End] = queue.Queue(
            maxsize=IN_FLIGHT * workers
        )

    def answers(
        self, tasks: Iterable[Task], lost: Callable[[Task, int], Answer]
    ) -> Iterator[Answer]:
        threading.Thread(target=self._hand_out, args=(tasks,), daemon=True).start()
        while True:
            entry = self.queue.get()
            if isinstance(entry, _End):
                if entry.error is not None:
                    raise entry.error
                return
            task, worker = entry
            if worker is None or not worker.alive:
                yield self.answer(task)
                continue
            try:
                result = worker.answers.recv()
            except (EOFError, OSError):
                worker.alive = False
                result = lost(task, worker.status())
            worker.answered += 1
            yield result

    def _hand_out(self, tasks: Iterable[Task]) -> None:
        """The reading thread: each task to the least busy live worker, in order."""
        try:
            for task in tasks:
                self.queue.put((task, self._send(task)))
        except BaseException as error:  # re-raised by the answering thread
            self.queue.put(_End(error))
            return
        self.queue.put(_End(None))

    def _send(self, task: Task) -> _Worker[Task, Answer] | None:
        """The worker ``task`` went to (None when none could take it)."""
        for worker in sorted(self.workers, key=_Worker.unanswered):
            if worker.alive:
                try:
                    worker.tasks.send(task)
                except OSError:  # it has ended: the answering thread will find out why
                    continue
                worker.sent += 1
                return worker
        return None

    def close(self, at_once: bool) -> None:
        """End every worker: close its task pipe and wait a little (every task answered), or
        kill it ``at_once`` (the caller stopped early: Ctrl-C, a closed output)."""
        for worker in self.workers:
            worker.tasks.close()
        for worker in self.workers:
            worker.process.join(0 if at_once else GRACE)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            with contextlib.suppress(OSError):
                worker.answers.close()


class _End:
    """The end of the task stream; ``error``: what reading it raised, if anything."""

    def __init__(self, error: BaseException | None):
        self.error = error
