"""Caps on the whole process: CPU time and memory (address space), set with ``setrlimit``.

``gradcalc --max-cpu SECONDS --max-memory MB`` (or the environment variables
``GRADCALC_MAX_CPU`` and ``GRADCALC_MAX_MEMORY``) bound what any input can cost; 0 turns a cap
off. The command line applies them (:func:`apply`) as a command starts, before it reads any
input; the library never does. When the CPU cap is reached the kernel sends SIGXCPU and
gradcalc stops with one line on stderr and exit code 2; when an allocation fails under the
memory cap Python raises ``MemoryError``, which :func:`gradcalc.cli.app.main` reports the same
way (:func:`memory_message`). A few seconds past the CPU cap the kernel kills the process
outright (the hard limit), so even a long computation inside C code cannot outlive it.

A SIGTERM (``kill``, ``timeout``, ``docker stop``) or SIGHUP (the terminal closed) stops a
command as Ctrl-C does: :func:`apply` has them raise :class:`Stopped`, which unwinds the
command -- an ``--out`` file being written is removed, the one it would replace left as it
was -- and the process ends with the shell's status for that signal, 128 + its number
(143, 129), as it does with 130 after Ctrl-C.

Only the standard library is imported at first (numpy only when a memory cap is set):
``gradcalc --help`` stays fast.

>>> cpu_message(60)
'CPU time limit reached (60 s): raise it with --max-cpu SECONDS or GRADCALC_MAX_CPU (0: no limit)'
"""

from __future__ import annotations

import atexit
import math
import os
import signal
import sys

from gradcalc.core.numbers import format_number

#: Default CPU time cap, in seconds (a 10^7-row file of points takes about 100 s).
DEFAULT_CPU_SECONDS = 600
#: Default cap on the address space, in MiB (a 10^7-row fit peaks near 2 GiB).
DEFAULT_MEMORY_MB = 8192
CPU_ENV = "GRADCALC_MAX_CPU"
MEMORY_ENV = "GRADCALC_MAX_MEMORY"
#: Seconds between the SIGXCPU (soft limit) and the kernel's SIGKILL (hard limit).
GRACE_SECONDS = 5
#: The exit status of a process stopped at its CPU cap.
CPU_EXIT = 2

#: The signals that stop a command as Ctrl-C does (:class:`Stopped`).
STOPPING = ("SIGTERM", "SIGHUP")

_applied: dict[str, float] = {}


class Stopped(BaseException):
    """A command stopped by the signal ``signum`` (SIGTERM, SIGHUP): like
    ``KeyboardInterrupt``, no ``except Exception`` takes it for an error of the input, and
    every ``finally`` on the way out runs. ``status``: the process's exit status,
    128 + ``signum``, as a shell reports a process that signal ended.

    >>> Stopped(signal.SIGTERM).status
    143
    """

    def __init__(self, signum: int):
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.status = 128 + signum


def applied_cpu() -> float:
    """The CPU cap in force, in seconds (0: none set by :func:`apply`)."""
    return _applied.get("cpu", 0)


def cpu_message(seconds: float, asked: float | None = None) -> str:
    """The one-line error when the CPU cap of ``seconds`` is reached (``asked``: the cap
    given, when the one in force differs: the kernel counts whole seconds, and a process may
    not raise its hard limit).

    >>> cpu_message(1, 0.4)  # doctest: +ELLIPSIS
    'CPU time limit reached (1 s: --max-cpu 0.4 rounded up to whole seconds, as the kernel ...'
    """
    shown = format_number(seconds)
    if asked is not None and asked != seconds:
        why = (
            "rounded up to whole seconds, as the kernel counts them"
            if asked < seconds
            else "lowered to this process's hard limit"
        )
        shown += f" s: --max-cpu {format_number(asked)} {why}"
    else:
        shown += " s"
    return (
        f"CPU time limit reached ({shown}): raise it with --max-cpu SECONDS or {CPU_ENV} "
        "(0: no limit)"
    )


def cpu_reached() -> str:
    """:func:`cpu_message` for the cap :func:`apply` set (and the one asked for)."""
    return cpu_message(applied_cpu(), _applied.get("asked"))


def memory_message() -> str:
    """The one-line error for a ``MemoryError``, naming the memory cap if one is set.

    >>> _applied.clear(); memory_message()
    'out of memory: the input needs more memory than this machine allows'
    """
    mb = _applied.get("memory")
    if not mb:
        return "out of memory: the input needs more memory than this machine allows"
    return (
        f"memory limit reached ({format_number(mb)} MB): raise it with --max-memory MB "
        f"or {MEMORY_ENV} (0: no limit)"
    )


def out_of_memory(error: BaseException) -> bool:
    """Is ``error`` the memory cap in disguise: an extension module that could not be mapped
    (``ImportError: ... failed to map segment from shared object``) while a cap is set?

    >>> _applied.clear(); out_of_memory(ImportError("failed to map segment from shared object"))
    False
    >>> _applied["memory"] = 100; out_of_memory(ImportError("failed to map segment"))
    True
    >>> _applied.clear()
    """
    text = str(error)
    mapped = "failed to map segment" in text or "Cannot allocate memory" in text
    return isinstance(error, ImportError) and bool(_applied.get("memory")) and mapped


def validate(cpu_seconds: float, memory_mb: float) -> None:
    """Refuse a cap that is not a finite number of at least 0 (``inf`` once crashed and
    ``nan`` silently turned the cap off).

    >>> validate(float("nan"), 0)
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: --max-cpu must be a finite number of seconds, ... not nan
    """
    from gradcalc.core.errors import InputError

    for value, option, unit in (
        (cpu_seconds, "--max-cpu", "seconds"),
        (memory_mb, "--max-memory", "MB"),
    ):
        if not (math.isfinite(value) and value >= 0):
            raise InputError(
                f"{option} must be a finite number of {unit}, 0 or more (0: no limit), "
                f"not {format_number(value)}"
            )


def apply(cpu_seconds: float, memory_mb: float) -> None:
    """Cap this process's CPU time at ``cpu_seconds`` and its address space at ``memory_mb``
    MiB (0: leave that one alone), and let SIGTERM and SIGHUP stop it as Ctrl-C does
    (:class:`Stopped`). Caps can only be lowered, never raised past the hard limits the
    process already has; the messages name the cap actually in force. The caps are left
    alone where ``resource`` does not exist (Windows).

    Raises:
        InputError: for a cap that is not finite or below 0 (:func:`validate`).
    """
    validate(cpu_seconds, memory_mb)
    for name in STOPPING:
        if hasattr(signal, name):  # (Windows has no SIGHUP)
            signal.signal(getattr(signal, name), _on_stop)
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return
    if cpu_seconds > 0:
        soft = max(1, math.ceil(cpu_seconds))
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        wanted = soft + GRACE_SECONDS
        hard = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
        signal.signal(signal.SIGXCPU, _on_cpu_limit)
        atexit.register(_ignore_cpu_limit_at_exit)
        resource.setrlimit(resource.RLIMIT_CPU, (min(soft, hard), hard))
        _applied["cpu"], _applied["asked"] = min(soft, hard), cpu_seconds
    if memory_mb > 0:
        _warm_up_blas()
        limit = int(memory_mb * 2**20)
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        _applied["memory"] = limit / 2**20


def _warm_up_blas() -> None:
    """Let OpenBLAS allocate its buffers now, under no cap: when one of those allocations
    fails later, OpenBLAS prints its own message and exits with status 1 instead of raising
    MemoryError. The command line runs OpenBLAS on one thread (``OPENBLAS_NUM_THREADS=1``
    unless set: gradcalc's matrices are small), so one small LAPACK call allocates all it
    will use. Costs numpy's import and well under a millisecond (a 256x256 warm-up that
    started every thread took 0.1 to 1.4 s)."""
    import numpy as np

    a = np.eye(8) + 1.0
    np.linalg.lstsq(a @ a, np.ones(8), rcond=None)


def _ignore_cpu_limit_at_exit() -> None:
    """Past the last Python code, a SIGXCPU could no longer run :func:`_on_cpu_limit` and
    would kill the process with status 152: the answer is complete by then, so let the exit
    finish (the hard limit still bounds it)."""
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)


def _on_cpu_limit(signum: int, frame: object) -> None:
    """SIGXCPU: say which limit and how to raise it, then stop at once (no partial output is
    flushed, no handler in the code can swallow it; an ``--out`` file being written is
    removed, the one it would replace left as it was)."""
    message = f"gradcalc: {cpu_reached()}\n"
    os.write(2, message.encode())
    written = sys.modules.get("gradcalc.io.written")  # (files being written: none left half-done)
    if written is not None:
        written.discard_pending()
    os._exit(CPU_EXIT)


def _on_stop(signum: int, frame: object) -> None:
    """SIGTERM, SIGHUP: unwind the command (:class:`Stopped`), its files cleaned up on the way
    out. Another such signal while it unwinds is ignored, so that the cleanup is not cut short
    (SIGKILL still ends the process at once)."""
    for name in STOPPING:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    raise Stopped(signum)
