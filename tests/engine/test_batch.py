"""Many points through the public API (gradcalc.engine.run.batch): replayed by default, with only
the points that need explaining computed on a full tape, and the merged result the tape's."""

from __future__ import annotations

import tracemalloc
from dataclasses import replace

import numpy as np
import pytest

from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.run import batch
from gradcalc.engine.run.api import Options, compile_expression, grad, gradient_at
from tests.engine.test_replay import BENCHMARK_EXPRESSIONS, random_points


@pytest.mark.parametrize(
    "text",
    [
        "tanh(x*y) + sigmoid(y)",  # saturated activations at some points
        "exp(-40*x) * y",  # a vanishing component
        "exp(x*y)",  # exploding components
        "x, tanh(10*x)",  # several targets: the tape diagnoses them
        "tanh(10*x) + x",  # a saturated unit that other paths settle at every point
        "relu(5 - x) + y*sigmoid(x*y)",  # off, and settled at some points only
    ],
)
def test_replayed_findings_are_the_tapes(text: str) -> None:
    """Points where a gradient vanishes, explodes or an activation saturates are marked by
    the replay; the messages (which op is to blame) come from a full tape at the first."""
    graph = compile_expression(text, ["x", "y"])
    points = random_points(("x", "y"), 3000, seed=5, low=-1.0, high=25.0)
    tape_results = gradient_at(graph, points, options=Options(check=False, tape=True))
    assert any(r.diagnostics for r in tape_results), "the points should need a diagnosis"
    for taped, swept in zip(
        tape_results, gradient_at(graph, points, options=Options(check=False, tape=False))
    ):
        assert [(f.label, f.message, f.record) for f in swept.diagnostics] == [
            (f.label, f.message, f.record) for f in taped.diagnostics
        ]
        for a, b in zip(swept.diagnostics, taped.diagnostics):
            assert np.array_equal(a.mask, b.mask)


@pytest.mark.parametrize(
    ("text", "wrt", "value", "gradient"),
    [
        ("3", ("x",), 3.0, {"x": None}),  # a constant target
        ("x", ("x",), 2.0, {"x": 1.0}),  # the target is the variable itself
        ("x*0+y", ("x", "y"), 5.0, {"x": 0.0, "y": 1.0}),
        ("y = x^2; z = y^2", ("x", "y"), 16.0, {"x": 32.0, "y": 8.0}),  # an intermediate
    ],
)
def test_replay_of_degenerate_programs(text, wrt, value, gradient) -> None:
    graph = compile_expression(text, ["x", "y"])
    points = Points(("x", "y"), {"x": np.full(300, 2.0), "y": np.full(300, 5.0)}, None)
    result = gradient_at(graph, points, wrt, Options(check=False, tape=False))[0]
    assert result.tape == []  # it was replayed
    assert np.all(result.value == value)
    for name, expected in gradient.items():
        got = result.gradient[name]
        assert got is None if expected is None else np.all(got == expected)


def test_replay_keeps_several_targets_apart() -> None:
    graph = compile_expression("x*y, x+y", ["x", "y"])
    points = random_points(("x", "y"), 400)
    first, second = gradient_at(graph, points, options=Options(check=False, tape=False))
    assert np.array_equal(first.gradient["x"], points.arrays["y"])
    assert np.all(second.gradient["x"] == 1.0)


def test_a_missing_variable_is_still_reported_by_the_tape() -> None:
    from gradcalc.core.errors import InputError

    graph = compile_expression("x*y", ["x", "y"])
    points = Points(("x",), {"x": np.ones(300)}, None)
    with pytest.raises(InputError, match="no value given for y"):
        gradient_at(graph, points, options=Options(check=False, tape=False))


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("log(x) * y + abs(y - 0.5)", {"x": [-1.0, 0.0], "y": [0.5]}),  # undefined, a kink
        ("sqrt(x) + 1/(x*x) + y", {"x": [0.0, 1e200, np.nan]}),  # slope, overflow, NaN
        ("x*y, log(x - 0.29)", {"x": [0.25]}),  # several targets: only the second undefined
    ],
)
def test_only_the_flagged_points_go_to_the_tape(text, bad, monkeypatch) -> None:
    """A few bad points among 5,000: the replay computes the rest, a full tape just the
    bad ones (seen by the points it is given), and the merged result is the tape's."""
    graph = compile_expression(text, ["x", "y"])
    points = random_points(("x", "y"), 5000, seed=11, low=0.3, high=2.0)
    for name, values in bad.items():
        points.arrays[name][[100 * (k + 1) for k in range(len(values))]] = values
    options = Options(check=False, strict=False)
    taped = gradient_at(graph, points, options=replace(options, tape=True))
    sizes = []
    evaluate = batch.evaluate
    monkeypatch.setattr(
        batch, "evaluate", lambda g, p, *a: sizes.append(len(p["x"])) or evaluate(g, p, *a)
    )
    swept = gradient_at(graph, points, options=options)
    assert sizes and max(sizes) < 10  # the flagged points, and single points to diagnose
    assert any(result.undefined.any() for result in taped)
    for a, b in zip(swept, taped):
        assert np.array_equal(a.value, b.value, equal_nan=True)
        assert np.array_equal(a.undefined, b.undefined)
        assert np.array_equal(a.value_undefined, b.value_undefined)
        for name in ("x", "y"):
            if b.gradient[name] is None:
                assert a.gradient[name] is None
            else:
                assert np.array_equal(a.gradient[name], b.gradient[name], equal_nan=True)
        assert [s.describe(points, "f") for s in a.singularities] == [
            s.describe(points, "f") for s in b.singularities
        ]
        assert [(f.kind, f.message, f.record) for f in a.diagnostics] == [
            (f.kind, f.message, f.record) for f in b.diagnostics
        ]
        for f, g in zip(a.diagnostics, b.diagnostics):
            assert np.array_equal(f.mask, g.mask)


def test_the_api_replays_by_default_and_records_the_tape_when_it_is_read() -> None:
    points = {"x": np.linspace(0.5, 2.0, 400), "y": np.linspace(-1.0, 1.0, 400)}
    lean = grad("sin(x)*y + x**2", at=points, check=False)
    full = grad("sin(x)*y + x**2", at=points, check=False, tape=True)
    assert not lean.tape.recorded  # nothing recorded yet
    assert len(lean.tape) == len(full.tape) and lean.tape.recorded
    for a, b in zip(lean.tape, full.tape):
        assert (a.formula, a.index) == (b.formula, b.index)
        assert np.array_equal(a.value, b.value) and np.array_equal(a.adjoint, b.adjoint)


def test_a_batch_with_an_undefined_point_stays_lean(monkeypatch) -> None:
    """300,000 points of the 50-term sum, one of them undefined: the tape would hold some
    600 records' values at every point (over 1 GB); the replay holds the outputs and one
    thread's slices."""
    monkeypatch.setenv("GRADCALC_THREADS", "1")
    text = "log(x) + " + BENCHMARK_EXPRESSIONS[2]
    n = 300_000
    rng = np.random.default_rng(2)
    at = {"x": rng.uniform(0.1, 2.0, n), "y": rng.uniform(-2.0, 2.0, n)}
    at["x"][123_456] = -1.0
    grad(text, at={"x": at["x"][:300], "y": at["y"][:300]}, check=False)  # warm caches
    tracemalloc.start()
    try:
        result = grad(text, at=at, check=False, strict=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.flatnonzero(result.undefined).tolist() == [123_456]
    assert peak < 120 * n + 96 * 2**20, f"{peak / 2**20:.0f} MiB"


def test_points_given_as_a_matrix_stay_on_the_full_tape(monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay slices a batch of points along one axis: a 2-d array of points goes to
    the tape, which evaluates it as it is."""
    from gradcalc.engine.compile import replay

    def no_replay(*args: object) -> None:
        raise AssertionError("a matrix of points was replayed")

    monkeypatch.setattr(replay, "run_sweep", no_replay)
    matrix = np.linspace(0.5, 2.0, 600).reshape(300, 2)
    sine = grad("sin(W)", at={"W": matrix}, check=False)
    assert len(sine.tape) == 1 and sine.gradient["W"].shape == (300, 2)
    assert np.array_equal(sine.gradient["W"], np.cos(matrix))
