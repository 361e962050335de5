"""`gradcalc plot` through the command line."""

from __future__ import annotations

import pytest

from gradcalc.core.errors import ExitCode


@pytest.mark.slow
def test_plot_tangent_and_contour(cli, tmp_path) -> None:
    text = cli("plot", "x^2", "--at", "x=2").stdout
    assert "slope 4" in text and "\x1b[" not in text
    target = tmp_path / "contour.svg"
    assert cli("plot", "x^2 + y^2", "--at", "x=1,y=2", "--out", str(target)).exit_code == 0
    assert "<svg" in target.read_text()
    assert cli("plot", "x^2 + y^2", "--at", "x=1,y=2").exit_code == ExitCode.USAGE


def test_plot_says_how_it_read_the_expression_and_warns(cli, tmp_path) -> None:
    result = cli("plot", "e^2x", "--at", "x=1", "--width", "50", "--height", "14")
    assert result.exit_code == ExitCode.OK, result.output
    assert result.stdout.splitlines()[0] == "read as: f(x) = e^2·x"
    assert "e^2x is read as e^2·x; if you mean e^(2·x), write e^(2x)" in result.stderr
    target = tmp_path / "contour.svg"
    to_file = cli("plot", "x/2y", "--at", "x=1,y=2", "--out", str(target))
    assert to_file.stdout.startswith("read as: f(x, y) = (x/2)·y")
    assert "x/2y is read as (x/2)·y" in to_file.stderr


def test_plot_of_one_variable_without_a_point_draws_the_function(cli, monkeypatch) -> None:
    import numpy as np

    import gradcalc.apps.plot.plot as plotting

    drawn = {}
    real = plotting.curve_terminal

    def spy(plt, curve, expression):
        drawn["curve"] = curve
        real(plt, curve, expression)

    monkeypatch.setattr(plotting, "curve_terminal", spy)
    result = cli("plot", "sin(x)", "--range", "-3:3")
    assert result.exit_code == 0, result.stderr
    assert "f(x) = sin(x) on [-3, 3]" in result.stdout
    curve = drawn["curve"]
    assert curve.x[0] == -3 and curve.x[-1] == 3
    assert np.allclose(curve.y, np.sin(curve.x), rtol=0, atol=1e-15)


def test_plot_without_a_point_leaves_gaps_where_undefined(cli, monkeypatch) -> None:
    import numpy as np

    import gradcalc.apps.plot.plot as plotting

    drawn = {}
    monkeypatch.setattr(plotting, "curve_terminal", lambda plt, c, e: drawn.update(curve=c))
    assert cli("plot", "log(x)", "--range", "-2:2").exit_code == 0
    curve = drawn["curve"]
    assert np.array_equal(np.isnan(curve.y), curve.x <= 0)


def test_plot_without_a_point_of_two_variables_asks_for_one(cli) -> None:
    result = cli("plot", "x*y")
    assert result.exit_code == 2 and "give the point with --at" in result.stderr
