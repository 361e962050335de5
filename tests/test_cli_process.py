"""`gradcalc` as a real process: exit codes, streams, and hostile input that must never run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hostile_inputs import HOSTILE


def gradcalc(*args: str, cwd=None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from gradcalc.cli import main; main()", *args],
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


def test_help_does_not_import_numpy_or_sympy() -> None:
    code = (
        "import sys; sys.argv=['gradcalc','--help']\n"
        "from gradcalc.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('numpy' in sys.modules, 'sympy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "False False"


# argv can carry neither a NUL nor a single argument over 128 kB; test_parse covers those
ARGV_SAFE = [(t, f) for t, f in HOSTILE if "\x00" not in t and len(t) < 100_000]


@pytest.mark.parametrize(("text", "fragment"), ARGV_SAFE, ids=range(len(ARGV_SAFE)))
def test_hostile_expressions_are_refused_and_never_run(tmp_path, text, fragment) -> None:
    marker = tmp_path / "MARKER"
    payload = text.replace("MARKER", str(marker))
    done = gradcalc("grad", payload, "--at", "x=1", cwd=tmp_path)
    assert done.returncode == 2, (payload, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
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
