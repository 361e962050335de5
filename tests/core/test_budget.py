"""The deadline of a request cannot be swallowed: a library that catches it (``except
Exception``) neither returns a result from the interrupted work nor runs on past it.

Each library below would run for seconds after its deadline if the deadline were lost; the
assertions are on what happened (an exception, work not finished), not on how long it took.
"""

from __future__ import annotations

import contextlib
import time

import pytest

from gradcalc.core.budget import CheckTimeout, OutOfTime, request, symbolic_limit


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
