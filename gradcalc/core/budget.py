"""One budget per request: a deadline for the whole of it, a share for sympy, and how many
numbers one chunk of its points may make (:func:`rows_per_chunk`: memory flat in the size).

A *request* is one command or one job of a ``--jobs`` stream. :func:`request` gives it a
wall-clock deadline (``gradcalc --timeout SECONDS``; 0: none) that covers everything it does
-- parsing, the tape, sympy, rendering -- and raises :class:`OutOfTime` (exit code 2) when
it passes. Within it, every call into sympy runs under :meth:`Budget.symbolic`, which
draws on one symbolic allowance for the whole request (``--check-timeout``: the sum over
all targets, chunks and steps, never spent again per piece) as well as its own limit,
stops a fixed share of the request's deadline early so that the numbers can still be
printed, and remembers a piece that ran out so that it is not tried again. A symbolic
piece that runs out raises :class:`CheckTimeout`, which the caller turns into a warning
("skipped").

Deadlines are kept with ``SIGALRM`` (POSIX, main thread); elsewhere they are not enforced.
gradcalc runs one thread, so a wall-clock deadline also bounds the request's CPU time. A
library may catch the deadline's exception (``except Exception``): the alarm then rings
again every :data:`REPEAT` seconds until the block is left, and a block left after its
deadline rang -- normally, or by another exception -- raises the deadline's exception all
the same, so a swallowed deadline never yields a result. A ring that lands in code whose
exceptions Python cannot raise (a ``__del__``, a garbage-collector callback) is dropped
quietly -- not printed as "Exception ignored in ..." -- and the next ring stops the block.
Outside any request, :func:`current` is a fresh budget: each library call has its own.
The handler is installed while any deadline is open and the previous one put back after;
a stream of many requests keeps it installed throughout (:func:`handler_kept`), which
saves two ``signal.signal`` calls per deadline.

>>> with request(timeout=30, symbolic=5) as budget:
...     with budget.symbolic(5.0, key="demo"):
...         total = sum(range(10))
>>> total, budget.timed_out
(45, {})
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from gradcalc.core.errors import GradcalcError

#: The share of a request's deadline kept back from sympy, for printing the numbers.
RESERVE = 0.2
#: Seconds below which a symbolic piece is not started (what is left is as good as spent).
MIN_PIECE = 0.01
#: Seconds between rings of a deadline that has passed while its block still runs.
REPEAT = 0.05
#: Numbers one chunk of points may make at once: its points times, per point, the tape's
#: records and the output's columns (2^22: 32 MB as float64, about 300 MB as printed text).
CHUNK_CELLS = 2**22
#: mpmath's working precision when it is loaded (53 bits: 15 digits).
_MPMATH_DEFAULT_BITS = 53


class CheckTimeout(Exception):
    """A symbolic piece ran out of its time budget (the caller skips it with a warning).

    Args:
        reason: which budget ran out, in words.
        option: the option that gives the piece more time: ``--check-timeout`` (its own
            limit, or the request's symbolic allowance) or ``--timeout`` (the request's
            deadline came first).
    """

    def __init__(self, reason: str, option: str = "--check-timeout"):
        super().__init__(reason)
        self.option = option

    @property
    def advice(self) -> str:
        """How to give the piece more time.

        >>> CheckTimeout("the request's time budget (--timeout 1 s) ran out", "--timeout").advice
        'raise --timeout'
        """
        return f"raise {self.option}"

    def within(self, seconds: float) -> str:
        """What stopped a piece that had ``seconds`` of its own, and the advice, as the end
        of a note (``sympy could not differentiate within 5 s (raise --check-timeout)``).

        >>> CheckTimeout("took longer than 5 s").within(5)
        'within 5 s (raise --check-timeout)'
        >>> CheckTimeout("the request's time budget (--timeout 1 s) ran out", "--timeout").within(5)
        "before the request's time budget (--timeout 1 s) ran out (raise --timeout)"
        """
        said = f"before {self}" if self.option == "--timeout" else f"within {seconds:g} s"
        return f"{said} ({self.advice})"


class OutOfTime(GradcalcError):
    """The request ran past its deadline (``--timeout``): exit code 2."""


class Budget:
    """The time budget of one request: its deadline, what sympy has spent, what ran out.

    Args:
        timeout: seconds for the whole request (0: no deadline).
        symbolic: seconds of sympy for the whole request, all pieces together (``None``:
            only each piece's own limit).
    """

    def __init__(self, timeout: float = 0.0, symbolic: float | None = None):
        self.timeout = timeout
        self.allowance = symbolic
        self.started = time.monotonic()
        self.symbolic_spent = 0.0
        self.timed_out: dict[Hashable, tuple[str, str]] = {}  # key: (reason, option)

    def remaining(self) -> float:
        """Seconds left before the deadline (infinite without one).

        >>> Budget().remaining()
        inf
        """
        if self.timeout <= 0:
            return math.inf
        return self.started + self.timeout - time.monotonic()

    @contextmanager
    def symbolic(self, seconds: float, key: Hashable = None) -> Iterator[None]:
        """Run a symbolic piece: at most ``seconds`` (0: no limit of its own), within what
        is left of the request's symbolic allowance, and never into the last
        :data:`RESERVE` of its deadline. A ``key`` that ran out once in this request raises
        :class:`CheckTimeout` at once, without trying again.

        >>> budget = Budget(symbolic=5.0)
        >>> budget.symbolic_spent = 5.0
        >>> with budget.symbolic(1.0):
        ...     pass
        Traceback (most recent call last):
        gradcalc.core.budget.CheckTimeout: the request's symbolic budget (5 s) is spent
        """
        if key is not None and key in self.timed_out:
            raise CheckTimeout(*self.timed_out[key])
        left, reason, option = math.inf, "", "--check-timeout"
        if seconds > 0:
            left, reason = seconds, f"took longer than {seconds:g} s"
        if self.allowance is not None and self.allowance - self.symbolic_spent < left:
            left = self.allowance - self.symbolic_spent
            reason = f"the request's symbolic budget ({self.allowance:g} s) is spent"
        if self.timeout > 0 and self.remaining() - RESERVE * self.timeout < left:
            left = self.remaining() - RESERVE * self.timeout
            reason = f"the request's time budget (--timeout {self.timeout:g} s) ran out"
            option = "--timeout"
        if left < MIN_PIECE:
            raise CheckTimeout(reason, option)
        # sympy is imported before the alarm is armed: an import the alarm interrupts leaves
        # the package half-initialised for the rest of the process
        import sympy  # noqa: F401

        start = time.monotonic()
        try:
            with _deadline(start + left, lambda: CheckTimeout(reason, option)):
                yield
        except CheckTimeout as stop:
            if key is not None:
                self.timed_out[key] = (str(stop), stop.option)
            raise
        finally:
            self.symbolic_spent += time.monotonic() - start


def rows_per_chunk(cells_per_row: int, least: int = 1) -> int:
    """How many points one chunk may hold when each makes ``cells_per_row`` numbers (its
    records and its output columns), so that memory stays flat however many points and
    targets a request has: :data:`CHUNK_CELLS` in all, and never fewer than ``least`` points.

    >>> rows_per_chunk(5), rows_per_chunk(1404), rows_per_chunk(10**7, least=1000)
    (838860, 2987, 1000)
    """
    return max(least, CHUNK_CELLS // max(cells_per_row, 1))


_requests: list[Budget] = []


def current() -> Budget:
    """The budget of the request under way (a fresh one, with no deadline, outside any).

    >>> current().timeout
    0.0
    """
    return _requests[-1] if _requests else Budget()


@contextmanager
def request(timeout: float = 0.0, symbolic: float | None = None) -> Iterator[Budget]:
    """Run one request under a deadline of ``timeout`` seconds (0: none) -- past it,
    :class:`OutOfTime` is raised wherever the request is -- with ``symbolic`` seconds of
    sympy in all (``None``: only each piece's own limit)."""
    budget = Budget(timeout, symbolic)
    _requests.append(budget)
    try:
        if timeout > 0:
            message = (
                f"the request took longer than its time budget (--timeout {timeout:g} s) "
                "and was stopped; anything printed above is incomplete"
            )
            with _deadline(budget.started + timeout, lambda: OutOfTime(message)):
                yield budget
        else:
            yield budget
    finally:
        _requests.remove(budget)


def symbolic_limit(seconds: float, key: Hashable = None) -> AbstractContextManager[None]:
    """:meth:`Budget.symbolic` of the request under way: how every sympy call is bounded.

    >>> with symbolic_limit(1.0):
    ...     sum(range(10))
    45
    """
    return current().symbolic(seconds, key)


# --- the alarm: one SIGALRM for every open deadline, the earliest armed -------------------


class _Deadline:
    """An open deadline: when, the exception it raises, whether it has rung, and mpmath's
    working precision when it opened (None: mpmath not loaded yet, its default then)."""

    def __init__(self, when: float, error: Callable[[], BaseException]):
        self.when, self.error, self.rang = when, error, False
        mpmath = sys.modules.get("mpmath")
        self.precision = mpmath.mp.prec if mpmath is not None else None


_deadlines: list[_Deadline] = []
_previous_handler: list[Any] = []  # what signal.signal returned (a handler, or a constant)
_previous_unraisable: list[Any] = []  # sys.unraisablehook while deadlines are open
_kept: list[bool] = []  # one entry per open handler_kept block


def _usable() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def _deadline(when: float, error: Callable[[], BaseException]) -> Iterator[None]:
    """Raise ``error()`` in this block once ``time.monotonic()`` passes ``when`` -- again
    every :data:`REPEAT` seconds while the block runs on, and on leaving it, if it rang."""
    if not _usable() or not math.isfinite(when):
        yield
        return
    entry = _Deadline(when, error)
    if not _previous_handler:
        _install()
    _deadlines.append(entry)
    try:
        _arm()
        yield
    except BaseException as escaping:
        if entry.rang and not isinstance(escaping, type(error())):  # turned into another error
            raise error() from escaping
        raise
    finally:
        _close(entry)
    if entry.rang:  # it rang, and something swallowed it: the block's result is not to be had
        raise error()


def _close(entry: _Deadline) -> None:
    """Forget ``entry`` and re-arm for the others (or restore the previous handler). A ring
    can land in here, before the alarm is stopped -- it would leave the deadline open and
    ringing every REPEAT seconds in whatever runs next -- so the closing is caught and
    carried on to the end; each step can be done again.

    mpmath's working precision is put back as the deadline found it: mpmath keeps it in one
    global, and a ring inside mpmath (between raising it and a ``workdps`` block's
    ``__exit__``, or in its routines that raise and lower it without ``finally``) would
    leave every later mpmath number of the process at that precision."""
    while True:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)  # first: no alarm while the list changes
            _restore_precision(entry.precision)
            if entry in _deadlines:
                _deadlines.remove(entry)
            if _deadlines:
                _arm()
            elif not _kept:
                _restore()
            return
        except (CheckTimeout, OutOfTime):
            entry.rang = True  # (it had rung: the alarm is stopped first on the next try)


def _restore_precision(bits: int | None) -> None:
    mpmath = sys.modules.get("mpmath")
    if mpmath is not None:
        mpmath.mp.prec = bits if bits is not None else _MPMATH_DEFAULT_BITS


@contextmanager
def handler_kept() -> Iterator[None]:
    """Keep the alarm's handler installed through this block (a stream of requests), not
    installed and put back around each deadline; the previous handler is back after it.

    >>> previous = signal.getsignal(signal.SIGALRM)
    >>> with handler_kept():
    ...     with symbolic_limit(5.0):
    ...         installed = signal.getsignal(signal.SIGALRM) is _on_alarm
    ...     still = signal.getsignal(signal.SIGALRM) is _on_alarm
    >>> installed, still, signal.getsignal(signal.SIGALRM) is previous
    (True, True, True)
    """
    if not _usable():
        yield
        return
    if not _previous_handler:
        _install()
    _kept.append(True)
    try:
        yield
    finally:
        _kept.pop()
        if not _kept and not _deadlines:
            _restore()


def _install() -> None:
    """Install the alarm's handler and the hook that drops swallowed rings."""
    _previous_handler.append(signal.signal(signal.SIGALRM, _on_alarm))
    _previous_unraisable.append(sys.unraisablehook)
    sys.unraisablehook = _drop_swallowed_rings


def _restore() -> None:
    """Put back the handler and the hook that were there before :func:`_install`."""
    if _previous_handler:
        signal.signal(signal.SIGALRM, _previous_handler[-1])
        _previous_handler.pop()
        sys.unraisablehook = _previous_unraisable.pop()


def _drop_swallowed_rings(unraisable: Any) -> None:
    """sys.unraisablehook while deadlines are open: a ring raised where Python could only print
    it (``__del__``, a gc callback) is dropped -- the alarm rings again in :data:`REPEAT`
    seconds -- and anything else goes to the hook that was there before."""
    if isinstance(unraisable.exc_value, (CheckTimeout, OutOfTime)):
        return
    _previous_unraisable[-1](unraisable)


def _arm() -> None:
    earliest = min(entry.when for entry in _deadlines)
    signal.setitimer(signal.ITIMER_REAL, max(earliest - time.monotonic(), 1e-4))


def _on_alarm(signum: int, frame: object) -> None:
    now = time.monotonic()
    expired = [entry for entry in _deadlines if entry.when <= now + 1e-3]
    if not expired:  # woke early (or late, for a deadline already gone): wait on
        if _deadlines:
            _arm()
        return
    first = min(expired, key=lambda entry: entry.when)
    first.rang = True
    signal.setitimer(signal.ITIMER_REAL, REPEAT)  # rings on until the block is left
    raise first.error()
