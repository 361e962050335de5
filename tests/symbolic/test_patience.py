"""symbolic.decide.patience: a CPU budget becomes a wall-clock limit stretched by the machine's
load."""

from __future__ import annotations

import os
from time import process_time

import pytest

from gradcalc.symbolic.decide.patience import SLACK, patient, wall


@pytest.mark.parametrize(
    ("load", "cores", "factor"), [(0.0, 2, 1.0), (2.0, 2, 1.0), (16.0, 2, 3.2)]
)
def test_the_limit_grows_with_the_load_per_core_beyond_a_quiet_machine(
    monkeypatch: pytest.MonkeyPatch, load: float, cores: int, factor: float
) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert patient(2.0) == pytest.approx(2.0 * factor)  # 2 * load / cores / SLACK, at least 1


def test_a_piece_may_take_slack_times_the_cpu_seconds_left(monkeypatch) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert wall(process_time() + 100) == pytest.approx(100 * SLACK, rel=1e-3)
    assert wall(process_time() - 5) == pytest.approx(0.01 * SLACK)  # past: a token limit
