"""Random expressions from the registry: the CLI's gradient and Hessian equal sympy's, computed
independently (each generated text comes with its own sympy expression, built from the
registry's sympy counterparts, never from gradcalc's parser or cross-check); the canonical
text (``parse.unparse``) parses back to the same graph; and invalid mutations of valid texts
are refused with exit code 2 by every command.

Example counts: ``budget(ci, long)``; the ``long`` profile (tests/conftest.py) runs 50,000, in
about an hour of CPU (the round trip and the mutations cost ~0.1 s each, a number ~7 ms)::

    HYPOTHESIS_PROFILE=long nice -n 19 pytest tests/test_properties.py --hypothesis-show-statistics
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import time

import pytest
import sympy as sp
from hypothesis import HealthCheck, event, given, reject, settings
from hypothesis import strategies as st

from gradcalc.core.ops import FUNCTION_NAMES, REGISTRY
from gradcalc.lang.graph import lower
from gradcalc.lang.parser import parse_program
from gradcalc.lang.unparsing import unparse

pytestmark = pytest.mark.slow  # hypothesis: hundreds of random expressions against sympy

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"


def budget(ci: int, long: int) -> int:
    """Examples for one property test: ``ci`` by default, ``long`` in the long profile."""
    return long if LONG else ci


X, Y = sp.symbols("x y", real=True)
LEAVES = st.sampled_from(
    [("x", X), ("y", Y), ("2", sp.Integer(2)), ("0.5", sp.Rational(1, 2)), ("pi", sp.pi)]
)
# functions defined and smooth on the whole real line
SMOOTH = ["sin", "cos", "tanh", "atan", "sigmoid", "softplus", "erf", "asinh", "exp", "sinh"]


def _unary(child):
    def build(name, part):
        text, expr = part
        op = REGISTRY[name]
        if name in ("exp", "sinh"):  # keep values small: exp(sin(...))
            return f"{name}(sin({text}))", op.sympy(sp, sp.sin(expr))
        return f"{name}({text})", op.sympy(sp, expr)

    return st.builds(build, st.sampled_from(SMOOTH), child)


def _guarded(child):
    """Ops with restricted domains, applied where they are defined."""

    def build(kind, part):
        text, expr = part
        if kind == "log":
            return f"log(1 + ({text})^2)", sp.log(1 + expr**2)
        if kind == "sqrt":
            return f"sqrt(2 + sin({text}))", sp.sqrt(2 + sp.sin(expr))
        return f"acos(tanh({text})/2)", sp.acos(sp.tanh(expr) / 2)

    return st.builds(build, st.sampled_from(["log", "sqrt", "acos"]), child)


def _binary(child):
    def build(kind, left, right):
        (a, ea), (b, eb) = left, right
        if kind == "/":
            return f"({a})/(1 + ({b})^2)", ea / (1 + eb**2)
        if kind == "^":
            return f"({a})^3", ea**3
        if kind == "implicit":
            return f"2({a})({b})", 2 * ea * eb
        symbol = {"+": "+", "-": "-", "*": "*"}[kind]
        return f"({a}) {symbol} ({b})", {"+": ea + eb, "-": ea - eb, "*": ea * eb}[kind]

    return st.builds(build, st.sampled_from(["+", "-", "*", "/", "^", "implicit"]), child, child)


EXPRESSIONS = st.recursive(
    LEAVES,
    lambda child: st.one_of(_unary(child), _guarded(child), _binary(child)),
    max_leaves=8,
)
POINT = st.floats(-2, 2, allow_nan=False).map(lambda v: round(v, 3))


@settings(
    max_examples=budget(80, 1_500), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(EXPRESSIONS, POINT, POINT)
def test_cli_gradient_equals_sympy_for_random_expressions(cli, expression, x0, y0) -> None:
    text, expr = expression
    result = cli.invoke(["grad", text, "--at", f"x={x0},y={y0}", "--format", "json", "--no-tape"])
    subs = {X: sp.Rational(str(x0)), Y: sp.Rational(str(y0))}
    expected = {n: float(sp.diff(expr, s).evalf(30, subs=subs)) for n, s in (("x", X), ("y", Y))}
    assert result.exit_code == 0, (text, result.output)
    out = json.loads(result.stdout)
    for name, value in expected.items():
        assert math.isclose(out["gradient"][name], value, rel_tol=1e-9, abs_tol=1e-12), (
            text,
            name,
            out["gradient"][name],
            value,
        )
    assert out["check"]["status"] in ("agree", "skipped")


@settings(max_examples=budget(40, 600), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, POINT, POINT, st.sampled_from([("f", ("x", "y")), ("g", ("y", "x"))]))
def test_a_function_written_with_its_head_is_its_body(cli, expression, x0, y0, head) -> None:
    # f(x, y) = ... as a student writes it: the same derivatives as sympy's of the body, the
    # answer named after the head and its variables in the head's order
    text, expr = expression
    name, variables = head
    headed = f"{name}({', '.join(variables)}) = {text}"
    result = cli.invoke(["grad", headed, "--at", f"x={x0},y={y0}", "--format", "json"])
    assert result.exit_code == 0, (headed, result.output)
    out = json.loads(result.stdout)
    assert out["target"] == name and list(out["gradient"]) == list(variables)
    subs = {X: sp.Rational(str(x0)), Y: sp.Rational(str(y0))}
    for variable, symbol in (("x", X), ("y", Y)):
        truth = float(sp.diff(expr, symbol).evalf(30, subs=subs))
        assert math.isclose(out["gradient"][variable], truth, rel_tol=1e-9, abs_tol=1e-12)
    assert out["check"]["status"] in ("agree", "skipped")


# --- every op of the registry -------------------------------------------------------------


def _positive(text, expr):
    return f"(1 + ({text})^2)", 1 + expr**2


def _small(text, expr):
    return f"tanh({text})/2", sp.tanh(expr) / 2


#: How each function's argument is brought into its domain (away from poles and branch
#: cuts); None: the whole real line. Piecewise ops (abs, floor, ...) keep their kinks: the
#: CLI reports those as exit 3, and the example only counts which happened.
GUARDS = {
    "exp": lambda t, e: (f"sin({t})", sp.sin(e)),
    "sinh": lambda t, e: (f"sin({t})", sp.sin(e)),
    "cosh": lambda t, e: (f"sin({t})", sp.sin(e)),
    "log": _positive,
    "log10": _positive,
    "sqrt": _positive,
    "cbrt": _positive,
    "acosh": lambda t, e: (f"(2 + ({t})^2)", 2 + e**2),
    "asin": _small,
    "acos": _small,
    "atanh": _small,
    "tan": lambda t, e: (f"tanh({t})", sp.tanh(e)),
    "sec": lambda t, e: (f"tanh({t})", sp.tanh(e)),
    "csc": lambda t, e: (f"(2 + tanh({t}))", 2 + sp.tanh(e)),
    "cot": lambda t, e: (f"(2 + tanh({t}))", 2 + sp.tanh(e)),
    **dict.fromkeys(
        ["sin", "cos", "atan", "tanh", "sech", "asinh", "erf", "sigmoid", "softplus"], None
    ),
    **dict.fromkeys(["abs", "sign", "floor", "ceiling", "step", "relu", "elu"], None),
}
#: Functions of two or more arguments, with the guard of their second argument.
BINARY_FUNCTIONS = {
    "atan2": lambda t, e: (f"(2 + tanh({t}))", 2 + sp.tanh(e)),  # x > 0: off the branch cut
    "max": None,
    "min": None,
}
INTERNAL = {"add", "sub", "mul", "div", "neg", "pow", "sum_to", "broadcast_to"}
#: The spellings the parser accepts for each op (FUNCTION_NAMES maps spelling -> op).
SPELLINGS = {
    op: sorted(n for n, o in FUNCTION_NAMES.items() if o.name == op)
    for op in {o.name for o in FUNCTION_NAMES.values()}
}


def test_every_registry_function_is_generated() -> None:
    """A new op in the registry fails here until the property tests generate it."""
    functions = {name for name in REGISTRY if name not in INTERNAL and REGISTRY[name].elementwise}
    assert functions == set(GUARDS) | set(BINARY_FUNCTIONS)


class _TooSlow(Exception):
    """sympy's work for one example ran past its deadline."""


class _Deadline:
    """Runs sympy's work for one example, all of it within ``seconds`` from the deadline's
    making; past it, raises :class:`_TooSlow` in the work. Only the calls run through it are
    timed: hypothesis's draws between them are not interrupted.

    The alarm (SIGALRM: the main thread) raises wherever Python is, and Python ignores an
    exception raised in a garbage collector's callback or a finaliser, so once due it fires
    again every :data:`REFIRE` seconds until the work has stopped."""

    #: Seconds between alarms once the deadline has passed.
    REFIRE = 0.05

    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds

    def __call__(self, work, *args):
        """``work(*args)``, interrupted at the deadline."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise _TooSlow
        stopped = False

        def on_alarm(signum, frame):
            if not stopped:
                raise _TooSlow

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, left, self.REFIRE)
        try:
            return work(*args)
        finally:
            while True:  # an alarm due now raises here once more: then stop again
                try:
                    stopped = True
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, previous)
                    break
                except _TooSlow:
                    continue


def _call(draw, build, name, args):
    """``name(args)`` in one of its spellings, with the registry's sympy counterpart (made by
    ``build``)."""
    spelling = draw(st.sampled_from(SPELLINGS[name]))
    texts = [t for t, _ in args]
    text = f"{spelling}({', '.join(texts)})"
    return text, build(REGISTRY[name].sympy, sp, *[e for _, e in args])


#: Seconds in which a tree's sympy expression must be built (sympy evaluates as it builds,
#: and a rare tree sent it into a simplification that did not end in 15 minutes).
BUILD_SECONDS = 10.0


@st.composite
def registry_trees(draw, leaves: int = 6):
    """(text, sympy expression) of a random tree over every registry op, built bottom-up.
    A tree whose sympy expression takes longer than :data:`BUILD_SECONDS` to build is
    rejected (an event), so no example can stall the suite; the draws are the same either
    way, so the examples drawn do not depend on sympy's speed."""
    build = _Deadline(BUILD_SECONDS)
    parts = [draw(LEAVES) for _ in range(draw(st.integers(1, leaves)))]
    calls = draw(st.integers(0, leaves))  # unary function calls, besides the joins
    try:
        while len(parts) > 1 or calls:
            kinds = ["binary", "function2", "arithmetic"] if len(parts) > 1 else []
            kind = draw(st.sampled_from((["unary"] if calls else []) + kinds))
            if kind == "unary":
                calls -= 1
                i = draw(st.integers(0, len(parts) - 1))
                name = draw(st.sampled_from(sorted(GUARDS)))
                guard, part = GUARDS[name], parts[i]
                arg = build(guard, *part) if guard else part
                parts[i] = _call(draw, build, name, [arg])
                continue
            i = draw(st.integers(0, len(parts) - 2))
            (a, ea), (b, eb) = parts[i], parts.pop(i + 1)
            if kind == "function2":
                name = draw(st.sampled_from(sorted(BINARY_FUNCTIONS)))
                guard = BINARY_FUNCTIONS[name]
                second = build(guard, b, eb) if guard else (b, eb)
                parts[i] = _call(draw, build, name, [(a, ea), second])
            elif kind == "binary":
                symbol = draw(st.sampled_from(["+", "-", "*", "/", "^", "**", "implicit"]))
                parts[i] = build(_joined, symbol, a, ea, b, eb)
            else:
                parts[i] = build(_joined, "minus", a, ea, b, eb)
    except _TooSlow:
        event(f"sympy took over {BUILD_SECONDS:.0f} s to build the tree: rejected")
        reject()
    return parts[0]


def _joined(symbol: str, a: str, ea, b: str, eb) -> tuple[str, object]:
    """Two trees joined by a binary operator (its spelling ``symbol``), text and sympy;
    ``minus``: a unary minus, which binds looser than ^ (-(a)^2 is -(a^2)), and a sum."""
    if symbol == "minus":
        return f"-({a})^2 + ({b})", -(ea**2) + eb
    if symbol == "/":
        return f"({a})/(1 + ({b})^2)", ea / (1 + eb**2)
    if symbol in ("^", "**"):
        return f"(1 + ({a})^2){symbol}(sin({b}))", (1 + ea**2) ** sp.sin(eb)
    if symbol == "implicit":
        return f"({a})({b})", ea * eb
    return f"({a}) {symbol} ({b})", {"+": ea + eb, "-": ea - eb, "*": ea * eb}[symbol]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_sympy_past_its_deadline_is_interrupted() -> None:
    """A deadline stops sympy's work (here a Python loop of 30 s), also when the first alarm
    is swallowed, and gives back the process's alarm; once past, it refuses more work."""

    def endless() -> None:
        end = time.monotonic() + 30  # (a deadline that does not fire fails, after 30 s)
        while time.monotonic() < end:
            pass

    def swallows_the_first() -> None:
        with contextlib.suppress(_TooSlow):  # as Python does in a collector's callback
            endless()
        endless()

    before = signal.getsignal(signal.SIGALRM)
    deadline = _Deadline(0.05)
    with pytest.raises(_TooSlow):
        deadline(endless)
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with pytest.raises(_TooSlow):
        deadline(len, "no time left")
    with pytest.raises(_TooSlow):  # the alarm fires again
        _Deadline(0.05)(swallows_the_first)
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


# (an alarm that lands in hypothesis's garbage-collector callback is ignored there, with a
# warning, and fires again)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_tree_too_slow_to_build_is_rejected(monkeypatch) -> None:
    """A tree whose sympy expression cannot be built within BUILD_SECONDS is rejected, not
    waited for and not an error: here every join takes 30 s (and fails if it ends), and the
    examples without one still come out."""
    joins = []

    def endless(*args):
        joins.append(args[0])
        end = time.monotonic() + 30
        while time.monotonic() < end:
            pass
        raise AssertionError("the deadline did not stop the join")

    monkeypatch.setattr("tests.test_properties._joined", endless)
    monkeypatch.setattr("tests.test_properties.BUILD_SECONDS", 0.01)
    trees = []

    @settings(max_examples=10, database=None, suppress_health_check=list(HealthCheck))
    @given(registry_trees(leaves=2))
    def draw(tree) -> None:
        trees.append(tree)

    draw()  # ends: each join is cut off at the deadline and its example rejected
    assert joins, "no example tried to join two trees"
    assert trees, "no example without a join came out"


def _exact(value) -> float | None:
    """A sympy number as a float, or None when it is not a finite real."""
    try:
        value = complex(value)
    except TypeError:  # not a number at all (sympy could not evaluate it)
        return None
    if value.imag != 0 or not math.isfinite(value.real):
        return None
    return value.real


def _derivative(expr, *symbols):
    """sympy's derivative; the derivatives of step-like functions (0 off their jumps) that
    sympy leaves unevaluated become 0."""
    result = sp.diff(expr, *symbols)
    return result.replace(
        lambda e: isinstance(e, (sp.Derivative, sp.Subs)), lambda e: sp.Integer(0)
    )


def _truth(expr, subs) -> float | None:
    """sympy's value of ``expr`` at ``subs`` to 30 digits, or None when it is not a finite real
    or when sympy takes over 10 s (its evalf can crawl on deep random trees; such an example is
    counted as an event, not failed)."""
    try:
        return _Deadline(10.0)(lambda: _exact(expr.evalf(30, subs=subs)))
    except _TooSlow:
        event("sympy took over 10 s to evaluate the truth")
        return None


def _close(tape: float, exact: float) -> bool:
    return math.isclose(tape, exact, rel_tol=1e-8, abs_tol=1e-10)


def _run_json(cli, args: list[str]) -> tuple[int, object]:
    result = cli.invoke(args)
    assert result.exit_code in (0, 3), (args, result.output)
    assert "Traceback" not in result.output
    if result.exit_code == 3:
        event("undefined at the point (a kink or a jump): exit 3")
        return 3, None
    return 0, json.loads(result.stdout)


@settings(max_examples=budget(60, 5_000))
@given(registry_trees(), POINT, POINT)
def test_registry_tree_gradient_equals_sympy(cli, tree, x0, y0) -> None:
    text, expr = tree
    args = ["grad", text, "--at", f"x={x0},y={y0}", "--wrt", "x,y"]
    code, out = _run_json(cli, [*args, "--format", "json", "--no-tape", "--no-check"])
    if code:
        return
    subs = {X: sp.Rational(str(x0)), Y: sp.Rational(str(y0))}
    for name, symbol in (("x", X), ("y", Y)):
        exact = _truth(_derivative(expr, symbol), subs)
        if exact is None:
            event("sympy's derivative is not a finite real there")
            continue
        assert _close(out["gradient"][name], exact), (text, name, out["gradient"][name], exact)


@settings(max_examples=budget(20, 1_500))
@given(registry_trees(leaves=4), POINT, POINT)
def test_registry_tree_hessian_equals_sympy(cli, tree, x0, y0) -> None:
    text, expr = tree
    args = ["hessian", text, "--at", f"x={x0},y={y0}", "--wrt", "x,y", "--format", "json"]
    code, out = _run_json(cli, [*args, "--no-check"])
    if code:
        return
    subs = {X: sp.Rational(str(x0)), Y: sp.Rational(str(y0))}
    symbols = (X, Y)
    for i, a in enumerate(symbols):
        for j, b in enumerate(symbols):
            exact = _truth(_derivative(expr, a, b), subs)
            if exact is None:
                event("sympy's second derivative is not a finite real there")
                continue
            tape = out["hessian"][i][j]
            assert tape is not None and _close(tape, exact), (text, i, j, tape, exact)


# --- the printed expression parses back to the same graph ---------------------------------


def _shape(text: str) -> list[tuple]:
    """The op graph of a text, without the source text of its nodes."""
    graph = lower(parse_program(text))
    return [(n.kind, n.op, n.inputs, n.label if n.kind == "var" else None) for n in graph.nodes]


@settings(max_examples=budget(200, 10_000))
@given(registry_trees(leaves=8))
def test_unparsed_text_parses_back_to_the_same_graph(tree) -> None:
    text, _ = tree
    program = parse_program(text)
    canonical = unparse(program.statements[-1].expr)
    assert _shape(canonical) == _shape(text), (text, canonical)
    assert unparse(parse_program(canonical).statements[-1].expr) == canonical


# --- invalid mutations are refused by every command ---------------------------------------

#: Mutations that make any valid text invalid, wherever they are made.
BREAKERS = ["*/", "[", "]", "'", '"', "!", "#", "$", "%", "&", "|", "~", "<", ">", "?",
            ":", "`", "\\", "{", "}", "\u0445", "\u200b", "\uff08", "\x00", "\u00a0"]  # fmt: skip


@st.composite
def invalid_mutations(draw):
    text, _ = draw(registry_trees(leaves=4))
    kind = draw(st.sampled_from(["open", "close", "dangling", "leading", "insert", "drop paren"]))
    if kind == "open":
        k = draw(st.integers(0, len(text)))
        return text[:k] + "(" + text[k:] if text.count("(") == text.count(")") else text
    if kind == "close":
        return f"{text})"
    if kind == "dangling":
        return text + draw(st.sampled_from(["+", "-", "*", "/", "^", "**", "=", "(", ","]))
    if kind == "leading":
        return draw(st.sampled_from(["*", "/", "^", "**", ")", ",", "="])) + text
    if kind == "drop paren" and "(" in text:
        k = draw(st.sampled_from([i for i, c in enumerate(text) if c == "("]))
        return text[:k] + text[k + 1 :]
    k = draw(st.integers(0, len(text)))
    return text[:k] + draw(st.sampled_from(BREAKERS)) + text[k:]


COMMANDS = [
    ["grad", "--at", "x=0.5,y=1"],
    ["hessian", "--at", "x=0.5,y=1"],
    ["jacobian", "--at", "x=0.5,y=1"],
    ["explain", "--at", "x=0.5,y=1"],
    ["graph", "--at", "x=0.5,y=1"],
    ["check", "--at", "x=0.5,y=1", "--expect", "1,2"],
    ["minimize", "--from", "x=0.5,y=1"],
    ["plot", "--at", "x=0.5"],
]


@settings(max_examples=budget(100, 12_000))
@given(invalid_mutations(), st.sampled_from(COMMANDS))
def test_invalid_mutations_are_refused_with_exit_2(cli, text, command) -> None:
    name, *options = command
    result = cli.invoke([name, text, *options])
    assert result.exit_code == 2, (name, text, result.output)
    assert result.stdout == ""
    message = result.stderr
    assert message.startswith("gradcalc: ") and "Traceback" not in message, message
    assert len(message.strip().splitlines()) <= 3, message


# --- the fast path for plain numbers in constant_value is the parser's answer ------------


def _parsed_value(text: str) -> float:
    """What the validated parser makes of a value (the slow path of constant_value)."""
    from gradcalc.core.errors import InputError
    from gradcalc.engine.evaluate.evaluate import evaluate
    from gradcalc.lang.parser import parse_constant
    from gradcalc.lang.syntax import Program, Statement

    node = parse_constant(text)
    value = float(evaluate(lower(Program(text, (Statement(None, node, 0),))), {}).values[0])
    if not math.isfinite(value):
        raise InputError("not finite")
    return value


DECIMALS = st.from_regex(
    r"-?(?:[0-9]{1,32}(?:\.[0-9]{0,24})?|\.[0-9]{1,24})(?:[eE][+-]?[0-9]{1,4})?", fullmatch=True
)


@settings(max_examples=budget(200, 20_000))
@given(DECIMALS)
def test_plain_numbers_get_the_parsers_value_or_its_refusal(text) -> None:
    """points.constant_value answers plain decimals without the parser (for speed): it must
    accept exactly what the parser accepts, with the same value (and sign of zero)."""
    from gradcalc.core.errors import InputError
    from gradcalc.engine.evaluate.points import constant_value

    def outcome(read):
        try:
            value = read(text)
        except InputError:
            return "refused"
        return (value, math.copysign(1.0, value))

    from gradcalc.core.cells import inexact_integer

    if inexact_integer(text):  # (the data boundary refuses an integer float64 would round)
        assert outcome(constant_value) == "refused", text
        return
    assert outcome(constant_value) == outcome(_parsed_value), text
