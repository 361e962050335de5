"""The deadline of a request cannot be swallowed: a library that catches it (``except
Exception``) neither returns a result from the interrupted work nor runs on past it.

Each library below would run for seconds after its deadline if the deadline were lost; the
assertions are on what happened (an exception, work not finished), not on how long it took.
"""

from __future__ import annotations

import contextlib
import sys
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradcalc.core.budget import (
    CHUNK_CELLS,
    CheckTimeout,
    OutOfTime,
    request,
    rows_per_chunk,
    symbolic_limit,
)


def spin(seconds: float) -> None:
    """Python work for ``seconds`` (the alarm interrupts Python code between bytecodes)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def returns_a_fallback() -> str:
    try:
        spin(5.0)
    except Exception:  # what many libraries do with an error in an optional step
        return "fallback"
    return "finished"


def test_a_swallowed_deadline_yields_no_result() -> None:
    with pytest.raises(OutOfTime), request(timeout=0.2):
        returns_a_fallback()


def test_a_library_that_swallows_the_deadline_and_works_on_is_stopped_again() -> None:
    finished = []

    def works_on() -> None:
        with contextlib.suppress(Exception):  # a library's try/except/pass
            spin(5.0)
        spin(5.0)  # the rest of its work, outside any try
        finished.append(True)

    with pytest.raises(OutOfTime), request(timeout=0.2):
        works_on()
    assert not finished


def test_a_deadline_turned_into_another_error_is_still_the_deadline() -> None:
    def converts() -> None:
        try:
            spin(5.0)
        except Exception as error:
            raise ValueError("the library's own error") from error

    with pytest.raises(CheckTimeout) as stopped, symbolic_limit(0.2, key="piece"):
        converts()
    assert isinstance(stopped.value.__cause__, ValueError)


def test_a_swallowed_symbolic_piece_is_remembered_as_timed_out() -> None:
    with request(timeout=0, symbolic=None) as budget:
        with pytest.raises(CheckTimeout), symbolic_limit(0.2, key="piece"):
            returns_a_fallback()
        assert "piece" in budget.timed_out
        with pytest.raises(CheckTimeout), symbolic_limit(0.2, key="piece"):  # not tried again
            raise AssertionError("a piece that ran out once is not run again")


def test_work_within_its_deadline_is_untouched() -> None:
    with request(timeout=30) as budget, symbolic_limit(10.0, key="quick"):
        total = sum(range(1000))
    assert total == 499500 and not budget.timed_out


def raises_precision_then_spins() -> None:
    """What an mpmath routine that raises its working precision and lowers it again without
    ``finally`` leaves behind when the deadline rings in between."""
    import mpmath

    mpmath.mp.prec = 700
    spin(5.0)
    mpmath.mp.prec -= 647


@pytest.mark.parametrize(
    "block", [lambda: symbolic_limit(0.05), lambda: request(timeout=0.05)], ids=["piece", "request"]
)
def test_a_deadline_that_rings_inside_mpmath_leaves_its_precision_as_it_was(block) -> None:
    import mpmath

    before = mpmath.mp.prec
    with pytest.raises((CheckTimeout, OutOfTime)), block():
        raises_precision_then_spins()
    assert mpmath.mp.prec == before == 53
    assert repr(mpmath.mpf(1) / 3) == "mpf('0.33333333333333331')"


def test_a_ring_inside_a_finaliser_is_dropped_quietly_and_the_next_one_stops_the_work() -> None:
    """A ring that lands in ``__del__`` (or a gc callback) cannot propagate: Python would print
    "Exception ignored in ..." to stderr. It is dropped, and the alarm rings again."""
    printed: list[object] = []

    class SlowToFinalise:
        def __del__(self) -> None:
            spin(0.5)  # the deadline rings in here

    previous = sys.unraisablehook
    sys.unraisablehook = printed.append  # what Python would have printed
    try:
        with pytest.raises(CheckTimeout), symbolic_limit(0.1, key="finaliser"):
            SlowToFinalise()  # dropped at once: __del__ runs here
            spin(5.0)
    finally:
        sys.unraisablehook = previous
    assert printed == []
    assert sys.unraisablehook is previous  # the block restored what it found


def test_other_unraisable_errors_still_reach_the_previous_hook() -> None:
    printed: list[object] = []

    class BrokenFinaliser:
        def __del__(self) -> None:
            raise ValueError("a real bug in a finaliser")

    previous = sys.unraisablehook
    sys.unraisablehook = printed.append
    try:
        with request(timeout=30):
            BrokenFinaliser()
    finally:
        sys.unraisablehook = previous
    assert [type(p.exc_value) for p in printed] == [ValueError]  # type: ignore[attr-defined]


def test_a_ring_while_the_deadline_closes_leaves_no_alarm_behind(monkeypatch) -> None:
    """The alarm can ring again as its block is left, before the closing has stopped it (a
    long property run saw it ring later inside pytest's own report). The closing is carried
    on to the end: the deadline is gone, the handler restored, and nothing rings later."""
    import signal

    from gradcalc.core import budget

    real = signal.setitimer
    rings_left = [1]

    def ring_before_stopping(which: int, seconds: float, *rest: float) -> object:
        if seconds == 0 and rings_left[0]:  # the handler runs before setitimer(0) does
            rings_left[0] -= 1
            raise CheckTimeout("rang again while closing")
        return real(which, seconds, *rest)

    handler = signal.getsignal(signal.SIGALRM)
    monkeypatch.setattr(budget.signal, "setitimer", ring_before_stopping)
    with pytest.raises(CheckTimeout), symbolic_limit(0.1, key="closing"):
        spin(5.0)
    assert rings_left == [0]  # the ring during the closing did happen
    assert budget._deadlines == []
    assert signal.getsignal(signal.SIGALRM) == handler
    spin(0.3)  # an alarm left behind would ring in here (every 0.05 s)


def test_a_kept_handler_is_installed_once_for_many_deadlines_and_put_back_after(
    monkeypatch,
) -> None:
    import signal

    from gradcalc.core import budget

    previous = signal.getsignal(signal.SIGALRM)
    installs = []
    real = signal.signal
    monkeypatch.setattr(budget.signal, "signal", lambda *args: installs.append(args) or real(*args))
    with budget.handler_kept():
        for _ in range(5):
            with symbolic_limit(5.0):
                spin(0.001)
        with pytest.raises(CheckTimeout), symbolic_limit(0.1):
            spin(5.0)  # a deadline still rings inside the kept block
    assert len(installs) == 2  # installed once, put back once
    assert signal.getsignal(signal.SIGALRM) is previous
    assert not budget._deadlines and not budget._previous_handler


@given(st.integers(1, 10**9), st.integers(1, 5_000))
def test_a_chunk_holds_the_most_points_within_its_cells(cells_per_row, least) -> None:
    rows = rows_per_chunk(cells_per_row, least)
    assert rows >= least
    if rows > least:  # as many points as fit, and not one more
        assert rows * cells_per_row <= CHUNK_CELLS < (rows + 1) * cells_per_row
