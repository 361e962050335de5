"""The writer of results (gradcalc.cli.console): the formats whose lines hold only numbers
(CSV, plain, --out) still tell what the diagnostics found, on stderr -- the table and JSON
show it beside the numbers."""

from __future__ import annotations

import math

import pytest


def _slope_of_tanh(x: float) -> float:
    return 1 - math.tanh(x) ** 2


@pytest.mark.parametrize("output", ["csv", "plain"])
def test_one_points_findings_reach_stderr_in_every_format_of_numbers(cli, output) -> None:
    """tanh'(6) = 2.5e-5 (by hand) is below the saturation threshold 1e-4: a finding the
    table prints; CSV and plain print it on stderr, the numbers alone on stdout."""
    result = cli.invoke(["grad", "tanh(x)", "--at", "x=6", "--format", output])
    assert result.exit_code == 0, result.output
    assert float(result.stdout.strip().splitlines()[-1].split(",")[-1]) == pytest.approx(
        _slope_of_tanh(6), rel=1e-12
    )
    assert "Not healthy at x=6" in result.stderr
    assert f"slope {_slope_of_tanh(6):.2g}" in result.stderr
    assert "saturated" not in result.stdout


@pytest.mark.parametrize("output", ["csv", "plain"])
def test_diagnose_reports_health_on_stderr_too(cli, output) -> None:
    healthy = cli.invoke(["grad", "x^2", "--at", "x=1", "--format", output, "--diagnose"])
    assert "Healthy at x=1" in healthy.stderr
    quiet = cli.invoke(["grad", "x^2", "--at", "x=1", "--format", output])
    assert "ealthy" not in quiet.stderr


@pytest.mark.parametrize(
    ("expression", "point", "error"),
    [
        ("cbrt(x)", "x=0", "cbrt(x) is not differentiable at x=0"),
        ("1/x", "x=1e-200", "∂f/∂x overflows float64 at x=1e-200"),
        ("sqrt(x^2)", "x=0", "a corner of f, one-sided: ∂f/∂x = -1 from the left, 1 from"),
    ],
)
def test_one_undefined_point_is_told_once(cli, expression, point, error) -> None:
    """At one point where the gradient is undefined (exit 3), the error says what the
    findings (a kink, a non-finite value) would: it is said once, not again as a report."""
    result = cli.invoke(["grad", expression, "--at", point, "--format", "plain"])
    assert result.exit_code == 3 and result.stdout == "nan\n"
    assert result.stderr.count("\n") == 1 and error in result.stderr, result.stderr


def test_many_points_count_each_finding_over_every_chunk(cli, tmp_path, monkeypatch) -> None:
    """tanh(w·x) + x: w gets its gradient only through tanh, saturated where |w·x| is large
    (slope below 1e-4 for |w·x| > 5.3, by hand); the count covers every chunk of the file."""
    import gradcalc.io.files

    monkeypatch.setattr(gradcalc.io.files, "CHUNK_ROWS", 4)
    products = [10.0, 0.1, -20.0, 1.0, 7.0, -3.0, 6.0, 0.0, 12.0, 2.0]
    saturated = sum(_slope_of_tanh(p) < 1e-4 for p in products)
    path = tmp_path / "p.csv"
    path.write_text("w,x\n" + "".join(f"1,{p}\n" for p in products))
    for extra in (["--format", "csv"], ["--out", str(tmp_path / "out.csv")]):
        result = cli.invoke(["grad", "tanh(w*x) + x", "--points", str(path), "--no-check", *extra])
        assert result.exit_code == 0, result.output
        line = f"diagnostics: saturated at {saturated} of {len(products)} points; the first:"
        assert line in result.stderr, result.stderr
