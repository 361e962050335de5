"""The one-point fast path of a stream (gradcalc.engine.run.scalar) against the full tape.

The fast path runs a plan recorded from *another* expression of the same shape (other
numbers) on numpy scalars. Wherever it answers, its value and gradient must be the tape's bit
for bit (signs of zeros included) and the full tape must find nothing to explain there: no
undefined point, no kink, no NaN or infinity, no diagnostic finding. Everywhere else it must
decline, so that the tape answers.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gradcalc.engine.evaluate.evaluate import Evaluation, evaluate
from gradcalc.engine.evaluate.points import Points, parse_at
from gradcalc.engine.run.api import Options, compile_expression, gradient_at
from gradcalc.engine.run.scalar import Plans, plannable, planning, scalar_evaluation
from gradcalc.lang.graph import Graph
from tests.engine.test_replay import random_trees

#: Points where kinks, domain edges, overflow and underflow are.
AWKWARD = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 1e-300, 1e300, -1e300, 1e8, 710.0, -745.0]


def _sibling(graph: Graph, seed: int) -> Graph:
    """The same shape with other numbers (0 and 1 among them)."""
    _, numbers = plannable(graph) or (None, ())
    rng = np.random.default_rng(seed)
    nodes = list(graph.nodes)
    for i in numbers:
        drawn = rng.choice([0.0, 1.0, round(float(rng.uniform(0.1, 4.0)), 3)], p=[0.2, 0.2, 0.6])
        nodes[i] = replace(nodes[i], text=repr(float(drawn)))
    return replace(graph, nodes=nodes, cache={})


def _point(graph: Graph, values: dict[str, float]) -> Points:
    arrays = {v: np.asarray(values[v]) for v in graph.variables}
    return Points(tuple(arrays), arrays, [{v: repr(values[v]) for v in graph.variables}])


def _fast(graph: Graph, points: Points, seed: int = 0) -> Evaluation | None:
    """The fast path at ``points`` with a plan recorded from a sibling of ``graph``."""
    sibling, probe = _sibling(graph, seed), _point(graph, dict.fromkeys(graph.variables, 0.75))
    with planning(Plans()):
        for _ in range(2):  # seen once, then planned
            scalar_evaluation(sibling, probe)
        return scalar_evaluation(graph, points)


def _same_bits(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return np.asarray(a, dtype=float).tobytes() == np.asarray(b, dtype=float).tobytes()


def _assert_the_tapes(graph: Graph, points: Points, fast: Evaluation) -> None:
    taped = evaluate(graph, points.arrays)
    for k in range(len(graph.targets)):
        assert _same_bits(fast.values[k], taped.values[k])
        assert fast.gradients[k].keys() == taped.gradients[k].keys()
        for name, g in taped.gradients[k].items():
            mine = fast.gradients[k][name]
            assert (mine is None) == (g is None)
            assert g is None or _same_bits(mine, g), (graph.text, name, mine, g)
    full = gradient_at(graph, points, options=Options(check=False, strict=False))
    for result in full:  # the tape finds nothing to explain where the fast path answered
        assert not result.singularities and not result.diagnostics, result.diagnostics
    rows = fast.rows[0]
    assert [r.formula for r in rows] == [r.formula for r in taped.rows[0]]


@random_trees
def test_random_trees_answer_as_the_tape_or_not_at_all(tree, seed) -> None:
    """At awkward points and random ones, with a plan made from other numbers."""
    text, _ = tree
    _assert_where_it_answers(compile_expression(text, ["x", "y"]), seed)


@random_trees
def test_random_trees_with_numbers_of_0_and_1(tree, seed) -> None:
    """The same, for the tree's shape with numbers of 0 and 1 among its own."""
    text, _ = tree
    graph = compile_expression(text, ["x", "y"])
    _assert_where_it_answers(_sibling(graph, seed + 1), seed)


def _assert_where_it_answers(graph: Graph, seed: int) -> None:
    """Wherever the fast path answers at six awkward or random points, the tape's answer."""
    rng = np.random.default_rng(seed)
    values = AWKWARD + list(rng.uniform(-3, 3, 4))
    for _ in range(6):
        point = _point(graph, {"x": rng.choice(values), "y": rng.choice(values)})
        fast = _fast(graph, point, seed)
        if fast is not None:
            _assert_the_tapes(graph, point, fast)


STREAM = [  # the benchmark's templates, and programs, several targets, activations
    "1.3*x^2+0.9*x*y",
    "2.5*sin(x)*y+1.5*y^2",
    "exp(1.2*x)*y-0.8*x*y^2",
    "0.6*x^3+1.1*x*y+2.2*y^2",
    "log(1+x^2)*y+2.1*cos(y)",
    "2.9*x*y/(1+y^2)+0.4*x",
    "u = 2.5*x*y; v = u^2 + 3.5*x",
    "0.5*x*y, tanh(0.3*x) + y",
    "sigmoid(0.7*x) * softplus(1.5*y) + atan2(y, 2.5 + x^2)",
    "max(1.5*x, y) + abs(x - 2.5*y)",
    "1.0*x^2+0.9*x*y",  # 0 and 1 are numbers of the shape like any other
    "exp(1*x)*y-0.8*x*y^2 + 0*y",
    "0.0*x^3+1.1*x*y+1*y^2",
]


@pytest.mark.parametrize("text", STREAM)
@pytest.mark.parametrize("at", [(0.3, 1.7), (-1.25, 0.4), (2.0, -3.0)])
def test_stream_expressions_take_the_fast_path_with_the_tapes_numbers(text, at) -> None:
    graph = compile_expression(text, ["x", "y"])
    point = _point(graph, dict(zip(("x", "y"), at)))
    fast = _fast(graph, point)
    assert fast is not None
    _assert_the_tapes(graph, point, fast)


@pytest.mark.parametrize(
    "text, at",
    [
        ("2.5*abs(x) + y", (0.0, 1.0)),  # a kink
        ("1.5/x + y", (0.0, 1.0)),  # undefined
        ("sqrt(2.5*x) + y", (0.0, 1.0)),  # an infinite slope
        ("log(2.5*x) * y", (-1.0, 1.0)),  # outside the domain
        ("exp(2.5*x) + y", (400.0, 1.0)),  # overflow
        ("sigmoid(30.5*x) + y", (1.0, 1.0)),  # saturated
        ("exp(-40.5*x) * y", (1.0, 1.0)),  # vanishing
        ("exp(20.5*x) * y", (1.0, 1.0)),  # exploding
        ("2.5*x*y", (1.0, 0.0)),  # a gradient component that is exactly 0
        ("2.5*x + y", (float("inf"), 1.0)),  # an infinite point
    ],
)
def test_anything_unusual_is_left_to_the_tape(text, at) -> None:
    graph = compile_expression(text, ["x", "y"])
    assert _fast(graph, _point(graph, dict(zip(("x", "y"), at)))) is None


@pytest.mark.parametrize(
    "text",
    [
        "log(2.5)*x",  # a constant subexpression under a domain rule: checked apart
        "x^(2.5*0.8)",  # a number in an exponent: the power rule reads its value
        "sum(2.5*x)",  # a tensor op
    ],
)
def test_shapes_a_tape_treats_apart_are_not_planned(text) -> None:
    graph = compile_expression(text, ["x"])
    store = Plans()
    with planning(store):
        runs = [scalar_evaluation(graph, parse_at(["x=0.5"])) for _ in range(3)]
    assert runs == [None] * 3 and all(plan is None for plan in store.plans.values())


def test_a_shape_is_planned_the_second_time_and_only_inside_planning() -> None:
    graph = compile_expression("1.5*x^2*y", ["x", "y"])
    point = parse_at(["x=2,y=3"])
    assert scalar_evaluation(graph, point) is None  # outside planning
    store = Plans()
    with planning(store):
        first = scalar_evaluation(graph, point)
        second = scalar_evaluation(compile_expression("2.5*x^2*y", ["x", "y"]), point)
    assert first is None and second is not None and len(store.plans) == 1
    assert {s: float(np.asarray(g)) for s, g in second.gradients[0].items()} == {
        "x": 30.0,
        "y": 10.0,
    }


def test_coefficients_of_0_and_1_share_the_shape_of_any_other() -> None:
    """``1.0*x^2 + 2.5*x*y + 0*y`` runs the plan recorded for ``1.3*x^2 + 0.9*x*y + 0.4*y``,
    and the reverse, each with the tape's bits."""
    texts = [
        "1.3*x^2 + 0.9*x*y + 0.4*y",
        "1.0*x^2 + 2.5*x*y + 0*y",
        "0.7*x^2 + 1*x*y + 0.0*y",
        "0*x^2 + 1.0*x*y + 1*y",
    ]
    graphs = [compile_expression(text, ["x", "y"]) for text in texts]
    point = parse_at(["x=0.75,y=-1.5"])
    store = Plans()
    with planning(store):
        runs = [scalar_evaluation(graph, point) for graph in graphs]
    assert runs[0] is None and len(store.plans) == 1  # the first of the shape: the tape's
    for graph, run in zip(graphs[1:], runs[1:]):
        assert run is not None
        _assert_the_tapes(graph, point, run)


def test_statement_sources_and_several_points_take_the_tape() -> None:
    graph = compile_expression("u = 2.5*x; v = u*y", ["x", "y"])
    with planning(Plans()):
        for _ in range(2):
            assert scalar_evaluation(graph, parse_at(["x=1,y=2"]), wrt=["u"]) is None
        assert scalar_evaluation(graph, parse_at(["x=1,y=2", "x=2,y=3"])) is None
        runs = [scalar_evaluation(graph, parse_at(["x=1,y=2"])) for _ in range(2)]
        assert runs[0] is None and runs[1] is not None
