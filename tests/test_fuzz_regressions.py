"""Replay every input the fuzzer (fuzz/fuzz_cli.py) ever found crashing: each must now end in
its recorded exit code, without an internal error or a traceback.

A new finding: run the fuzzer with ``--save FILE``, fix the bug, and add the JSON case to
tests/fuzz_regressions.json with ``found``, ``fixed``, the ``exit`` code it now gives and,
optionally, a fragment of its ``output``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fuzz"))
from fuzz_cli import run_case  # noqa: E402

pytestmark = pytest.mark.slow  # a gradcalc process per finding

CASES = json.loads((Path(__file__).with_name("fuzz_regressions.json")).read_text())


@pytest.mark.parametrize("case", CASES, ids=[f"{c['args'][0]}-{k}" for k, c in enumerate(CASES)])
def test_fuzz_finding_stays_fixed(tmp_path, case) -> None:
    problem, code, output = run_case(case, tmp_path, slow=60.0)
    assert problem is None, (case["found"], problem)
    assert code == case["exit"], case
    assert case.get("output", "") in output, (case, output)


def test_the_check_timeout_never_interrupts_the_import_of_sympy() -> None:
    """Found by the fuzzer on a loaded machine (seed 3): the symbolic check's alarm fired
    while sympy was being imported for the first time, which left sympy half-initialised for
    the rest of the process ("module 'sympy' has no attribute 'assumptions'", exit 70, in a
    later check). The alarm is now armed only once sympy is loaded."""
    code = (
        "import sys\n"
        "from gradcalc.symbolic.crosscheck.crosscheck import time_limit\n"
        "assert 'sympy' not in sys.modules\n"
        "with time_limit(60):\n"
        "    loaded = 'sympy' in sys.modules\n"
        "import sympy\n"
        "print(loaded, sympy.assumptions.ask is not None)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["True", "True"], done.stderr
