"""The native kernels (gradcalc.engine.compile.native) against numpy and the step-by-step replay.

Arithmetic is the same IEEE operation numpy performs, so it must agree bit for bit; the maths
functions are glibc's vector versions (or the C library's), which agree with numpy's to a few
units in the last place. Flagged points and findings must be the replay's exactly: they
decide which points the tape explains.
"""

from __future__ import annotations

import os
import re
from unittest import mock

import numpy as np
import pytest

from gradcalc.core.errors import InputError
from gradcalc.core.ops import REGISTRY
from gradcalc.engine.compile import native, native_code, replay
from gradcalc.engine.compile.program import Step, Sweep
from gradcalc.engine.compile.replay import kernels_for, run_sweep
from gradcalc.engine.compile.sweep import record_sweep, sweep_for
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.run.api import Options, compile_expression, gradient_at
from tests.engine.agreement import (
    NEAR_THE_LARGEST_DOUBLE,
    assert_decides_as_the_replay,
    assert_huge_values_go_to_the_tape,
    assert_same_flags_and_close,
    normwise_ulps,
    ulps,
)
from tests.engine.test_replay import BENCHMARK_EXPRESSIONS, random_trees

pytest.importorskip("llvmlite")
pytestmark = pytest.mark.skipif(not native.available(), reason="llvmlite makes no code here")

#: Values every function meets at its edges: zeros, ones, the smallest and largest doubles,
#: infinities, NaN, and arguments where sines and exponentials turn difficult.
SPECIAL = np.array(
    [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        1e-300,
        -1e-300,
        5e-324,
        1e300,
        -1e300,
        np.inf,
        -np.inf,
        np.nan,
        709.0,
        710.0,
        -745.0,
        1e5,
        -1e5,
        1e22,
        np.pi / 2,
        3.0,
        0.999999,
    ]
)


@pytest.fixture(params=["libmvec", "lane by lane"])
def vector_maths(request, monkeypatch):
    """Both ways of computing a maths function: glibc's vector version, and the C library's
    scalar one per lane (as on a machine without libmvec)."""
    native._kernels.clear()
    if request.param == "lane by lane":
        monkeypatch.setattr(native_code, "vector_name", lambda name, arity: None)
    yield request.param
    native._kernels.clear()


def _one_step(ufunc: np.ufunc | None, op_name: str) -> Sweep:
    """A program of one step: slot 2 = ufunc(slot 0[, slot 1]) (or the op's forward)."""
    op = REGISTRY[op_name]
    arity = ufunc.nin if ufunc is not None else op.arity
    step = Step(op, (0, 1)[:arity], 2, {}, False, (False,) * arity, ufunc=ufunc)
    return Sweep(("x", "y"), (), {}, [step], [2], [{}], size=3)


def _compute(sweep: Sweep, *columns: np.ndarray) -> np.ndarray:
    kernel = native.compile_sweep(sweep)
    assert kernel is not None
    slots = [*columns, *([None] * (sweep.size - len(columns)))]
    slots += [None] * (sweep.size - len(slots))
    native.run(kernel, slots, len(columns[0]), {}, lambda mask: None)
    return slots[sweep.values[0]]


def _ufunc_cases() -> list[tuple[np.ufunc | None, str]]:
    """Every ufunc and op the kernels compute, with a registry op to carry it."""
    carrier = {1: "neg", 2: "add"}
    cases: list[tuple[np.ufunc | None, str]] = [
        (getattr(np, name), carrier[getattr(np, name).nin])
        for name in [*native_code.ARITHMETIC, *native_code.FUNCTIONS, *native_code.INSTRUCTIONS]
    ]
    return cases + [(None, name) for name in native_code.COMPOSITE]


@pytest.mark.parametrize(
    ("ufunc", "op_name"),
    _ufunc_cases(),
    ids=lambda v: v if isinstance(v, str) else getattr(v, "__name__", "op"),
)
def test_each_function_is_numpys_to_a_few_ulps(vector_maths, ufunc, op_name) -> None:
    """Random values across magnitudes and every pair of special values: NaN and infinity
    exactly where numpy has them (with the same sign), elsewhere within 4 ulps; arithmetic,
    square root and absolute value bit for bit."""
    rng = np.random.default_rng(11)
    magnitudes = np.concatenate(
        [rng.uniform(-1, 1, 2000), rng.uniform(-30, 30, 2000), 10.0 ** rng.uniform(-8, 8, 2000)]
    )
    x = np.concatenate([magnitudes, np.repeat(SPECIAL, SPECIAL.size)])
    y = np.concatenate([rng.permutation(magnitudes), np.tile(SPECIAL, SPECIAL.size)])
    sweep = _one_step(ufunc, op_name)
    arity = sweep.steps[0].inputs.__len__()
    with np.errstate(all="ignore"):
        want = (ufunc or REGISTRY[op_name].forward)(*(x, y)[:arity])
    got = _compute(sweep, x, y)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[np.isinf(want)], want[np.isinf(want)])
    name = op_name if ufunc is None else ufunc.__name__
    exact = name in native_code.ARITHMETIC or name in native_code.INSTRUCTIONS
    assert ulps(want, got).max() <= (0 if exact else 4), name
    if exact:  # bit for bit: the sign of a zero too (ulps takes -0.0 for +0.0)
        numbers = ~np.isnan(want)
        assert np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers])), name


@pytest.mark.parametrize("text", BENCHMARK_EXPRESSIONS, ids="abcd")
def test_benchmark_expressions_agree_with_the_replay(vector_maths, text: str) -> None:
    """Three slices and a ragged last one (the kernel's own padded last pass included)."""
    graph = compile_expression(text)
    sweep = record_sweep(graph, graph.variables)
    rng = np.random.default_rng(4)
    arrays = {n: rng.uniform(-2.0, 2.0, 70_003) for n in graph.variables}
    plain = run_sweep(sweep, arrays, kernels="numpy")
    fast = run_sweep(sweep, arrays, kernels="native")
    assert native.kernel_of(sweep) is not None
    assert plain.flagged is None and fast.flagged is None
    pairs = [(plain.values[0], fast.values[0])]
    pairs += [(plain.gradients[0][n], fast.gradients[0][n]) for n in graph.variables]
    for a, b in pairs:
        assert normwise_ulps(a, b) <= 16


#: Round points, where students look and exact cancellations happen (``sin(x + 0.5) +
#: sin(0.5)`` is exactly 0 at x = -1 with numpy's sines, 5.6e-17 with libmvec's).
ROUND = [0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 1.5, -1.5, 3.0]


def _round_and_random(names, count: int, seed: int) -> dict[str, np.ndarray]:
    """``count`` random points in [-3, 3], every round value of :data:`ROUND` among them
    for each name (as pairs of round values too)."""
    rng = np.random.default_rng(seed)
    arrays = {n: rng.uniform(-3.0, 3.0, count) for n in names}
    for k, name in enumerate(names):
        arrays[name][: len(ROUND) ** 2] = np.repeat(ROUND, len(ROUND)) if k else ROUND * len(ROUND)
    return arrays


def _both_ways(graph, arrays: dict[str, np.ndarray]):
    """The graph's gradient at ``arrays`` through gradient_at (replay, then the tape for the
    flagged points), with numpy's steps and with native code."""
    points = Points(tuple(graph.variables), arrays, None)
    options = Options(check=False, strict=False, tape=False)
    results = []
    for kernels in ("numpy", "native"):
        with mock.patch.dict(os.environ, {"GRADCALC_KERNELS": kernels}):
            results.append(gradient_at(graph, points, options=options)[0])
    return points, results


def assert_same_answers(graph, arrays: dict[str, np.ndarray], compared=None) -> None:
    """What a user is told is the same either way: undefined points and why, findings and
    their points, the numbers where undefined; values and gradients elsewhere (of the mask
    ``compared``, default all) within 1e-9 of the batch's largest."""
    points, (plain, fast) = _both_ways(graph, arrays)
    assert np.array_equal(plain.undefined, fast.undefined)
    assert [s.describe(points, "f") for s in plain.singularities] == [
        s.describe(points, "f") for s in fast.singularities
    ]
    found = [(f.kind, f.source, f.record, f.mask.tolist()) for f in plain.diagnostics]
    assert found == [(f.kind, f.source, f.record, f.mask.tolist()) for f in fast.diagnostics]
    compared = np.ones(plain.undefined.shape, bool) if compared is None else compared
    clean, undefined = ~plain.undefined & compared, plain.undefined & compared
    pairs = [(plain.value, fast.value)]
    for name, column in plain.gradient.items():
        if column is not None:
            assert np.array_equal(column[undefined], fast.gradient[name][undefined], True)
            pairs.append((column, fast.gradient[name]))
    for a, b in pairs:
        assert normwise_ulps(a[clean], b[clean]) <= 2**42


@random_trees
def test_random_trees_decide_as_numpys_steps_at_round_points(tree, seed) -> None:
    """Random registry trees at random and round points (x = 1e300 too, for its overflows):
    the native replay flags every point numpy's steps flag, finds the same elsewhere, and
    agrees with them to 1e-9 of the batch's largest (ill-conditioned expressions amplify
    an ulp of one function into many of the result, for any library); through gradient_at,
    the user is told the same undefined points, reasons and findings. At 1e300 only flags
    are compared: ``sin(exp(sin(x)) * x)`` there turns an ulp of ``exp`` into another sine."""
    text, _ = tree
    arrays = _round_and_random(("x", "y"), 501, seed)
    arrays["x"][-1] = 1e300
    graph = compile_expression(text, ["x", "y"])
    sweep = record_sweep(graph, graph.variables)
    plain = run_sweep(sweep, arrays, kernels="numpy", chunk=128)
    fast = run_sweep(sweep, arrays, kernels="native", chunk=128)
    away = np.arange(501) != 500
    assert_decides_as_the_replay(plain, fast, 501, compared=away)
    assert_same_answers(graph, arrays, compared=away)


def test_undefined_points_are_flagged_and_explained_by_the_tape(monkeypatch) -> None:
    """log, sqrt and a division at points outside their domains, among 30,000, with native
    code chosen: the same undefined points and problems as the tape, the tape's numbers
    there, and the replay's elsewhere to a few ulps."""
    monkeypatch.setenv("GRADCALC_KERNELS", "native")
    text = "log(x)*sqrt(y) + 1/(x - y) + tanh(x*y)"
    graph = compile_expression(text)
    rng = np.random.default_rng(8)
    x, y = rng.uniform(-1.0, 2.0, 30_000), rng.uniform(-1.0, 2.0, 30_000)
    x[:5], y[:5] = [0.0, 1.0, -1.0, 2.0, 0.5], [1.0, 1.0, 4.0, 0.0, 0.5]
    points = Points(("x", "y"), {"x": x, "y": y}, None)
    options = Options(check=False, strict=False)
    assert kernels_for(sweep_for(graph, graph.variables), 30_000) == "native"
    fast = gradient_at(graph, points, options=options)[0]
    taped = gradient_at(graph, points, options=Options(check=False, strict=False, tape=True))[0]
    assert np.array_equal(fast.undefined, taped.undefined) and fast.undefined.sum() > 10_000
    assert [s.describe(points, "f") for s in fast.singularities] == [
        s.describe(points, "f") for s in taped.singularities
    ]
    clean = ~taped.undefined
    for name in ("x", "y"):
        assert np.array_equal(fast.gradient[name][~clean], taped.gradient[name][~clean], True)
        assert normwise_ulps(fast.gradient[name][clean], taped.gradient[name][clean]) <= 16


@pytest.mark.parametrize("count", [1, 3, 4, 5, 7, 9, 33])
def test_any_count_of_points_in_any_slicing(count: int) -> None:
    """Counts below, at and past a pass of four lanes, in slices of 8 (ragged ones too)."""
    graph = compile_expression("exp(-x*y)*cos(x) + y^3/(1+x^2)")
    sweep = record_sweep(graph, graph.variables)
    rng = np.random.default_rng(count)
    arrays = {n: rng.uniform(-2.0, 2.0, count) for n in graph.variables}
    plain = run_sweep(sweep, arrays, kernels="numpy", chunk=8)
    fast = run_sweep(sweep, arrays, kernels="native", chunk=8)
    for name in graph.variables:  # sums of terms: normwise (see test_fused)
        assert normwise_ulps(plain.gradients[0][name], fast.gradients[0][name]) <= 16


def test_threads_do_not_change_a_bit() -> None:
    graph = compile_expression("sin(x)*exp(-x**2/2)+log(1+y**2)*tanh(x*y)")
    sweep = record_sweep(graph, graph.variables)
    rng = np.random.default_rng(2)
    arrays = {n: rng.uniform(-2.0, 2.0, 100_000) for n in graph.variables}
    alone = run_sweep(sweep, arrays, kernels="native", threads=1, chunk=4096)
    shared = run_sweep(sweep, arrays, kernels="native", threads=3, chunk=4096)
    for name in graph.variables:
        assert np.array_equal(alone.gradients[0][name], shared.gradients[0][name])


def test_native_code_is_chosen_and_unsupported_ops_replay_step_by_step(monkeypatch) -> None:
    """By default native code from NATIVE_MIN_POINTS points (numpy's steps below, where
    compiling would cost more than it saves); GRADCALC_KERNELS=native at any count, numpy
    at none; an op the kernels lack (erf), or llvmlite missing, leaves the program to
    numpy's steps."""
    many, few = replay.NATIVE_MIN_POINTS, replay.NATIVE_MIN_POINTS - 1
    lacking = sweep_for(compile_expression("erf(x) + x^2"), ("x",))
    assert native.kernel_of(lacking) is None and kernels_for(lacking, many, "native") == "numpy"
    sweep = sweep_for(compile_expression("x*sin(x)"), ("x",))
    monkeypatch.delenv("GRADCALC_KERNELS", raising=False)
    assert (kernels_for(sweep, many), kernels_for(sweep, few)) == ("native", "numpy")
    assert kernels_for(sweep, 10, "native") == "native"
    monkeypatch.setenv("GRADCALC_KERNELS", "native")
    assert kernels_for(sweep, 10) == "native"
    monkeypatch.setenv("GRADCALC_KERNELS", "numpy")
    assert kernels_for(sweep, many) == "numpy"
    monkeypatch.setenv("GRADCALC_KERNELS", "auto")
    assert kernels_for(sweep, many) == "native"
    monkeypatch.setattr(native, "available", lambda: False)
    assert kernels_for(sweep, many) == "numpy"
    assert kernels_for(sweep, many, "native") == "numpy"
    with pytest.raises(InputError, match="GRADCALC_KERNELS is 'llvm'"):
        kernels_for(sweep, many, "llvm")


def test_one_compilation_serves_every_graph_of_the_structure() -> None:
    """grad() compiles the text anew on every call: its kernel is found again."""
    first = native.kernel_of(sweep_for(compile_expression("x*exp(y) + y"), ("x", "y")))
    again = native.kernel_of(sweep_for(compile_expression("x*exp(y) + y"), ("x", "y")))
    other = native.kernel_of(sweep_for(compile_expression("x*exp(y) + 2*y"), ("x", "y")))
    assert first is again and other is not first


def test_nothing_typed_reaches_llvm(monkeypatch) -> None:
    """Variable names and the text of constants never appear in the code given to LLVM: slots
    are numbers, constants are doubles in hexadecimal."""
    import llvmlite.binding as llvm

    given: list[str] = []
    real = llvm.parse_assembly
    monkeypatch.setattr(llvm, "parse_assembly", lambda text: given.append(text) or real(text))
    native._kernels.clear()
    names = ["exec", "import_", "system", "x1e5", "ret", "call"]
    text = " + ".join(f"exp({n})*{n}**2.5e-1 + 1.2345678e-300*{n}" for n in names)
    graph = compile_expression(text, names)
    assert native.kernel_of(sweep_for(graph, graph.variables)) is not None
    (code,) = given
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", code))
    assert not words & {"exec", "import_", "system", "x1e5"}
    assert "2.5" not in code and "e-300" not in code and "12345678" not in code


def test_long_programs_replay_step_by_step(monkeypatch) -> None:
    """Past MAX_STEPS steps the program is not compiled (LLVM's time grows faster)."""
    text = "sin(x)*exp(y) + cos(x*y)"
    steps = len(sweep_for(compile_expression(text), ("x", "y")).steps)
    monkeypatch.setattr(native, "MAX_STEPS", steps - 1)
    assert native.kernel_of(sweep_for(compile_expression(text), ("x", "y"))) is None
    monkeypatch.setattr(native, "MAX_STEPS", steps)
    assert native.kernel_of(sweep_for(compile_expression(text), ("x", "y"))) is not None


def test_outputs_land_in_any_array_given() -> None:
    """An output array the kernel cannot write into directly (strided) still gets the values."""
    sweep = sweep_for(compile_expression("x*exp(y)"), ("x", "y"))
    kernel = native.kernel_of(sweep)
    assert kernel is not None
    x, y = np.linspace(-1, 1, 10), np.linspace(0, 2, 10)
    slot = sweep.gradients[0]["y"]
    strided = np.zeros(20)[::2]
    slots = [x, y] + [None] * (sweep.size - 2)
    for k, value in sweep.constants.items():
        slots[k] = value
    native.run(kernel, slots, 10, {slot: strided}, lambda mask: None)
    assert slots[slot] is strided
    assert ulps(strided, x * np.exp(y)).max() <= 4


@pytest.mark.parametrize(
    "text",
    [
        "tanh(10*x) + exp(40*y)",  # saturated slopes, exploding and vanishing partials
        "1/(1+exp(-30*x*y)) + y",  # a saturating sigmoid
        "x^3*y + log(y)",  # 0 partials where x = 0; undefined where y <= 0
    ],
)
def test_findings_are_the_replays(text: str) -> None:
    """The extents the kernel measures decide which slices are looked at point by point:
    the findings must be those numpy's steps find, point for point, in every slice (a
    finding in the last, padded pass of a slice too)."""
    graph = compile_expression(text)
    sweep = record_sweep(graph, graph.variables)
    rng = np.random.default_rng(5)
    arrays = {n: rng.uniform(-1.0, 1.0, 4099) for n in graph.variables}
    arrays["x"][[7, 1000, 4098]] = [0.0, 3.0, 0.0]
    arrays["y"][[8, 2000, 4097]] = [20.0, -1e-3, 1e-300]
    plain = run_sweep(sweep, arrays, kernels="numpy", chunk=1023)
    fast = run_sweep(sweep, arrays, kernels="native", chunk=1023)
    assert plain.findings or plain.flagged is not None  # something to find
    assert_same_flags_and_close(plain, fast, 4099)


def test_a_kernel_llvm_refuses_leaves_the_program_to_numpy(monkeypatch) -> None:
    """Whatever goes wrong in compiling, the batch is computed, by numpy's steps."""

    def refuse(sweep, lanes):
        raise RuntimeError("LLVM ERROR: no")

    native._kernels.clear()
    monkeypatch.setattr(native, "module_of", refuse)
    graph = compile_expression("x*exp(-y^2)")
    sweep = sweep_for(graph, graph.variables)
    arrays = {n: np.linspace(0.1, 1.0, 30_000) for n in graph.variables}
    assert kernels_for(sweep, 30_000, "native") == "numpy"
    plain = run_sweep(sweep, arrays, kernels="numpy")
    assert np.array_equal(run_sweep(sweep, arrays).gradients[0]["y"], plain.gradients[0]["y"])
    native._kernels.clear()


@pytest.mark.parametrize("text", NEAR_THE_LARGEST_DOUBLE)
def test_a_value_near_the_largest_double_goes_to_the_tape(text: str, monkeypatch) -> None:
    """A maths function's value is flagged from 2^1016 on, even scaled down before
    anything checks it (exp(x)*1e-300 was not: only checked values and outputs were)."""
    assert_huge_values_go_to_the_tape(text, "native", monkeypatch)
