"""`gradcalc` as a real process: exit codes, streams, and hostile input that must never run."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from tests.hostile_inputs import HOSTILE_CLI

pytestmark = pytest.mark.slow  # real gradcalc processes, resource limits


MAIN = [sys.executable, "-c", "from gradcalc.cli.app import main; main()"]


def gradcalc(*args: str, cwd=None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*MAIN, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        timeout=60,
    )


def test_headline_command_as_a_process() -> None:
    done = gradcalc("grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["gradient"] == {"w1": 36.0, "w2": 10.0}
    assert done.stderr == ""


def test_plain_output_feeds_a_shell_read() -> None:
    done = gradcalc("grad", "x*y", "--at", "x=2,y=5", "--format", "plain")
    assert done.stdout == "5 2\n"


def test_errors_are_short_and_have_no_traceback() -> None:
    done = gradcalc("grad", "sin(x", "--at", "x=1")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 3
    assert "^" in done.stderr


def test_version_and_help() -> None:
    assert gradcalc("--version").stdout.startswith("gradcalc ")
    assert "grad" in gradcalc("--help").stdout


# argv can carry neither a NUL nor a single argument over 128 kB; test_parse covers those
ARGV_SAFE = [(t, f) for t, f in HOSTILE_CLI if "\x00" not in t and len(t) < 100_000]


@pytest.mark.parametrize(("text", "fragment"), ARGV_SAFE, ids=range(len(ARGV_SAFE)))
def test_hostile_expressions_are_refused_and_never_run(tmp_path, text, fragment) -> None:
    marker = tmp_path / "MARKER"
    payload = text.replace("MARKER", str(marker))
    done = gradcalc("grad", payload, "--at", "x=1", cwd=tmp_path)
    assert done.returncode == 2, (payload, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert fragment.replace("MARKER", str(marker)) in done.stderr, (payload, done.stderr)
    assert not marker.exists()


@pytest.mark.parametrize(
    "value",
    ["__import__('os').system('touch MARKER')", "1; touch MARKER", "x", "1e999", "exp(1000)"],
)
def test_hostile_point_values_are_refused(tmp_path, value) -> None:
    marker = tmp_path / "MARKER"
    done = gradcalc("grad", "x", "--at", f"x={value}", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert not marker.exists()


# --- every command, as a process: payloads that would create the marker file ------------

MARKER_PAYLOADS = [
    "__import__('os').system('touch MARKER')",
    "open('MARKER', 'w')",
    "(lambda: __import__('pathlib').Path('MARKER').touch())()",
    "exec(\"open('MARKER','w')\")",
    "Symbol('x').__class__.__init__.__globals__['__builtins__']['open']('MARKER','w')",
]
COMMAND_LINES = [
    ["grad", "P", "--at", "x=1"],
    ["hessian", "P", "--at", "x=1"],
    ["jacobian", "P", "--at", "x=1"],
    ["check", "x^2", "--at", "x=1", "--answer", "P"],
    ["check", "x^2", "--at", "x=1", "--expect", "P"],
    ["explain", "x^2", "--at", "x=P"],
    ["graph", "P", "--at", "x=1"],
    ["minimize", "x^2", "--from", "x=P"],
    ["fit", "a*x", "data.csv", "--params", "a", "--init", "a=P"],
    ["plot", "x^2", "--at", "x=1", "--range", "P:1"],
    ["grad", "x", "--points", "points.csv"],
]


@pytest.mark.parametrize(
    "k", range(len(COMMAND_LINES)), ids=lambda k: " ".join(COMMAND_LINES[k][:2])
)
def test_every_command_refuses_code_as_a_process(tmp_path, k) -> None:
    """Two payloads per command line (processes are slow), every payload more than once."""
    line = COMMAND_LINES[k]
    marker = tmp_path / "MARKER"
    (tmp_path / "data.csv").write_text("x,y\n0,1\n1,3\n")
    for payload in (MARKER_PAYLOADS[k % 5], MARKER_PAYLOADS[(k + 2) % 5]):
        (tmp_path / "points.csv").write_text(f"x\n{payload}\n")
        args = [arg.replace("P", payload) if "P" in arg and arg != "--params" else arg
                for arg in line]  # fmt: skip
        done = gradcalc(*args, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr
        assert not marker.exists(), args


# --- resource limits ------------------------------------------------------------------------


def test_cpu_limit_stops_with_one_line_and_exit_2() -> None:
    done = gradcalc(
        "--max-cpu", "1", "minimize", "(1-x)^2 + 100(y-x^2)^2", "--from", "x=-1.2,y=1",
        "--steps", "100000000", "--format", "json",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "gradcalc: CPU time limit reached (1 s): raise it with --max-cpu SECONDS "
        "or GRADCALC_MAX_CPU (0: no limit)\n"
    )


def test_memory_limit_stops_with_one_line_and_exit_2(tmp_path) -> None:
    """A fit of 1,000,000 rows needs more than 200 MB (its resident size alone is ~195 MB)."""
    rows = "".join(f"{k},{2 * k + 1}\n" for k in range(1_000_000))
    (tmp_path / "data.csv").write_text("x,y\n" + rows)
    done = subprocess.run(
        [sys.executable, "-c", "from gradcalc.cli.app import main; main()",
         "fit", "a*x + b", "data.csv", "--params", "a,b"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "GRADCALC_MAX_MEMORY": "200"},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "gradcalc: memory limit reached (200 MB): raise it with --max-memory MB "
        "or GRADCALC_MAX_MEMORY (0: no limit)\n"
    )
    raised = gradcalc("--max-memory", "0", "fit", "a*x + b", "data.csv", "--params", "a,b",
                      "--format", "json", cwd=tmp_path)  # fmt: skip
    assert raised.returncode == 0, raised.stderr
    assert json.loads(raised.stdout)["params"]["a"] == pytest.approx(2)


def test_limit_options_are_validated() -> None:
    done = gradcalc("--max-cpu", "-1", "grad", "x", "--at", "x=1")
    assert done.returncode == 2 and "--max-cpu" in done.stderr
    assert "Traceback" not in done.stderr


def test_documented_limit_defaults_are_the_ones_used() -> None:
    import inspect

    from gradcalc.cli import limits
    from gradcalc.cli.app import root

    parameters = inspect.signature(root).parameters
    assert parameters["max_cpu"].default == limits.DEFAULT_CPU_SECONDS == 600
    assert parameters["max_memory"].default == limits.DEFAULT_MEMORY_MB == 8192


@pytest.mark.parametrize(("fmt", "rich"), [("json", False), ("csv", False), ("table", True)])
def test_only_a_format_that_prints_through_rich_imports_it(fmt: str, rich: bool) -> None:
    """JSON, CSV and plain text need no rich console (its import is a few tens of ms); a
    warning still gets one, on stderr."""
    code = (
        "import sys; from gradcalc.cli.app import run\n"
        f"code = run(['grad', 'x*y', '--at', 'x=1,y=2', '--no-check', '--format', '{fmt}'])\n"
        "print(code, 'rich' in sys.modules, file=sys.stderr)\n"
        "run(['grad', 'abs(x)', '--at', 'x=0', '--no-check', '--format', 'json'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = done.stderr.splitlines()
    assert lines[0] == f"0 {rich}", done.stderr
    assert "abs(x) is not differentiable at x=0" in done.stderr and '"x": null' in done.stdout


# --- the exit: a finished command skips the interpreter's teardown (cli.app.exit_with) ---


#: What a one-shot gradient never needs: optional libraries (plots, data files, clusters,
#: native kernels, tests, rich's Markdown and syntax highlighting) and gradcalc's own dataset
#: and file readers (only --points, --out DIR/ and --cluster load them).
NOT_AT_START = (
    "dask",
    "distributed",
    "hypothesis",
    "IPython",
    "llvmlite",
    "markdown_it",
    "matplotlib",
    "pandas",
    "plotext",
    "pyarrow",
    "pygments",
    "scipy",
    "rich.markdown",
    "rich.progress",
    "rich.syntax",
    "gradcalc.cli.datasets",
    "gradcalc.cli.partitions",
    "gradcalc.engine.evaluate.beyond",  # (the results beyond the gradient)
    "gradcalc.engine.evaluate.classify",  # (Hessians and --order only)
    "gradcalc.engine.evaluate.higher",
    "gradcalc.engine.tensors.tensorpoints",  # (tensor points only)
    "gradcalc.render.views.matrices",
    "gradcalc.io.cluster",
    "gradcalc.io.datasets",
    "gradcalc.io.files",
    "gradcalc.io.parquet",
)

#: What --no-check never needs besides: sympy, and gradcalc's symbolic check.
UNCHECKED = ("sympy", "mpmath", "gradcalc.symbolic.crosscheck.crosscheck")

#: The entry point with an exit handler that prints which of the names given were imported
#: (a finished command ends the process itself, after the exit handlers).
LOADED = (
    "import atexit, json, sys\n"
    "names = json.loads(sys.argv.pop(1))\n"
    "atexit.register(lambda: print(json.dumps([n for n in names if n in sys.modules])))\n"
    "from gradcalc.cli.app import main; main()"
)


@pytest.mark.parametrize(
    ("args", "also_not"),
    [
        (("grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3"), ()),  # the headline, checked
        (("grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3", "--no-check"), UNCHECKED),
        (("grad", "x^2", "--at", "x=3", "--no-check"), UNCHECKED),
    ],
)
def test_a_one_shot_gradient_imports_only_what_it_uses(args, also_not) -> None:
    names = [*NOT_AT_START, *also_not]
    done = subprocess.run(
        [sys.executable, "-c", LOADED, json.dumps(names), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert ("✓" in done.stdout) == ("--no-check" not in args)  # the check ran where asked
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [], done.stderr


def test_a_large_output_arrives_whole_through_the_fast_exit(tmp_path) -> None:
    n = 3000  # ~300 kB of JSON: many pipe buffers, and a last part flushed at the exit
    text = " + ".join(f"x{i}*sin(x{i + 1})" for i in range(1, n))
    (tmp_path / "f.txt").write_text(text)
    point = ",".join(f"x{i}={i / n}" for i in range(1, n + 1))
    done = gradcalc("--file", "grad", "@f.txt", "--at", point, "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    gradient = json.loads(done.stdout)["gradient"]
    assert len(gradient) == n
    # d/dx_i = sin(x_{i+1}) + x_{i-1} cos(x_i), independently of the tape
    x = {i: i / n for i in range(1, n + 1)}
    for i in (1, 2, n // 2, n - 1, n):
        expected = (math.sin(x[i + 1]) if i < n else 0.0) + (
            x[i - 1] * math.cos(x[i]) if i > 1 else 0.0
        )
        assert gradient[f"x{i}"] == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("expression", "point", "code"),
    [("x^2", "x=3", 0), ("log(x)", "x=-1", 3), ("abs(x)", "x=0", 3)],
)
def test_finished_commands_keep_their_exit_codes(expression, point, code) -> None:
    done = gradcalc("grad", expression, "--at", point, "--format", "json")
    assert done.returncode == code, done.stderr
    assert json.loads(done.stdout)["expression"] == expression


def test_exit_handlers_still_run_before_the_fast_exit() -> None:
    code = (
        "import atexit; from gradcalc.cli.app import exit_with; "
        "atexit.register(print, 'handler ran'); print('answer'); exit_with(1)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.stdout, done.returncode) == ("answer\nhandler ran\n", 1)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("fmt", ["json", "table"])
def test_a_full_disk_is_a_one_line_error_not_a_bug(fmt) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*MAIN, "grad", "x^2", "--at", "x=3", "--format", fmt],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert done.returncode == 2
    assert done.stderr == "gradcalc: cannot write the output: No space left on device\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("source", ["file", "stdin"])
def test_jobs_to_a_full_disk_blame_the_output_not_the_jobs_file(tmp_path, source, workers):
    """A write error while the jobs file is open is the output's: never "cannot read"."""
    jobs = tmp_path / "jobs.txt"
    jobs.write_text("".join(f"x^2+{k} x=1\n" for k in range(50)))
    with open("/dev/full", "w") as full, open(jobs) as given:
        done = subprocess.run(
            [*MAIN, "grad", "--jobs", str(jobs) if source == "file" else "-", "--workers", workers],
            stdin=given,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert (done.returncode, done.stderr) == (
        2,
        "gradcalc: cannot write the output: No space left on device\n",
    )


def test_jobs_to_a_reader_gone_early_are_not_an_error(tmp_path) -> None:
    jobs = tmp_path / "jobs.txt"
    jobs.write_text("".join(f"x^2+{k} x=1\n" for k in range(3000)))
    process = subprocess.Popen(
        [*MAIN, "grad", "--jobs", str(jobs)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(b'{"job": 1')
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert (process.wait(timeout=60), errors) == (0, "")


def test_a_reader_gone_before_the_last_flush_is_not_an_error() -> None:
    process = subprocess.Popen(
        [*MAIN, "grad", "x^2", "--at", "x=3", "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # long before the answer is written
    errors = process.stderr.read().decode()
    assert (process.wait(timeout=60), errors) == (0, "")


def test_a_profiled_command_still_writes_its_profile(tmp_path) -> None:
    profile, script = tmp_path / "out.prof", tmp_path / "run.py"
    script.write_text(MAIN[2])
    profiled = [sys.executable, "-m", "cProfile", "-o", str(profile), str(script)]
    done = subprocess.run(
        [*profiled, "grad", "x^2", "--at", "x=3", "--format", "plain"],
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (0, "6\n"), done.stderr
    import pstats

    assert pstats.Stats(str(profile)).total_calls > 0


@pytest.mark.parametrize(("one_command", "frozen"), [(True, True), (False, False)])
def test_only_a_one_command_process_freezes_its_graph(one_command, frozen) -> None:
    code = (
        "import gc, numpy as np\n"
        "from gradcalc.cli.context import AppContext\n"
        "from gradcalc.cli.inputs import Session\n"
        f"context = AppContext(one_command={one_command})\n"
        "session = Session(context, 'x*sin(y) + y', ['x=2,y=3'], None, None)\n"
        "print(gc.get_freeze_count() > 0, gc.isenabled(), *session.graph.variables)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == [str(frozen), "True", "x", "y"], done.stderr


def test_the_fast_exit_takes_a_closed_or_missing_stdout_quietly() -> None:
    for setup in ("sys.stdout.close()", "sys.stdout = None"):
        code = f"import sys; from gradcalc.cli.app import exit_with; {setup}; exit_with(0)"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert (done.returncode, done.stderr) == (0, ""), setup


def test_a_cap_too_small_to_load_a_module_is_a_memory_limit() -> None:
    """--max-memory 100 ended in exit 70 (ImportError: failed to map segment ...)."""
    done = gradcalc("--max-memory", "100", "grad", "x^2", "--at", "x=1")
    assert done.returncode in (0, 2), done.stderr  # (0 where 100 MB is enough to load it)
    assert done.returncode == 0 or "memory limit reached (100 MB)" in done.stderr
    assert "internal error" not in done.stderr


#: Commands that print their answer on stdout, in each format that has one.
PRINTING = [
    *(["grad", "x*y", "--at", "x=1,y=2", "--format", f] for f in ("json", "csv", "plain", "table")),
    ["hessian", "x*y^2", "--at", "x=1,y=2", "--format", "csv"],
    ["jacobian", "x*y, x", "--at", "x=1,y=2", "--format", "csv"],
    ["diff", "x^2", "--format", "json"],
    ["ops", "--format", "csv"],
    ["check", "x^2", "--answer", "2x", "--format", "json"],
    ["grad", "--jobs", "-"],
    ["grad", "--jobs", "-", "--workers", "2"],
]


@pytest.mark.parametrize("args", PRINTING, ids=lambda args: " ".join(args[:1] + args[-2:]))
def test_a_closed_stdout_is_a_one_line_error_in_every_format(args) -> None:
    """gradcalc ... >&-: the process starts without a standard output; every command and
    format says it cannot write (exit 2), as a full disk does -- never an internal error, never
    a silent success."""
    done = subprocess.run(
        [*MAIN, *args],
        input="x^2 x=1\nx^3 x=2\n",
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),  # (in the child, before gradcalc starts)
        timeout=60,
    )
    last = done.stderr.strip().splitlines()[-1]
    assert (done.returncode, last) == (
        2,
        "gradcalc: cannot write the output: standard output is closed",
    )
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_a_closed_stdout_does_not_stop_a_command_that_writes_to_a_file(tmp_path) -> None:
    out = tmp_path / "o.csv"
    done = subprocess.run(
        [*MAIN, "grad", "x*y", "--at", "x=1,y=2", "--out", str(out), "--no-check"],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, f"wrote {out}\n")
    assert out.read_text() == "x,y,value,d/dx,d/dy\n1,2,2,2,1\n"


@pytest.mark.parametrize("fmt", ["csv", "plain", "table", "json"])
def test_a_reader_gone_mid_stream_is_not_an_error_in_any_format(tmp_path, fmt) -> None:
    """gradcalc ... | head -1: the pipe closes while rows are still coming: exit 0, nothing on
    stderr."""
    points = tmp_path / "p.csv"
    points.write_text("x\n" + "".join(f"{k}\n" for k in range(200_000)))
    process = subprocess.Popen(
        [*MAIN, "grad", "x^2", "--points", str(points), "--format", fmt, "--no-check"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline()
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert (process.wait(timeout=120), errors) == (0, "")


def test_a_cpu_cap_below_a_second_is_named_as_asked_and_as_applied() -> None:
    """GRADCALC_MAX_CPU=0.4: the kernel counts whole seconds, so the cap in force is 1 s; the
    message names both."""
    done = subprocess.run(
        [*MAIN, "minimize", "(1-x)^2 + 100(y-x^2)^2", "--from", "x=-1.2,y=1",
         "--steps", "100000000", "--format", "json"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "GRADCALC_MAX_CPU": "0.4"},
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "gradcalc: CPU time limit reached (1 s: --max-cpu 0.4 rounded up to whole seconds, as "
        "the kernel counts them): raise it with --max-cpu SECONDS or GRADCALC_MAX_CPU (0: no "
        "limit)\n"
    )


def test_the_cpu_cap_leaves_no_out_file_and_an_old_one_untouched(tmp_path) -> None:
    """Stopped at its CPU cap (at once, SIGXCPU) wherever it is -- reading, computing or
    writing --out -- gradcalc leaves no file of its own: the old results stay as they were."""
    points = tmp_path / "p.csv"
    points.write_text("x,y\n" + "".join(f"{k},{k % 7 + 1}\n" for k in range(1_000_000)))
    (tmp_path / "out.csv").write_text("old\n")
    done = subprocess.run(
        [*MAIN, "--max-cpu", "2", "grad", "x*log(y) + sin(x*y)", "--points", str(points),
         "--out", str(tmp_path / "out.csv"), "--no-check"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "CPU time limit reached" in done.stderr, done.stderr
    assert sorted(os.listdir(tmp_path)) == ["out.csv", "p.csv"]
    assert (tmp_path / "out.csv").read_text() == "old\n"
