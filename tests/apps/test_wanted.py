"""apps.check.wanted: the derivatives an answer must give, named and in order."""

from __future__ import annotations

import json
import re

import pytest

from gradcalc.apps.check.wanted import Target, components, named, named_order, subscripts
from gradcalc.core.errors import InputError
from gradcalc.engine.run.api import compile_expression


@pytest.mark.parametrize(
    ("expression", "target", "labels"),
    [
        ("x*y", Target("", None), ["∂f/∂x", "∂f/∂y"]),
        ("x*y", Target("", ["y"]), ["∂f/∂y"]),
        ("x^5", Target("", None, 3), ["d³f/dx³"]),
        ("x*y", Target("", None, 2), ["∂²f/∂x²", "∂²f/∂x∂y", "∂²f/∂y∂x", "∂²f/∂y²"]),
        ("g(y, x) = x*y", Target("", None), ["∂g/∂y", "∂g/∂x"]),  # the head's order
        (
            "F(r, t) = r*t, r+t, r",
            Target("", None),
            [f"∂F{i}/∂{v}" for i in (1, 2, 3) for v in "rt"],
        ),
    ],
)
def test_each_question_asks_for_its_components_in_order(expression, target, labels) -> None:
    wanted = components(compile_expression(expression), target)
    assert [c.label for c in wanted] == labels


def test_a_jacobian_row_differentiates_its_own_output() -> None:
    wanted = components(compile_expression("a*b, a - b"), Target("", None))
    assert [(c.output, c.variables) for c in wanted] == [
        (0, ("a",)),
        (0, ("b",)),
        (1, ("a",)),
        (1, ("b",)),
    ]


@pytest.mark.parametrize(
    ("expression", "order", "message"),
    [
        ("x*y, x", 2, "--order 2 checks one function; this one has 2 outputs (f1, f2)"),
        ("x*y*z", 3, "--order 3 takes one variable (--wrt x)"),
    ],
)
def test_questions_without_one_answer_are_refused(expression, order, message) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        components(compile_expression(expression), Target("", None, order))


@pytest.mark.parametrize(
    ("name", "variables", "said"),
    [
        ("fx", ["x", "y"], ("x",)),
        ("f_y", ["x", "y"], ("y",)),
        ("fxy", ["x", "y"], ("x", "y")),
        ("f_x_y", ["x", "y"], ("x", "y")),
        ("fw1w2", ["w1", "w2"], ("w1", "w2")),
        ("fw12", ["w1", "w12"], ("w12",)),  # the longest variable first
        ("x", ["x", "y"], ("x",)),
        ("fz", ["x", "y"], None),
        ("gx", ["x"], None),
        ("f", ["x"], None),
    ],
)
def test_subscripted_names_as_students_write_partials(name, variables, said) -> None:
    assert subscripts(name, "f", variables) == said


def test_named_answers_in_the_order_asked_with_a_mixed_partial_given_once() -> None:
    hessian = components(compile_expression("x^2*y"), Target("", None, 2))
    given = {"fyy": "0", "fxy": "2x", "fxx": "2y"}
    assert named(given, hessian, "f") == ["2y", "2x", "2x", "0"]
    assert named({"fxx": "2y", "fxy": "2x"}, hessian, "f") == ["2y", "2x", "2x", None]
    with pytest.raises(InputError, match=r"asked for \(fxx, fxy, fyx, fyy\)"):
        named({"fx": "2x y"}, hessian, "f")  # (every one: fyy was left out)
    assert named_order(given, "f", ["x", "y"]) == 2
    assert named_order({"fx": "1", "fxy": "0"}, "f", ["x", "y"]) == 1  # mixed: as asked


MIXED = {"∂²f/∂x∂y", "∂²f/∂y∂x"}
PURE = {"∂²f/∂x²", "∂²f/∂y²"}


@pytest.mark.parametrize(
    ("named_answers", "judged", "right", "unchecked"),
    [
        (["fxy=3x^2"], MIXED, True, "not checked: ∂²f/∂x², ∂²f/∂y² (no answer given; add"),
        (["fxy=3x"], MIXED, False, "not checked: ∂²f/∂x², ∂²f/∂y²"),
        (["fyy=0", "fxx=6x y"], PURE, True, "not checked: ∂²f/∂x∂y, ∂²f/∂y∂x (no answer"),
    ],
)
def test_named_answers_check_the_derivatives_named_and_say_which_were_not(
    cli, named_answers, judged, right, unchecked
) -> None:
    """The homework asks for f_xy of x^3 y (3x^2, by hand) alone: it is judged, and the
    second derivatives not named are said to be unchecked, in every format."""
    given = [word for text in named_answers for word in ("--answer", text)]
    done = cli("check", "x^3 y", "--order", "2", *given, "--format", "json")
    said = json.loads(done.stdout)
    assert done.exit_code == (0 if right else 1) and said["all_correct"] is right
    assert {v["component"] for v in said["verdicts"]} == judged
    assert any(w.startswith(unchecked) for w in said["warnings"]), said["warnings"]
    plain = cli("check", "x^3 y", "--order", "2", *given, "--format", "plain")
    assert unchecked in plain.stderr


@pytest.mark.parametrize("seed", range(6))
def test_one_answer_for_a_function_with_parameters_is_told_to_name_x(cli, seed: int) -> None:
    """``a x^2 + b x`` with one answer: the student means d/dx (a, b parameters). The
    refusal says --wrt x, and following it judges the answer (truth: sympy's d/dx)."""
    import random

    import sympy as sp

    rng = random.Random(seed)
    parameters = rng.sample(["a", "b", "k", "c", "m"], rng.randint(1, 2))
    x, *ps = sp.symbols(["x", *parameters])
    f = sum(p * x ** rng.randint(1, 4) * rng.randint(1, 10**9) for p in ps) + rng.randint(0, 9)
    answer = str(sp.diff(f, x))
    refused = cli("check", str(f), "--answer", answer)
    assert refused.exit_code == 2
    assert refused.stderr.strip().endswith(
        "for the derivative with respect to x alone, add --wrt x"
    )
    followed = cli("check", str(f), "--answer", answer, "--wrt", "x", "--format", "plain")
    assert followed.exit_code == 0 and "\tequivalent\t" in followed.stdout, followed.output
    wrong = cli("check", str(f), "--answer", f"{answer} + 1", "--wrt", "x")
    assert wrong.exit_code == 1


def test_the_wrt_hint_is_only_for_one_answer_to_several_first_derivatives() -> None:
    from gradcalc.apps.check.wanted import Component, wrong_count

    first = [Component("∂f/∂a", ("a",)), Component("∂f/∂b", ("b",))]
    assert wrong_count("1 answer given", 1, first).message.endswith("add --wrt b")
    assert "--wrt" not in wrong_count("3 answers given", 3, first).message
    hessian = [Component(f"∂²f/∂{p}∂{q}", (p, q)) for p in "xy" for q in "xy"]
    assert "--wrt" not in wrong_count("1 answer given", 1, hessian).message
    assert "--wrt" not in wrong_count("--expect has 1 value", 1, first, " (xy ...)").message


def test_one_derivative_named_two_ways_is_refused() -> None:
    gradient = components(compile_expression("x^2 y"), Target(""))
    with pytest.raises(InputError, match=re.escape("∂f/∂x is answered twice (x=2x y and fx=3)")):
        named({"x": "2x y", "fx": "3", "y": "x^2"}, gradient, "f")
    hessian = components(compile_expression("x^2 y"), Target("", None, 2))
    with pytest.raises(InputError, match="∂²f/∂x∂y is answered twice"):
        named({"fxx": "2y", "fxy": "2x", "f_x_y": "2x", "fyy": "0"}, hessian, "f")
    both = named({"fxx": "2y", "fxy": "2x", "fyx": "3x", "fyy": "0"}, hessian, "f")
    assert both == ["2y", "2x", "3x", "0"]  # both orders given: each judged on its own


@pytest.mark.parametrize(
    ("expression", "order", "hint"),
    [
        ("x^3", 1, "(fx; df/dx = ... works too)"),
        ("x^3", 2, "(fxx; d2f/dx2 = ... works too)"),
        ("x^5", 3, "(fxxx; d3f/dx3 = ... works too)"),
        ("x*y", 2, "(fxx, fxy, fyx, fyy)"),
    ],
)
def test_a_wrong_name_is_shown_the_heads_of_the_order_asked(expression, order, hint) -> None:
    wanted = components(compile_expression(expression), Target("", None, order))
    with pytest.raises(InputError) as refusal:
        named({"z": "1"}, wanted, "f")
    assert refusal.value.message.endswith(hint)
