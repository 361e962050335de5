"""Random expressions from the registry: ``check --answer`` says equivalent for the right
derivative and not equivalent for a perturbed one (a coefficient +-1, a relative +-1e-9, a
dropped term), with coefficients up to 10^9, orders 1-3 and up to three variables.

The right derivative is sympy's, of a sympy expression built beside the text from the
registry's sympy counterparts (never from gradcalc's parser or its derivative); the answer
is that derivative printed, sometimes expanded, so that not every right answer is
identical to gradcalc's own. Example counts: ``budget(ci, long)``; the long profile runs
1,000 per run, so that a long campaign is many runs with different seeds, each of which
reports (20 runs, two at a time, make 20,000)::

    HYPOTHESIS_PROFILE=long nice -n 10 pytest tests/apps/test_check_properties.py \\
        --hypothesis-seed=1 --hypothesis-show-statistics
"""

from __future__ import annotations

import json
import re

import sympy as sp
from hypothesis import HealthCheck, Phase, assume, event, given, settings
from hypothesis import strategies as st

from gradcalc.core.ops import REGISTRY
from tests.test_properties import GUARDS, budget

NAMES = ("x", "y", "z")
SYMBOLS = {name: sp.Symbol(name, real=True) for name in NAMES}
PIECEWISE = {"abs", "sign", "floor", "ceiling", "step", "relu"}  # derivatives with deltas
FUNCTIONS = sorted(name for name in GUARDS if name not in PIECEWISE)
#: what a printed sympy answer may contain: gradcalc's syntax and function names only
PRINTABLE = re.compile(r"[A-Za-z0-9_ +\-*/().,]*")
WORDS = set(FUNCTIONS) | set(NAMES) | {"pi", "E", "sqrt", "exp", "log", "tanh", "sech", "sin"}

SIGN = st.sampled_from([1, -1])
COEFFICIENT = st.one_of(
    st.builds(lambda s, n: s * n, SIGN, st.integers(1, 10**9)),
    st.builds(lambda s, n: s * n, SIGN, st.integers(1, 9)),
    st.builds(lambda s, p, q: sp.Rational(s * p, q), SIGN, st.integers(1, 20), st.integers(2, 9)),
)


@st.composite
def monomials(draw, names):
    """A product of powers of the variables (degree 0-4 in each)."""
    powers = {n: draw(st.integers(0, 3)) for n in names}
    text = "*".join(f"{n}^{k}" for n, k in powers.items() if k) or "1"
    expr = sp.Mul(*(SYMBOLS[n] ** k for n, k in powers.items()))
    return text, expr


@st.composite
def functions(draw, names):
    """A registry function of a small linear combination of the variables, guarded into
    its domain as in test_properties (log(1 + a^2), tanh(a)/2 for asin, ...)."""
    name = draw(st.sampled_from(FUNCTIONS))
    weights = {n: draw(st.integers(-3, 3)) for n in names}
    assume(any(weights.values()))
    text = " + ".join(f"({k})*{n}" for n, k in weights.items() if k)
    expr = sp.Add(*(k * SYMBOLS[n] for n, k in weights.items()))
    guard = GUARDS[name]
    if guard is not None:
        text, expr = guard(text, expr)
    return f"{name}({text})", REGISTRY[name].sympy(sp, expr)


@st.composite
def expressions(draw):
    """A sum of 1-3 terms c * monomial * (optional registry function) in 1-3 variables."""
    names = NAMES[: draw(st.integers(1, 3))]
    texts, exprs = [], []
    for _ in range(draw(st.integers(1, 3))):
        c = draw(COEFFICIENT)
        mono_text, mono = draw(monomials(names))
        text, expr = f"({c})*{mono_text}", c * mono
        if draw(st.booleans()):
            f_text, f_expr = draw(functions(names))
            text, expr = f"{text}*{f_text}", expr * f_expr
        texts.append(text)
        exprs.append(expr)
    expr = sp.Add(*exprs)
    used = tuple(n for n in names if SYMBOLS[n] in expr.free_symbols)
    assume(used)
    return " + ".join(texts), expr, used


def printed(expr) -> str:
    """sympy's text of ``expr``, which gradcalc's parser reads (``**`` is a power)."""
    text = sp.sstr(expr)
    assume(PRINTABLE.fullmatch(text))
    assume(set(re.findall(r"[A-Za-z_]\w*", text)) <= WORDS)
    return text


def perturbed(truth, kind: str, sign: int):
    """``truth`` with one term changed: its coefficient by +-1, itself by a relative
    +-1e-9, or dropped (terms as sympy keeps them: expanding a third derivative can make
    it a hundred times longer than any student's answer)."""
    terms = sp.Add.make_args(truth)
    term = max(terms, key=lambda t: len(str(t)))  # the term with most structure
    if kind == "dropped" and len(terms) > 1:
        return truth - term
    if kind == "relative":
        return truth + sign * term / 10**9
    return truth + sign * term.as_coeff_Mul()[1]


def verdicts(cli, text: str, answers: list[str], order: int, wrt: str) -> list[dict]:
    args = ["check", text, "--answer", ", ".join(answers), "--format", "json", "--wrt", wrt]
    if order > 1:
        args += ["--order", str(order)]
    result = cli.invoke(args)
    assert result.exit_code in (0, 1), (args, result.output)
    return json.loads(result.stdout)["verdicts"]


@settings(
    max_examples=budget(40, 1_000),
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],  # explain: slow
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    expressions(),
    st.integers(1, 3),
    st.data(),
    st.sampled_from(["coefficient", "relative", "dropped"]),
    st.sampled_from([1, -1]),
    st.booleans(),
)
def test_right_answers_are_equivalent_and_perturbed_ones_are_not(
    cli, generated, order, data, kind, sign, expand
) -> None:
    text, expr, names = generated
    if order == 1:  # the gradient: one answer per variable; one of them perturbed
        wrt = ",".join(names)
        truths = [sp.diff(expr, SYMBOLS[n]) for n in names]
    else:  # the order-th derivative in one variable
        wrt = data.draw(st.sampled_from(names))
        truths = [sp.diff(expr, SYMBOLS[wrt], order)]
    if expand:
        truths = [sp.expand(t) for t in truths]
    answers = [printed(t) for t in truths]
    right = verdicts(cli, text, answers, order, wrt)
    assert [v["verdict"] for v in right] == ["equivalent"] * len(answers), (text, answers, right)
    event(f"right answer: {right[0]['evidence']}")

    k = data.draw(st.integers(0, len(truths) - 1))
    wrong_truth = perturbed(truths[k], kind, sign)
    assume(sp.expand(wrong_truth - truths[k]) != 0)
    wrong_answers = [*answers[:k], printed(wrong_truth), *answers[k + 1 :]]
    wrong = verdicts(cli, text, wrong_answers, order, wrt)
    assert wrong[k]["verdict"] == "not equivalent", (text, wrong_answers, wrong[k])
    event(f"wrong answer: {wrong[k]['evidence']}")


def _headed(cli, text: str, names: tuple, answers: list[str], order: int, wrt: str, form: str):
    """The same question with the function written with its head and each answer with the
    head a student writes: f'(x) = ... (one variable), df/dx = ..., ∂f/∂x = ..."""
    heads = {
        "primes": lambda n: f"f{chr(39) * order}({n}) = ",
        "leibniz": lambda n: f"df/d{n} = ",
        "partial": lambda n: f"∂f/∂{n} = ",
    }
    variables = wrt.split(",")
    headed = [heads[form](v) + a for v, a in zip(variables, answers, strict=True)]
    return verdicts(cli, f"f({', '.join(names)}) = {text}", headed, order, wrt)


@settings(max_examples=budget(25, 500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions(), st.integers(1, 2), st.sampled_from(["primes", "leibniz", "partial"]))
def test_headed_answers_get_the_verdicts_of_bare_ones(cli, generated, order, form) -> None:
    # a function written f(x, y) = ... and answers written f'(x) = ... or df/dx = ...: the
    # heads are taken off and the verdicts are those of the bare texts (right: equivalent;
    # a coefficient off by one: not equivalent)
    text, expr, names = generated
    if order == 2 or form == "primes":  # primes and second derivatives: one variable
        wrt = names[0]
        truths = [sp.diff(expr, SYMBOLS[wrt], order)]
        if form != "primes":
            return  # (named answers are for first derivatives)
    else:
        wrt = ",".join(names)
        truths = [sp.diff(expr, SYMBOLS[n]) for n in names]
    answers = [printed(t) for t in truths]
    right = _headed(cli, text, names, answers, order, wrt, form)
    assert [v["verdict"] for v in right] == ["equivalent"] * len(answers), (text, answers)
    wrong_truth = perturbed(truths[0], "coefficient", 1)
    assume(sp.expand(wrong_truth - truths[0]) != 0)
    wrong = _headed(cli, text, names, [printed(wrong_truth), *answers[1:]], order, wrt, form)
    assert wrong[0]["verdict"] == "not equivalent", (text, wrong)
