"""apps.explain.derivation: the symbolic derivative rule by rule -- each step sympy's derivative of
its subject, the rules named, long derivations capped, slow ones stopped with their steps."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc import grad
from gradcalc.apps.explain import derivation as derivation_module
from gradcalc.apps.explain.derivation import MAX_RULE_STEPS, derivation
from gradcalc.apps.explain.explain import explain
from gradcalc.apps.explain.explain_render import to_markdown
from gradcalc.engine.run.api import compile_expression
from gradcalc.symbolic.crosscheck.crosscheck import to_sympy
from gradcalc.symbolic.translate.derivative import symbol


def derived(program: str, source: str):
    graph = compile_expression(program)
    statements = {i: symbol(name) for name, i in graph.bindings.items()}
    return derivation(graph, statements, to_sympy(graph, statements), source)


def test_each_step_is_sympys_derivative_of_its_subject() -> None:
    x = sp.Symbol("x", real=True)
    d = derived("y = x**2; z = sin(y)*y", "x")
    assert [step.rule for step in d.steps] == ["power rule", "chain rule", "product rule"]
    y = x**2
    assert d.steps[0].result == sp.diff(y, x)
    assert sp.simplify(d.steps[1].result.subs(symbol("y"), y) - sp.diff(sp.sin(y), x)) == 0
    assert sp.simplify(d.expanded - sp.diff(sp.sin(y) * y, x)) == 0


def test_a_statement_source_is_held_independent() -> None:
    d = derived("y = x**2; z = y**3 + x", "y")
    assert d.result == 3 * symbol("y") ** 2  # x is not seen through y
    assert d.expanded == 3 * sp.Symbol("x", real=True) ** 4


def test_the_chain_rule_names_the_outer_derivative() -> None:
    md = to_markdown(explain("exp(x**2)", at={"x": 1}))
    assert "1. `d/dx [x^2] = 2x` (power rule)" in md
    assert "2. `d/dx [exp(x^2)] = 2x*exp(x^2)` (chain rule: d/du exp(u) = exp(u))" in md


def test_a_long_derivation_is_capped_but_finished() -> None:
    program = "a0 = x; " + "; ".join(f"a{k + 1} = a{k}*1.01 + 1" for k in range(60))
    e = explain(program, at={"x": 0.5})
    (d,) = e.derivations
    assert len(d.steps) == MAX_RULE_STEPS
    assert d.omitted == 2 * 60 - MAX_RULE_STEPS
    assert d.result == sp.Rational(101, 100) ** 60
    assert e.gradient["x"] == pytest.approx(1.01**60, rel=1e-12)
    md = to_markdown(e)
    assert f"- … ({d.omitted} more steps)" in md
    assert "120. `d/dx [a60] = " in md


def test_a_derivation_out_of_time_keeps_its_steps(monkeypatch) -> None:
    monkeypatch.setattr(derivation_module, "SYMBOLIC_TIMEOUT", 1e-6)
    program = "a0 = x; " + "; ".join(f"a{k + 1} = sin(a{k}) + a{k}/2" for k in range(30))
    e = explain(program, at={"x": 0.5})
    (d,) = e.derivations
    assert d.result is None
    assert d.note.startswith("stopped after")
    assert e.gradient["x"] == pytest.approx(grad(program, at={"x": 0.5}, check=False).gradient["x"])
    assert f"∂a30/∂x: {d.note}" in to_markdown(e)


@pytest.mark.parametrize("seed", range(5))
def test_a_long_max_is_derived_right_for_every_source(seed: int) -> None:
    """Max(x0, ..., x7): each source's derivation (subjects converted once, shared by
    every source) against sympy's own derivative of the flat Max, at a random point
    without ties."""
    import random

    rng = random.Random(seed)
    names = [f"x{k}" for k in range(8)]
    graph = compile_expression(f"Max({', '.join(names)})")
    inline = to_sympy(graph, {})
    symbols = [sp.Symbol(n, real=True) for n in names]
    values = {s: sp.Rational(v, 7) for s, v in zip(symbols, rng.sample(range(-999, 999), 8))}
    for name, s in zip(names, symbols):
        d = derivation(graph, {}, inline, name)
        truth = sp.diff(sp.Max(*symbols), s).subs(values)
        assert d.result.subs(values) == truth, name
        assert d.steps[-1].subject == sp.Max(*symbols)


def test_the_sources_share_one_budget(monkeypatch) -> None:
    """Twenty sources never take twenty budgets: once the shared one is spent, a source
    gets no steps and says why."""
    graph = compile_expression("x*y + z")
    monkeypatch.setattr(derivation_module, "ALL_SOURCES_TIMEOUT", 0.0)
    found = derivation_module.derivations(graph, {}, to_sympy(graph, {}), ["x", "y", "z"])
    assert [d.steps for d in found] == [(), (), ()]
    assert all(d.result is None and "budget of 0 s is spent" in d.note for d in found)
