"""gradcalc.apps.plot.plot: terminal plots (plotext) and PNG/SVG files (matplotlib)."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from gradcalc.apps.optimize.minimize import minimize
from gradcalc.apps.plot.plot import (
    contour_plot,
    descent_plot,
    fit_plot,
    function_plot,
    loss_plot,
    parse_span,
    plot,
    tangent_plot,
)
from gradcalc.core.errors import InputError, UndefinedError

BRAILLE = re.compile("[\u2801-\u28ff]")  # plotext's braille marker (U+2800 is a blank cell)


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def tick_labels(text: str) -> list[float]:
    """The numbers on the line under the horizontal axis (the one after the └───┘ line)."""
    lines = lines_of(text)
    axis = next(i for i, line in enumerate(lines) if "└" in line)
    return [float(t) for t in lines[axis + 1].split()]


# --- terminal ----------------------------------------------------------------------------


@pytest.mark.parametrize(("width", "height"), [(80, 24), (100, 30), (50, 15)])
def test_terminal_tangent_has_the_requested_size(width, height):
    text = tangent_plot("x**2", ["x=2"], width=width, height=height)
    assert len(lines_of(text)) == height
    assert {len(line) for line in lines_of(text)} == {width}


def test_terminal_tangent_of_x_squared():
    text = tangent_plot("x**2", ["x=2"], span=(-5, 5))
    assert "\x1b" not in text
    assert lines_of(text)[0].strip() == "x**2 at x=2: value 4, slope 4"
    ticks = tick_labels(text)
    assert ticks[0] == -5 and ticks[-1] == 5
    assert "tangent, slope 4" in text and "point (x=2)" in text
    assert "●" in text  # the point is marked (and in the legend)
    assert BRAILLE.search(text)  # the curve


def y_labels(text: str) -> list[str]:
    """The labels left of the frame's ┤ ticks."""
    return [line.split("┤")[0].strip() for line in lines_of(text) if "┤" in line]


@pytest.mark.parametrize("k", [20, 100])
def test_a_curve_of_huge_values_is_drawn_with_short_ticks(k):
    """e^(kx) on [-5, 5] reaches e^(5k): plotext's every-digit tick labels (44 digits for
    e^100) left no room for the curve, a blank frame at exit 0."""
    text = function_plot(f"exp({k}*x)", span=(-5, 5), width=40, height=12)
    labels = y_labels(text)
    assert BRAILLE.search(text)
    assert max(len(label) for label in labels) <= 9, labels
    top = max(float(label) for label in labels)
    assert top == pytest.approx(np.exp(5.0 * k), rel=5e-3)  # to the 3 digits shown


@pytest.mark.parametrize("scale", [1e-300, 1e-20])
def test_a_curve_of_tiny_values_is_drawn_with_short_ticks(scale):
    """1e-300*x: plotext wrote 0.000...0050 to every digit, a blank frame at exit 0, as
    for huge values."""
    text = function_plot(f"{scale!r}*x", span=(-5, 5), width=40, height=12)
    labels = y_labels(text)
    assert BRAILLE.search(text)
    assert max(len(label) for label in labels) <= 9, labels
    assert max(float(label) for label in labels) == pytest.approx(5 * scale, rel=5e-3)


def test_ticks_of_a_narrow_range_far_from_0_are_told_apart():
    """x + 1e15 on [-5, 5]: three digits wrote every tick 1e+15."""
    labels = y_labels(function_plot("x + 1e15", span=(-5, 5), width=60, height=12))
    assert len(set(labels)) == len(labels) > 1, labels
    assert [float(label) for label in labels] == sorted(float(t) for t in labels)[::-1]


def test_terminal_default_span_is_centred_on_the_point():
    ticks = tick_labels(tangent_plot("x**2", ["x=2"]))
    assert (ticks[0], ticks[-1]) == (-3, 7)


def test_terminal_plot_does_not_depend_on_the_terminal_or_earlier_plots(monkeypatch):
    first = tangent_plot("sin(x)", ["x=1"], width=60, height=20)
    loss_plot([1.0, 0.1, 0.01], None, "loss", width=40, height=12)  # log scale, other size
    monkeypatch.setenv("COLUMNS", "20")
    monkeypatch.setenv("LINES", "5")
    assert tangent_plot("sin(x)", ["x=1"], width=60, height=20) == first


def test_the_point_can_be_a_mapping_or_one_spec():
    expected = tangent_plot("x**3", ["x=-1.5"])
    assert tangent_plot("x**3", {"x": -1.5}) == expected
    assert tangent_plot("x**3", "x=-1.5") == expected
    assert "slope 6.75" in expected
    with pytest.raises(InputError, match="one number per variable"):
        tangent_plot("x**3", {"x": np.array([1.0, 2.0])})


def test_exact_point_text_is_kept_in_the_title():
    title = lines_of(tangent_plot("sin(t)", ["t=pi/6"], width=60))[0]
    assert title.strip() == "sin(t) at t=pi/6: value 0.5, slope 0.866025"


def test_a_long_title_is_shortened_not_dropped():
    expression = " + ".join(f"{k}*x**{k}" for k in range(1, 12))
    title = lines_of(tangent_plot(expression, ["x=0.5"], width=60))[0]
    assert len(title) == 60 and title.startswith(expression[:59]) and title.endswith("…")


def test_log_is_drawn_only_where_it_is_defined():
    text = tangent_plot("log(x)", ["x=1"], span=(-5, 5), width=81, height=24)
    lines = lines_of(text)
    top = next(i for i, line in enumerate(lines) if "┌" in line)
    bottom = next(i for i, line in enumerate(lines) if "└" in line)
    ticks = lines[bottom]
    zero = [m.start() for m in re.finditer("┬", ticks)][2]  # the ticks are -5, -2.5, 0, 2.5, 5
    assert tick_labels(text)[2] == 0
    plot_rows = lines[top + 4 : bottom]  # below the three legend rows
    columns = [m.start() for row in plot_rows for m in BRAILLE.finditer(row)]
    assert columns, "log(x) should be drawn for x > 0"
    assert min(columns) >= zero  # nothing at x < 0, and no line joining an "undefined = 0"


def test_loss_plot_terminal_uses_a_log_scale_for_positive_values():
    text = loss_plot([10 * 0.5**k for k in range(30)], None, "minimize", width=60, height=18)
    assert len(lines_of(text)) == 18 and "\x1b" not in text
    assert "(log scale)" in text
    assert "1e1" in text and "1e-7" in text  # powers of ten on the axis


def test_loss_plot_terminal_linear_when_a_value_is_not_positive():
    text = loss_plot([3.0, 1.0, -0.5, float("nan"), -1.0], None, "minimize", width=60)
    assert "(log scale)" not in text
    assert "value" in text


def test_loss_plot_at_the_recorded_step_numbers():
    text = loss_plot([8.0, 4.0, 2.0, 1.0], None, "every 100 steps", steps=[0, 100, 200, 300])
    assert tick_labels(text)[-1] == 300
    with pytest.raises(InputError, match="3 steps for 4 values"):
        loss_plot([8.0, 4.0, 2.0, 1.0], None, "loss", steps=[0, 1, 2])


def test_fit_plot_terminal():
    x = np.linspace(0, 4, 9)
    text = fit_plot(x, 2 * x + 1, lambda t: 2 * t + 1, None, "fit a*x + b", width=60, height=18)
    assert len(lines_of(text)) == 18 and "\x1b" not in text
    assert "fit a*x + b" in lines_of(text)[0]
    assert "data" in text and "fitted curve" in text
    assert text.count("●") >= 9 - 2  # the data points (two may share a cell), and the legend


def test_values_where_an_op_is_undefined_are_left_out_even_when_finite():
    from gradcalc.apps.plot.plot import _defined_values  # atan2(0, 0) computes 0 but is undefined
    from gradcalc.engine.run.api import compile_expression

    graph = compile_expression("atan2(y, x)", ["x", "y"])
    values = _defined_values(graph, {"x": np.array([0.0, 1.0]), "y": np.array([0.0, 1.0])})
    assert np.isnan(values[0]) and values[1] == pytest.approx(np.pi / 4)


# --- files -------------------------------------------------------------------------------


def assert_png(path, min_width=300, min_height=200):
    from matplotlib.image import imread

    data = path.read_bytes()
    assert data[:4] == b"\x89PNG"
    height, width = imread(path).shape[:2]
    assert width >= min_width and height >= min_height


def svg_texts(path) -> str:
    """The SVG, whose text matplotlib draws as paths with the text in a comment."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<?xml") and "<svg" in text
    assert len(text) > 5_000
    return text


def test_tangent_png(tmp_path):
    out = tmp_path / "fig.png"
    assert tangent_plot("x**2", ["x=2"], out=str(out)) is None
    assert_png(out)


def test_tangent_svg_has_labels_legend_and_title(tmp_path):
    out = tmp_path / "fig.svg"
    tangent_plot("x**2", ["x=-2"], span=(-5, 5), out=str(out))
    text = svg_texts(out)
    for label in [
        "x**2 at x=-2: value 4, slope -4",
        "f(x) = x**2",
        "tangent, slope -4",
        "x=-2, f = 4",
        "<!-- f(x) -->",
        "<!-- x -->",
    ]:
        assert label in text


def test_tangent_file_of_log_over_an_undefined_region(tmp_path):
    out = tmp_path / "log.png"
    tangent_plot("log(x)", ["x=1"], span=(-5, 5), out=str(out))
    assert_png(out)


def test_contour_png_and_svg(tmp_path):
    png, svg = tmp_path / "c.png", tmp_path / "c.svg"
    assert contour_plot("x**2 + y**2", ["x=1,y=2"], out=str(png)) is None
    assert_png(png)
    contour_plot("x**2 + y**2", {"x": 1, "y": 2}, out=str(svg))
    text = svg_texts(svg)
    assert "x**2 + y**2 at x=1, y=2: value 5, gradient (2, 4)" in text
    assert "gradient direction" in text and "level f = 5" in text


def test_plot_dispatches_on_the_number_of_variables(tmp_path):
    assert "slope 4" in plot("x**2", ["x=2"])
    out = tmp_path / "c.png"
    assert plot("x*y", ["x=1,y=2"], out=str(out)) is None
    assert_png(out)


def test_contour_of_a_function_undefined_in_places(tmp_path):
    out = tmp_path / "c.svg"
    contour_plot("log(x) + sqrt(y)", ["x=1,y=1"], span=(-3, 3), out=str(out))
    assert "gradient (1, 0.5)" in svg_texts(out)


def test_loss_and_fit_files(tmp_path):
    loss_png, fit_svg = tmp_path / "loss.png", tmp_path / "fit.svg"
    loss_plot([4.0, 1.0, 0.25, 0.0625], str(loss_png), "minimize x**2")
    assert_png(loss_png)
    x = np.linspace(-1, 1, 20)
    fit_plot(x, x**2, lambda t: t**2, str(fit_svg), "fit a*x**2")
    text = svg_texts(fit_svg)
    assert "fit a*x**2" in text and "fitted curve" in text and "<!-- data -->" in text


def descent(expression: str, start: dict, **options) -> tuple[dict, list, list]:
    m = minimize(expression, start, **options)
    path = {n: [s.point[n] for s in m.path] for n in start}
    return path, [s.value for s in m.path], [s.step for s in m.path]


def test_descent_svg_shows_the_path_and_the_value(tmp_path):
    out = tmp_path / "d.svg"
    path, values, steps = descent("(x-3)^2 + 2(y+1)^2", {"x": 0.0, "y": 0.0}, lr=0.1, every=1)
    descent_plot("(x-3)^2 + 2(y+1)^2", path, values, steps, str(out), "bowl by gd")
    text = svg_texts(out)
    for label in [
        "bowl by gd: path",
        "bowl by gd: value",
        f"path ({len(steps)} points)",
        "start (x=0, y=0)",
        "end (x=3, y=-1)",
        "value (log scale)",
    ]:
        assert label in text


def test_descent_draws_the_path_it_is_given_inside_the_window():
    from matplotlib.figure import Figure

    from gradcalc.apps.plot import plot as plotting

    path, _, _ = descent(
        "(1-x)^2 + 100(y-x^2)^2", {"x": -1.2, "y": 1.0}, method="momentum", lr=1e-4, steps=2000
    )
    out_ax = Figure().add_subplot()
    grid = np.meshgrid(np.linspace(-2, 2, 11), np.linspace(-1, 3, 11))
    surface = (1 - grid[0]) ** 2 + 100 * (grid[1] - grid[0] ** 2) ** 2
    route = plotting.Curve(np.array(path["x"]), np.array(path["y"]))
    plotting.path_file(out_ax, grid, surface, route, ["x", "y"])
    drawn = out_ax.lines[0].get_xydata()
    assert np.array_equal(drawn, np.column_stack([path["x"], path["y"]]))


def test_descent_refuses_what_it_cannot_draw(tmp_path):
    out = str(tmp_path / "d.png")
    with pytest.raises(InputError, match=r"one function of two variables.*\(x, y\)"):
        descent_plot("x*y", {"x": [1.0, 2.0], "y": [1.0]}, [1.0, 2.0], [0, 1], out, "t")
    with pytest.raises(InputError, match="one function of two variables"):
        descent_plot("x**2", {"x": [1.0, 2.0]}, [1.0, 4.0], [0, 1], out, "t")
    with pytest.raises(InputError, match="no point of the path is finite"):
        descent_plot("x*y", {"x": [np.nan], "y": [1.0]}, [1.0], [0], out, "t")
    with pytest.raises(InputError, match="2 steps for 1 values"):
        descent_plot("x*y", {"x": [1.0], "y": [1.0]}, [1.0], [0, 1], out, "t")
    assert not (tmp_path / "d.png").exists()


def test_minimize_plot_file_of_two_variables_shows_the_path(cli, tmp_path) -> None:

    two, one = tmp_path / "two.svg", tmp_path / "one.svg"
    args = ["--lr", "0.1", "--every", "1", "--plot", "--format", "json"]
    bowl = cli.invoke(["minimize", "(x-3)^2 + 2(y+1)^2", "--from", "x=0,y=0", *args,
                               "--out", str(two)])  # fmt: skip
    assert bowl.exit_code == 0
    text = two.read_text(encoding="utf-8")
    assert "(x-3)^2 + 2(y+1)^2 by gd: path" in text and "start (x=0, y=0)" in text
    assert "(x-3)^2 + 2(y+1)^2 by gd: value" in text
    line = cli.invoke(["minimize", "(x-3)^2", "--from", "x=0", *args, "--out", str(one)])
    assert line.exit_code == 0
    loss = one.read_text(encoding="utf-8")  # one variable: the value by step only
    assert "<!-- (x-3)^2 by gd -->" in loss and "by gd: path" not in loss


def test_matplotlib_missing_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "fig.png"
    with pytest.raises(InputError) as error:
        tangent_plot("x**2", ["x=2"], out=str(out))
    assert error.value.message == (f"writing {out} needs matplotlib: pip install 'gradcalc[plot]'")
    assert not out.exists()
    with pytest.raises(InputError, match="needs matplotlib"):
        contour_plot("x*y", ["x=1,y=1"], out=str(out))
    with pytest.raises(InputError, match="needs matplotlib"):
        loss_plot([1.0], str(out), "loss")
    assert "slope 4" in tangent_plot("x**2", ["x=2"])  # the terminal does not need it


# --- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "at", "message"),
    [
        ("3", [], "one or two variables; this has 0"),
        ("x + y + z", ["x=1,y=2,z=3"], "this has 3 (x, y, z)"),
        ("x + y", ["x=1"], "no value given for y"),
        ("x**2", ["x=1", "x=2"], "one point"),
        ("x, x**2", ["x=1"], "one function"),
        ("x + ", ["x=1"], "needs an expression after it"),
    ],
)
def test_bad_functions_and_points(expression, at, message):
    with pytest.raises(InputError, match=re.escape(message)):
        plot(expression, at)


@pytest.mark.parametrize(
    ("span", "message"),
    [
        ((5, -5), "lo < hi"),
        ((1, 1), "lo < hi"),
        ((0, float("inf")), "finite"),
        ((float("nan"), 1), "finite"),
        ((3, 5), "x=2 is outside the range 3:5"),
    ],
)
def test_bad_spans(span, message):
    with pytest.raises(InputError, match=re.escape(message)):
        tangent_plot("x**2", ["x=2"], span=span)


def test_a_span_must_contain_both_coordinates_of_a_contour(tmp_path):
    with pytest.raises(InputError, match=re.escape("y=7 is outside the range -5:5")):
        contour_plot("x*y", ["x=1,y=7"], span=(-5, 5), out=str(tmp_path / "c.png"))


def test_parse_span():
    assert parse_span("-5:5") == (-5.0, 5.0)
    assert parse_span(" -pi : 2*pi ") == (-np.pi, 2 * np.pi)
    for bad in ["5", "1:", ":1", "1:2:3", "a:b", "5:-5"]:
        with pytest.raises(InputError):
            parse_span(bad)


def test_two_variables_need_a_file():
    with pytest.raises(InputError, match=r"x, y.*needs --out fig\.png or fig\.svg"):
        contour_plot("x**2 + y**2", ["x=1,y=2"])
    with pytest.raises(InputError, match="needs --out"):
        plot("x**2 + y**2", ["x=1,y=2"])


def test_each_plot_takes_its_own_number_of_variables(tmp_path):
    with pytest.raises(InputError, match=r"tangent plot needs one variable.*use contour_plot"):
        tangent_plot("x*y", ["x=1,y=2"])
    with pytest.raises(InputError, match=r"contour plot needs two variables.*use tangent_plot"):
        contour_plot("x**2", ["x=1"], out=str(tmp_path / "c.png"))


def test_bad_output_files(tmp_path):
    with pytest.raises(InputError, match=re.escape("must end in .png or .svg")):
        tangent_plot("x**2", ["x=2"], out=str(tmp_path / "fig.jpg"))
    with pytest.raises(InputError, match="cannot write"):
        tangent_plot("x**2", ["x=2"], out=str(tmp_path / "no-such-dir" / "fig.png"))


def test_a_terminal_plot_needs_room():
    with pytest.raises(InputError, match="at least 40 columns and 12 lines"):
        tangent_plot("x**2", ["x=2"], width=20, height=6)


def test_an_undefined_slope_at_the_point_is_reported():
    with pytest.raises(UndefinedError, match="not differentiable at x=0"):
        tangent_plot("abs(x)", ["x=0"])
    with pytest.raises(UndefinedError, match="undefined at x=-1"):
        tangent_plot("log(x)", ["x=-1"])


def test_loss_and_fit_reject_nothing_to_plot():
    with pytest.raises(InputError, match="no recorded step"):
        loss_plot([], None, "loss")
    with pytest.raises(InputError, match="no recorded step"):
        loss_plot([float("nan"), float("inf")], None, "loss")
    with pytest.raises(InputError, match="same length"):
        fit_plot(np.arange(3.0), np.arange(4.0), np.sin, None, "fit")


@pytest.mark.parametrize(
    "args",
    [
        ["((((0.5)+(30))*(abs(x)))^(x))^(30)", "--at", "x=0.5"],
        ["x^2", "--at", "x=((1e-9)^((sin((e)+(0.5)))-(pi)))+(pi)"],
    ],
    ids=["values near 1e300", "a point near 1e300"],
)
def test_values_plotext_cannot_scale_are_an_input_error(cli, args: list[str]) -> None:
    """Found by the fuzzer: plotext raised OverflowError / ZeroDivisionError (exit 70)."""
    result = cli("plot", *args)
    assert result.exit_code == 2, result.output
    assert "too wide or too narrow a range for a terminal plot" in result.output
    assert "internal error" not in result.output


def test_samples_where_f_overflows_are_named_in_a_note() -> None:
    """exp(x) over -1000..1000 overflows past log(max float) = 709.78: it drew an empty plot
    without a word."""
    from gradcalc.apps.plot.plot import tangent_plot

    text = tangent_plot("exp(x)", at={"x": 0.0}, span=(-1000, 1000))
    note = text.splitlines()[0]
    first = float(note.split("x from ")[1].split(" ")[0])
    assert note.startswith("note: f is not a finite number") and 709.78 < first < 716
    assert not tangent_plot("x^2", at={"x": 0.0}).startswith("note")


@pytest.mark.parametrize("expression", ["1/x", "x^3", "-x", "sin(x)"])
def test_no_tick_is_labelled_minus_zero(expression: str) -> None:
    text = function_plot(expression)
    assert text is not None
    y_labels = [line.partition("┤")[0] for line in lines_of(text) if "┤" in line]
    assert not any(re.fullmatch(r"\s*-0(\.0+)?", label) for label in y_labels), y_labels
    assert all(t != 0 or str(t) == "0.0" for t in tick_labels(text))


@pytest.mark.parametrize("expression", ["log(x)", "sqrt(x - 2)", "1/x"])
def test_a_plot_without_a_point_says_what_it_left_out(expression) -> None:
    """The samples where f is not a finite number (counted by numpy on the plot's 401
    samples of [-5, 5], independently of gradcalc) are told, as with a point."""
    xs = np.linspace(-5, 5, 401)
    with np.errstate(all="ignore"):
        values = {"log(x)": np.log(xs), "sqrt(x - 2)": np.sqrt(xs - 2), "1/x": 1 / xs}[expression]
    count = int((~np.isfinite(values)).sum())
    assert count > 0
    text = function_plot(expression, span=(-5, 5))
    assert f"note: f is not a finite number at {count} of 401 samples" in text


def test_an_image_is_put_in_place_only_when_complete(tmp_path, monkeypatch) -> None:
    """--out FILE.png is drawn beside the file and renamed over it when complete: a
    drawing that fails half-way leaves the old image as it was, and no file behind."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    out = tmp_path / "f.png"
    out.write_bytes(b"the old image")
    tangent_plot("sin(x)", at={"x": 1.0}, out=str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and len(list(tmp_path.iterdir())) == 1
    before = out.read_bytes()

    def half_written(self, path, **options):
        with open(path, "wb") as partial:
            partial.write(b"\x89PNG half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", half_written)
    with pytest.raises(InputError, match="No space left on device"):
        tangent_plot("sin(x)", at={"x": 1.0}, out=str(out))
    assert out.read_bytes() == before and len(list(tmp_path.iterdir())) == 1
