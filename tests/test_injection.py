"""Code-injection payloads in every text slot of every command: refused (exit 2), and nothing
ran -- no marker file appeared, and sympy's string parser (what ``sympify`` hands text to)
was never called. In process, for breadth; tests/cli/test_cli_process.py does the same for the
expression through a real process."""

from __future__ import annotations

import pytest
import sympy.parsing.sympy_parser as sympy_parser

from tests.hostile_inputs import (
    HOSTILE_CLI,
    INJECTION,
    LOOK_ALIKES,
    UNQUOTED_CALLS,
    UNQUOTED_SYNTAX,
)

pytestmark = pytest.mark.slow  # every payload in every slot of every command

PAYLOADS = INJECTION + UNQUOTED_SYNTAX + UNQUOTED_CALLS + LOOK_ALIKES
DATA = "x,y\n0,1\n1,3\n2,5\n"

#: Every place a command takes text from the user; P is the payload.
SLOTS = {
    "grad expression": ["grad", "P", "--at", "x=1"],
    "hessian expression": ["hessian", "P", "--at", "x=1"],
    "jacobian expression": ["jacobian", "P", "--at", "x=1"],
    "check expression": ["check", "P", "--at", "x=1", "--expect", "1"],
    "explain expression": ["explain", "P", "--at", "x=1"],
    "graph expression": ["graph", "P", "--at", "x=1"],
    "minimize expression": ["minimize", "P", "--from", "x=1"],
    "plot expression": ["plot", "P", "--at", "x=1"],
    "fit model": ["fit", "P", "{data}", "--params", "a"],
    "@file expression": ["--file", "grad", "@{payload}", "--at", "x=1"],
    "stdin expression": ["grad", "-", "--at", "x=1"],
    "--at value": ["grad", "x", "--at", "x=P"],
    "--at spec": ["grad", "x", "--at", "P"],
    "--from value": ["minimize", "x^2", "--from", "x=P"],
    "--init value": ["fit", "a*x", "{data}", "--params", "a", "--init", "a=P"],
    "--direction": ["grad", "x", "--at", "x=1", "--direction", "P"],
    "--range": ["plot", "x^2", "--at", "x=1", "--range", "P:1"],
    "--expect": ["check", "x^2", "--at", "x=1", "--expect", "P"],
    "--answer": ["check", "x^2", "--answer", "P"],
    "--answer name=": ["check", "x^2", "--answer", "x=P"],
    "--wrt": ["grad", "x", "--at", "x=1", "--wrt", "P"],
    "--of": ["grad", "y = x^2; z = y", "--at", "x=1", "--of", "P"],
    "--params": ["fit", "a*x", "{data}", "--params", "P"],
    "--y": ["fit", "a*x", "{data}", "--params", "a", "--y", "P"],
    # (a column the expression does not read is never parsed: these are read)
    "points header": ["grad", "x", "--points", "{header}", "--columns=P"],
    "points cell": ["grad", "x*y", "--points", "{cell}"],
    "data header": ["fit", "a*x", "{header}", "--params", "a"],
    "data cell": ["fit", "a*x", "{cell}", "--params", "a"],
}


@pytest.fixture
def no_string_parsing(monkeypatch):
    """Fail if anything hands text to sympy's parser (sympify of a string ends there)."""
    calls = []
    monkeypatch.setattr(sympy_parser, "parse_expr", lambda *a, **k: calls.append(a))
    yield calls
    assert calls == [], f"sympy parsed text: {calls}"


@pytest.mark.parametrize("slot", list(SLOTS))
def test_every_payload_is_refused_in_every_slot(
    cli, tmp_path, monkeypatch, slot, no_string_parsing
):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "MARKER"
    failures = []
    for text, _ in PAYLOADS:
        payload = text.replace("MARKER", str(marker))
        files = {
            "data": DATA,
            "payload": payload,
            "header": f"x,{payload}\n1,2\n",
            "cell": f"x,y\n1,{payload}\n",
        }
        paths = {}
        for name, content in files.items():
            path = tmp_path / f"{name}.csv"
            path.write_bytes(content.encode("utf-8", "surrogateescape"))
            paths[name] = str(path)
        args = []
        for arg in SLOTS[slot]:
            for name, path in paths.items():
                arg = arg.replace("{" + name + "}", path)
            args.append(
                payload
                if arg == "P"
                else arg.replace("=P", "=" + payload).replace("P:1", payload + ":1")
            )
        result = cli.invoke(args, input=payload if "-" in args else None)
        if (
            result.exit_code != 2
            or "Traceback" in result.output
            or (result.exception and not (isinstance(result.exception, SystemExit)))
        ):
            failures.append((payload, result.exit_code, result.output[-200:]))
        assert not marker.exists(), (slot, payload)
    assert failures == [], failures


def test_the_payload_list_is_broad() -> None:
    assert len(PAYLOADS) >= 60
    assert len(HOSTILE_CLI) >= 115


def test_every_payload_is_refused_as_a_job(cli, tmp_path, monkeypatch, no_string_parsing) -> None:
    """`grad --jobs -`: each payload as a job's expression, as its point value and in the
    plain form; every one is answered with an error, and the stream goes on."""
    import json

    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "MARKER"
    jobs = []
    for text, _ in PAYLOADS:
        payload = text.replace("MARKER", str(marker))
        jobs.append(json.dumps({"expr": payload, "at": {"x": 1}}))
        jobs.append(json.dumps({"expr": "x^2", "at": {"x": payload}}))
        if "\t" not in payload and "\n" not in payload and "\r" not in payload:
            jobs.append(f"{payload}\tx=1")
    result = cli.invoke(["grad", "--jobs", "-"], input="\n".join(jobs) + "\n")
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == len(jobs)
    refused = [a for a in answers if a.get("exit_code") == 2 and "error" in a]
    assert len(refused) == len(jobs), [a for a in answers if a not in refused][:3]
    assert not marker.exists()
