"""`gradcalc grad --jobs`: many jobs through one process, one JSON answer per job, in order."""

from __future__ import annotations

import io
import json
import os
import random
import select
import subprocess
import sys

import pytest
import sympy as sp

from gradcalc.cli.jobs import read_job, run_jobs


def answers(cli, lines: list[str], *args: str) -> tuple[int, list[dict]]:
    done = cli.invoke(["grad", "--jobs", "-", *args], input="\n".join(lines) + "\n")
    return done.exit_code, [json.loads(line) for line in done.stdout.splitlines()]


def test_each_job_is_answered_with_sympys_gradient(cli) -> None:
    x, y = sp.symbols("x y", real=True)
    jobs = [
        ("x^2*y + sin(y)", {"x": 3, "y": 2}),
        ("exp(x*y)/(1 + x^2)", {"x": 0.5, "y": -1.25}),
        ("atan2(y, x)", {"x": "1/3", "y": "pi/4"}),
    ]
    lines = [json.dumps({"expr": e, "at": at}) for e, at in jobs]
    code, got = answers(cli, lines)
    assert code == 0
    for k, ((text, at), answer) in enumerate(zip(jobs, got), start=1):
        expr = sp.sympify(text.replace("^", "**"), locals={"x": x, "y": y})
        point = {x: sp.sympify(str(at["x"])), y: sp.sympify(str(at["y"]))}
        assert answer["job"] == k and answer["check"]["status"] == "agree"
        for name, symbol in (("x", x), ("y", y)):
            exact = float(sp.diff(expr, symbol).subs(point))
            assert answer["gradient"][name] == pytest.approx(exact, rel=1e-12)


def test_an_answer_is_what_grad_json_prints_for_the_same_job(cli) -> None:
    single = cli.invoke(
        ["grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3", "--format", "json", "--no-tape"]
    )
    code, got = answers(cli, ["3*w1**2+2*w1*w2\tw1=5,w2=3"])
    assert code == 0
    assert got == [{"job": 1, **json.loads(single.stdout)}]


def test_bad_jobs_are_answered_and_the_stream_goes_on(cli) -> None:
    lines = [
        '{"expr": "x^2", "at": {"x": 2}}',
        "{not json",
        '{"expr": "x", "at": {"x": 1}, "colour": 1}',
        '{"expr": "x*y", "at": {"x": 1}}',
        "x^\tx=1",
        '{"expr": "x", "at": {"x": true}}',
        "# a comment, then a blank line",
        "",
        "x^3\tx=2",
    ]
    code, got = answers(cli, lines)
    assert code == 2
    assert [a["job"] for a in got] == [1, 2, 3, 4, 5, 6, 9]
    assert got[0]["gradient"] == {"x": 4.0} and got[-1]["gradient"] == {"x": 12.0}
    errors = {a["job"]: a["error"] for a in got if "error" in a}
    assert "not valid JSON" in errors[2]
    assert "unknown job field 'colour'" in errors[3]
    assert "no value given for y" in errors[4]
    assert "needs an expression after it" in errors[5] and got[4]["offset"] == 1
    assert "must be a number" in errors[6]
    assert all(a["exit_code"] == 2 for a in got if "error" in a)


def test_the_streams_status_follows_the_worst_job(cli) -> None:
    """1 (a check failed) before 2 (a bad job) before 3 (undefined at the point)."""
    assert answers(cli, ["1/x\tx=0", "x\tx=1"])[0] == 3
    assert answers(cli, ["1/x\tx=0", "x^\tx=1"])[0] == 2
    assert answers(cli, [])[0] == 0


def test_a_job_cannot_execute_code(cli) -> None:
    payload = "__import__('os').system('touch pwned')"
    code, got = answers(cli, [json.dumps({"expr": payload, "at": {}}), f"x\tx={payload}"])
    assert code == 2 and all("error" in a for a in got)
    assert not os.path.exists("pwned")


def test_several_targets_and_wrt(cli) -> None:
    job = {"expr": "y = x^2; z = y^2", "at": {"x": 3}, "wrt": ["x", "y"], "of": ["y", "z"]}
    code, got = answers(cli, [json.dumps(job)])
    assert code == 0
    first, second = got[0]["results"]
    assert (first["target"], second["target"]) == ("y", "z")
    assert second["gradient"] == {"x": 108.0, "y": 18.0}


def test_jobs_and_an_expression_do_not_go_together(cli) -> None:
    done = cli.invoke(["grad", "x", "--jobs", "-"], input="")
    assert done.exit_code == 2 and "--jobs does not take EXPRESSION" in done.output
    done = cli.invoke(["grad"])
    assert done.exit_code == 2 and "missing EXPRESSION" in done.output


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"expr": "x", "at": {"x": 1.5}}', ("x", [{"x": "1.5"}], None, None)),
        ('{"expr": "x", "at": {"x": 1e-7}}', ("x", [{"x": "1e-7"}], None, None)),  # as written
        ('{"expr": "x"}', ("x", [{}], None, None)),  # (one point, with no value given)
        ("x\t", ("x", [{}], None, None)),
    ],
)
def test_read_job(line, expected) -> None:
    expression, point, wrt, of, _ = read_job(line)
    assert (expression, point.exact, wrt, of) == expected


@pytest.mark.parametrize("number", ["1e-400", "-1e-400", "1e400", "1e301", "NaN", "Infinity"])
def test_a_json_number_out_of_range_is_refused_as_at_refuses_it(number: str) -> None:
    """Python's JSON reader makes 1e-400 a 0.0 and takes NaN: the job reads the number's own
    text, as --at does, so the message is the one --at x=1e-400 gives."""
    from gradcalc.core.errors import InputError
    from gradcalc.engine.evaluate.points import parse_at

    with pytest.raises(InputError) as job:
        read_job(f'{{"expr": "x", "at": {{"x": {number}}}}}')
    if number[-1].isdigit():
        with pytest.raises(InputError) as at:
            parse_at([f"x={number}"])
        assert at.value.message in job.value.message
    else:
        assert f"{number} is not a finite number" in job.value.message


@pytest.mark.parametrize("value", ["@c.csv", " @/etc/passwd", "@"])
def test_a_job_value_never_names_a_file(value: str, tmp_path, monkeypatch) -> None:
    """A job's "at" value starting with @ is refused with the message --at gives without
    the operator's --file, and no file is opened (c.csv holds numbers that would answer)."""
    from gradcalc.core.errors import InputError

    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.csv").write_text("x\n3\n")
    with pytest.raises(InputError) as job:
        read_job(f'{{"expr": "x^2", "at": {{"x": "{value}"}}}}')
    assert "a value names a file only on the command line" in job.value.message


@pytest.mark.slow
def test_answers_are_flushed_one_by_one() -> None:
    """A script can hold gradcalc open as a co-process: each answer arrives before the
    next job is written."""
    process = subprocess.Popen(
        [sys.executable, "-c", "from gradcalc.cli.app import main; main()", "grad", "--jobs", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        for k, x in enumerate((2, 5), start=1):
            process.stdin.write(f"x^2\tx={x}\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], 60)
            assert ready, "no answer before the next job"
            answer = json.loads(process.stdout.readline())
            assert answer["job"] == k and answer["gradient"] == {"x": 2.0 * x}
        process.stdin.close()
        assert process.wait(60) == 0
    finally:
        process.kill()


def test_run_jobs_directly() -> None:
    import io

    out = io.StringIO()
    assert run_jobs(["x*y\tx=2,y=3"], out, check=False) == 0
    assert json.loads(out.getvalue())["gradient"] == {"x": 3.0, "y": 2.0}


def _alone_and_streamed(lines: list[str], **options) -> tuple[list[str], list[str]]:
    """Each job's answer in a stream of its own, and in one stream of them all."""
    alone = []
    for line in lines:
        out = io.StringIO()
        run_jobs([line], out, **options)
        alone.append(out.getvalue())
    out = io.StringIO()
    run_jobs(lines, out, **options)
    streamed = out.getvalue().splitlines(keepends=True)
    return [json.dumps({**json.loads(a), "job": 0}) for a in alone], [
        json.dumps({**json.loads(s), "job": 0}) for s in streamed
    ]


TEMPLATES = [
    "{a}*x^2+{b}*x*y",
    "exp({a}*x)*y-{b}*x*y^2",
    "log(1+x^2)*y+{a}*cos(y)",
    "{a}*x*y/(1+y^2)+{b}*x",
    "{a}*abs(x)+sqrt({b}*y)",
    "sigmoid({a}*x)*tanh({b}*y)",
    "u = {a}*x*y; v = u^2 + {b}/x",
]
#: Kinks, domain edges, zeros, overflow and underflow, and ordinary points.
AWKWARD = ["0", "-0.0", "1", "-1", "0.5", "-2.5", "1e-300", "1e300", "-1e300", "710", "3"]


@pytest.mark.parametrize("check", [False, True])
def test_a_streams_answers_are_each_jobs_answer_alone(check, monkeypatch) -> None:
    """In one stream, jobs of one shape share a plan and a derivative (the fast paths); alone,
    each job is computed on a full tape and differentiated by itself: the same answers."""
    import gradcalc.engine.run.scalar as scalar  # (imported by api where a plan may serve)

    fast = []
    plain = scalar.scalar_evaluation
    monkeypatch.setattr(scalar, "scalar_evaluation", lambda *a: fast.append(plain(*a)) or fast[-1])
    rng = random.Random(17)
    lines = []
    for _ in range(60 if check else 150):
        numbers = {k: str(round(rng.uniform(0.2, 3.0), 2)) for k in "ab"}
        point = {v: rng.choice([*AWKWARD, str(round(rng.uniform(-3, 3), 3))]) for v in "xy"}
        expr = rng.choice(TEMPLATES).format(**numbers)
        lines.append(json.dumps({"expr": expr, "at": point}))
    alone, streamed = _alone_and_streamed(lines, check=check)
    assert streamed == alone
    assert sum(run is not None for run in fast) > len(lines) // 4  # the fast path was taken


@pytest.mark.parametrize(
    ("expr", "value"),
    [("abs(0)", 0.0), ("floor(pi)", 3.0), ("2", 2.0), ("abs(-2) + sin(0)", 2.0)],
)
def test_a_constant_job_is_answered_and_its_check_is_no_pass(cli, expr, value) -> None:
    # a constant at "at": {} (a kink among them): its value, no gradient, and a check that
    # compared no derivative says so -- never "agree", never an internal error
    code, (answer,) = answers(cli, [json.dumps({"expr": expr, "at": {}})])
    assert code == 0 and answer["value"] == value and answer["gradient"] == {}
    assert answer["check"]["status"] == "skipped" and answer["check"].get("agree") is None
    assert any("no derivative to compare" in w for w in answer["warnings"])


def _coefficient_job(rng: random.Random) -> tuple[str, tuple[float, float]]:
    """A job ``a*x^2 + b*x*y + c`` at a whole-number point, and its gradient in Python
    integers (exact in float64: every value is below 2^53)."""
    a, b, c = (rng.randint(-(10**9), 10**9) for _ in range(3))
    x, y = rng.randint(-99, 99), rng.randint(-99, 99)
    expr = f"{a}*x^2 + {b}*x*y + {c}"
    line = (
        json.dumps({"expr": expr, "at": {"x": x, "y": y}})
        if rng.random() < 0.5
        else (f"{expr}\tx={x},y={y}")
    )
    return line, (float(2 * a * x + b * y), float(b * x))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("source", ["stdin", "file"])
def test_a_line_that_is_not_utf8_is_its_own_error(cli, tmp_path, seed: int, source: str) -> None:
    """Bad bytes at random places of random lines: each such line is answered with an error
    naming it (its number, the byte), every other job with the gradient Python computes."""
    rng = random.Random(seed)
    jobs = [_coefficient_job(rng) for _ in range(rng.randint(5, 12))]
    bad = set(rng.sample(range(len(jobs)), rng.randint(1, 3)))
    lines, where = [], {}
    for k, (line, _) in enumerate(jobs):
        raw = line.encode()
        if k in bad:
            at, byte = rng.randrange(len(raw) + 1), rng.choice([0xFF, 0xFE, 0xC3, 0x80, 0xE2])
            raw = raw[:at] + bytes([byte]) + raw[at:]
            where[k + 1] = (at, byte)
        lines.append(raw)
    data = b"\n".join(lines) + b"\n"
    if source == "file":
        (tmp_path / "jobs.txt").write_bytes(data)
        done = cli.invoke(["grad", "--jobs", str(tmp_path / "jobs.txt"), "--no-check"])
    else:
        done = cli.invoke(["grad", "--jobs", "-", "--no-check"], input=data)
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["job"] for a in got] == list(range(1, len(jobs) + 1)), done.output
    assert done.exit_code == 2  # a bad job: the stream's status, as for any bad job
    for answer, (_, (dx, dy)) in zip(got, jobs):
        if answer["job"] in where:
            at, byte = where[answer["job"]]
            assert answer["exit_code"] == 2
            assert answer["error"] == (
                f"line {answer['job']} is not UTF-8 text (its byte {at + 1} is {byte:#04x})"
            )
        else:
            assert answer["gradient"] == {"x": dx, "y": dy}, answer


def test_a_bad_line_between_good_ones_on_stdin(cli) -> None:
    data = b'{"expr":"x^2","at":{"x":2}}\nx\xff*y x=1,y=2\n{"expr":"x^2","at":{"x":3}}\n'
    done = cli.invoke(["grad", "--jobs", "-", "--no-check"], input=data)
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.exit_code == 2 and not done.stderr
    assert got[0]["gradient"] == {"x": 4.0} and got[2]["gradient"] == {"x": 6.0}
    assert got[1] == {"job": 2, "error": "line 2 is not UTF-8 text (its byte 2 is 0xff)",
                      "exit_code": 2}  # fmt: skip


def test_a_bom_and_crlf_lines_are_fine(cli) -> None:
    data = b"\xef\xbb\xbfx^2\tx=2\r\n# note \xc3\xa9\r\nx^3\tx=2\r\n"
    done = cli.invoke(["grad", "--jobs", "-", "--no-check"], input=data)
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.exit_code == 0, done.output
    assert [(a["job"], a["gradient"]) for a in got] == [(1, {"x": 4.0}), (3, {"x": 12.0})]


#: The options that --jobs honours for every job, as the README documents them; every other
#: option of grad -- one added later too -- must be refused.
HONOURED = {
    "jobs", "workers", "no_tape", "no_check", "check_timeout", "subgradient", "exact",
    "diagnose", "vanishing", "exploding", "saturation",
}  # fmt: skip


def _grad_parameters() -> list:
    """grad's parameters as its command line reads them (click's, built from the command)."""
    from typer.main import get_command

    from gradcalc.cli.app import build

    return list(get_command(build(("grad",))).commands["grad"].params)


def _typed(parameter) -> list[str]:
    """The parameter as typed, with a value its type takes (its default included: given is
    given)."""
    if not parameter.opts[0].startswith("-"):
        return ["x^2"]  # EXPRESSION
    if parameter.is_flag:
        return [parameter.opts[0]]
    kind = parameter.type
    if getattr(kind, "choices", None):
        value = "table"  # (--format: the default, given)
    elif getattr(kind, "min", None) is not None or kind.name in ("integer", "float"):
        low, high = kind.min or 0, kind.max if kind.max is not None else 1
        value = str(type(low)(min(max(low, 1), high)))
    else:
        value = {"at": "x=1", "jobs": "-"}.get(parameter.name, "x")
    return [parameter.opts[0], value]


@pytest.mark.parametrize(
    "parameter",
    [p for p in _grad_parameters() if p.name not in HONOURED],
    ids=lambda p: p.name,
)
def test_every_option_jobs_does_not_honour_is_refused(cli, parameter) -> None:
    """No option is silently ignored with --jobs: each is refused in one line naming it and
    saying what to do, before any job is answered."""
    args = _typed(parameter)
    done = cli.invoke(["grad", "--jobs", "-", *args], input="x^2 x=3\n")
    assert done.exit_code == 2, (args, done.stdout)
    message = done.stderr.strip()
    assert message.startswith("gradcalc: --jobs ") and "\n" not in message, message
    assert (args[0] if args[0].startswith("-") else "EXPRESSION") in message, message
    assert done.stdout == ""


def test_the_options_jobs_honours_apply_to_every_job(cli) -> None:
    """Every honoured option, given at once: each job answers with their effect (--no-check:
    no check; --exact: the exact value; --subgradient: abs's conventional 0 at 0)."""
    honoured = [p for p in _grad_parameters() if p.name in HONOURED - {"jobs", "no_check"}]
    args = [word for p in honoured for word in _typed(p)]
    lines = ["x^2 x=pi/4", "abs(x) x=0"]
    code, got = answers(cli, lines, *args, "--format", "json")
    assert code == 0, got
    assert got[0]["exact_value"] == "pi^2/16" and got[1]["gradient"] == {"x": 0.0}
    code, got = answers(cli, lines, "--no-check", "--subgradient")
    assert code == 0 and all(a["check"]["status"] == "off" for a in got)


def test_a_jobs_messages_speak_of_its_line_not_of_the_command_line(cli) -> None:
    """A value with an "=" in it is one value refused as such (never an equation for diff),
    and a missing value is asked for in the job, where --at cannot go."""
    lines = [
        json.dumps({"expr": "x^2", "at": {"x": "1,e=5"}}),
        json.dumps({"expr": "x*y", "at": {"x": 1}}),
        "x*y x=1",
    ]
    code, got = answers(cli, lines)
    assert code == 2 and [a["exit_code"] for a in got] == [2, 2, 2]
    assert got[0]["error"].startswith('"at": \'x\' must be one value such as "pi/4"')
    assert "diff --implicit" not in got[0]["error"]
    for answer in got[1:]:
        assert answer["error"] == (
            'no value given for y (add y to the job\'s point: "at": {"y": ...}, or y=... in a '
            "plain job)"
        )
        assert "--at" not in answer["error"]
