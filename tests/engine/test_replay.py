"""The chunked replay of a recorded tape (gradcalc.engine.replay) against the full tape and sympy.

The replay is only a faster way to run the same program: on clean points it must give the
tape's numbers bit for bit, and whenever a point needs explaining (a domain issue, NaN,
overflow, saturation, a vanishing or exploding gradient) it must flag it for the tape, which
computes and explains just those points.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcalc.engine.api import Options, compile_expression, grad, gradient_at
from gradcalc.engine.points import Points
from gradcalc.engine.replay import record_sweep, run_sweep
from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from tests.test_properties import budget, registry_trees

BENCHMARK_EXPRESSIONS = [
    "3*w1**2+2*w1*w2",
    "sin(x)*exp(-x**2/2)+log(1+y**2)*tanh(x*y)",
    "+".join(f"sin({k}*x+y)*cos(x-{k}*y)" for k in range(1, 51)),
    "sqrt(x**2+y**2+z**2) + 1/(1+exp(-(x*y-z)))",
]


def _points(names, count: int, seed: int = 0, low: float = 0.1, high: float = 1.0) -> Points:
    rng = np.random.default_rng(seed)
    return Points(tuple(names), {n: rng.uniform(low, high, count) for n in names}, None)


def _sweep(text: str):
    graph = lower(parse_program(text))
    return graph, record_sweep(graph, graph.variables)


@pytest.mark.parametrize("text", BENCHMARK_EXPRESSIONS, ids="abcd")
def test_replay_matches_sympy_derivatives(text: str) -> None:
    graph, sweep = _sweep(text)
    points = _points(graph.variables, 5000)
    out = run_sweep(sweep, points.arrays, chunk=1024)  # several chunks and a ragged last one
    assert out.flagged is None
    symbols = sp.symbols(graph.variables, real=True)
    expr = sp.sympify(text, locals=dict(zip(graph.variables, symbols)))
    columns = [points.arrays[n] for n in graph.variables]
    np.testing.assert_allclose(out.values[0], sp.lambdify(symbols, expr)(*columns), rtol=1e-12)
    for name, symbol in zip(graph.variables, symbols):
        exact = np.broadcast_to(sp.lambdify(symbols, sp.diff(expr, symbol))(*columns), (5000,))
        np.testing.assert_allclose(out.gradients[0][name], exact, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("text", BENCHMARK_EXPRESSIONS, ids="abcd")
def test_replay_is_bit_for_bit_the_tape(text: str) -> None:
    graph = compile_expression(text)
    points = _points(graph.variables, 700, seed=1)
    taped = gradient_at(graph, points, options=Options(check=False, tape=True))[0]
    swept = gradient_at(graph, points, options=Options(check=False, tape=False))[0]
    assert swept.tape == [] and taped.tape != []
    assert np.array_equal(swept.value, taped.value)
    for name in graph.variables:
        assert np.array_equal(swept.gradient[name], taped.gradient[name])


@pytest.mark.parametrize("text", BENCHMARK_EXPRESSIONS[1:2] + BENCHMARK_EXPRESSIONS[3:], ids="bd")
def test_threads_share_the_slices_without_changing_a_bit(text: str) -> None:
    graph, sweep = _sweep(text)
    points = _points(graph.variables, 10_000, seed=3)
    alone = run_sweep(sweep, points.arrays, chunk=512, threads=1)
    shared = run_sweep(sweep, points.arrays, chunk=512, threads=3)
    assert np.array_equal(alone.values[0], shared.values[0])
    for name in graph.variables:
        assert np.array_equal(alone.gradients[0][name], shared.gradients[0][name])
    points.arrays["x"][7_777] = -1e300  # one bad point, in some thread's share
    flagged = run_sweep(sweep, points.arrays, chunk=512, threads=3).flagged
    assert flagged is not None and np.flatnonzero(flagged).tolist() == [7_777]


def random_trees(test: Callable[..., None]) -> Callable[..., None]:
    """A slow property test over random registry trees (text, sympy) and a seed for points."""
    examples = settings(
        max_examples=budget(60, 3000),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    return pytest.mark.slow(examples(given(registry_trees(), st.integers(0, 2**32 - 1))(test)))


@random_trees
def test_random_trees_replay_as_the_tape_computes(tree, seed) -> None:
    """Same numbers, same undefined points, same diagnostics: the replay answers for the
    clean points, the tape for the points it flags (here some sit on 0, 1 and -1, where
    kinks and domain edges are)."""
    text, _ = tree
    graph = compile_expression(text, ["x", "y"])
    points = _points(("x", "y"), 300, seed=seed, low=-3.0, high=3.0)
    special = np.random.default_rng(seed).integers(0, 300, 12)
    points.arrays["x"][special[:6]] = [0.0, 1.0, -1.0, 0.0, 1e300, -0.0]
    points.arrays["y"][special[6:]] = [0.0, -1.0, 1.0, 0.5, -1e300, 0.0]
    options = Options(check=False, strict=False)
    taped = gradient_at(graph, points, options=replace(options, tape=True))[0]
    swept = gradient_at(graph, points, options=Options(check=False, strict=False, tape=False))[0]
    assert np.array_equal(swept.value, taped.value, equal_nan=True)
    assert np.array_equal(swept.undefined, taped.undefined)
    for name in ("x", "y"):
        a, b = swept.gradient[name], taped.gradient[name]
        assert (a is None) == (b is None)
        if a is not None:
            assert np.array_equal(a, b, equal_nan=True)
    assert [(f.kind, f.message, f.record) for f in swept.diagnostics] == [
        (f.kind, f.message, f.record) for f in taped.diagnostics
    ]
    for a, b in zip(swept.diagnostics, taped.diagnostics):
        assert np.array_equal(a.mask, b.mask)
    assert [s.describe(points, "f") for s in swept.singularities] == [
        s.describe(points, "f") for s in taped.singularities
    ]


@pytest.mark.parametrize(
    "text",
    [
        "tanh(x*y) + sigmoid(y)",  # saturated activations at some points
        "exp(-40*x) * y",  # a vanishing component
        "exp(x*y)",  # exploding components
        "x, tanh(10*x)",  # several targets: the tape diagnoses them
    ],
)
def test_replayed_findings_are_the_tapes(text: str) -> None:
    """Points where a gradient vanishes, explodes or an activation saturates are marked by
    the replay; the messages (which op is to blame) come from a full tape at the first."""
    graph = compile_expression(text, ["x", "y"])
    points = _points(("x", "y"), 3000, seed=5, low=-1.0, high=25.0)
    tape_results = gradient_at(graph, points, options=Options(check=False, tape=True))
    assert any(r.diagnostics for r in tape_results), "the points should need a diagnosis"
    for taped, swept in zip(
        tape_results, gradient_at(graph, points, options=Options(check=False, tape=False))
    ):
        assert [(f.kind, f.message, f.record) for f in swept.diagnostics] == [
            (f.kind, f.message, f.record) for f in taped.diagnostics
        ]
        for a, b in zip(swept.diagnostics, taped.diagnostics):
            assert np.array_equal(a.mask, b.mask)


@pytest.mark.parametrize(
    ("text", "x"),
    [
        ("log(x)", -1.0),  # undefined
        ("abs(x)", 0.0),  # a kink
        ("sqrt(x)", 0.0),  # an infinite slope
        ("1/exp(x)", 1000.0),  # exp overflows, the value hides it (1/inf = 0)
        ("atan(x*1e300*x)", 1e10),  # a product overflows, atan hides it
        ("1/(x*x)", 1e200),  # x*x overflows, and 1/inf = 0 would hide it
        ("x*x + 1", np.inf),  # an infinite input reaches the value
    ],
)
def test_replay_flags_the_points_that_need_explaining(text: str, x: float) -> None:
    _, sweep = _sweep(text)
    column = np.full(100, 0.5)
    assert run_sweep(sweep, {"x": column}).flagged is None
    column[57] = x
    flagged = run_sweep(sweep, {"x": column}).flagged
    assert flagged is not None and np.flatnonzero(flagged).tolist() == [57]


def test_a_domain_rule_that_cannot_fire_is_not_checked() -> None:
    """``x**2`` is defined everywhere: its pow domain rule is skipped; ``x**0.5`` is not."""
    _, square = _sweep("x**2")
    _, root = _sweep("x**0.5")
    assert [s.check_domain for s in square.steps if s.guard] == [False]
    assert [s.check_domain for s in root.steps if s.guard] == [True]
    assert run_sweep(square, {"x": np.array([-2.0, 3.0])}).gradients[0]["x"].tolist() == [-4, 6]
    assert run_sweep(root, {"x": np.array([-2.0, 3.0])}).flagged.tolist() == [True, False]


def test_only_values_that_could_lose_a_nan_are_checked_for_one() -> None:
    """``x*x + 1`` carries any NaN or infinity to the value (checked on store); the product
    inside ``1/(x*x)`` is checked itself, since 1/inf = 0 would hide it."""
    _, plain = _sweep("x*x + 1")
    _, hiding = _sweep("1/(x*x)")
    assert [s.check_finite for s in plain.steps if s.guard] == [False, False]
    assert [(s.op.name, s.check_finite) for s in hiding.steps if s.guard] == [
        ("mul", True),
        ("div", False),
    ]


def test_the_backward_pass_is_deduplicated() -> None:
    """The sigmoid's slope is computed once for the saturation check and the gradient."""
    _, sweep = _sweep("sigmoid(x)")
    names = [s.op.name for s in sweep.steps]
    assert names.count("sigmoid") == 2  # sigmoid(x) and sigmoid(-x), once each
    assert len(names) == len({(s.op.name, s.inputs) for s in sweep.steps})


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
    points = _points(("x", "y"), 400)
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
    points = _points(("x", "y"), 5000, seed=11, low=0.3, high=2.0)
    for name, values in bad.items():
        points.arrays[name][[100 * (k + 1) for k in range(len(values))]] = values
    options = Options(check=False, strict=False)
    taped = gradient_at(graph, points, options=replace(options, tape=True))
    import gradcalc.engine.api as api

    sizes = []
    evaluate = api.evaluate
    monkeypatch.setattr(
        api, "evaluate", lambda g, p, *a: sizes.append(len(p["x"])) or evaluate(g, p, *a)
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


def test_points_given_as_a_matrix_stay_on_the_full_tape() -> None:
    """The replay slices a batch of points along one axis: a 2-d array of points goes to
    the tape, which evaluates it as it is."""
    matrix = np.linspace(0.5, 2.0, 600).reshape(300, 2)
    sine = grad("sin(W)", at={"W": matrix}, check=False)
    assert sine.tape.__class__ is list and sine.gradient["W"].shape == (300, 2)
    assert np.array_equal(sine.gradient["W"], np.cos(matrix))
