"""Result arrays over recycled memory (gradcalc.engine.compile.recycle): a block is handed out again
only once nothing refers to any array over it, and the memory kept idle stays bounded."""

from __future__ import annotations

import os
import signal
import threading
from unittest import mock

import numpy as np
import pytest

from gradcalc.engine.compile import recycle
from gradcalc.engine.compile.replay import run_sweep
from gradcalc.engine.compile.sweep import sweep_for
from gradcalc.engine.run.api import compile_expression

SIZE = recycle.MIN_POINTS


def address(array: np.ndarray) -> int:
    return int(array.ctypes.data)


@pytest.mark.parametrize(
    "keep",
    [
        lambda a: a[::3],
        lambda a: a.reshape(-1, 2).T,
        memoryview,
        lambda a: np.asarray(a),
        lambda a: np.frombuffer(memoryview(a[5:]), dtype=np.float64),
    ],
    ids=["slice", "reshaped", "memoryview", "asarray", "frombuffer"],
)
def test_a_block_is_not_handed_out_while_anything_refers_to_it(keep) -> None:
    first = recycle.take(SIZE)
    first[:] = 7.0
    held = keep(first)
    taken = address(first)
    del first
    others = [recycle.take(SIZE) for _ in range(3)]
    assert taken not in map(address, others)
    for other in others:
        other[:] = -1.0
    assert np.all(np.asarray(held) == 7.0)
    del others
    del held
    assert address(recycle.take(SIZE)) == taken  # the latest given back comes first


def test_arrays_are_plain_writeable_aligned_and_small_ones_fresh() -> None:
    array = recycle.take(SIZE)
    assert type(array) is np.ndarray and array.flags.writeable and array.flags.c_contiguous
    assert array.shape == (SIZE,) and array.dtype == np.float64 and address(array) % 64 == 0
    small = recycle.take(SIZE - 1)
    assert small.flags.owndata  # np.empty: nothing kept


def test_idle_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recycle, "IDLE_BYTES", 3 * SIZE * 8)
    held = [recycle.take(SIZE + k) for k in range(6)]
    while held:
        held.pop(0)  # given back (and the idle blocks settled) in order of length
    assert sum(b.nbytes for b in recycle._idle) <= recycle.IDLE_BYTES
    assert [len(b) for b in recycle._idle][-2:] == [SIZE + 4, SIZE + 5]  # the latest kept


def test_threads_never_share_a_block() -> None:
    errors = []

    def work(mark: float) -> None:
        for _ in range(20):
            arrays = [recycle.take(SIZE) for _ in range(3)]
            for array in arrays:
                array[:] = mark
            if not all(np.all(a == mark) for a in arrays):
                errors.append(mark)

    threads = [threading.Thread(target=work, args=(float(k),)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def test_a_kept_result_is_untouched_by_the_next_batch() -> None:
    graph = compile_expression("3*w1**2 + 2*w1*w2")
    sweep = sweep_for(graph, ("w1", "w2"))
    rng = np.random.default_rng(5)
    first = {v: rng.uniform(-2, 2, SIZE) for v in ("w1", "w2")}
    kept = run_sweep(sweep, first)
    copies = [kept.values[0].copy(), *(g.copy() for g in kept.gradients[0].values())]
    for _ in range(2):  # the second batch may take the blocks the first one's gave back
        run_sweep(sweep, {v: rng.uniform(-2, 2, SIZE) for v in ("w1", "w2")})
    now = [kept.values[0], *kept.gradients[0].values()]
    assert all(np.array_equal(a, b) for a, b in zip(now, copies))


def test_a_repeated_batch_maps_no_fresh_memory() -> None:
    graph = compile_expression("sin(x)*exp(-x**2/2) + log(1 + y**2)*tanh(x*y)")
    sweep = sweep_for(graph, ("x", "y"))
    points = {v: np.random.default_rng(6).uniform(-2, 2, 3 * SIZE) for v in ("x", "y")}
    run_sweep(sweep, points, threads=1)  # its outputs and working arrays are given back
    with mock.patch.object(recycle, "aligned", wraps=recycle.aligned) as fresh:
        again = run_sweep(sweep, points, threads=1)
    assert fresh.call_count == 0 and again.values[0].shape == (3 * SIZE,)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_child_forked_while_the_lock_is_held_can_still_take() -> None:
    # a thread of the parent (a replay thread) may hold the lock at the fork; the child
    # would wait for it forever without a fresh lock
    with recycle._lock:
        child = os.fork()
        if child == 0:  # the child: take within 5 s, or be stopped by the alarm
            signal.alarm(5)
            array = recycle.take(SIZE)
            os._exit(0 if array.shape == (SIZE,) else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
