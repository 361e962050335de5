"""Safe to embed (issue 15): bad data is an error, data never names files, jobs are isolated.

Where the effect is a file read, a crash, an exit code or a stalled stream, the test runs a
real ``gradcalc`` process, bounded by a subprocess timeout.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys

import pytest

from gradcalc.cli.jobs import run_jobs
from gradcalc.core.errors import InputError
from gradcalc.io.files import read_points
from gradcalc.io.lines import MAX_LINE

GRADCALC = [sys.executable, "-c", "from gradcalc.cli.app import main; main()"]
TIMEOUT = 120  # seconds: a bound on a stalled process, never a measure of speed


def gradcalc(*args: str, stdin: str = "", cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*GRADCALC, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=cwd,
    )


def jobs(*lines: str, **options) -> list[dict]:
    out = io.StringIO()
    run_jobs([line + "\n" for line in lines], out, **options)
    return [json.loads(line) for line in out.getvalue().splitlines()]


# --- bad data is an error, never a different answer ---------------------------------------


@pytest.mark.parametrize("extra", [[], ["--skip-bad-rows"]])
def test_ragged_rows_are_never_reflowed(tmp_path, extra) -> None:
    """``1,2,3`` then ``4`` has the comma count of two good rows: it must not become two."""
    path = tmp_path / "ragged.csv"
    path.write_text("x,y\n1,2,3\n4\n")
    done = gradcalc("grad", "x+2*y", "--points", str(path), "--format", "csv", *extra)
    assert done.returncode == 2, done.stdout
    assert done.stdout == ""
    assert "row 2" in done.stderr


def test_ragged_rows_are_skipped_one_by_one() -> None:
    from gradcalc.io.files import Skipped

    skipped = Skipped()
    text = "x,y\n1,2,3\n4\n5,6\n"
    chunks = list(read_points(io.StringIO(text), skipped=skipped))
    assert skipped.count == 2
    assert [list(c.arrays["x"]) for c in chunks] == [[5.0]]
    assert [list(c.arrays["y"]) for c in chunks] == [[6.0]]


def test_fit_data_rows_are_checked_one_by_one() -> None:
    from gradcalc.apps.optimize.fit import read_data

    with pytest.raises(InputError, match="data file row 2"):
        read_data(io.StringIO("x,y\n1,2,3\n4\n"))


@pytest.mark.parametrize("cell", ["৪", "４", "1\u0660", "٣.5"])
def test_cells_are_ascii_numbers(cell) -> None:
    with pytest.raises(InputError, match="row 2, column x"):
        list(read_points(io.StringIO(f"x\n{cell}\n")))


def test_a_long_cell_is_refused_without_backtracking() -> None:
    """The old pattern backtracked quadratically: a 20 KB cell took 22 s."""
    cell = "1" * 100_000 + "x"
    with pytest.raises(InputError, match="is not a number"):
        list(read_points(io.StringIO(f"x\n{cell}\n")))


def test_a_repeated_header_name_far_along_is_found_in_one_pass() -> None:
    names = [f"v{k}" for k in range(60_000)]
    header = ",".join([*names, "v59999"])
    with pytest.raises(InputError, match="the column v59999 is repeated"):
        list(read_points(io.StringIO(header + "\n")))


def test_a_line_longer_than_the_limit_is_an_error_before_it_is_read_whole() -> None:
    stream = io.StringIO("x\n" + "1" * (MAX_LINE + 10) + "\n")
    with pytest.raises(InputError, match="longer than 1,000,000 characters"):
        list(read_points(stream))
    assert stream.tell() < 2 * MAX_LINE + 100  # read up to the limit, not on


# --- jobs: values are values, keys once, lines bounded -----------------------------------


def test_a_point_value_is_never_spliced_into_the_point() -> None:
    """``"1,e=5"`` once turned the constant e into a variable: e^x gave 5.0, 'agreeing'."""
    (answer,) = jobs('{"expr": "e^x", "at": {"x": "1,e=5"}}')
    assert answer["exit_code"] == 2 and "'x' must be one value" in answer["error"]
    (answer,) = jobs('{"expr": "e^x", "at": {"x": 1}}')
    assert answer["value"] == pytest.approx(2.718281828459045)


@pytest.mark.parametrize(
    "line",
    [
        '{"expr": "x", "at": {"x": 1, "x": 2}}',
        '{"expr": "x", "expr": "y", "at": {"x": 1}}',
    ],
)
def test_duplicate_json_keys_are_an_error(line) -> None:
    (answer,) = jobs(line)
    assert answer["exit_code"] == 2 and "twice" in answer["error"]


def test_an_over_long_job_line_is_answered_and_the_stream_goes_on() -> None:
    lines = io.StringIO("x^2\tx=3\n" + "x" * (MAX_LINE + 5) + "\nx^3\tx=2\n")
    out = io.StringIO()
    assert run_jobs(lines, out, check=False) == 2
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["job"] for a in answers] == [1, 2, 3]
    assert answers[0]["gradient"] == {"x": 6.0} and answers[2]["gradient"] == {"x": 12.0}
    assert "longer than 1,000,000" in answers[1]["error"]


def test_a_failing_job_never_ends_the_stream(monkeypatch) -> None:
    """Any exception in one job -- a bug, a memory error -- is that job's error line."""
    from gradcalc.cli import jobs as jobs_module

    real = jobs_module.gradient_at

    def flaky(graph, points, wrt, options):
        if float(points.arrays["x"]) == 1:
            raise MemoryError
        if float(points.arrays["x"]) == 2:
            raise RuntimeError("boom")
        return real(graph, points, wrt, options)

    monkeypatch.setattr(jobs_module, "gradient_at", flaky)
    answers = jobs("x^2\tx=1", "x^2\tx=2", "x^2\tx=3", check=False)
    assert answers[0]["exit_code"] == 2 and "memory" in answers[0]["error"]
    assert answers[1]["exit_code"] == 70 and "boom" in answers[1]["error"]
    assert answers[2]["gradient"] == {"x": 6.0}


def test_the_compiled_graph_cache_is_bounded_by_size(monkeypatch) -> None:
    from gradcalc.cli import jobs as jobs_module

    monkeypatch.setattr(jobs_module, "CACHE_NODES", 50)
    cache = jobs_module._Cache()
    for k in range(20):
        cache.compiled("+".join(f"x^{j}" for j in range(1, k + 3)), ("x",), None)
        assert cache.nodes <= 50 or len(cache.graphs) == 1
    assert cache.nodes == sum(len(g.nodes) for g in cache.graphs.values())


# --- no file is read from data; errors show only a short excerpt --------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_as_points_file_is_refused_not_waited_on(tmp_path) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    done = gradcalc("grad", "x", "--points", str(fifo))
    assert done.returncode == 2 and "not a regular file" in done.stderr


def test_a_directory_or_device_as_a_file_is_refused(tmp_path) -> None:
    for path in (str(tmp_path), os.devnull):
        done = gradcalc("fit", "a*x", path, "--params", "a")
        assert done.returncode == 2 and "not a regular file" in done.stderr


def test_a_long_bad_input_is_never_echoed_whole() -> None:
    text = "x+" * 150_000 + "$"
    done = gradcalc("grad", "-", "--at", "x=1", stdin=text)
    assert done.returncode == 2
    assert len(done.stderr) < 1_000 and "…" in done.stderr


# --- one deadline per request ---------------------------------------------------------------


def test_a_timed_out_derivative_is_not_tried_again_per_target_or_chunk(monkeypatch) -> None:
    """8 targets and 2 chunks spend the symbolic budget once, not 16 times."""
    import time

    from gradcalc.core import budget
    from gradcalc.engine.evaluate.points import parse_at
    from gradcalc.engine.run.api import Options, compile_expression, gradient_at
    from gradcalc.symbolic.crosscheck import crosscheck

    started = []

    def slow(graph, target, sources):
        started.append(target)
        time.sleep(60)  # interrupted by the budget's alarm

    monkeypatch.setattr(crosscheck, "symbolic_gradient", slow)
    graph = compile_expression(", ".join(f"x^{k}" for k in range(1, 9)), ("x",))
    options = Options(check_timeout=0.2, strict=False)
    with budget.request(symbolic=0.2):
        for chunk in (parse_at(["x=1"]), parse_at(["x=2"])):
            results = gradient_at(graph, chunk, None, options)
            assert [r.check.status for r in results] == ["skipped"] * 8
            assert all(r.value.size == 1 for r in results)
    assert started == [0]  # the first target ran out; every later piece was skipped at once
    with budget.request(symbolic=0.2):  # a later request (job) on the same graph:
        gradient_at(graph, parse_at(["x=3"]), None, options)
    assert started == [0, 1]  # target 0 is not retried; target 1 gets its first chance


def test_the_request_deadline_stops_the_work_and_sympy_stops_before_it() -> None:
    import time

    from gradcalc.core import budget

    with pytest.raises(budget.OutOfTime, match=r"--timeout 0\.2 s"), budget.request(0.2):
        time.sleep(60)
    with pytest.raises(budget.OutOfTime), budget.request(1.0) as request:
        with (
            pytest.raises(budget.CheckTimeout, match="request's time budget"),
            request.symbolic(30.0),  # stops first: its deadline is the earlier one
        ):
            time.sleep(60)
        time.sleep(60)
    assert budget.current().timeout == 0  # nothing left armed


def test_exact_constants_are_size_capped_before_they_are_built() -> None:
    from gradcalc.symbolic.crosscheck.crosscheck import ExactTooLarge, constant_to_sympy

    assert constant_to_sympy("0e99999999") == 0
    with pytest.raises(ExactTooLarge):
        constant_to_sympy("1e9999")


@pytest.mark.parametrize(
    "args",
    [
        ["check", "x^2", "--answer", "2*x+0e99999999"],
        ["explain", "x + 0e99999999", "--at", "x=1"],
        ["grad", "1.000000001^1000*sin(x)", "--at", "x=1"],
    ],
)
def test_huge_exact_constants_cost_nothing_and_exit_as_documented(args) -> None:
    done = gradcalc("--max-cpu", "60", *args)
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr


def test_one_oversize_constant_never_ends_a_jobs_stream() -> None:
    done = gradcalc("grad", "--jobs", "-", stdin="1.000000001^1000*sin(x)\tx=1\nx^2\tx=3\n")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["job"] for a in answers] == [1, 2]
    assert answers[0]["gradient"]["x"] == pytest.approx(0.5403028461707603 * 1.000000001**1000)
    assert "4,000 digits" in answers[0]["warnings"][0]
    assert answers[1]["gradient"] == {"x": 6.0}
    assert done.returncode == 0


def test_a_high_order_is_bounded_by_a_record_budget() -> None:
    done = gradcalc("--max-cpu", "60", "grad", "tan(x)^x", "--at", "x=1", "--order", "12")
    assert done.returncode == 2
    assert "tape records" in done.stderr and "lower --order" in done.stderr


# --- data never names files -----------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["grad", "@{secret}", "--at", "x=1"],
        ["hessian", "@{secret}", "--at", "x=1"],
        ["jacobian", "@{secret}", "--at", "x=1"],
        ["check", "@{secret}", "--at", "x=1", "--expect", "1"],
        ["explain", "@{secret}", "--at", "x=1"],
        ["graph", "@{secret}", "--at", "x=1"],
        ["plot", "@{secret}", "--at", "x=1"],
        ["minimize", "@{secret}", "--from", "x=1"],
    ],
)
def test_an_expression_argument_never_reads_a_file(tmp_path, args) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-LINE\n")
    done = gradcalc(*[a.replace("{secret}", str(secret)) for a in args])
    assert done.returncode == 2
    assert "TOP-SECRET" not in done.stdout + done.stderr
    assert "--file" in done.stderr


def test_file_reads_the_command_lines_own_argument_only(tmp_path) -> None:
    expression = tmp_path / "f.txt"
    expression.write_text("x^3\n")
    done = gradcalc("--file", "grad", f"@{expression}", "--at", "x=2", "--format", "plain")
    assert (done.returncode, done.stdout) == (0, "12\n")
    # not a job's expression, nor a repl line, even with --file
    jobs_done = gradcalc("--file", "grad", "--jobs", "-", stdin=f"@{expression}\tx=2\n")
    assert '"exit_code": 2' in jobs_done.stdout and "x^3" not in jobs_done.stdout
    repl_done = gradcalc("--file", "repl", stdin=f"f = @{expression}\ngrad at x=2\n")
    assert "12" not in repl_done.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_file_refuses_devices_and_fifos_before_reading(tmp_path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero", str(tmp_path)):
        done = gradcalc("--max-memory", "1024", "--file", "grad", f"@{path}", "--at", "x=1")
        assert done.returncode == 2 and "not a regular file" in done.stderr


# --- exit codes as documented ---------------------------------------------------------------


@pytest.mark.parametrize(
    "cap", [["--max-cpu", "inf"], ["--max-cpu", "nan"], ["--max-memory", "nan"]]
)
def test_cap_values_must_be_finite(cap) -> None:
    done = gradcalc(*cap, "grad", "x^2", "--at", "x=1")
    assert done.returncode == 2 and "must be a finite number" in done.stderr


def test_a_huge_option_value_is_never_echoed_whole() -> None:
    done = gradcalc("grad", "x", "--at", "x=1", "--digits", "9" * 100_000)
    assert done.returncode == 2 and len(done.stderr) < 1_000


def test_the_memory_message_names_the_cap_in_force() -> None:
    from gradcalc.cli import limits

    limits._applied["memory"] = 512.0
    try:
        assert "(512 MB)" in limits.memory_message()
    finally:
        limits._applied.clear()


def test_a_library_warning_is_one_line_on_stderr() -> None:
    script = (
        "import sys, warnings; import gradcalc.cli.app as a; real = a._app_for\n"
        "def noisy(args):\n"
        "    warnings.warn('first\\nsecond', RuntimeWarning); return real(args)\n"
        "a._app_for = noisy\n"
        "sys.argv = ['gradcalc', 'grad', 'x', '--at', 'x=1', '--format', 'plain']\n"
        "a.main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert (done.returncode, done.stdout) == (0, "1\n")
    assert done.stderr == "gradcalc: note: first second\n"


@pytest.mark.skipif(not hasattr(signal, "SIGXCPU"), reason="POSIX")
def test_a_cpu_signal_during_interpreter_exit_is_not_exit_152() -> None:
    """A SIGXCPU while the interpreter exits once killed a finished process (status 152, or
    exit 2 with the CPU-cap message): the answer is complete, so the exit goes on."""
    script = (
        "import atexit, os, signal\n"
        "atexit.register(lambda: os.kill(os.getpid(), signal.SIGXCPU))  # runs last (LIFO)\n"
        "from gradcalc.cli import limits\n"
        "limits.apply(600, 0)\n"
        "print('answer')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert (done.returncode, done.stdout) == (0, "answer\n")


def test_a_file_whose_columns_are_all_unused_is_an_error_not_a_crash(tmp_path) -> None:
    """Found by the fuzzer: a header naming no variable of the expression (exit 70 before)."""
    path = tmp_path / "points.csv"
    path.write_text('sin,x+3\n-2.49,1.98\n2.25,0.44"1".02,-2.42\n1.48,0.0588\n')
    done = gradcalc("hessian", "x*y + sin(x)", "--points", str(path), "--skip-bad-rows")
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr and "no column" in done.stderr


def test_a_request_past_its_timeout_says_so_and_a_stream_goes_on() -> None:
    """A 1 ms budget runs out in every request: each says so -- the error line, or the
    numbers with the warning that the check was skipped -- and the stream answers every job,
    in order."""
    done = gradcalc("--timeout", "0.001", "grad", "x^2", "--at", "x=1")
    assert "--timeout 0.001 s" in done.stderr and "internal error" not in done.stderr
    assert done.returncode == 2 or (done.returncode == 0 and "skipped" in done.stderr)
    done = gradcalc("--timeout", "0.001", "grad", "--jobs", "-", stdin="x^2\tx=1\nx^3\tx=2\n")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["job"] for a in answers] == [1, 2]
    for answer in answers:
        said = answer.get("error") or " ".join(answer["warnings"])
        assert "--timeout 0.001 s" in said, answer
