"""Student slips: glued function names, juxtaposed names, f^-1, the likely missing name."""

from __future__ import annotations

import math
import re

import pytest

from gradcalc.core.ops import FUNCTION_NAMES
from gradcalc.lang.intake import read
from gradcalc.lang.slips import (
    called_slip,
    digit_inside,
    function_like,
    glued_function,
    inverse_power,
    juxtaposed,
    likely_meaning,
    likely_name,
    name_warnings,
    run_together,
    unnamed_variables,
)

ONE_ARGUMENT = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp,
    "ln": math.log, "sqrt": math.sqrt, "sinh": math.sinh, "atan": math.atan,
}  # fmt: skip


@pytest.mark.parametrize("function", sorted(ONE_ARGUMENT))
def test_the_suggested_call_computes_the_function_of_the_variable(function) -> None:
    from gradcalc import grad

    call = glued_function(f"{function}x")
    assert call == f"{function}(x)"
    value = grad(call, at={"x": 0.7}, check=False).value
    assert math.isclose(float(value), ONE_ARGUMENT[function](0.7), rel_tol=1e-12)


def test_a_function_name_is_never_a_slip() -> None:
    assert all(glued_function(name) is None and juxtaposed(name) is None for name in FUNCTION_NAMES)


def test_names_warn_unless_given() -> None:
    assert any("if you mean x·y" in w for w in read("2xy").warnings)
    assert read("2xy", given=["xy"]).warnings == ()
    assert read("w1*rate + mu").warnings == ()


def test_an_inverse_power_names_the_inverse_that_exists() -> None:
    for function in ("sin", "cos", "tan"):
        assert f"arc{function}(x)" in inverse_power(function)
        assert f"arc{function}" in FUNCTION_NAMES
    assert "no inverse of sec" in inverse_power("sec")


def test_the_likely_name_of_a_missing_value() -> None:
    assert likely_name("sinx", ["x"]) == "; did you mean sin(x)?"
    assert likely_name("ab", ["a", "b"]) == "; did you mean a*b?"
    assert likely_name("zzz", ["x"]) == ""


def test_cos_inverse_is_refused_with_both_readings(cli) -> None:
    done = cli("diff", "cos^-1(x)")
    assert done.exit_code == 2
    assert "arccos(x)" in done.stderr and "1/cos(x)" in done.stderr


@pytest.mark.parametrize("seed", range(10))
def test_a_run_together_name_is_read_back_as_the_product_meant(seed: int) -> None:
    """Names glued from a factor and one or two calls (``xsinx``, ``sinxcosy``): the
    suggestion, parsed by gradcalc, computes what the student meant (math, by hand)."""
    import random

    from gradcalc import grad

    rng = random.Random(seed)
    point = {"x": 0.3 + rng.random(), "y": 0.2 + rng.random()}
    lead = rng.choice(["", "x", "y"])
    calls = [(rng.choice(sorted(ONE_ARGUMENT)), rng.choice(["x", "y", "xy"])) for _ in range(2)]
    calls = calls[: rng.randint(1, 2)]
    name = lead + "".join(f + arg for f, arg in calls)
    meant = (point[lead] if lead else 1.0) * math.prod(
        ONE_ARGUMENT[f](math.prod(point[v] for v in arg)) for f, arg in calls
    )
    suggestion = run_together(name)
    assert suggestion is not None, name
    value = grad(suggestion.replace("·", "*"), at=point, check=False).value
    assert math.isclose(float(value), meant, rel_tol=1e-12), (name, suggestion)
    (warning,) = read(name).warnings
    assert warning.startswith(f"{name} is read as one name") and suggestion in warning


@pytest.mark.parametrize("name", ["expand", "rate", "theta", "cost_1", "sinxyz", "speed", "x2y"])
def test_names_that_are_not_run_together(name: str) -> None:
    assert run_together(name) is None


def test_a_missing_run_together_name_suggests_the_product() -> None:
    assert likely_name("xsinx", ["x"]) == "; did you mean x*sin(x)?"
    assert likely_name("sinxcosx", ["x"]) == "; did you mean sin(x)*cos(x)?"


@pytest.mark.parametrize("seed", range(6))
def test_a_digit_inside_a_name_is_read_back_as_either_product_meant(seed: int) -> None:
    """``x2y`` is x²y with its superscript lost, or 2xy: both suggestions, parsed by
    gradcalc, compute what they say (math, by hand), and the missing value names them."""
    import random

    from gradcalc import grad

    rng = random.Random(seed)
    first, rest = rng.sample("abcdfghpqrstuvwxyz", 1)[0], "".join(rng.sample("uvwxyz", 2))
    rest = rest[: rng.randint(1, 2)]
    digit = rng.randint(2, 9)
    name = f"{first}{digit}{rest}"
    point = {v: 0.5 + rng.random() for v in {first, *rest}}
    power, coefficient = digit_inside(name)
    others = math.prod(point[v] for v in rest)
    for meant, written in (
        (point[first] ** digit * others, power),
        (digit * point[first] * others, coefficient),
    ):
        value = grad(written.replace("·", "*"), at=point, check=False).value
        assert math.isclose(float(value), meant, rel_tol=1e-12), (name, written)
    (warning,) = read(name).warnings
    assert warning.startswith(f"{name} is read as one name") and power in warning
    assert coefficient.replace("·", "*") in likely_name(name, sorted(point))
    assert read(name, given=[name]).warnings == ()


@pytest.mark.parametrize("name", ["w1", "x12", "x1y", "e2x", "x2sin", "x2", "ab2c"])
def test_names_with_digits_that_are_not_a_lost_power(name: str) -> None:
    assert digit_inside(name) is None


@pytest.mark.parametrize("typed", ["k e^(kx)", "sin(ax)", "sinx + y", "x2y + 1"])
def test_a_wrt_name_hidden_in_a_glued_name_says_so(cli, typed: str) -> None:
    # --wrt x where x only appears inside a one-letter-short name: the error names it and
    # the meaning it likely has, and that meaning has x as a variable
    done = cli("grad", typed, "--at", "k=1,a=1,y=1,kx=1,ax=1,sinx=1,x2y=1", "--wrt", "x")
    assert done.exit_code == 2
    found = re.search(r"; (\w+) is one name: if you mean (.+), write that$", done.stderr.strip())
    assert found, done.stderr
    assert found[1] in typed and "x" in read(found[2].split(" or ")[0]).graph.variables


def test_a_power_in_a_function_name_offers_both_calls_and_they_compute_what_they_say() -> None:
    """sin2(x): sin(x)^2 or sin(2x), each checked against math at a seeded point."""
    import random

    from gradcalc import grad

    rng = random.Random(8)
    for _ in range(8):
        function = rng.choice(sorted(ONE_ARGUMENT))
        power = rng.randint(2, 9)
        slip = called_slip(f"{function}{power}", "x")
        assert slip is not None
        squared, times = re.findall(r"write (\S+)", slip)
        x = rng.uniform(0.1, 0.9)
        assert float(grad(squared, at={"x": x}, check=False).value) == pytest.approx(
            ONE_ARGUMENT[function](x) ** power, rel=1e-13
        )
        assert float(grad(times, at={"x": x}, check=False).value) == pytest.approx(
            ONE_ARGUMENT[function](power * x), rel=1e-13
        )


def test_function_like_names_and_the_head_refusal() -> None:
    assert [function_like(n) for n in ("y", "sigma", "w1", "ab")] == [True, True, False, False]
    assert called_slip("sin1", "x") is None and called_slip("rate", "x") is None
    assert unnamed_variables("f(x)", ["x"], ["a", "b"]) == (
        "f(x) = ... uses a, b as well: name every variable, f(x, a, b) = ..."
    )
    assert unnamed_variables("f(x)", ["x"], ["sinx"]) == (
        "f(x) = ... uses sinx as well: sinx is one name: if you mean sin(x), write sin(x); "
        "else name every variable, f(x, sinx) = ..."
    )


# --- a constant glued to a variable: pir is pi·r, ex is e·x -----------------------------------


@pytest.mark.parametrize(
    ("name", "product", "variable", "constant"),
    [
        ("pir", "pi*r", "r", math.pi),
        ("pix", "pi*x", "x", math.pi),
        ("rpi", "r*pi", "r", math.pi),
        ("ex", "e*x", "x", math.e),
        ("et", "e*t", "t", math.e),
    ],
)
def test_a_constant_glued_to_a_variable_is_offered_as_the_product(
    name, product, variable, constant
) -> None:
    """Every hint names the constant (not p·i·r), and the product it offers computes
    constant times variable."""
    from gradcalc import grad

    (warning,) = name_warnings([name])
    spaced = product.replace("*", " ")
    shown = product.replace("*", "·")
    assert warning == (
        f"{name} is read as one name, a variable; if you mean {shown}, write {product} "
        f"(or {spaced})"
    )
    assert likely_name(name, [variable]) == f"; did you mean {product}?"
    assert likely_meaning(name) == product
    value = grad(product, at={variable: 1.75}, check=False).value
    assert math.isclose(float(value), constant * 1.75, rel_tol=1e-15)


def test_a_constant_glued_in_a_students_text_warns_with_the_constant() -> None:
    warnings = read("sin(2pix)").warnings
    assert warnings == (
        "pix is read as one name, a variable; if you mean pi·x, write pi*x (or pi x)",
    )
    assert read("pir^2").warnings[0].endswith("if you mean pi·r, write pi*r (or pi r)")


@pytest.mark.parametrize(
    "name", ["pi", "e", "exp", "eta", "eps", "epsilon", "phi", "pixel", "spin", "pitch"]
)
def test_names_that_are_no_constant_glued_to_a_variable(name) -> None:
    assert likely_meaning(name) is None or "pi*" not in likely_meaning(name)
    assert not any("pi·" in w or "e·" in w for w in name_warnings([name]))


def test_a_constant_run_into_a_function_keeps_the_constant() -> None:
    """picos(pi x) is pi*cos(pi x), not cos: the refusal says so, and it computes that."""
    from gradcalc import grad
    from gradcalc.core.errors import InputError
    from gradcalc.lang.parser import parse_program

    assert called_slip("picos", "pi x") == "if you mean pi*cos(pi x), write pi*cos(pi x)"
    with pytest.raises(InputError, match=r"unknown function 'picos': if you mean pi\*cos"):
        parse_program("picos(pi x)")
    assert run_together("pisinx") == "pi·sin(x)"
    value = grad("pi*cos(pi x)", at={"x": 0.3}, check=False).value
    assert math.isclose(float(value), math.pi * math.cos(math.pi * 0.3), rel_tol=1e-14)


@pytest.mark.parametrize(
    ("name", "meant"), [("ln3", "ln(3)"), ("sqrt2", "sqrt(2)"), ("cos2x", "cos(2x)")]
)
def test_a_function_glued_to_a_number_is_that_call(name: str, meant: str) -> None:
    assert glued_function(name) == meant == likely_meaning(name)
    assert glued_function("w1") is None and glued_function("x2") is None  # names, as typed


def test_leibniz_notation_typed_as_a_whole_answer_is_told_to_give_the_value(cli) -> None:
    # "d/dx(x^2) = 2x" once got "write the function alone ((x^2) = 2x)", advice that fails
    refused = cli("check", "x^2", "--answer", "d/dx(x^2) = 2x")
    assert refused.exit_code == 2
    assert "as an answer, give the derivative alone (2x)" in refused.stderr
    followed = cli("check", "x^2", "--answer", "2x", "--format", "plain")
    assert followed.exit_code == 0 and "\tequivalent\t" in followed.stdout
