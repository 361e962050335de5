"""Measurements that need a fresh interpreter; the benchmark runs them as subprocesses.

    python benchmarks/worker.py memory BACKEND EXPRESSION POINTS
    python benchmarks/worker.py sympy-parse FILE

Each prints one JSON object on its last line (``{"skipped": why}`` when it cannot run).

``memory``: imports the tool and builds the inputs, takes the resident set size then as the
baseline, resets the peak (Linux ``/proc/self/clear_refs``), computes the gradient once
(jit peers were compiled during set-up) and reports the peak resident set size and its
increment over the baseline, in KiB. ``/proc/self/status`` is read rather than
``getrusage``'s ``ru_maxrss``, because a child's ``ru_maxrss`` can carry the parent's peak
from before ``exec`` and cannot be reset; elsewhere it falls back to ``ru_maxrss``.

``sympy-parse``: times sympy's ``parse_expr`` on the text in FILE (a peer of gradcalc's
parser in the scaling scenario); ``{"fails": ...}`` when sympy raises (RecursionError on
very long sums).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import backends


def status_kb(field: str) -> int | None:
    """A ``VmXXX`` line of ``/proc/self/status`` in KiB (None where there is no /proc)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def reset_peak() -> bool:
    """Reset the peak resident set size to the current one (Linux); whether it worked."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def ru_maxrss_kb() -> int:
    """``getrusage(RUSAGE_SELF).ru_maxrss`` in KiB (bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def memory(key: str, expression: str, count: str) -> dict:
    """Peak memory of one tool computing one expression's gradient at ``count`` points."""
    tool = backends.backend(key)
    if not tool.available():
        return {"skipped": f"{tool.module} is not installed"}
    text, names = backends.EXPRESSIONS[expression]
    arrays = backends.make_points(names, int(count))
    prepared = tool.prepare(text, names, arrays)
    exact = status_kb("VmRSS") is not None and reset_peak()
    baseline = status_kb("VmRSS") if exact else ru_maxrss_kb()
    with prepared.running():
        result = prepared.call()
    peak = status_kb("VmHWM") if exact else ru_maxrss_kb()
    del result
    method = "VmHWM after reset" if exact else "ru_maxrss"
    return {
        "baseline_kb": baseline,
        "peak_kb": peak,
        "increment_kb": peak - baseline,
        "method": method,
    }


def sympy_parse(path: str) -> dict:
    """Seconds for sympy's ``parse_expr`` on the text in ``path``, or why it failed."""
    from sympy.parsing.sympy_parser import parse_expr

    text = Path(path).read_text()
    start = time.perf_counter()
    try:
        parse_expr(text)
    except Exception as error:  # RecursionError, SyntaxError, TokenError...: sympy fails
        return {"fails": type(error).__name__, "seconds": time.perf_counter() - start}
    return {"seconds": time.perf_counter() - start}


TASKS = {"memory": memory, "sympy-parse": sympy_parse}


def main(argv: list[str]) -> None:
    """Run the task named by the first argument and print its JSON answer."""
    print(json.dumps(TASKS[argv[0]](*argv[1:])))


if __name__ == "__main__":
    main(sys.argv[1:])
