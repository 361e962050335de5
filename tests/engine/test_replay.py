"""The chunked replay of a recorded program (gradcalc.engine.compile.replay) against the tape and
sympy.

The replay is only a faster way to run the same program: on clean points it must give the
tape's numbers bit for bit, and whenever a point needs explaining (a domain issue, NaN,
overflow, saturation, a vanishing or exploding gradient) it must flag it for the tape, which
computes and explains just those points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from unittest import mock

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcalc.core.errors import InputError
from gradcalc.engine.compile import replay
from gradcalc.engine.compile.replay import run_sweep
from gradcalc.engine.compile.sweep import record_sweep
from gradcalc.engine.evaluate.evaluate import evaluate
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.run.api import Options, compile_expression, gradient_at
from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from tests.test_properties import budget, registry_trees

BENCHMARK_EXPRESSIONS = [
    "3*w1**2+2*w1*w2",
    "sin(x)*exp(-x**2/2)+log(1+y**2)*tanh(x*y)",
    "+".join(f"sin({k}*x+y)*cos(x-{k}*y)" for k in range(1, 51)),
    "sqrt(x**2+y**2+z**2) + 1/(1+exp(-(x*y-z)))",
]


def random_points(names, count: int, seed: int = 0, low: float = 0.1, high: float = 1.0) -> Points:
    rng = np.random.default_rng(seed)
    return Points(tuple(names), {n: rng.uniform(low, high, count) for n in names}, None)


def recorded(text: str):
    graph = lower(parse_program(text))
    return graph, record_sweep(graph, graph.variables)


@pytest.mark.parametrize("text", BENCHMARK_EXPRESSIONS, ids="abcd")
def test_replay_matches_sympy_derivatives(text: str) -> None:
    graph, sweep = recorded(text)
    points = random_points(graph.variables, 5000)
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
    points = random_points(graph.variables, 700, seed=1)
    taped = gradient_at(graph, points, options=Options(check=False, tape=True))[0]
    swept = gradient_at(graph, points, options=Options(check=False, tape=False))[0]
    assert swept.tape == [] and taped.tape != []
    assert np.array_equal(swept.value, taped.value)
    for name in graph.variables:
        assert np.array_equal(swept.gradient[name], taped.gradient[name])


@pytest.mark.parametrize("text", BENCHMARK_EXPRESSIONS[1:2] + BENCHMARK_EXPRESSIONS[3:], ids="bd")
def test_threads_share_the_slices_without_changing_a_bit(text: str) -> None:
    graph, sweep = recorded(text)
    points = random_points(graph.variables, 10_000, seed=3)
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
    points = random_points(("x", "y"), 300, seed=seed, low=-3.0, high=3.0)
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


@random_trees
def test_random_trees_replay_in_reused_buffers_as_the_tape_computes(tree, seed) -> None:
    """Slices long enough to be computed in the reused buffers (see replay.POOLED), the last
    one shorter: every point the replay does not flag has the tape's numbers, bit for bit."""
    text, _ = tree
    graph = compile_expression(text, ["x", "y"])
    sweep = record_sweep(graph, ("x", "y"))
    points = random_points(("x", "y"), 3 * 64 + 17, seed=seed, low=-3.0, high=3.0)
    with mock.patch.object(replay, "POOLED", 64):
        out = run_sweep(sweep, points.arrays, chunk=64)
    taped = evaluate(graph, points.arrays, ("x", "y"))
    clean = np.ones(len(points.arrays["x"]), dtype=bool)
    if out.flagged is not None:
        clean = ~out.flagged
    tape_value = np.broadcast_to(taped.values[0], clean.shape)
    assert np.array_equal(out.values[0][clean], tape_value[clean])
    for name in ("x", "y"):
        tape_gradient = taped.gradients[0][name]
        if tape_gradient is not None:
            got = out.gradients[0][name]
            assert got is not None
            assert np.array_equal(got[clean], np.broadcast_to(tape_gradient, clean.shape)[clean])


def test_power_two_is_squaring_bit_for_bit() -> None:
    """The replay computes ``x**2`` as ``np.square(x)``: numpy's power does the same for an
    exponent of 2, down to NaN, infinities, signed zeros and subnormals."""
    rng = np.random.default_rng(7)
    x = np.concatenate(
        [
            rng.uniform(-1e3, 1e3, 10_000),
            rng.standard_normal(1000) * 1e-160,  # squares underflow to subnormals or 0
            rng.standard_normal(1000) * 1e160,  # and overflow
            [np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, -5e-324, 1.5, -3.0],
        ]
    )
    with np.errstate(all="ignore"):
        power, square = np.power(x, np.array(2.0)), np.square(x)
    assert np.array_equal(power.view(np.int64), square.view(np.int64))


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
    _, sweep = recorded(text)
    column = np.full(100, 0.5)
    assert run_sweep(sweep, {"x": column}).flagged is None
    column[57] = x
    flagged = run_sweep(sweep, {"x": column}).flagged
    assert flagged is not None and np.flatnonzero(flagged).tolist() == [57]


@pytest.mark.parametrize(
    "text", ["max(cosh(sin(x + x)), cosh(sin(2)))", "min(x^3, 2.25)", "max(x, 1.5) + x"]
)
def test_a_tie_with_a_constant_is_the_tapes_kink(text: str) -> None:
    """max and min with a constant input have a corner wherever the variable side meets the
    constant -- a value no fixed probe hits -- so the replay always checks them: at a tie
    among 300 points the batch reports the kink the tape reports at that point, not the mean
    of the two one-sided slopes (which it gave, silently, for the first expression)."""
    graph = compile_expression(text)
    ties = {"max(cosh(sin(x + x)), cosh(sin(2)))": 1.0, "min(x^3, 2.25)": 2.25 ** (1 / 3)}
    tie = ties.get(text, 1.5)
    x = np.linspace(0.2, 2.0, 300)
    x[7] = tie
    points = Points(("x",), {"x": x}, None)
    options = Options(check=False, strict=False)
    swept = gradient_at(graph, points, options=options)[0]
    taped = gradient_at(graph, points, options=replace(options, tape=True))[0]
    assert np.array_equal(swept.undefined, taped.undefined)
    if text != "min(x^3, 2.25)" or tie**3 == 2.25:  # (the cube root of 2.25 may not cube back)
        assert swept.undefined[7]


@pytest.mark.parametrize("typed", ["four", "0", "-2", "1.5", "²", "9" * 40, "2 threads"])
def test_a_threads_setting_that_is_no_whole_number_is_refused(monkeypatch, typed) -> None:
    # it was read as "not set" (one thread per CPU), so a typo passed unseen
    monkeypatch.setenv("GRADCALC_THREADS", typed)
    sweep = record_sweep(lower(parse_program("x^2")), ("x",))
    with pytest.raises(InputError, match=r"^GRADCALC_THREADS is '.{1,20}': give a whole number"):
        run_sweep(sweep, {"x": np.arange(5.0)})


@pytest.mark.parametrize("typed", ["1", " 2 ", "03"])
def test_a_whole_number_of_threads_gives_the_same_numbers(monkeypatch, typed) -> None:
    sweep = record_sweep(lower(parse_program("sin(x)*x")), ("x",))
    x = np.linspace(-3.0, 3.0, 200_000)
    monkeypatch.setenv("GRADCALC_THREADS", typed)
    assert replay.default_threads() == int(typed)
    result = run_sweep(sweep, {"x": x}, kernels="numpy")
    assert np.array_equal(result.gradients[0]["x"], np.sin(x) + x * np.cos(x))
