"""Where a native kernel's last bits could decide otherwise than numpy's (gradcalc.engine.
native_bounds and native_rules): each domain rule's boundary reached by an exact
cancellation of numpy's sines, which libmvec's last ulp misses, must be told as the tape
tells it."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.core.ops import REGISTRY
from gradcalc.engine.compile import native, native_code, native_rules
from gradcalc.engine.compile.replay import run_sweep
from gradcalc.engine.compile.sweep import record_sweep
from gradcalc.engine.run.api import compile_expression
from tests.engine.agreement import CANCELLATIONS, assert_decides_as_the_replay
from tests.engine.test_native import assert_same_answers

pytest.importorskip("llvmlite")
pytestmark = pytest.mark.skipif(not native.available(), reason="llvmlite makes no code here")


@pytest.mark.parametrize("text", CANCELLATIONS)
def test_a_boundary_reached_by_cancellation_is_the_tapes(text: str) -> None:
    """Each domain rule's boundary reached at x = -1 (or 1) by an exact cancellation of
    numpy's sines, which another library's last ulp misses: the native replay flags or
    settles the point, and the user is told what the tape tells (the kink, the pole, the
    tie, a partial of exactly 0 that is not vanishing)."""
    graph = compile_expression(text)
    sweep = record_sweep(graph, graph.variables)
    assert native.kernel_of(sweep) is not None  # (else this would test numpy twice)
    arrays = {"x": np.concatenate([[-1.0, 1.0, 0.0], np.linspace(-3.0, 3.0, 997)])}
    plain = run_sweep(sweep, arrays, kernels="numpy")
    fast = run_sweep(sweep, arrays, kernels="native")
    assert_decides_as_the_replay(plain, fast, 1000)
    assert_same_answers(graph, arrays)


def test_a_partial_of_exactly_zero_at_many_points_is_settled_by_numpy() -> None:
    """max(x, c) has a partial of exactly 0 wherever it picks the constant, made of maths
    functions here: the replay computes those points again with numpy's steps (flagging
    none of them for the tape), and the partials there are numpy's, bit for bit."""
    graph = compile_expression("max(cosh(sin(x + x)), cosh(sin(2)))")
    sweep = record_sweep(graph, graph.variables)
    kernel = native.kernel_of(sweep)
    assert kernel is not None and kernel.doubtful
    arrays = {"x": np.linspace(-3.0, 3.0, 30_001)}
    plain = run_sweep(sweep, arrays, kernels="numpy")
    fast = run_sweep(sweep, arrays, kernels="native")
    zero = plain.gradients[0]["x"] == 0
    assert zero.sum() > 10_000
    assert np.array_equal(fast.gradients[0]["x"][zero], plain.gradients[0]["x"][zero])
    none = np.zeros(30_001, bool)
    flagged = [none if r.flagged is None else r.flagged for r in (plain, fast)]
    assert np.array_equal(*flagged)  # (the ties with the constant, if any, and no more)


def test_every_checked_op_the_loop_computes_has_its_boundaries() -> None:
    """An op with a domain rule among the kernel's tables has its boundaries in
    native_bounds (else any program with it would stay with numpy's steps)."""
    computed = {*native_code.ARITHMETIC, *native_code.FUNCTIONS, *native_code.INSTRUCTIONS}
    for name, op in REGISTRY.items():
        ufunc = getattr(op.forward, "__name__", "")
        if op.domain is not None and (ufunc in computed or name in native_code.COMPOSITE):
            assert name in native_rules.BOUNDARIES, name


def test_values_near_the_largest_double_are_the_tapes() -> None:
    """exp(x) * sin(x) near x = 709.78, where exp reaches the largest double: where one
    library's last ulp could overflow and the other's not, the point goes to the tape (an
    inexact value from 2^1016 on), so the undefined points are the tape's."""
    graph = compile_expression("exp(x) * sin(x) + exp(x/2)")
    sweep = record_sweep(graph, graph.variables)
    assert native.kernel_of(sweep) is not None
    arrays = {"x": np.concatenate([np.linspace(709.0, 710.5, 2001), [1.0, 2.0, 3.0]])}
    plain = run_sweep(sweep, arrays, kernels="numpy")
    fast = run_sweep(sweep, arrays, kernels="native")
    assert fast.flagged is not None and fast.flagged[arrays["x"] > 705.4].all()
    assert_decides_as_the_replay(plain, fast, 2004)
    assert_same_answers(graph, arrays)
