"""Every registry entry, tested the same way: its gradient rules against central finite
differences of its numpy forward and against sympy's derivative of its sympy counterpart,
at random points inside its domain, at first and second order (nested tapes)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcalc import Tape, Variable, constant
from gradcalc.core.ops import ANYWHERE, FUNCTION_NAMES, REGISTRY, Op
from gradcalc.symbolic.translate.derivative import derivative

ELEMENTWISE = [op for op in REGISTRY.values() if op.elementwise]
EXAMPLES = 20


def point_strategy(op: Op) -> st.SearchStrategy[tuple[float, ...]]:
    """Random inputs, each drawn from one of the op's sample intervals."""
    per_arg = []
    for intervals in op.sample or (ANYWHERE,) * op.arity:
        per_arg.append(
            st.one_of(
                [st.floats(iv.lo, iv.hi, exclude_min=True, exclude_max=True) for iv in intervals]
            )
        )
    return st.tuples(*per_arg)


def symbolic_partials(op: Op, point: tuple[float, ...], order: int) -> np.ndarray:
    """sympy's derivatives of the op's counterpart at the point (order 1: gradient, 2: Hessian)."""
    symbols = sp.symbols(f"a0:{op.arity}", real=True)
    expr = op.sympy(sp, *symbols)
    subs = {s: sp.Rational(v) for s, v in zip(symbols, point)}

    def at_point(e: sp.Expr) -> float:
        return float(e.evalf(30, subs=subs))

    first = [derivative(expr, s) for s in symbols]
    if order == 1:
        return np.array([at_point(d) for d in first])
    return np.array([[at_point(derivative(d, s)) for s in symbols] for d in first])


def tape_gradient(op: Op, point: tuple[float, ...]) -> np.ndarray:
    xs = [Variable(v) for v in point]
    with Tape() as tape:
        y = op(*xs)
    return np.array([g.value for g in tape.gradient(y, xs, unconnected="zero")])


def tape_hessian(op: Op, point: tuple[float, ...]) -> np.ndarray:
    xs = [Variable(v) for v in point]
    with Tape(persistent=True) as outer:
        with Tape() as inner:
            y = op(*xs)
        grads = inner.gradient(y, xs, unconnected="zero")
    return np.array([[h.value for h in outer.gradient(g, xs, unconnected="zero")] for g in grads])


def central_difference(f, point: tuple[float, ...]) -> np.ndarray:
    """d f / d x_i by central differences with a step scaled to each coordinate."""
    out = []
    for i, v in enumerate(point):
        h = 1e-6 * max(1.0, abs(v))
        up, down = list(point), list(point)
        up[i], down[i] = v + h, v - h
        out.append((np.asarray(f(up)) - np.asarray(f(down))) / (2 * h))
    return np.array(out)


def forward_value(op: Op, point) -> float:
    with np.errstate(all="ignore"):
        return float(op.forward(*(np.float64(v) for v in point)))


OPS = pytest.mark.parametrize("op", ELEMENTWISE, ids=lambda op: op.name)
HYPOTHESIS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@OPS
@HYPOTHESIS
@given(data=st.data())
def test_first_order_rule_matches_sympy_and_finite_differences(op: Op, data) -> None:
    point = data.draw(point_strategy(op))
    grad = tape_gradient(op, point)
    np.testing.assert_allclose(grad, symbolic_partials(op, point, 1), rtol=1e-9, atol=1e-12)
    numeric = central_difference(lambda p: forward_value(op, p), point)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)


@OPS
@HYPOTHESIS
@given(data=st.data())
def test_second_order_rule_matches_sympy_and_finite_differences(op: Op, data) -> None:
    point = data.draw(point_strategy(op))
    hessian = tape_hessian(op, point)
    np.testing.assert_allclose(hessian, symbolic_partials(op, point, 2), rtol=1e-8, atol=1e-10)
    numeric = central_difference(lambda p: tape_gradient(op, p), point)
    np.testing.assert_allclose(hessian, numeric.T, rtol=1e-4, atol=1e-5)


@OPS
@HYPOTHESIS
@given(data=st.data())
def test_forward_matches_sympy_counterpart(op: Op, data) -> None:
    point = data.draw(point_strategy(op))
    symbols = sp.symbols(f"a0:{op.arity}", real=True)
    exact = op.sympy(sp, *symbols).evalf(
        30, subs={s: sp.Rational(v) for s, v in zip(symbols, point)}
    )
    assert forward_value(op, point) == pytest.approx(float(exact), rel=1e-13, abs=1e-15)


def test_every_parser_name_maps_to_an_op_of_the_registry() -> None:
    assert set(FUNCTION_NAMES.values()) <= set(REGISTRY.values())
    assert {"ln", "Abs", "Max", "arcsin", "ceil"} <= set(FUNCTION_NAMES)


def test_the_issue_list_of_primitives_is_covered() -> None:
    required = [
        "add",
        "sub",
        "mul",
        "div",
        "neg",
        "pow",
        "exp",
        "log",
        "sqrt",
        "cbrt",
        "sin",
        "cos",
        "tan",
        "sec",
        "csc",
        "cot",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "abs",
        "sign",
        "max",
        "min",
        "floor",
        "ceiling",
        "erf",
        "relu",
        "sigmoid",
        "softplus",
    ]
    assert set(required) <= set(REGISTRY)


@pytest.mark.parametrize(
    ("name", "point", "reason_fragment"),
    [
        ("log", (-1.0,), "negative numbers"),
        ("log", (0.0,), "-infinity"),
        ("sqrt", (-4.0,), "negative numbers"),
        ("div", (1.0, 0.0), "division by zero"),
        ("asin", (2.0,), "outside [-1, 1]"),
        ("acosh", (0.5,), "below 1"),
        ("atanh", (1.0,), "infinite"),
        ("tan", (np.pi / 2,), "cosine is 0"),
        ("cot", (np.pi,), "sine is 0"),
        ("csc", (0.0,), "sine is 0"),
        ("sec", (-3 * np.pi / 2,), "cosine is 0"),
        ("pow", (-8.0, 1 / 3), "integer exponent"),
        ("pow", (0.0, -1.0), "negative power"),
        ("atan2", (0.0, 0.0), "atan2(0, 0)"),
    ],
)
def test_domain_rules_report_undefined_points(name, point, reason_fragment) -> None:
    issues = REGISTRY[name].issues(*(np.float64(v) for v in point))
    assert [i.kind for i in issues if reason_fragment in i.reason] == ["undefined"]


@pytest.mark.parametrize(
    ("name", "point"),
    [
        ("abs", (0.0,)),
        ("sqrt", (0.0,)),
        ("cbrt", (0.0,)),
        ("max", (1.0, 1.0)),
        ("min", (2.0, 2.0)),
        ("relu", (0.0,)),
        ("floor", (3.0,)),
        ("ceiling", (-1.0,)),
        ("sign", (0.0,)),
        ("asin", (1.0,)),
    ],
)
def test_domain_rules_report_kinks(name, point) -> None:
    kinds = {i.kind for i in REGISTRY[name].issues(*(np.float64(v) for v in point))}
    assert kinds == {"not differentiable"}


@pytest.mark.parametrize(
    ("name", "point"),
    [("tan", (1.0,)), ("csc", (1e-20,)), ("log", (1e-300,)), ("pow", (2.0, -1.5))],
)
def test_domain_rules_stay_quiet_inside_the_domain(name, point) -> None:
    assert REGISTRY[name].issues(*(np.float64(v) for v in point)) == []


_NAMED = [op for op in REGISTRY.values() if op.domain and op.names and op.elementwise]
_AROUND = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, np.pi / 2, np.pi])


@pytest.mark.parametrize("op", _NAMED, ids=str)
def test_a_domain_reason_names_the_function_as_the_read_as_line_does(op: Op) -> None:
    """``ln(x) is undefined at x=-1: ln is undefined ...``: a function's reasons name it as
    the read-as line writes a call of it (the parser and the reading's own text), not by
    the op (``log``)."""
    from gradcalc.lang.reading import reading

    read, _ = reading(f"{op.names[0]}({', '.join(op.args)})")
    name = read.partition("(")[0]
    grid = np.meshgrid(*[_AROUND] * op.arity)
    reasons = [issue.reason for issue in op.issues(*grid)]
    assert reasons and all(reason.startswith(name) for reason in reasons), (name, reasons)


def test_cbrt_is_the_real_cube_root_on_both_sides() -> None:
    assert REGISTRY["cbrt"](-8.0).value == -2.0
    assert float(REGISTRY["cbrt"].sympy(sp, sp.Integer(-8))) == -2.0


def test_negative_base_with_integer_exponent_only_blocks_the_exponent_derivative() -> None:
    issues = REGISTRY["pow"].issues(np.float64(-2.0), np.float64(3.0))
    assert [(i.kind, i.arg) for i in issues] == [("not differentiable", 1)]


# --- the per-op facts beside the math: each checked against what it describes ----------------


@pytest.mark.parametrize("op", list(REGISTRY.values()), ids=lambda op: op.name)
def test_argument_names_are_the_ones_the_rules_use(op: Op) -> None:
    assert len(op.args) == op.arity
    for rule in op.grads:
        assert rule.__code__.co_varnames[2 : 2 + op.arity] == op.args


@pytest.mark.parametrize("op", ELEMENTWISE, ids=lambda op: op.name)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_claimed_nan_propagation_holds(op: Op, bad: float) -> None:
    """Where an op claims a NaN or infinity surely reaches its result, it does (for any
    finite values of the other inputs, here a grid of them)."""
    others = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    for position in range(op.arity):
        if not op.propagates(position, [None] * op.arity):
            continue
        grids = np.meshgrid(*([others] * op.arity), indexing="ij")
        inputs = [grid.ravel() for grid in grids]
        inputs[position] = np.full_like(inputs[position], bad)
        with np.errstate(all="ignore"):
            assert not np.isfinite(op.forward(*inputs)).any(), (op.name, position, bad)


def test_pow_propagates_only_through_a_positive_constant_exponent() -> None:
    pow_ = REGISTRY["pow"]
    assert pow_.propagates(0, [None, np.array(2.0)])
    assert not pow_.propagates(0, [None, np.array(-1.0)])  # inf**-1 = 0
    assert not pow_.propagates(0, [None, None])
    assert not pow_.propagates(1, [np.array(2.0), None])  # 2**-inf = 0


@pytest.mark.parametrize("op", [op for op in REGISTRY.values() if op.infix], ids=str)
def test_every_infix_token_parses_to_its_op_with_its_precedence(op: Op) -> None:
    from gradcalc.lang.parser import parse_program

    for token in op.infix:
        tree = parse_program(f"a {token} b {token} c").statements[0].expr
        assert tree.op == op.name
        grouped_right = tree.right.__class__.__name__ == "Binary"
        assert grouped_right == op.right_associative, token
    looser = [o for o in REGISTRY.values() if o.infix and o.precedence < op.precedence]
    for other in looser:
        tree = parse_program(f"a {other.infix[0]} b {op.infix[0]} c").statements[0].expr
        assert tree.op == other.name and tree.right.op == op.name


def test_rule_names_follow_which_arguments_depend_on_the_source() -> None:
    assert REGISTRY["mul"].rule_name([True, True]) == "product rule"
    assert REGISTRY["div"].rule_name([True, False]) == "constant multiple rule"
    assert REGISTRY["pow"].rule_name([False, True], nested=False) == "exponential rule"
    assert REGISTRY["pow"].rule_name([True, False]) == "power rule with the chain rule"
    assert REGISTRY["exp"].rule_name([True], nested=False) == "derivative of exp"


def test_the_type_checkers_view_of_tensor_operators_is_the_registrys() -> None:
    """Tensor declares the operators the registry installs, for type checkers (py.typed)."""
    import ast
    import inspect

    from gradcalc.core import tensor

    tree = ast.parse(inspect.getsource(tensor.Tensor))
    (block,) = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.If) and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING"
    ]
    declared = {n.name for n in block.body if isinstance(n, ast.FunctionDef)}
    assert declared == {d for op in REGISTRY.values() for d in op.dunders}


@pytest.mark.parametrize("exponent", [0.5, 2.0, 7.25])
def test_a_power_of_zero_has_derivative_zero_in_its_exponent(exponent: float) -> None:
    """0^y is 0 for every y > 0 (by hand), so its derivatives in y are 0 -- not
    0 * log(0), NaN -- at first and second order, and for a varying base at 0 too."""
    y = Variable(exponent)
    with Tape() as outer:
        with Tape() as inner:
            z = constant(0.0) ** y
        first = inner.gradient(z, y)
    assert (first.value, outer.gradient(first, y).value) == (0.0, 0.0)
    base = Variable(0.0)
    with Tape() as tape:
        z = base**y
    assert tape.gradient(z, y).value == 0.0


@pytest.mark.parametrize(
    ("name", "x"),
    [("asinh", 1e155), ("asinh", -1e200), ("asinh", 1e300), ("acosh", 1e155), ("acosh", 1e300)],
)
def test_inverse_hyperbolic_slopes_do_not_overflow_far_out(name: str, x: float) -> None:
    """asinh' = 1/sqrt(x^2 + 1) and acosh' = 1/sqrt(x^2 - 1) are about 1/|x| far out (mpmath
    to 50 digits): written with x^2, the rule overflowed past |x| = 1.3e154 to a slope of 0,
    first and second order alike."""
    import mpmath

    with mpmath.workdps(50):
        big = mpmath.mpf(x)
        root = mpmath.sqrt(big**2 + 1) if name == "asinh" else mpmath.sqrt(big**2 - 1)
        slope, curvature = float(1 / root), float(-big / root**3)
    y = Variable(x)
    with Tape() as outer:
        with Tape() as inner:
            z = REGISTRY[name](y)
        first = inner.gradient(z, y)
    second = outer.gradient(first, y)
    assert first.value == pytest.approx(slope, rel=1e-12, abs=0)
    assert second.value == pytest.approx(curvature, rel=1e-12, abs=0)


@pytest.mark.parametrize(
    ("op", "x"),
    [("tan", 1e15), ("tan", 1e16), ("tan", 1e22), ("sec", 1e15), ("csc", 1e16), ("cot", 1e17)],
)
def test_a_large_argument_is_no_pole_by_the_width_of_float64s_steps(op: str, x: float) -> None:
    # the pole rule once allowed 4·eps·|x| (0.9 at 1e15, over a quarter of the period):
    # tan(1e15) was "undefined". The truth: the op at the float x, by mpmath at 40 digits
    import mpmath

    from gradcalc.engine.run.api import grad

    mpmath.mp.dps = 40
    f = {"tan": mpmath.tan, "sec": mpmath.sec, "csc": mpmath.csc, "cot": mpmath.cot}[op]
    truth = float(mpmath.diff(f, mpmath.mpf(x)))
    mpmath.mp.dps = 15
    result = grad(f"{op}(x)", at={"x": x})
    assert not result.undefined.any()
    assert math.isclose(float(result.gradient["x"]), truth, rel_tol=1e-9)


@pytest.mark.parametrize(("op", "pole"), [("tan", np.pi / 2), ("sec", -np.pi / 2), ("cot", np.pi)])
def test_the_float_nearest_a_pole_is_one(op: str, pole: float) -> None:
    from gradcalc.core.errors import UndefinedError
    from gradcalc.engine.run.api import grad

    with pytest.raises(UndefinedError, match="to float64's precision"):
        grad(f"{op}(x)", at={"x": pole}, check=False)
