"""Colour, width, "did you mean", usage lines and shell completion of the command line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ESC = "\x1b["
TABLE = ["grad", "x^2*y", "--at", "x=1,y=2"]


def gradcalc(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """A real process whose stdout is a pipe (NO_COLOR and FORCE_COLOR cleared unless given)."""
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.run(
        [sys.executable, "-c", "from gradcalc.cli.app import main; main()", *args],
        capture_output=True,
        text=True,
        env={**environ, **(env or {})},
        timeout=60,
    )


def invoke(cli, *args: str, **env: str):
    clean = {"NO_COLOR": None, "FORCE_COLOR": None, "TERM": "xterm-256color", **env}
    return cli.invoke(list(args), env=clean, terminal_width=80)


# --- colour --------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_pipe_gets_no_escape_codes_and_color_forces_them() -> None:
    piped = gradcalc(*TABLE)
    assert piped.returncode == 0, piped.stderr
    assert "∂f/∂" in piped.stdout and ESC not in piped.stdout
    forced = gradcalc("--color", *TABLE)
    assert ESC in forced.stdout
    assert forced.stdout.count("∂f/∂") == piped.stdout.count("∂f/∂")


def test_no_color_turns_off_every_escape_code_even_when_a_terminal_is_forced(cli) -> None:
    assert (
        ESC in invoke(cli, *TABLE, FORCE_COLOR="1").stdout
    )  # rich would colour: the test can fail
    assert ESC not in invoke(cli, *TABLE, FORCE_COLOR="1", NO_COLOR="1").stdout
    assert ESC not in invoke(cli, "--no-color", *TABLE, FORCE_COLOR="1").stdout
    assert ESC not in invoke(cli, *TABLE, NO_COLOR="yes").stdout


def test_an_explicit_color_flag_beats_no_color_and_a_dumb_terminal(cli) -> None:
    assert ESC in invoke(cli, "--color", *TABLE, NO_COLOR="1").stdout
    assert ESC in invoke(cli, "--color", *TABLE, TERM="dumb").stdout


def test_no_color_when_empty_is_not_set(cli) -> None:
    assert ESC in invoke(cli, *TABLE, FORCE_COLOR="1", NO_COLOR="").stdout


@pytest.mark.parametrize("command", [["ops", "sin"], ["check", "x^2", "--answer", "2x"]])
def test_every_table_command_follows_no_color(cli, command: list[str]) -> None:
    assert ESC in invoke(cli, "--color", *command).stdout
    assert ESC not in invoke(cli, *command, FORCE_COLOR="1", NO_COLOR="1").stdout


# --- width ---------------------------------------------------------------------------------

WRONG = ["check", "x^x", "--answer", "x x^(x-1)"]


def widest(text: str) -> int:
    return max(len(line.rstrip()) for line in text.splitlines())


@pytest.mark.slow
def test_tables_fold_to_columns_and_wide_unfolds_them() -> None:
    narrow = gradcalc(*WRONG, env={"COLUMNS": "50"}).stdout
    default = gradcalc(*WRONG, env={"COLUMNS": "80"}).stdout
    assert widest(narrow) <= 50 < widest(default) <= 80
    wide = gradcalc("--wide", *WRONG, env={"COLUMNS": "50"}).stdout
    assert widest(wide) > 80
    row = next(line for line in wide.splitlines() if "df/dx" in line)
    assert "differs at x=2.649: yours 13.20517337, correct 26.06941836 (high-precision" in row


@pytest.mark.slow
def test_wide_does_not_stretch_what_is_already_narrow() -> None:
    wide = gradcalc("--wide", "grad", "x*y", "--at", "x=1,y=2").stdout
    assert widest(wide) < 60


# --- did you mean ----------------------------------------------------------------------------


def test_a_misspelled_option_is_named_with_a_suggestion() -> None:
    done = gradcalc("grad", "x", "--at", "x=1", "--formt", "json")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == "gradcalc: no such option --formt; did you mean --format?"
    assert gradcalc("grad", "x", "--formt=json").stderr.startswith("gradcalc: no such option")
    unknown = gradcalc("hessian", "x", "--zzz")
    assert unknown.returncode == 2 and "no such option --zzz\n" in unknown.stderr
    root = gradcalc("--colr", "grad", "x")
    assert root.returncode == 2
    assert root.stderr.startswith("gradcalc: no such option --colr; did you mean --color?")


@pytest.mark.slow
def test_expressions_and_values_may_still_start_with_minus() -> None:
    done = gradcalc("grad", "-x^2", "--at", "x=1", "--format", "plain")
    assert (done.returncode, done.stdout) == (0, "-2\n")
    # the value of an option is not an option, even with two dashes: --x is -(-x)
    done = gradcalc("check", "x^2/2", "--answer", "--x")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("text", ["-(x + erf(x))", "-sin(x)*f", "-(x)^2 + sinh(x)"])
def test_an_expression_with_an_f_after_a_minus_is_not_the_f_option(cli, text: str) -> None:
    """click reads -(x + erf(x)) as short options: -( -x ... and -f with '(x))' as value."""
    import sympy

    result = cli.invoke(["grad", text, "--at", "x=0.5,f=2", "--format", "plain", "--wrt", "x"])
    assert result.exit_code == 0, result.output
    symbols = {"x": sympy.Symbol("x"), "f": sympy.Symbol("f")}
    truth = sympy.diff(sympy.sympify(text.replace("^", "**"), locals=symbols), symbols["x"])
    expected = float(truth.subs({symbols["x"]: 0.5, symbols["f"]: 2}))
    assert float(result.stdout) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("text", "guess"),
    [("sni(x)", "sin"), ("sqr(x)", "sqrt"), ("exq(x)", "exp"), ("cso(x)", "cos"), ("Sinh(x)", "")],
)
def test_misspelled_functions_name_the_closest_registry_function(
    cli, text: str, guess: str
) -> None:
    result = cli.invoke(["grad", text, "--at", "x=1"])
    if not guess:  # a capitalised spelling is a slip too: difflib ignores case here
        assert result.exit_code == 2 and "did you mean 'sinh'" in result.output
        return
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert f"unknown function '{text[:-3]}' — did you mean '{guess}'?" in lines[0]
    assert lines[1].strip() == text and lines[2].strip() == "^"


def test_a_declared_variable_may_multiply_a_parenthesis(cli) -> None:
    result = cli.invoke(
        ["grad", "tau(x+1)", "--at", "x=1,tau=2", "--format", "plain", "--no-check"]
    )
    assert result.exit_code == 0 and result.stdout == "2 2\n"
    assert cli.invoke(["grad", "k(x+1)", "--at", "x=1,k=3", "--format", "plain"]).exit_code == 0


def test_misspelled_point_variables(cli) -> None:
    result = cli.invoke(["grad", "x*y", "--at", "x=1,yy=2"])
    assert result.exit_code == 2
    assert "no value given for y; did you mean y, not yy?" in result.output
    product = cli.invoke(["grad", "xy", "--at", "x=1,y=2"])
    assert "for a product write x*y" in product.output  # not mistaken for a misspelling
    wrt = cli.invoke(["grad", "x*y", "--at", "x=1,y=2", "--wrt", "yy"])
    assert wrt.exit_code == 2 and "did you mean 'y'?" in wrt.output


def test_usage_line_has_no_braces(cli) -> None:
    usage = cli.invoke(["hessian", "--help"], terminal_width=100).stdout
    assert "Usage: gradcalc hessian [OPTIONS] EXPRESSION\n" in usage
    assert "{" not in usage.splitlines()[0]
    usage = cli.invoke(["grad", "--help"], terminal_width=100).stdout
    assert "Usage: gradcalc grad [OPTIONS] [EXPRESSION]\n" in usage  # optional with --jobs


# --- shell completion ------------------------------------------------------------------------


def complete(words: str, cword: int) -> list[str]:
    done = gradcalc(env={"_GRADCALC_COMPLETE": "complete_bash", "COMP_WORDS": words,
                         "COMP_CWORD": str(cword)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.slow
def test_bash_completion_script_and_completions() -> None:
    # the bash script, named: --show-completion would detect the shell from the processes
    # above this one, which need not include a shell (it failed so under some runners)
    script = gradcalc(env={"_GRADCALC_COMPLETE": "source_bash"})
    assert script.returncode == 0
    assert "complete -o default -F _gradcalc_completion gradcalc" in script.stdout
    assert complete("gradcalc gr", 1) == ["grad", "graph"]
    assert "repl" in complete("gradcalc re", 1) and "ops" in complete("gradcalc o", 1)
    assert complete("gradcalc grad x --for", 3) == ["--format"]
    assert complete("gradcalc grad x --format ", 4) == ["table", "json", "csv", "plain"]
    assert complete("gradcalc --no", 1) == ["--no-color"]


def test_help_shows_what_each_argument_is(cli) -> None:
    """(click 8.5 with typer < 0.25 printed only "EXPRESSION [required]")."""
    usage = cli.invoke(["hessian", "--help"], terminal_width=100).stdout
    assert "The expression or program" in usage


# --- a closed pipe, a narrow terminal, a misspelled command ----------------------------------


def test_a_closed_pipe_ends_quietly_with_0(tmp_path) -> None:
    """``gradcalc ... | head -1``: the reader leaves after one line; that is no error."""
    path = tmp_path / "points.csv"
    path.write_text("x,y\n" + "".join(f"{i},{i + 1}\n" for i in range(50_000)))  # > a pipe
    command = ["grad", "x*y", "--points", str(path), "--format", "csv", "--no-check"]
    process = subprocess.Popen(
        [sys.executable, "-c", "from gradcalc.cli.app import main; main()", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = process.stdout.readline()
    process.stdout.close()  # as head -1 does
    error = process.stderr.read()
    assert process.wait(timeout=120) == 0, error
    assert first == b"x,y,value,d/dx,d/dy\n"
    assert error == b""


@pytest.mark.parametrize(
    "command",
    [
        ["grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3"],
        ["check", "x^2", "--answer", "2x"],
        ["ops"],
    ],
    ids=["grad table", "check table", "ops table"],
)
def test_a_pipe_closed_before_a_table_is_written_ends_with_0(command: list[str]) -> None:
    """rich's own handler exits with 1 ("a check failed") when a table meets a closed pipe."""
    process = subprocess.Popen(
        [sys.executable, "-c", "from gradcalc.cli.app import main; main()", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # the reader is gone before gradcalc has printed anything
    error = process.stderr.read()
    assert process.wait(timeout=120) == 0, error
    assert error == b""


def test_a_narrow_terminal_stacks_each_row_as_key_value_lines(cli) -> None:
    args = ["grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3"]
    narrow = cli(*args, env={"COLUMNS": "40"}).stdout.splitlines()
    assert max(len(line) for line in narrow) <= 40
    # ∂f/∂w1 = 6 w1 + 2 w2 = 36, ∂f/∂w2 = 2 w1 = 10 at (5, 3)
    for line in ("∂f/∂: w1", "tape: 36", "symbolic (sympy): 6 w1 + 2 w2", "tape: 10"):
        assert line in narrow
    assert not any("┃" in line or "│" in line for line in narrow)  # no table columns
    assert any("│" in line for line in cli(*args, env={"COLUMNS": "80"}).stdout.splitlines())


@pytest.mark.parametrize(("typed", "meant"), [("grda", "grad"), ("hesian", "hessian")])
def test_a_misspelled_command_gets_one_suggestion(typed: str, meant: str) -> None:
    done = gradcalc(typed, "x")
    assert done.returncode == 2
    first = done.stderr.splitlines()[0]
    assert first == f"gradcalc: no such command '{typed}'; did you mean {meant}?"
    assert done.stderr.lower().count("did you mean") == 1


def _progress_run(monkeypatch, terminal: bool, size: int) -> tuple[list, str]:
    import io

    from rich.console import Console

    from gradcalc.cli.console import chunks_with_progress

    written = io.StringIO()

    class Context:
        def console(self, stderr: bool = False) -> Console:
            return Console(file=written, force_terminal=True, width=80)

    class Chunk:
        count = 65_536

    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal, raising=False)
    chunks = [Chunk(), Chunk(), Chunk()]
    return list(chunks_with_progress(Context(), iter(chunks), size, 3 * 65_536)), written.getvalue()


def test_a_large_binary_points_file_shows_a_progress_bar_on_a_terminal(monkeypatch) -> None:
    got, shown = _progress_run(monkeypatch, terminal=True, size=50_000_000)
    assert len(got) == 3 and "reading points" in shown


@pytest.mark.parametrize(("terminal", "size"), [(False, 50_000_000), (True, 1_000)])
def test_no_progress_bar_in_a_pipe_nor_for_a_small_file(monkeypatch, terminal, size) -> None:
    got, shown = _progress_run(monkeypatch, terminal, size)
    assert len(got) == 3 and shown == ""


@pytest.mark.parametrize("terminal", [True, False])
def test_an_arrow_streams_progress_bar_has_a_total(monkeypatch, tmp_path, terminal) -> None:
    """An Arrow stream's points are counted from its messages' metadata: its bar goes to
    100% (without a total it would only pulse); in a pipe there is no bar at all."""
    import io

    import numpy as np
    from rich.console import Console

    from gradcalc.cli.inputs import point_chunks

    pa = pytest.importorskip("pyarrow")
    import pyarrow.ipc

    table = pa.table({"x": np.random.default_rng(0).normal(size=100_000), "y": np.ones(100_000)})
    path = tmp_path / "p.ipc"
    with pa.OSFile(str(path), "wb") as sink, pyarrow.ipc.new_stream(sink, table.schema) as out:
        out.write_table(table, max_chunksize=10_000)
    written = io.StringIO()

    class Context:
        def console(self, stderr: bool = False) -> Console:
            return Console(file=written, force_terminal=True, width=80)

    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal, raising=False)
    assert sum(chunk.count for chunk in point_chunks(Context(), str(path))) == 100_000
    assert ("100%" in written.getvalue()) == terminal
    assert terminal or written.getvalue() == ""


@pytest.mark.parametrize("columns", ["0", "-3", "abc", "5"])
def test_a_width_no_table_fits_in_is_ignored(columns: str) -> None:
    """COLUMNS=0 printed nothing, exit 0: now the default 80 columns."""
    done = gradcalc("grad", "x^2", "--at", "x=1", "--no-tape", env={"COLUMNS": columns})
    default = gradcalc("grad", "x^2", "--at", "x=1", "--no-tape", env={"COLUMNS": "80"})
    assert done.returncode == 0 and done.stdout == default.stdout and "∂f/∂" in done.stdout
