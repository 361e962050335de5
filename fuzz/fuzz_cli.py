"""Fuzz every gradcalc command, every text option and the CSV readers with random,
grammar-shaped and mutated input.

Run from the repository root (not part of pytest; niced, it uses one core):

    nice -n 19 python fuzz/fuzz_cli.py --minutes 30 --seed 1 [--save tests/fuzz_regressions.json]

Each input is one command line (``grad``, ``hessian``, ``jacobian``, ``check``, ``explain``,
``graph``, ``minimize``, ``fit``, ``plot``) with a generated text in one slot: the
expression, ``@FILE``, a value of ``--at``/``--from``/``--init``/``--direction``/``--range``,
``--expect``, ``--answer``, ``--wrt``/``--of``/``--params``, or the contents of a ``--points``
or ``fit`` data file (bytes included: BOMs, CRLF, NUL, non-UTF-8, ragged rows, NaN...), or a
``grad --jobs`` stream on stdin or in a file (plain and JSON lines, broken JSON, repeated
keys, spliced point values, file names, over-long lines), whose answers must be one JSON
object per job, in order, none an internal error.
It must end in a documented exit code (0, 1, 2, 3) without an internal error (exit 70), a
traceback or taking more than --slow seconds of CPU. Failures are printed as JSON cases (and
appended to --save), the format of tests/fuzz_regressions.json, which
tests/test_fuzz_regressions.py replays.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from gradcalc.cli.app import app
from gradcalc.core.ops import FUNCTION_NAMES

TOKENS = [
    *FUNCTION_NAMES, "x", "y", "z", "pi", "e", "2", "0", "1e308", "0.5", ".", "1e-320", "(", ")",
    "+", "-", "*", "/", "^", "**", ",", "=", ";", "\n", " ", "x(", "2x", "y = ", "9", "99999",
]  # fmt: skip
ALPHABET = "xyz0123456789+-*/^().,=; \n_abcdefghijklmnopqrstuvwXYZ'\"[]{}:@!<>|&~#\\$%`\x00é\u200b"
CSV_PIECES = [
    "x", "y", "z", ",", "\n", "\r\n", "\r", "1", "-2.5", "1e308", "1e309", "nan", "inf", "-inf",
    "NaN", '"1"', '"', " ", "", "\ufeff", "\x00", "\udcff", "0x10", "1_000", "1e-400", "a",
    "x,y", ",,", "\t", "sin", "pi", "é", "1.", ".5", "+3", "--1",
]  # fmt: skip
ALLOWED_EXIT = {0, 1, 2, 3}
POINT = "x=0.5,y=-1.25,z=3"

Case = dict  # {"args": [...], "files": {"name": text}, "stdin": text | None}


# --- text generators ----------------------------------------------------------------------


def shaped(rng: random.Random) -> str:
    """Text built from the grammar's own tokens: mostly almost-valid expressions."""
    return "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 25)))


def valid(rng: random.Random, depth: int = 0) -> str:
    """A random well-formed expression from the registry's functions."""
    if depth > 4 or rng.random() < 0.3:
        return rng.choice(["x", "y", "z", "2", "0.5", "pi", "e", "1e-9", "30", "0"])
    if rng.random() < 0.5:
        op = rng.choice(["+", "-", "*", "/", "^"])
        return f"({valid(rng, depth + 1)}){op}({valid(rng, depth + 1)})"
    name, op = rng.choice(list(FUNCTION_NAMES.items()))
    arity = 2 if op.variadic else op.arity
    return f"{name}({', '.join(valid(rng, depth + 1) for _ in range(arity))})"


def mutate(rng: random.Random, text: str, alphabet: str = ALPHABET) -> str:
    """``text`` with one to three characters changed, inserted or deleted."""
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(len(text) + 1)
        char = rng.choice(alphabet)
        change = rng.choice(["insert", "delete", "replace"])
        if change == "insert":
            text = text[:k] + char + text[k:]
        elif change == "delete":
            text = text[:k] + text[k + 1 :]
        else:
            text = text[:k] + char + text[k + 1 :]
    return text


def mutated(rng: random.Random) -> str:
    return mutate(rng, valid(rng))


def noise(rng: random.Random) -> str:
    """Raw characters, allowed and not."""
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40)))


def headed(rng: random.Random) -> str:
    """A valid expression written as a student writes a function: f(x, y, z) = ..., its head
    naming the variables in some order (sometimes leaving one out, or naming one twice)."""
    names = rng.sample(["x", "y", "z"], 3)[: rng.choice([1, 2, 3, 3])]
    if rng.random() < 0.2:
        names.append(rng.choice(names))
    return f"{rng.choice(['f', 'g', 'h1'])}({', '.join(names)}) = {valid(rng)}"


def expression(rng: random.Random) -> str:
    return rng.choice([valid, valid, mutated, shaped, noise, headed])(rng)


def constant(rng: random.Random) -> str:
    """A point value: mostly constants, sometimes anything."""
    if rng.random() < 0.6:
        text = valid(rng).replace("x", "2").replace("y", "pi").replace("z", "0.5")
        return text if rng.random() < 0.7 else mutate(rng, text)
    return expression(rng)


def csv_text(rng: random.Random, header: str = "x,y") -> str:
    """A CSV of points: valid, or broken in one of the ways files break."""
    rows = [header] + [
        f"{rng.uniform(-3, 3):.3g},{rng.uniform(-3, 3):.3g}" for _ in range(rng.randint(0, 6))
    ]
    text = rng.choice(["\n", "\r\n"]).join(rows) + rng.choice(["", "\n", "\r\n", "\n\n"])
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        k = rng.randrange(len(text) + 1)
        piece = rng.choice(CSV_PIECES)
        if rng.random() < 0.5:
            text = text[:k] + piece + text[k:]
        else:
            text = text[:k] + piece + text[k + len(piece) :]
    return text


# --- command lines ------------------------------------------------------------------------


def _variables(text: str) -> str:
    names = [v for v in "xyz" if v in text] or ["x"]
    return ",".join(f"{v}={POINT.split(',')['xyz'.index(v)].split('=')[1]}" for v in names)


def _model(text: str) -> tuple[str, str]:
    """The text as a fit model: y, z become the parameters a, b; x is the data column."""
    model = text.replace("y", "a").replace("z", "b")
    params = ",".join(p for p in "ab" if p in model) or "a"
    return model, params


def _expr_case(command: str) -> Callable[[random.Random], Case]:
    def build(rng: random.Random) -> Case:
        text = expression(rng)
        args = {
            "grad": ["grad", text, "--at", POINT, "--check-timeout", "2", "--no-tape"],
            "hessian": ["hessian", text, "--at", POINT, "--check-timeout", "2"],
            "jacobian": ["jacobian", text, "--at", POINT, "--check-timeout", "2"],
            "explain": ["explain", text, "--at", POINT],
            "graph": ["graph", text, "--at", POINT],
            "minimize": ["minimize", text, "--from", _variables(text), "--steps", "30"],
            "plot": ["plot", text.replace("y", "x").replace("z", "x"), "--at", "x=0.5"],
        }[command]
        if command == "grad" and rng.random() < 0.3:
            args += rng.choice([["--order", "2", "--wrt", "x"], ["--format", "json"], ["--exact"]])
        return {"args": args}

    return build


def check_case(rng: random.Random) -> Case:
    text = expression(rng) if rng.random() < 0.5 else valid(rng)
    if rng.random() < 0.5:
        answer = ", ".join(expression(rng) for _ in range(rng.randint(1, 3)))
        return {"args": ["check", text, "--answer", answer, "--at", POINT]}
    expect = ",".join(constant(rng) for _ in range(rng.randint(1, 3)))
    return {"args": ["check", text, "--at", POINT, "--expect", expect]}


def fit_case(rng: random.Random) -> Case:
    model, params = _model(valid(rng) if rng.random() < 0.6 else expression(rng))
    args = ["fit", model, "{data}", "--params", params]
    if rng.random() < 0.3:
        args += ["--init", f"a={constant(rng)}"]
    data = csv_text(rng) if rng.random() < 0.5 else _good_data(rng)
    if rng.random() < 0.2:
        args.append("--skip-bad-rows")
    return {"args": args, "files": {"data": data}}


def _good_data(rng: random.Random) -> str:
    xs = [round(rng.uniform(-2, 2), 2) for _ in range(rng.randint(1, 12))]
    return "x,y\n" + "".join(f"{x},{round(2 * x + 1 + rng.gauss(0, 0.1), 3)}\n" for x in xs)


def option_case(rng: random.Random) -> Case:
    """A generated text in one of the options that take text."""
    t = constant(rng)
    name = expression(rng) if rng.random() < 0.5 else rng.choice(["x", "y", "x,y", "q", "x,,y"])
    return {
        "args": rng.choice(
            [
                ["grad", "x*y", "--at", f"x={t},y=1", "--no-tape"],
                ["grad", "x*y", "--at", f"x=1,y={t}", "--at", "x=2,y=3", "--format", "csv"],
                ["grad", "x*y", "--at", t, "--no-check"],
                ["grad", "x^2+y^2", "--at", "x=1,y=2", "--direction", f"{t},1"],
                ["grad", "x*y", "--at", "x=1,y=2", "--wrt", name],
                ["grad", "a = x^2; b = a*y", "--at", "x=1,y=2", "--of", name],
                ["hessian", "x^2*y", "--at", "x=1,y=2", "--wrt", name],
                ["minimize", "(x-1)^2", "--from", f"x={t}", "--steps", "20"],
                ["minimize", "(x-1)^2", "--from", t, "--steps", "20"],
                ["plot", "x^2", "--at", "x=0.5", "--range", f"{t}:{constant(rng)}"],
                ["plot", "x^2", "--at", f"x={t}"],
                ["explain", "x^2", "--at", f"x={t}"],
                ["fit", "a*x+b", "{data}", "--params", "a,b", "--init", f"a={t}"],
                ["fit", "a*x+b", "{data}", "--params", name],
                ["fit", "a*x+b", "{data}", "--params", "a,b", "--y", name],
                ["check", "x^2", "--at", "x=1", "--expect", t],
                ["check", "x^2*y", "--answer", f"x={expression(rng)}", "--answer", "y=x^2"],
            ]
        ),
        "files": {"data": "x,y\n0,1\n1,3\n2,5.1\n"},
    }


def points_case(rng: random.Random) -> Case:
    header = rng.choice(["x,y", "x,y", "y,x", "x", "x,y,z", "x, y", "e,x", "sin,x", "a__b,x"])
    command = rng.choice(["grad", "grad", "hessian", "jacobian"])
    args = [command, "x*y + sin(x)", "--points", "{points}", "--check-timeout", "2"]
    args += rng.choice([[], ["--format", "json"], ["--format", "csv"], ["--skip-bad-rows"]])
    return {"args": args, "files": {"points": csv_text(rng, header)}}


def at_file_case(rng: random.Random) -> Case:
    text = expression(rng)
    if rng.random() < 0.3:
        text = "\ufeff" + text if rng.random() < 0.5 else text.replace("\n", "\r\n") + "\udcfe"
    return {
        "args": ["--file", "grad", "@{expr}", "--at", POINT, "--no-tape"],
        "files": {"expr": text},
    }


def job_line(rng: random.Random) -> str:
    """One line of a ``--jobs`` stream: plain or JSON, valid or broken, sometimes hostile
    (a value that tries to splice in a pair, a key given twice, a file name, a long line)."""
    text = expression(rng)
    kind = rng.randrange(8)
    if kind == 0:
        return f"{text}\t{_variables(text)}"
    if kind == 1:
        return f"{text}\t{mutate(rng, _variables(text))}"
    at = {v: rng.choice([0.5, -1.25, 3, constant(rng)]) for v in "xyz" if v in text}
    job: dict = {"expr": text, "at": at}
    if rng.random() < 0.2:
        job["wrt"] = [rng.choice(["x", "y", "z", "q", ""])]
    line = json.dumps(job)
    if kind == 2:
        return line.replace('"at"', '"at": {"x": 1}, "at"', 1)  # a key given twice
    if kind == 3:
        return json.dumps({"expr": text, "at": {"x": "1,e=5", "y": "2"}})
    if kind == 4:
        return json.dumps({"expr": "@" + rng.choice(["/etc/passwd", "/dev/zero", "."]) + ""})
    if kind == 5:
        return mutate(rng, line, ALPHABET + '{}[]":')
    if kind == 6 and rng.random() < 0.05:
        return "x+" * 500_001 + "x\tx=1"  # longer than a job line may be
    return line


def jobs_case(rng: random.Random) -> Case:
    lines = [job_line(rng) for _ in range(rng.randint(1, 8))]
    lines += rng.choice([[], [""], ["# a comment"]])
    text = rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n"])
    options = rng.choice([[], ["--no-check"], ["--check-timeout", "1"]])
    if rng.random() < 0.5:
        return {"args": ["grad", "--jobs", "-", *options], "stdin": text}
    return {"args": ["grad", "--jobs", "{jobs}", *options], "files": {"jobs": text}}


def stdin_case(rng: random.Random) -> Case:
    if rng.random() < 0.5:
        return {"args": ["grad", "-", "--at", POINT, "--no-tape"], "stdin": expression(rng)}
    return {"args": ["grad", "x*y", "--points", "-"], "stdin": csv_text(rng)}


CASES: list[tuple[Callable[[random.Random], Case], int]] = [
    (_expr_case("grad"), 6),
    (_expr_case("hessian"), 2),
    (_expr_case("jacobian"), 2),
    (_expr_case("explain"), 2),
    (_expr_case("graph"), 2),
    (_expr_case("minimize"), 2),
    (_expr_case("plot"), 1),
    (check_case, 3),
    (fit_case, 3),
    (option_case, 4),
    (points_case, 4),
    (at_file_case, 1),
    (stdin_case, 1),
    (jobs_case, 4),
]


# --- running ------------------------------------------------------------------------------


def materialise(case: Case, directory: Path) -> list[str]:
    """Write the case's files into ``directory``; its arguments with their paths filled in."""
    paths = {}
    for name, content in case.get("files", {}).items():
        path = directory / f"{name}.txt"
        path.write_bytes(content.encode("utf-8", "surrogateescape"))
        paths[name] = str(path)
    return [_fill(arg, paths) for arg in case["args"]]


def _fill(arg: str, paths: dict[str, str]) -> str:
    for name, path in paths.items():
        arg = arg.replace("{" + name + "}", path)
    return arg


def run_case(case: Case, directory: Path, slow: float = 10.0) -> tuple[str | None, int, str]:
    """The problem with this case (None when it behaved), its exit code and its output."""
    args = materialise(case, directory)
    stdin = case.get("stdin")
    start = time.process_time()  # CPU time: a niced fuzzer on a busy machine waits a lot
    result = CliRunner().invoke(
        app, args, input=None if stdin is None else stdin.encode("utf-8", "surrogateescape")
    )
    elapsed = time.process_time() - start
    code = result.exit_code
    if code == 130:  # our own SIGTERM (kill PID) or Ctrl-C, caught by the runner: stop here
        raise KeyboardInterrupt
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return f"raised {type(result.exception).__name__}: {result.exception}", code, result.output
    if code not in ALLOWED_EXIT:
        return f"exit code {code}: {result.output[-300:]}", code, result.output
    if "Traceback" in result.output:
        return "printed a traceback", code, result.output
    if elapsed > slow:
        return f"took {elapsed:.1f} s of CPU", code, result.output
    if "--jobs" in args:
        problem = _jobs_problem(result.stdout)
        if problem is not None:
            return problem, code, result.output
    return None, code, result.output


def _jobs_problem(stdout: str) -> str | None:
    """What is wrong with a ``--jobs`` stream's answers: each line one JSON object with its
    job number, in order, and no internal error."""
    numbers = []
    for line in stdout.splitlines():
        try:
            answer = json.loads(line)
        except ValueError:
            return f"a jobs answer is not JSON: {line[:200]!r}"
        if not isinstance(answer, dict) or "job" not in answer:
            return f"a jobs answer has no job number: {line[:200]!r}"
        if answer.get("exit_code") == 70:
            return f"job {answer['job']}: {answer.get('error')}"
        numbers.append(answer["job"])
    if numbers != sorted(set(numbers)):
        return f"jobs answered out of order: {numbers}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="wall-clock minutes")
    parser.add_argument("--cpu-minutes", type=float, help="stop after this much CPU time instead")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slow", type=float, default=10.0, help="CPU seconds that count as a hang")
    parser.add_argument("--save", help="append failing cases (JSON, one per line) to this file")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    builders = [b for b, weight in CASES for _ in range(weight)]
    deadline = time.monotonic() + 60 * args.minutes
    count, failures = 0, 0
    codes: dict[int, int] = {}
    per_command: dict[str, int] = {}
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # kill PID: stop, print the summary
    with tempfile.TemporaryDirectory() as scratch, contextlib.suppress(KeyboardInterrupt):
        directory = Path(scratch)
        while (
            time.process_time() < 60 * args.cpu_minutes
            if args.cpu_minutes
            else time.monotonic() < deadline
        ):
            case = rng.choice(builders)(rng)
            if args.save:  # a real hang never returns: the watchdog exits, this names the case
                Path(args.save + ".current").write_text(json.dumps(case))
            faulthandler.dump_traceback_later(max(300.0, 30 * args.slow), exit=True)
            problem, code, _ = run_case(case, directory, args.slow)
            faulthandler.cancel_dump_traceback_later()
            codes[code] = codes.get(code, 0) + 1
            per_command[case["args"][0]] = per_command.get(case["args"][0], 0) + 1
            count += 1
            if problem is not None:
                failures += 1
                line = json.dumps({**case, "problem": problem})
                print(line, flush=True)
                if args.save:
                    with open(args.save, "a", encoding="utf-8") as saved:
                        saved.write(line + "\n")
            elif code == 1 and case["args"][0] in ("grad", "hessian", "jacobian"):
                print(f"# check failed: {json.dumps(case)}", flush=True)
    spread = ", ".join(f"exit {c}: {n}" for c, n in sorted(codes.items()))
    commands = ", ".join(f"{c} {n}" for c, n in sorted(per_command.items()))
    cpu = time.process_time()
    print(
        f"{count} inputs ({spread}; {commands}), {failures} failures, "
        f"{args.minutes} min, {cpu / 60:.1f} CPU min, seed {args.seed}, pid {os.getpid()}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
