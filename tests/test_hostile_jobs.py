"""A hostile ``--jobs`` stream: 1,000 jobs, every tenth hostile, through one real process.

Every benign job must be answered correctly (against the textbook derivative) and in order;
every hostile one with its own error line (or, where the numbers are still right, an answer
whose warning says what was skipped); nothing may read a file, run code or end the stream.
The whole stream runs under ``--timeout`` per job and a CPU cap for the process.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

GRADCALC = [sys.executable, "-c", "from gradcalc.cli.app import main; main()"]

#: (job line, what must come back): "error" -- an error line; "skipped" -- numbers with a
#: skipped check; a float -- d/dx at the point.
HOSTILE = [
    ('{"expr": "@/etc/passwd", "at": {"x": 1}}', "error"),
    ('{"expr": "e^x", "at": {"x": "1,e=5"}}', "error"),
    ('{"expr": "x", "at": {"x": 1, "x": 2}}', "error"),
    ("1.000000001^1000*sin(x)\tx=1", "skipped"),
    # checked at 50 digits (the exact value being too large): x rounds to 1.0, where d/dx = 998001
    ("(x^999)^999\tx=1.0000000000000000001", {"x": 998001.0}),
    ("x + 0e99999999\tx=2", 1.0),
    ("__import__('os').system('touch MARKER')\tx=1", "error"),
    ("(" * 300 + "x" + ")" * 300 + "\tx=1", "error"),
    ("x" * 1_000_001, "error"),
    ('{"expr": "x^2", "at": {"x": "1e99999"}}', "error"),
]


def benign(k: int) -> tuple[str, dict[str, float]]:
    """A job and its textbook gradient."""
    x, y = 1 + k % 7, 0.5 + k % 5
    family = k % 3
    if family == 0:
        return f"{k}*x^2 + y\tx={x},y={y}", {"x": 2 * k * x, "y": 1.0}
    if family == 1:
        line = json.dumps({"expr": "sin(x)*y", "at": {"x": x, "y": y}})
        return line, {"x": math.cos(x) * y, "y": math.sin(x)}
    return f"exp(x/{k})*y^3\tx={x},y={y}", {
        "x": math.exp(x / k) / k * y**3,
        "y": 3 * math.exp(x / k) * y**2,
    }


def test_a_thousand_jobs_every_tenth_hostile(tmp_path) -> None:
    lines, expected = [], []
    for k in range(1, 1001):
        if k % 10 == 0:
            line, want = HOSTILE[(k // 10) % len(HOSTILE)]
        else:
            line, want = benign(k)
        lines.append(line)
        expected.append(want)
    done = subprocess.run(
        [*GRADCALC, "--max-cpu", "600", "--timeout", "10", "grad", "--jobs", "-"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["job"] for a in answers] == list(range(1, 1001)), done.stderr[-500:]
    for answer, want in zip(answers, expected):
        if want == "error":
            assert "error" in answer and answer["exit_code"] == 2, answer
            assert "root:" not in answer["error"]  # no file contents
        elif want == "skipped":
            assert answer["check"]["status"] == "skipped", answer
            assert answer["warnings"] and "skipped" in answer["warnings"][0]
        elif isinstance(want, float):
            assert answer["gradient"]["x"] == want, answer
        else:
            assert answer["check"]["status"] == "agree", answer
            for name, value in want.items():
                assert answer["gradient"][name] == pytest.approx(value, rel=1e-12), answer
    assert not (tmp_path / "MARKER").exists()
    assert done.returncode == 2  # the worst job: a malformed one
    assert done.stderr == ""


if __name__ == "__main__":  # the figures for the note: python tests/test_hostile_jobs.py
    sys.exit(pytest.main([__file__, "-q", "-s"]))
