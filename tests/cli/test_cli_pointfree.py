"""The point-free commands through the CLI (diff, critical, taylor; grad, hessian, jacobian and
explain without --at): what they print, in every format, checked against sympy and textbook
answers, and their exit codes."""

from __future__ import annotations

import json

import pytest
import sympy as sp

from gradcalc.core.errors import ExitCode
from tests.symbolic.readback import read_back

x, y = sp.symbols("x y", real=True)


def test_grad_without_a_point_prints_the_simplified_derivative(cli) -> None:
    result = cli("grad", "x^2*sin(x)")
    assert result.exit_code == 0, result.output
    assert "df/dx = x^2*cos(x) + 2x*sin(x)" in result.stdout
    assert "verified: tape = symbolic at 96 random points of the domain" in result.stdout


def test_diff_json_texts_read_back_to_sympys_derivatives(cli) -> None:
    result = cli("diff", "x^3*y + sin(x*y)", "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    f = x**3 * y + sp.sin(x * y)
    assert [d["label"] for d in out["derivatives"]] == ["∂f/∂x", "∂f/∂y"]
    for d, v in zip(out["derivatives"], (x, y)):
        assert sp.simplify(read_back(d["text"]) - sp.diff(f, v)) == 0
    assert out["verification"]["status"] == "verified"


def test_hessian_and_jacobian_without_a_point(cli) -> None:
    hessian = json.loads(cli("hessian", "x^3 - 3x + y^2", "--format", "json").stdout)
    assert hessian["matrix"] == [["6x", "0"], ["0", "2"]]
    jacobian = json.loads(cli("jacobian", "r*cos(t), r*sin(t)", "--format", "json").stdout)
    assert jacobian["determinant"]["text"] == "r"
    result = cli("jacobian", "r*cos(t), r*sin(t)")
    assert "[cos(t), -r*sin(t)]" in result.stdout  # a matrix row, not rich markup


def test_plain_markdown_and_latex(cli) -> None:
    assert cli("diff", "x^2 y", "--format", "plain").stdout == "2x*y\nx^2\n"
    assert "- ∂f/∂x = `2x*y`" in cli("diff", "x^2 y", "--format", "markdown").stdout
    latex = cli("diff", "sin(x)", "--order", "3", "--format", "latex").stdout
    assert r"\frac{d^{3} f}{d x^{3}} &= - \cos{\left(x \right)}" in latex


def test_implicit_derivative_and_its_value_on_the_curve(cli) -> None:
    result = cli("diff", "x^3 + y^3 = 6x y", "--implicit", "y", "--at", "x=3,y=3")
    assert result.exit_code == 0, result.output
    assert "dy/dx = (x^2 - 2y)/(2x - y^2)" in result.stdout
    assert "at the point: dy/dx = -1" in result.stdout


def test_critical_points_plain(cli) -> None:
    result = cli("critical", "x^4 + y^4 - 4x y", "--format", "plain")
    assert result.stdout.splitlines() == [
        "-1\t-1\t-2\tlocal minimum",
        "0\t0\t0\tsaddle point",
        "1\t1\t-2\tlocal minimum",
    ]


@pytest.mark.parametrize(
    ("text", "f"),
    [("x^2*y^2", x**2 * y**2), ("x^2 + 0*y", x**2), ("(x-y)^2", (x - y) ** 2)],
)
def test_critical_plain_keeps_the_continua(cli, text: str, f) -> None:
    """Plain writes a ``continuum<TAB>description`` line per continuum, as JSON lists them:
    as many as sympy's solutions of ∇f = 0 that leave a variable free."""
    solutions = sp.solve([sp.diff(f, v) for v in (x, y)], [x, y], dict=True)
    free = [s for s in solutions if len(s) < 2]
    plain = cli("critical", text, "--format", "plain")
    assert plain.exit_code == 0, plain.output
    lines = plain.stdout.splitlines()
    assert len(lines) == len(free) > 0, plain.stdout
    described = json.loads(cli("critical", text, "--format", "json").stdout)["continua"]
    assert lines == [f"continuum\t{c}" for c in described]


def test_critical_plain_keeps_a_region(cli) -> None:
    plain = cli("critical", "relu(x^2 + y^2 - 1)", "--format", "plain")
    assert plain.exit_code == 0, plain.output
    (line,) = plain.stdout.splitlines()
    assert line.startswith("continuum\t") and "a region where ∇f = 0" in line


@pytest.mark.parametrize(
    ("equation", "dependent", "F"),
    [("x^3 + y^3 = 6x y", "y", x**3 + y**3 - 6 * x * y), ("x^2 + y^2 = 25", "y", x**2 + y**2 - 25)],
)
def test_implicit_in_markdown_and_latex(cli, equation: str, dependent: str, F) -> None:
    """Every --format diff offers works with --implicit: the derivative shown is sympy's
    -F_x/F_y (read back from JSON), in Markdown with its text and in LaTeX with dy/dx."""
    answer = json.loads(cli("diff", equation, "--implicit", dependent, "--format", "json").stdout)
    (entry,) = answer["derivatives"]
    assert sp.simplify(read_back(entry["text"]) + sp.diff(F, x) / sp.diff(F, y)) == 0
    markdown = cli("diff", equation, "--implicit", dependent, "--format", "markdown")
    assert markdown.exit_code == 0 and not markdown.stderr, markdown.output
    assert f"- dy/dx = `{entry['text']}`" in markdown.stdout
    latex = cli("diff", equation, "--implicit", dependent, "--format", "latex")
    assert latex.exit_code == 0 and not latex.stderr, latex.output
    assert rf"\frac{{d y}}{{d x}} &= {entry['latex']}" in latex.stdout


def test_taylor_and_the_tangent_plane(cli) -> None:
    result = cli("taylor", "exp(x)sin(x)", "--at", "x=0", "--order", "5", "--format", "plain")
    assert result.stdout == "x + x^2 + x^3/3 - x^5/30\n"
    plane = cli("taylor", "x^2 + y^2", "--at", "x=1,y=2", "--order", "1")
    assert "tangent plane: z = 5 + 2(x - 1) + 4(y - 2)" in plane.stdout


def test_taylor_at_a_removable_singularity_is_the_extensions_and_says_so(cli) -> None:
    """sin(x)/x about 0: the textbook's 1 - x^2/6 + x^4/120 (sin's series divided by x),
    exit 0, with the note in every format; the tape's coefficients are null in JSON."""
    table = cli("taylor", "sin(x)/x", "--at", "x=0", "--order", "4")
    assert table.exit_code == 0, table.output
    assert "P4(x) = 1 - x^2/6 + x^4/120" in table.stdout
    assert "not verified by the tape" in table.stdout and "removable" in table.stdout
    plain = cli("taylor", "sin(x)/x", "--at", "x=0", "--order", "4", "--format", "plain")
    assert plain.stdout.splitlines()[0] == "1 - x^2/6 + x^4/120"
    assert "removable singularity" in plain.stderr  # (plain: the answer alone on stdout)
    data = json.loads(cli("taylor", "sin(x)/x", "--at", "x=0", "--format", "json").stdout)
    assert (data["status"], data["limit"], data["polynomial"]) == ("skipped", "1", "1 - x^2/6")
    assert [c["tape"] for c in data["coefficients"]] == [None, None, None]
    assert cli("taylor", "1/x", "--at", "x=0").exit_code == 3


def test_explain_without_a_point_names_the_rules(cli) -> None:
    result = cli("explain", "x^x")
    assert result.exit_code == 0, result.output
    assert "logarithmic differentiation" in result.stdout
    assert "simplified: ∂f/∂x = x^x*(ln(x) + 1)" in result.stdout
    assert "Forward pass" not in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["diff", "x^2", "--at", "x=1"], "for its value at a point use gradcalc grad"),
        (["diff", "x^2 + y^2 = 25", "--implicit", "y", "--at", "x=3,y=5"], "not on the curve"),
        (["grad", "x^2 + y^2 = 25", "--at", "x=3,y=4"], "diff --implicit y"),
        (["critical", "x^2", "--in", "x=2..1"], "low end"),
        (["taylor", "x^2"], "give it with --at"),
        (["grad", "x*y", "--format", "csv"], "no --format csv here"),
        (["diff", "3 + 4"], "has no variables"),
    ],
)
def test_bad_questions_are_one_line_errors_with_exit_2(cli, args, message) -> None:
    result = cli(*args)
    assert result.exit_code == ExitCode.USAGE, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_a_vertical_tangent_is_undefined(cli) -> None:
    result = cli("diff", "x^2 + y^2 = 25", "--implicit", "y", "--at", "x=5,y=0")
    assert result.exit_code == ExitCode.UNDEFINED
    assert "vertical tangent" in result.stderr


def test_gradcalc_help_lists_the_new_commands(cli) -> None:
    listing = cli("--help").stdout
    for command in ("diff", "critical", "taylor"):
        assert f"\n  {command} " in listing


def test_grad_at_one_point_prints_the_tangent_line_or_plane(cli) -> None:
    line = cli("grad", "x^3", "--at", "x=2", "--no-tape").stdout
    assert "tangent line: y = 8 + 12(x - 2)" in line
    plane = cli("grad", "x^2 + y^2", "--at", "x=1,y=2", "--no-tape").stdout
    assert "tangent plane: z = 5 + 2(x - 1) + 4(y - 2)" in plane
    kink = cli("grad", "abs(x)", "--at", "x=0", "--subgradient", "--no-tape").stdout
    assert "tangent" not in kink  # no tangent at a corner
    three = cli("grad", "x*y*z", "--at", "x=1,y=1,z=1", "--no-tape").stdout
    assert "tangent" not in three
