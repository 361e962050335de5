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
