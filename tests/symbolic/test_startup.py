"""sympy with its tensor module deferred (symbolic/translate/startup.py): the same answers as sympy
untouched, on random expressions and on sympy's own tensors; and the headline command no
longer loads sympy.combinatorics. Each case runs in a fresh process, one with the stand-in
and one without, so the test process's sympy stays as it was.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

TIMEOUT = 300  # seconds: a bound on a stalled process, never a measure of speed

#: Random sums, products, powers and functions, differentiated, expanded, simplified and
#: substituted: every answer as sympy's srepr, with the modules loaded at the end.
RANDOM_EXPRESSIONS = """
import json, random, sys
import sympy as sp
rng = random.Random(SEED)
xs = sp.symbols("x y z", real=True)
def term(depth):
    if depth == 0 or rng.random() < 0.3:
        return rng.choice([*xs, sp.Integer(rng.randint(-5, 5)), sp.Rational(rng.randint(1, 9), 7)])
    pick = rng.randrange(6)
    a, b = term(depth - 1), term(depth - 1)
    if pick == 0: return a + b
    if pick == 1: return a * b
    if pick == 2: return a - 2 * b
    if pick == 3: return a ** rng.randint(2, 3)
    if pick == 4: return rng.choice([sp.sin, sp.exp, sp.cos, sp.tanh])(a)
    return a / (b ** 2 + 1)
answers = []
for _ in range(40):
    e = term(4)
    d = [sp.diff(e, v) for v in xs]
    at = e.subs({xs[0]: 2, xs[1]: sp.Rational(1, 3)})
    answers.append([sp.srepr(e), *map(sp.srepr, d), sp.srepr(sp.expand(d[0])),
                    sp.srepr(sp.simplify(d[1])), sp.srepr(at)])
print(json.dumps({"answers": answers,
                  "combinatorics": "sympy.combinatorics" in sys.modules}))
"""

#: sympy's own tensor expressions, after sums have gone through the stand-in.
TENSORS = """
import json, sys
import sympy as sp
x = sp.Symbol("x")
before = sp.srepr(sp.diff(x**2 + 3*x, x))
from sympy.tensor.tensor import TensorIndexType, tensor_indices, TensorHead, TensExpr
L = TensorIndexType("L")
i, j = tensor_indices("i j", L)
A, B = TensorHead("A", [L]), TensorHead("B", [L])
total = A(i) + B(i) + A(i)
canon = (A(i)*B(-i) + B(j)*A(-j)).canon_bp()
print(json.dumps({"before": before, "sum": str(total), "canon": str(canon),
                  "is_tensor": isinstance(total, TensExpr),
                  "module": type(sys.modules["sympy.tensor.tensor"]).__name__}))
"""

DEFER = (
    "from gradcalc.symbolic.translate.startup import defer_sympy_tensors; defer_sympy_tensors()\n"
)


def run(code: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_expressions_get_the_answers_of_sympy_untouched(seed: int) -> None:
    code = RANDOM_EXPRESSIONS.replace("SEED", str(seed))
    deferred, untouched = run(DEFER + code), run(code)
    assert deferred["answers"] == untouched["answers"]
    assert untouched["combinatorics"]  # sympy loads it for the first sum ...
    assert not deferred["combinatorics"]  # ... and the stand-in spares it


def test_sympy_tensors_still_work_after_the_stand_in() -> None:
    deferred, untouched = run(DEFER + TENSORS), run(TENSORS)
    assert deferred == untouched
    assert deferred["is_tensor"] and deferred["module"] == "module"  # the real one took over


def test_the_headline_command_loads_no_tensor_algebra() -> None:
    code = (
        "import atexit, sys\n"
        "loaded = lambda *names: print(*(name in sys.modules for name in names))\n"
        "atexit.register(loaded, 'sympy', 'sympy.combinatorics')\n"
        "from gradcalc.cli.app import main; main()"
    )
    headline = ["grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3"]
    done = subprocess.run(
        [sys.executable, "-c", code, *headline], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert "✓" in done.stdout and "✗" not in done.stdout  # the check ran and agreed
    assert done.stdout.strip().splitlines()[-1] == "True False", done.stderr
