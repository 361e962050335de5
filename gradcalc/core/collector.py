"""Python's cyclic garbage collector, held off while gradcalc builds large structures
without cycles.

Parsing and lowering a long expression, recording and differentiating it on a tape, and
writing its tape's rows and JSON make hundreds of thousands of small objects -- tokens,
syntax nodes, graph nodes, tensors, records, rows -- that refer only to earlier ones and
are freed by reference counting. The
collections their allocations trigger find nothing to free, and the older generations they
push objects into are walked again and again: compiling and differentiating the 10,000-term
sum in a process that holds many objects spent about a fifth of its time there.
:func:`paused` holds collections off for such a block; the collector runs as before
afterwards (and collects anything cyclic made meanwhile then). In a process that runs one
command and ends, :func:`freeze_after_pauses` makes each block's end also freeze what
exists (``gc.freeze``): those objects mostly live until the exit, and the first
collection after a block would otherwise walk every one of them once (23 to 35 ms for the
10,000-term sum's graph, as much again for its tape).

>>> import gc
>>> with paused():
...     inside = gc.isenabled()
>>> inside, gc.isenabled()
(False, True)
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["freeze_after_pauses", "paused"]

_freezing = False  # see freeze_after_pauses


@contextmanager
def paused() -> Iterator[None]:
    """Hold off garbage collection inside the block (where it is enabled: a collector that
    the caller disabled stays disabled, and a block inside another pauses nothing more).

    >>> import gc
    >>> gc.disable()
    >>> with paused():
    ...     pass
    >>> gc.isenabled()
    False
    >>> gc.enable()
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if _freezing:
            gc.freeze()
        gc.enable()


def freeze_after_pauses() -> None:
    """From now on, end each :func:`paused` block by moving every object alive into the
    collector's permanent generation, which it never walks. For a process that runs one
    command and ends (the command line, not a session, a stream or a host): an object frozen
    this way is still freed when nothing refers to it, but a cycle among such objects would
    never be collected."""
    global _freezing
    _freezing = True
