"""The fused kernels (gradcalc.engine.compile.fused) against the step-by-step replay.

numexpr's sin, exp, ... are the C library's and numpy has its own, so the kernels agree with
the replay (and the tape) to a few units in the last place, not bit for bit; everything else
-- flagged points, findings -- is the same. Only text gradcalc writes reaches numexpr.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from gradcalc.engine.compile import fused
from gradcalc.engine.compile.replay import kernels_for, run_sweep
from gradcalc.engine.compile.sweep import record_sweep, sweep_for
from gradcalc.engine.run.api import compile_expression
from tests.engine.agreement import (
    CANCELLATIONS,
    NEAR_THE_LARGEST_DOUBLE,
    assert_decides_as_the_replay,
    assert_huge_values_go_to_the_tape,
    assert_same_flags_and_close,
    normwise_ulps,
    ulps,
)
from tests.engine.test_replay import BENCHMARK_EXPRESSIONS, random_trees

numexpr = pytest.importorskip("numexpr")


#: every token a kernel's text may hold: slot names, the templates' function names and
#: numbers, operators, parentheses and commas
TOKEN = re.compile(r"s[0-9]+|[a-z0-9]+|1\.0|[-+*/(), ]|\*\*")


def _runs(text: str, variables, arrays):
    graph = compile_expression(text, variables)
    sweep = record_sweep(graph, graph.variables)
    return (
        sweep,
        run_sweep(sweep, arrays, kernels="numpy"),
        run_sweep(sweep, arrays, kernels="numexpr"),
    )


@pytest.mark.parametrize("text", CANCELLATIONS)
def test_a_boundary_reached_by_cancellation_is_decided_on_numpys_bits(text: str) -> None:
    """Each domain rule's boundary reached by an exact cancellation (or tie) of numpy's
    values: the maths functions a rule reads run as numpy's steps, so the fused replay flags
    exactly the points numpy's steps flag. (numexpr's cosh missed the four ties of
    max(cosh(sin(x + x)), cosh(sin(2))): a one-sided derivative given where the tape says
    there is none.)"""
    arrays = {"x": np.concatenate([[-1.0, 1.0, 0.0], np.linspace(-3.0, 3.0, 997)])}
    sweep, plain, fast = _runs(text, ("x",), arrays)
    assert fused.kernels_of(sweep) is not None  # (else this would test numpy twice)
    assert_same_flags_and_close(plain, fast, 1000)


def test_maths_functions_no_rule_reads_are_still_fused() -> None:
    sweep = record_sweep(compile_expression("abs(x) + sin(x)*exp(x)"), ("x",))
    kernels = fused.kernels_of(sweep)
    assert kernels is not None
    texts = " ".join(kernels.texts())  # the value's maths, and the derivative's cos
    assert "sin(s0)" in texts and "exp(s0)" in texts and "cos(s0)" in texts


@pytest.mark.parametrize("text", BENCHMARK_EXPRESSIONS, ids="abcd")
def test_fused_kernels_agree_with_the_replay_to_a_few_ulps(text: str) -> None:
    names = sorted(set(re.findall(r"\b(?:w1|w2|x|y|z)\b", text)))
    rng = np.random.default_rng(4)
    arrays = {n: rng.uniform(-2.0, 2.0, 70_000) for n in names}  # three slices
    sweep, plain, fast = _runs(text, names, arrays)
    assert fused.kernels_of(sweep) is not None
    assert len(fused.kernels_of(sweep).stages) < len(sweep.steps)
    assert plain.flagged is None and fast.flagged is None
    pairs = [(plain.values[0], fast.values[0])]
    pairs += [(plain.gradients[0][n], fast.gradients[0][n]) for n in names]
    for a, b in pairs:  # sums of terms: a few ulps of the batch's largest, normwise
        assert normwise_ulps(a, b) <= 16


@random_trees
def test_random_trees_fuse_to_the_same_numbers(tree, seed) -> None:
    """Every point numpy's steps flag (and those where a function that overflows reaches
    2^1016: x = 1e300 here), the same findings elsewhere, and values and gradients that
    agree at every clean point: to the ulps that each op differs by (see above), as amplified by how
    ill-conditioned the expression is -- ``exp(sin(2x - cot(tanh(x) + 2)^2))`` turns one ulp
    of a cotangent near 7 into hundreds of ulps of the result, for any two libraries, and
    sines of huge arguments into thousands -- so here within 1e-9 of the batch's largest."""
    text, _ = tree
    rng = np.random.default_rng(seed)
    arrays = {n: rng.uniform(-3.0, 3.0, 500) for n in ("x", "y")}
    arrays["x"][:4] = [0.0, 1.0, -1.0, 1e300]
    _, plain, fast = _runs(text, ["x", "y"], arrays)
    assert_decides_as_the_replay(plain, fast, 500)


def test_kernels_are_written_from_slot_numbers_and_the_table_only(monkeypatch) -> None:
    """Variable names chosen to collide with numexpr's own names and syntax, and constants
    typed as text, never reach numexpr: every text it compiles is made of slot names, the
    table's templates and operators."""
    compiled: list[str] = []
    real = numexpr.NumExpr

    def spy(text, *args, **kwargs):
        compiled.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(numexpr, "NumExpr", spy)
    names = ["where", "arange", "contains", "ones_like", "class_", "exec", "import_", "s", "x1e5"]
    text = " + ".join(f"sin({n})*{n}**2.5e-1 + 1e-300*{n}" for n in names)
    graph = compile_expression(text, names)
    sweep = sweep_for(graph, graph.variables)
    kernels = fused.fuse(sweep)
    assert kernels is not None and compiled
    for code in compiled:
        assert "".join(TOKEN.findall(code)) == code
        words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", code))
        assert words <= {*(f"s{k}" for k in range(sweep.size)), *_template_words()}
        assert "e-300" not in code and "2.5" not in code  # constants are slots, not text
    arrays = {n: np.linspace(0.1, 2.0, 300) for n in names}
    plain, fast = (
        run_sweep(sweep, arrays, kernels="numpy"),
        run_sweep(sweep, arrays, kernels="numexpr"),
    )
    assert normwise_ulps(plain.values[0], fast.values[0]) <= 16


def _template_words() -> set[str]:
    return {w for t in fused.KERNELS.values() for w in re.findall(r"[a-z_][a-z_0-9]*", t)}


def test_every_template_names_a_registry_op_and_computes_its_forward() -> None:
    from gradcalc.core.ops import REGISTRY

    rng = np.random.default_rng(0)
    for name, template in fused.KERNELS.items():
        op = REGISTRY[name]
        low = 1.1 if name == "acosh" else 0.1  # inside every domain
        args = [rng.uniform(low, low + 0.8, 1000) for _ in range(op.arity)]
        signature = [(f"s{k}", np.float64) for k in range(op.arity)]
        text = template.format(*(f"s{k}" for k in range(op.arity)))
        got = numexpr.NumExpr(text, signature)(*args, ex_uses_vml=False)
        assert ulps(op.forward(*args), got).max() <= 4, name


def test_without_numexpr_or_when_not_chosen_the_replay_runs_step_by_step(monkeypatch) -> None:
    sweep = sweep_for(compile_expression("x*sin(x) + 1"), ("x",))
    monkeypatch.delenv("GRADCALC_KERNELS", raising=False)
    assert kernels_for(sweep, 10**6) != "numexpr" and kernels_for(sweep, 10) == "numpy"
    monkeypatch.setenv("GRADCALC_KERNELS", "numexpr")
    assert kernels_for(sweep, 10**6) == "numexpr"
    monkeypatch.setitem(__import__("sys").modules, "numexpr", None)  # as if not installed
    assert not fused.available() and kernels_for(sweep, 10**6) == "numpy"


@pytest.mark.parametrize("text", NEAR_THE_LARGEST_DOUBLE)
def test_a_value_near_the_largest_double_goes_to_the_tape(text: str, monkeypatch) -> None:
    """A maths function's value is flagged from 2^1016 on, even scaled down before
    anything checks it (see agreement.assert_huge_values_go_to_the_tape)."""
    assert_huge_values_go_to_the_tape(text, "numexpr", monkeypatch)
