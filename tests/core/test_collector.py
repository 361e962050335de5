"""core.collector: collections held off inside a block, and only there."""

from __future__ import annotations

import gc

import pytest

from gradcalc.core.collector import paused


def test_the_collector_is_paused_inside_and_runs_again_after_an_error_too() -> None:
    with pytest.raises(ZeroDivisionError), paused():
        assert not gc.isenabled()
        with paused():  # (a block inside another)
            pass
        assert not gc.isenabled()
        _ = 1 / 0
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled() -> None:
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_parsing_lowering_recording_and_differentiating_run_with_the_collector_paused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(Their tokens, nodes, tensors and records of a long sum would trigger dozens of
    collections, each walking the young objects in vain.)"""
    from gradcalc.core.tape import Tape
    from gradcalc.engine.evaluate import evaluate
    from gradcalc.engine.run import api

    seen: dict[str, bool] = {}

    def spy(name: str, function):
        def spied(*args, **kwargs):
            seen[name] = gc.isenabled()
            return function(*args, **kwargs)

        return spied

    monkeypatch.setattr(api, "parse_program", spy("parse", api.parse_program))
    monkeypatch.setattr(api, "lower", spy("lower", api.lower))
    monkeypatch.setattr(evaluate, "run_graph", spy("record", evaluate.run_graph))
    monkeypatch.setattr(Tape, "gradient", spy("differentiate", Tape.gradient))
    graph = api.compile_expression("x*sin(y) + y*sin(x)")
    run = evaluate.evaluate(graph, {"x": 0.5, "y": 2.0})
    assert seen == dict.fromkeys(["parse", "lower", "record", "differentiate"], False)
    assert gc.isenabled() and len(run.gradients[0]) == 2


def test_freezing_after_pauses_leaves_the_collector_only_what_came_after() -> None:
    """In a process of its own: the freeze is for the whole process."""
    import subprocess
    import sys

    code = (
        "import gc\n"
        "from gradcalc.core.collector import freeze_after_pauses, paused\n"
        "with paused():\n    before = [[i] for i in range(1000)]\n"
        "counts = [gc.get_freeze_count()]\n"
        "freeze_after_pauses()\n"
        "with paused():\n    built = [[i] for i in range(1000)]\n"
        "counts.append(gc.get_freeze_count())\n"
        "after = [[i] for i in range(10)]\n"
        "print(counts[0], counts[1] > 2000, gc.isenabled(), len(gc.get_objects(0)) < 1000)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["0", "True", "True", "True"], done.stderr
