"""The REPL's checks (issue 18): a remembered point never blocks a point-free check, and the
header and labels name the function asked for."""

from __future__ import annotations

from gradcalc.cli import repl
from gradcalc.cli.context import AppContext


def session_output(capsys, *lines: str) -> tuple[list[int], str]:
    session = repl.Session(AppContext(color=False))
    codes = [session.execute(line) for line in lines]
    return codes, capsys.readouterr().out


def test_a_remembered_point_does_not_block_a_check_of_another_function(capsys) -> None:
    codes, out = session_output(capsys, "f = x^2", "at x=1; x=2", "g = x*y", "check y, x")
    assert codes[-1] == 0
    assert "read as: g(x, y) = x·y\nChecking your derivative of g\n" in out  # everywhere: no point
    assert out.count("✓ equivalent") == 2


def test_a_fitting_remembered_point_is_used(capsys) -> None:
    codes, out = session_output(capsys, "g = x*y", "at x=1, y=2", "check y, x", "expect 2, 1")
    assert codes[-2:] == [0, 0]
    assert out.count("read as: g(x, y) = x·y\nChecking your derivative of g at x=1, y=2") == 2
    assert "∂g/∂x" in out and "∂f/∂x" not in out


def test_the_header_names_the_current_function(capsys) -> None:
    codes, out = session_output(capsys, "f = x^2", "g = x^3", "use f", "check 3*x")
    assert codes[-1] == 1  # 3x is not 2x
    assert "read as: f(x) = x^2\nChecking your derivative of f" in out and "g = x^3 " not in out
    codes, out = session_output(capsys, "f = x^2", "g = x^3", "check 3*x^2")
    assert codes[-1] == 0 and "read as: g(x) = x^3\nChecking your derivative of g" in out
