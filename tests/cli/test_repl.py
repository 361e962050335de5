"""`gradcalc repl`: driven through piped stdin, a pseudo-terminal, and its parts one by one."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from gradcalc.cli import repl
from gradcalc.cli.commands import repl as loop
from gradcalc.core.errors import InputError


def session_of(*lines: str) -> subprocess.CompletedProcess:
    """``gradcalc repl`` as a process reading ``lines`` from a pipe."""
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.run(
        [sys.executable, "-c", "from gradcalc.cli.app import main; main()", "repl"],
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        env={**environ, "COLUMNS": "80"},
        timeout=120,
    )


def run(cli, *args: str) -> str:
    result = cli.invoke(list(args), terminal_width=80)
    return result.stdout


def test_a_piped_session_prints_what_the_command_line_prints(cli) -> None:
    done = session_of(
        "f = x^2*y",
        "grad at x=1, y=2",
        "hessian at x=1,y=2",
        "set format json",
        "grad at x = 1, y = 2; x=2, y=3",
        "check 2*x*y, x^2",
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    expected = "read as: f(x, y) = x^2·y\n"
    expected += run(cli, "grad", "x^2*y", "--at", "x=1,y=2")
    expected += run(cli, "hessian", "x^2*y", "--at", "x=1,y=2")
    expected += run(cli, "grad", "x^2*y", "--at", "x=1,y=2", "--at", "x=2,y=3", "--format", "json")
    expected += run(cli, "check", "x^2*y", "--answer", "2*x*y, x^2", "--format", "json")
    assert done.stdout == expected


def test_numbers_are_right_and_checks_judge_against_sympy() -> None:
    done = session_of(
        "f = 3*w1**2 + 2*w1*w2",
        "set format plain",
        "grad at w1=5, w2=3",
        "at w1=1, w2=1",
        "grad",  # the remembered point
        "grad sin(x) at x=0",  # an expression instead of the function
        "use f",
        "set format json",
        "check 6*w1 + 2*w2, 2*w1",
        "check 6*w1, 2*w1",
    )
    lines = done.stdout.splitlines()
    assert lines[:4] == [
        "read as: f(w1, w2) = 3·w1^2 + 2·w1·w2",
        "36 10",
        "point: w1=1,w2=1",
        "8 2",
    ]
    assert lines[4] == "1"
    import json

    right, wrong = (json.loads(line) for line in lines[-2:])
    assert [c["verdict"] for c in right["verdicts"]] == ["equivalent", "equivalent"]
    assert [c["verdict"] for c in wrong["verdicts"]] == ["not equivalent", "equivalent"]
    assert (right["all_correct"], wrong["all_correct"]) == (True, False)


def test_errors_are_one_line_and_the_session_goes_on() -> None:
    done = session_of(
        "grad at x=1",  # nothing defined yet
        "f = sni(x)",
        "f = log(x - 5)",
        "grad at x=5",
        "gard at x=6",
        "set formt json",
        "set digits 99",
        "grad at x=yes",
        "use g",
        "grad at x=6",
    )
    assert done.returncode == 0
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("gradcalc:")]
    assert errors == [
        "gradcalc: define a function first, e.g. f = x^2*y",
        "gradcalc: unknown function 'sni' — did you mean 'sin'? (to multiply, write sni*(...))",
        "gradcalc: ln(x - 5) is undefined at x=5: ln(0) is -infinity (tape #2)",
        "gradcalc: unknown command 'gard': did you mean 'grad'? (help lists them)",
        "gradcalc: no setting 'formt': did you mean 'format'? settings: format, tape, check, "
        "digits, wrt",
        "gradcalc: set digits takes 1 to 17, or off, not '99'",
        "gradcalc: a value cannot contain the variable 'yes': use numbers, pi, e and functions "
        "only",
        "gradcalc: no function 'g': defined: f",
    ]
    assert "at x = 6:  f = 0" in done.stdout  # the last command still ran


def test_messages_name_options_as_the_session_writes_them(capsys) -> None:
    """A command's message about its options (``--at``, ``--in``) speaks the session's
    words (``at``, ``in``): a session has no ``--at``."""
    session = repl.Session()
    for line in ("f = x^2", "at x=1; x=2", "taylor order 2", "explain", "critical in x=1..-1"):
        session.execute(line)
    errors = [line for line in capsys.readouterr().err.splitlines() if line]
    assert errors == [
        "gradcalc: taylor expands about one point: give one, at x=...",
        "gradcalc: explain works at one point (at x=3), or without one",
        "gradcalc: in 'x=1..-1': the low end must be below the high end",
    ]


def test_quit_ends_the_session_and_eof_exits_0() -> None:
    done = session_of("f = x^2", "quit", "this line is never read")
    assert (done.returncode, done.stdout, done.stderr) == (0, "read as: f(x) = x^2\n", "")
    assert session_of().returncode == 0


@pytest.mark.parametrize(
    ("stdout", "reason"),
    [("full", "No space left on device"), ("closed", "standard output is closed")],
)
@pytest.mark.parametrize("first", ["f = x^2", "grad x^2 at x=3"])
def test_an_output_that_cannot_be_written_ends_the_session_with_one_line(
    stdout, reason, first
) -> None:
    """``gradcalc repl > /dev/full`` (or ``>&-``): as every command, one line and exit 2, at
    the first line whose answer cannot be written -- not an internal error per line, exit 0."""
    with open(os.devnull if stdout == "closed" else "/dev/full", "w") as target:
        done = subprocess.run(
            [sys.executable, "-c", "from gradcalc.cli.app import main; main()", "repl"],
            input=f"{first}\ngrad at x=3\nhelp\n",
            stdout=target,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=(lambda: os.close(1)) if stdout == "closed" else None,  # (in the child)
            timeout=120,
        )
    assert (done.returncode, done.stderr) == (2, f"gradcalc: cannot write the output: {reason}\n")


def test_a_reader_gone_away_ends_the_session_quietly() -> None:
    """``gradcalc repl | head -1``: not an error (exit 0, nothing on stderr), as for every
    command."""
    process = subprocess.Popen(
        [sys.executable, "-c", "from gradcalc.cli.app import main; main()", "repl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    process.stdout.close()  # (before the session writes anything: it reads its first line)
    _, errors = process.communicate("f = x^2\ngrad at x=3\nhelp\n", timeout=120)
    assert (process.returncode, errors) == (0, "")


# --- the parts ---------------------------------------------------------------------------------


def test_split_point() -> None:
    split = repl.Session.split_point
    assert split("at x=1, y=2") == ("", ["x=1,y=2"])
    assert split("g at x=1; x = 2") == ("g", ["x=1", "x=2"])
    assert split("a*t + at2 at t=1") == ("a*t + at2", ["t=1"])
    assert split("sin(x)") == ("sin(x)", None)
    with pytest.raises(InputError, match="'at' needs a point"):
        split("f at")


def test_definitions(capsys) -> None:
    session = repl.Session()
    session.execute("f = y = x^2; z = y^2")
    session.execute("g=u*v")
    assert capsys.readouterr().out == "read as: f(x) = y = x^2; z = y^2\nread as: g(u, v) = u·v\n"
    assert session.current == "g" and session.expression("f") == "y = x^2; z = y^2"
    for line, fragment in [
        ("sin = x", "built-in name"),
        ("grad = x", "is a command"),
        ("h = ", "needs an expression"),
        ("h = x +", "needs an expression after it"),
    ]:
        with pytest.raises(InputError, match=fragment):
            session.execute(line)
    assert list(session.functions) == ["f", "g"]


def test_a_definition_may_name_its_variables_as_on_paper(capsys) -> None:
    import math

    session = repl.Session()
    session.execute("f(x) = e^2x")
    shown = capsys.readouterr()
    assert shown.out == "read as: f(x) = e^2·x\n"
    assert "e^2x is read as e^2·x; if you mean e^(2·x), write e^(2x)" in shown.err
    session.execute("set format plain")
    session.execute("grad f at x=1")  # e^2·x: the derivative is e^2 (by hand)
    assert float(capsys.readouterr().out) == pytest.approx(math.exp(2), rel=1e-15)
    session.execute("g( u , v ) = v*u^2")  # its variables in the order named, not of use
    assert capsys.readouterr().out == "read as: g(u, v) = v·u^2\n"
    assert session.functions["g"].variables == ("u", "v") and session.current == "g"
    session.execute("grad at u=3, v=2")  # (2uv, u^2), in the order named
    assert [float(t) for t in capsys.readouterr().out.split()] == [12.0, 9.0]
    session.execute("expect 12, 9 at u=3, v=2")  # your numbers, in that order too
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert lines == [["∂g/∂u", "correct", "exactly"], ["∂g/∂v", "correct", "exactly"]]
    session.execute("grad v*u^2 at u=3, v=2")  # an expression: its own order
    assert [float(t) for t in capsys.readouterr().out.split()] == [9.0, 12.0]
    session.execute("h(x, y) = x^2")  # a variable it does not use is still its own
    assert capsys.readouterr().out == "read as: h(x, y) = x^2\n"
    assert session.functions["h"].variables == ("x", "y")


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        # (the reading step reads the head, as it reads one on the command line)
        ("k(x) = x*y", "k(x) = ... uses y as well: name every variable, k(x, y) = ..."),
        ("k(2) = 3", "a function head names its variables: write k(x, y) = ..."),
        ("k() = 3", "a function head names its variables"),
        ("k(x, ) = x", "a name is missing after ','"),
        ("k(e) = e", "'e' is a built-in name and cannot be a variable of k(e)"),
        ("k(x, x) = x", "x is named twice in k(x, x)"),
        ("k(x) = ", "'k(x) =' needs an expression"),
        ("sin(x) = x", "built-in name"),
        ("grad(x) = x", "is a command"),
        ("k(x) == x", "not a command"),
    ],
)
def test_a_definition_with_variables_is_refused_with_the_fix(line: str, fragment: str) -> None:
    session = repl.Session()
    with pytest.raises(InputError, match=re.escape(fragment)):
        session.execute(line)
    assert session.functions == {}


@pytest.mark.parametrize("text", ["x^2*y", "sin(x)/2y", "e^2x + y", "x^1/2 * y"])
def test_naming_the_variables_defines_the_same_function(capsys, text: str) -> None:
    answers = []
    for definition in (f"f = {text}", f"f(x, y) = {text}"):
        session = repl.Session()
        session.execute(definition)
        session.execute("set format json")
        capsys.readouterr()
        session.execute("grad at x=1.5, y=2")
        answers.append(capsys.readouterr().out)
    assert answers[0] == answers[1]


def test_completion_of_commands_functions_and_variables() -> None:
    session = repl.Session()
    session.execute("force = m*acc")
    assert session.completions("", 0, "") == sorted([*repl.COMMANDS, "force"])
    assert session.completions("gr", 0, "gr") == ["grad"]
    assert session.completions("f", 0, "f") == ["force"]
    assert session.completions("grad ", 5, "si") == ["sigmoid", "sign", "sin", "sinh"]
    assert session.completions("grad force a", 11, "a") == [
        w for w in session.words() if w.startswith("a")
    ]
    assert "acc" in session.completions("grad force a", 11, "a")
    assert "at" in session.completions("grad force a", 11, "a")
    assert session.completions("grad sin(x)*m", 12, "m") == ["m", "max", "mean", "min"]
    assert session.completions("set ", 4, "") == sorted(repl.SETTINGS)
    assert session.completions("set format ", 11, "j") == ["json"]
    assert session.completions("use ", 4, "") == ["force"]


def test_every_registry_spelling_is_completed() -> None:
    from gradcalc.core.ops import FUNCTION_NAMES

    session = repl.Session()
    for name in FUNCTION_NAMES:
        assert name in session.completions("grad ", 5, name[:2])


def test_history_file_is_created_lazily_and_failures_are_ignored(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = loop.history_path()
    assert path == tmp_path / "state" / "gradcalc" / "history"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert loop.history_path() == tmp_path / ".local" / "state" / "gradcalc" / "history"

    class Recorder:
        def write_history_file(self, name: str) -> None:
            with open(name, "w") as stream:
                stream.write("f = x\n")

    assert not path.parent.exists()
    assert loop.save_history(Recorder(), path)
    assert path.read_text() == "f = x\n"
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert loop.save_history(Recorder(), blocked / "gradcalc" / "history") is False


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs a pseudo-terminal")
def test_an_interactive_session_has_a_prompt_completion_and_history(tmp_path) -> None:
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:  # the child: gradcalc repl on a terminal
        env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": "", "NO_COLOR": "1"}
        argv = [sys.executable, "-c", "from gradcalc.cli.app import main; main()", "repl"]
        os.execve(sys.executable, argv, env)

    seen = bytearray()

    def until(text: str, seconds: float = 60) -> str:
        """Read until ``text`` appears; return what was read up to and including it."""
        end = time.time() + seconds
        while text.encode() not in seen and time.time() < end:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    seen.extend(os.read(fd, 65536))
                except OSError:
                    break
        where = seen.find(text.encode())
        assert where >= 0, bytes(seen)
        shown = bytes(seen[: where + len(text)]).decode(errors="replace")
        del seen[: where + len(text)]
        return shown

    def exit_status(seconds: float = 60) -> int:
        end = time.time() + seconds
        while time.time() < end:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.1)
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise AssertionError("gradcalc repl did not end")

    try:
        until(repl.PROMPT)
        os.write(fd, b"f = x^2*y\n")
        until("f(x, y) = x^2·y")
        until(repl.PROMPT)
        os.write(fd, b"gr\t at x=1, y=2\n")  # tab completes the command
        table = until(repl.PROMPT)
        assert "grad at x=1, y=2" in table and "│ x    │    4 │" in table
        os.write(fd, b"\x04")  # Ctrl-D at the prompt
        code = exit_status()
    finally:
        os.close(fd)
    assert code == 0
    history = tmp_path / ".local" / "state" / "gradcalc" / "history"
    assert history.read_text().splitlines()[-2:] == ["f = x^2*y", "grad at x=1, y=2"]


def test_the_readme_session_is_what_the_repl_prints() -> None:
    import re
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n(gradcalc> .*?)```", readme, re.S).group(1).splitlines()
    inputs = [line[len(repl.PROMPT) :] for line in block if line.startswith(repl.PROMPT)]
    shown = [line for line in block if not line.startswith(repl.PROMPT)]
    done = session_of(*inputs)
    assert done.stderr == ""
    assert [line.rstrip() for line in done.stdout.splitlines()] == shown


def test_a_named_function_answers_under_its_name(capsys) -> None:
    session = repl.Session()
    session.execute("f(x) = x^2")
    session.execute("g(x, y) = x*y^3")
    capsys.readouterr()
    session.execute("set format json")
    session.execute("grad f at x=3")  # the one named, not the current g
    f = json.loads(capsys.readouterr().out)
    assert (f["target"], f["gradient"]) == ("f", {"x": 6.0})  # d(x^2) = 2x, by hand
    session.execute("grad at x=2, y=1")  # the current function: g
    g = json.loads(capsys.readouterr().out)
    assert (g["target"], g["gradient"]) == ("g", {"x": 1.0, "y": 6.0})  # (y^3, 3xy^2)
    session.execute("set format table")
    session.execute("hessian g at x=2, y=1")
    table = capsys.readouterr().out
    assert table.startswith("read as: g(x, y) = x·y^3") and "Hessian of g" in table


def test_diff_prints_the_formula_the_command_line_prints_and_it_is_sympys() -> None:
    import sympy as sp

    done = session_of(
        "f(x, y) = x^3*y + exp(x*y)",
        "set format json",
        "diff",
        "set wrt y",
        "diff f",
        "diff at x=1",
    )
    assert done.returncode == 0, done.stderr
    gradient, by_y = (json.loads(line) for line in done.stdout.splitlines()[1:])
    x, y = sp.symbols("x y", real=True)
    f = x**3 * y + sp.exp(x * y)
    texts = [d["sympy"] for d in gradient["derivatives"]] + [by_y["derivatives"][0]["sympy"]]
    truths = [sp.diff(f, x), sp.diff(f, y), sp.diff(f, y)]
    for text, truth in zip(texts, truths):
        assert sp.simplify(sp.sympify(text, locals={"x": x, "y": y}) - truth) == 0
    assert gradient["verification"]["status"] == "verified"
    assert done.stderr.strip() == (
        "gradcalc: diff gives the derivative as a formula; its value at a point: grad at ..."
    )


def test_taylor_and_critical_print_what_the_command_line_prints(cli) -> None:
    done = session_of(
        "f = e^x*sin(x)",
        "taylor at x=0 order 3",
        "g = x^3 - 3x + y^2",
        "set format json",
        "critical in x=0..5, y=-1..1",
        "at x=1, y=2",
        "taylor g order 1",
    )
    assert done.returncode == 0, done.stderr
    expected = "read as: f(x) = e^x·sin(x)\n"
    expected += run(cli, "taylor", "e^x*sin(x)", "--at", "x=0", "--order", "3")
    expected += "read as: g(x, y) = x^3 - 3·x + y^2\n"
    g = "g(x, y) = x^3 - 3x + y^2"
    expected += run(cli, "critical", g, "--in", "x=0..5,y=-1..1", "--format", "json")
    expected += "point: x=1,y=2\n"
    expected += run(cli, "taylor", g, "--at", "x=1,y=2", "--order", "1", "--format", "json")
    assert done.stdout == expected


def test_taylor_and_critical_answers_are_the_textbooks() -> None:
    import sympy as sp

    done = session_of(
        "f = ln(1 + x)",
        "set format plain",
        "taylor at x=0 order 4",
        "h(x, y) = x^3 - 3x + y^2",
        "critical",
        "critical in x=-5..0",
        "critical in",
    )
    _, polynomial, _, *points = done.stdout.splitlines()
    x = sp.Symbol("x")
    series = sp.series(sp.log(1 + x), x, 0, 5).removeO()  # x - x^2/2 + x^3/3 - x^4/4
    assert (
        polynomial == "x - x^2/2 + x^3/3 - x^4/4"
        and sp.sympify(polynomial.replace("^", "**")) == series
    )
    # h_x = 3x^2 - 3, h_y = 2y: (1, 0) a minimum (h = -2), (-1, 0) a saddle (h = 2)
    rows = [line.split("\t") for line in points if "\t" in line]
    assert sorted(rows[:2]) == [["-1", "0", "2", "saddle point"], ["1", "0", "-2", "local minimum"]]
    assert rows[2:] == [["-1", "0", "2", "saddle point"]]  # in x=-5..0 (y unbounded)
    assert done.stderr.strip().endswith("gradcalc: 'in' needs a region: in x=-5..5, y=0..pi")


def test_check_and_expect_take_an_order() -> None:
    # x^3 y: f_xx = 6xy, f_xy = f_yx = 3x^2, f_yy = 0 (by hand); at (1, 2): 12, 3, 3, 0
    session = repl.Session()
    session.execute("f = x^3*y")
    session.execute("set format json")
    assert session.execute("check 6x*y, 3x^2, 3x^2, 0 order 2") == 0
    assert session.execute("check 6x*y, 3x^2, 3x^2, 1 order 2") == 1
    assert session.execute("expect 12, 3, 3, 0 at x=1, y=2 order 2") == 0
    assert session.execute("expect 12, 3 at x=1, y=2 order 2") == 2  # 2 of 4 numbers
    session.execute("g = x^4")
    assert session.execute("check 12x^2 order 2") == 0  # d2/dx2 x^4 = 12x^2
    assert session.execute("check 4x^3") == 0  # no order: the first


def test_set_wrt_a_name_the_function_lacks_is_refused_or_said() -> None:
    session = repl.Session()
    session.define("f", "x^2*y")
    with pytest.raises(InputError, match=r"set wrt z: f has no variable z \(its variables: x, y\)"):
        session.execute("set wrt z")
    assert session.wrt is None
    session.execute("set wrt y")
    assert session.wrt == "y"
    early = session_of("set wrt q", "g = x^3", "quit")
    assert "warning: set wrt q: g has no variable q (set wrt off, or set wrt x)" in early.stderr


@pytest.mark.parametrize(
    "line", ["taylor order 3 at x=1", "taylor at x=1 order 3", "taylor f order 3 at x=1"]
)
def test_taylor_takes_its_order_before_or_after_the_point(line) -> None:
    rest, order = repl.Session.split_order(line.removeprefix("taylor "))
    assert order == 3 and "order" not in rest
    assert repl.Session.split_point(rest)[1] == ["x=1"]
