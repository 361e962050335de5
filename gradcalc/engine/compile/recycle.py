"""Arrays for a batch's results and working arrays, over memory earlier calls gave back.

A new array of a million float64 is 8 MB that the operating system maps a page at a time,
zeroing each page when it is first written: for the gradient of ``3*w1**2 + 2*w1*w2`` at
10^6 points, writing the value and two partials into fresh memory took longer than all the
arithmetic (measured, one thread: 4.7 ms of page faults against 3.5 ms of computing). The
replay therefore takes its result arrays, and the working arrays each of its threads reuses
from slice to slice, from :func:`take`: each is an ordinary writeable array over a block
this module keeps, and when the last array or view over a block is gone (a weak reference
on the buffer they all hold tells), the block comes back, and the next batch of the same
length writes into memory already mapped. Nothing changes for the caller: an array is never
handed out twice while anything refers to it, however it was sliced or passed on. Blocks no
one holds are kept up to :data:`IDLE_BYTES` (the most recently given back first); small
arrays are plain ``np.empty`` (the allocator reuses those itself).

>>> first = take(MIN_POINTS)
>>> address = first.ctypes.data
>>> view = first[::2]
>>> del first
>>> take(MIN_POINTS).ctypes.data == address  # the view still holds it
False
>>> del view
>>> take(MIN_POINTS).ctypes.data == address
True
"""

from __future__ import annotations

import os
import threading
import weakref

import numpy as np

#: Arrays at least this long (128 KiB, where the C allocator starts mapping fresh memory for
#: each one) come from the kept blocks.
MIN_POINTS = 1 << 14

#: The most memory kept in blocks that no array uses (64 MiB: the outputs and working
#: arrays of a few 10^6-point batches).
IDLE_BYTES = 64 << 20

_idle: list[np.ndarray] = []  # blocks no array uses, the most recently given back last
_returned: list[np.ndarray] = []  # given back since the last take (appended by callbacks)
_lock = threading.Lock()  # over _idle (a callback only tries it: it may run anywhere)


def _after_fork() -> None:
    """A forked child starts with a free lock and no blocks (a thread of the parent may have
    held the lock at the fork, and would never release it in the child)."""
    global _lock
    _lock = threading.Lock()
    _idle.clear()
    _returned.clear()


if hasattr(os, "register_at_fork"):  # (not on Windows, which has no fork)
    os.register_at_fork(after_in_child=_after_fork)


def aligned(size: int) -> np.ndarray:
    """An uninitialised float64 array starting on a 64-byte boundary (a vector register's
    width: numpy's loops write a misaligned array at half speed).

    >>> aligned(5).ctypes.data % 64, aligned(5).shape
    (0, (5,))
    """
    raw = np.empty(size + 8)
    skip = (-raw.__array_interface__["data"][0] % 64) // 8  # (ctypes.data costs 3 µs)
    return raw[skip : skip + size]


def take(size: int) -> np.ndarray:
    """An uninitialised float64 array of ``size`` values: from :data:`MIN_POINTS` values on,
    64-byte-aligned and over a kept block of that length if one is free (see the module's
    description); below, a plain ``np.empty`` (:func:`aligned` where alignment matters)."""
    if size < MIN_POINTS:
        return np.empty(size)
    with _lock:
        _settle()
        free = [k for k, b in enumerate(_idle) if len(b) == size]
        block = _idle.pop(free[-1]) if free else None
    if block is None:
        block = aligned(size)
    array = np.frombuffer(block.data, dtype=np.float64)
    # every view of ``array`` keeps its base (the buffer over ``block``) alive
    weakref.finalize(array.base, _give_back, block).atexit = False
    return array


def _give_back(block: np.ndarray) -> None:
    """Keep ``block`` for a later :func:`take` (called when nothing refers to it any more)."""
    _returned.append(block)
    if _lock.acquire(blocking=False):  # else a take settles it (this may be inside one)
        try:
            _settle()
        finally:
            _lock.release()


def _settle() -> None:
    """Move the blocks given back into ``_idle`` and drop the oldest beyond
    :data:`IDLE_BYTES` (the caller holds the lock)."""
    while _returned:
        _idle.append(_returned.pop(0))
    kept = sum(b.nbytes for b in _idle)
    while kept > IDLE_BYTES:
        kept -= _idle.pop(0).nbytes
