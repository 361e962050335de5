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
