"""`gradcalc ops`: the catalog against the registry, the parser, sympy and the tape itself."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import sympy as sp

from gradcalc.apps import catalog
from gradcalc.core.ops import ANYWHERE, FUNCTION_NAMES, REGISTRY
from gradcalc.engine.run import api
from gradcalc.lang.literals import CONSTANTS
from gradcalc.lang.parser import parse_program
from gradcalc.lang.syntax import Call

FUNCTIONS = catalog.functions()
BY_NAME = {item.name: item for item in FUNCTIONS}
#: The elementwise functions: a sympy derivative rule each (tensor ops state theirs in words).
SCALAR = [item for item in FUNCTIONS if FUNCTION_NAMES[item.name].elementwise]


def op_of(item: catalog.Entry):
    return FUNCTION_NAMES[item.name]


def test_every_parser_spelling_is_listed_once() -> None:
    listed = [s for item in FUNCTIONS for s in (item.name, *item.spellings)]
    assert sorted(listed) == sorted(FUNCTION_NAMES)
    internal = {op.name for op in REGISTRY.values() if not op.names and op.symbol is None}
    # the only ops left out: the parser cannot call them (v[0] is written with brackets)
    assert internal == {"sum_to", "broadcast_to", "reshape", "scatter", "index"}
    assert not internal & set(listed)


@pytest.mark.parametrize("item", FUNCTIONS, ids=[item.name for item in FUNCTIONS])
def test_every_spelling_parses_to_the_entrys_op(item: catalog.Entry) -> None:
    op = op_of(item)
    args = ", ".join(op.args)
    for spelling in (item.name, *item.spellings):
        tree = parse_program(f"{spelling}({args})").statements[0].expr
        assert isinstance(tree, Call) and tree.op == op.name


def _rhs(text: str, names: tuple[str, ...]):
    symbols = {n: sp.Symbol(n, real=True, nonzero=True) for n in names}
    return sp.sympify(text, locals=symbols), symbols


@pytest.mark.parametrize("item", SCALAR, ids=[item.name for item in SCALAR])
def test_each_rule_is_sympys_derivative_of_the_counterpart(item: catalog.Entry) -> None:
    op = op_of(item)
    names = op.args
    assert len(item.rules) == op.arity
    for k, (rule, shown) in enumerate(zip(item.rules, item.derivatives)):
        assert rule.endswith(f"= {shown}")
        assert rule.split(" ")[0][-1] == names[k]  # d/dx or ∂/∂y
        value, symbols = _rhs(shown, names)
        args = [symbols[n] for n in names]
        truth = sp.diff(op.sympy(sp, *args), args[k])
        if truth.has(sp.Derivative):  # sympy cannot differentiate floor: checked numerically
            assert op.name in ("floor", "ceiling") and value == 0
            continue
        assert sp.simplify(value - truth) == 0, (rule, truth)


@pytest.mark.parametrize("item", SCALAR, ids=[item.name for item in SCALAR])
def test_each_rule_agrees_with_the_tape_at_sample_points(item: catalog.Entry) -> None:
    """Independent of sympy's differentiation: the tape's gradient at random points."""
    op = op_of(item)
    names = op.args
    rng = np.random.default_rng(7)
    samples = op.sample or (ANYWHERE,) * op.arity
    call = f"{item.name}({', '.join(names)})"
    for _ in range(5):
        point = {
            n: samples[i][rng.integers(len(samples[i]))].draw(rng) for i, n in enumerate(names)
        }
        tape = api.grad(call, at=point, check=False).gradient
        for name, shown in zip(names, item.derivatives):
            value, symbols = _rhs(shown, names)
            exact = float(value.subs({symbols[n]: point[n] for n in names}))
            assert math.isclose(float(tape[name]), exact, rel_tol=1e-9, abs_tol=1e-12), (
                call,
                point,
                name,
            )


def test_tensor_ops_state_their_rule_in_words() -> None:
    tensor = [item for item in FUNCTIONS if item not in SCALAR]
    assert {item.name for item in tensor} >= {"sum", "mean", "softmax", "transpose", "dot"}
    for item in tensor:
        assert item.rules == (FUNCTION_NAMES[item.name].summary,) and "adjoint" in item.rules[0]
    assert BY_NAME["sum"].call == "sum(x, axis=...)"


def test_domains_are_the_registrys_own_reasons() -> None:
    for item in SCALAR:
        op = op_of(item)
        assert bool(item.domain) == (op.domain is not None), item.name
    log = [reason for _, reason in BY_NAME["log"].domain]
    assert log == [issue.reason for issue in REGISTRY["log"].issues(np.array([-1.0, 0.0]))]
    assert ("not differentiable", "abs has a corner at 0") in BY_NAME["abs"].domain
    assert ("not differentiable", "floor jumps at integers") in BY_NAME["floor"].domain
    assert BY_NAME["sin"].domain == () and BY_NAME["sin"].domain_text() == "everywhere"
    tan = BY_NAME["tan"].domain
    assert tan and all(kind == "undefined" for kind, _ in tan)


def test_operators_and_constants_come_from_the_parser() -> None:
    operators = {item.name: item for item in catalog.operators()}
    assert set(operators) == {"+", "-", "*", "/", "**", "@"}
    assert operators["@"].call == "x @ y" and "adjoint" in operators["@"].rules[0]
    assert operators["**"].spellings == ("^",)
    assert [(item.call, item.rules) for item in catalog.operators() if item.name == "-"] == [
        ("x - y", ("∂/∂x x - y = 1", "∂/∂y x - y = -1")),
        ("-x", ("d/dx -x = -1",)),
    ]
    assert operators["/"].domain == (("undefined", "division by zero"),)
    constants = {item.name: item for item in catalog.constants()}
    assert constants["pi"].value == math.pi
    assert constants["e"].value == math.e and constants["e"].spellings == ("E",)
    assert {s for item in constants.values() for s in (item.name, *item.spellings)} == set(
        CONSTANTS
    )


def test_entry_finds_any_spelling_and_suggests_for_typos() -> None:
    assert catalog.entry("arcsin").name == "asin"
    assert catalog.entry("^").name == "**"
    with pytest.raises(Exception, match="did you mean 'sqrt'"):
        catalog.entry("sqr")


def test_ops_command_formats(cli) -> None:
    out = cli.invoke(["ops", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert len(data) == len(catalog.catalog())
    sin = next(d for d in data if d["name"] == "sin")
    assert sin["derivatives"] == ["d/dx sin(x) = cos(x)"] and sin["domain"] == []
    plain = cli.invoke(["ops", "sin", "ln", "--format", "plain"]).stdout.splitlines()
    assert plain == [
        "sin\t-\td/dx sin(x) = cos(x)\teverywhere",
        "log\tln\td/dx log(x) = 1/x\tln is undefined for negative numbers; ln(0) is -infinity",
    ]
    table = cli.invoke(["ops"], terminal_width=100).stdout
    for item in FUNCTIONS:
        assert item.call in table
    bad = cli.invoke(["ops", "sni"])
    assert bad.exit_code == 2 and "did you mean 'sin'" in bad.output
