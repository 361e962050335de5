"""How closely two computations of the same batch agree: units in the last place, and the
replays' flagged points and findings (the native and numexpr kernels against numpy's steps)."""

from __future__ import annotations

import numpy as np

from gradcalc.engine.compile.replay import run_sweep
from gradcalc.engine.compile.sweep import record_sweep
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.run.api import Options, compile_expression, gradient_at

#: sin(x + 0.5) + sin(0.5): exactly 0 at x = -1 with numpy's sines.
CANCELLING = "(sin(x + 0.5) + sin(0.5))"
#: Each domain rule's boundary reached at x = -1 (or 1) by an exact cancellation of numpy's
#: sines (or a tie of numpy's cosh), which another library's last ulp may miss.
CANCELLATIONS = [
    f"abs({CANCELLING})",
    f"sign({CANCELLING}) + x",
    f"log({CANCELLING}^2)",
    f"sqrt({CANCELLING}^2)",
    f"cbrt({CANCELLING})",
    f"1/{CANCELLING}",
    f"abs({CANCELLING})^0.5",
    f"max({CANCELLING}, 0)",
    f"min(x, {CANCELLING} - 1)",
    f"floor(2 + {CANCELLING}) * x",
    f"ceiling({CANCELLING} - 2) * x",
    f"asin(1 - abs({CANCELLING}))",
    f"acos({CANCELLING} - 1)",
    f"atanh(1 + {CANCELLING})",
    f"acosh(1 + {CANCELLING})",
    f"cot({CANCELLING})",
    f"csc({CANCELLING})",
    f"tan({CANCELLING} + pi/2)",
    f"atan2({CANCELLING}, x)",
    "max(cosh(sin(x + x)), cosh(sin(2)))",
    f"cbrt(1 + {CANCELLING}^2)",
    f"(x - 3)^(2 + {CANCELLING})",  # a negative base: an integer exponent at x = -1 only
]

#: A maths function's value near the largest double, checked as itself, as an output, or
#: only after it is scaled down (where exp(x) overflows, numpy's product stays infinite).
NEAR_THE_LARGEST_DOUBLE = ["exp(x)*1e-300", "exp(x)", "1e-300*cosh(x) + x"]


def assert_huge_values_go_to_the_tape(text: str, kernels: str, monkeypatch) -> None:
    """Within an ulp of the largest double one library's exp may be finite where numpy's is
    infinite, so the ``kernels`` flag a maths function's value from HUGE (2^1016) on and
    the tape decides: those points get numpy's numbers bit for bit (the others agree to a
    few ulps, as everywhere)."""
    x = np.resize([1.0, 700.0, 705.0, 709.78, 710.0, -705.0, -1.5], 700)  # a batch
    sweep = record_sweep(compile_expression(text, ("x",)), ("x",))
    plain = run_sweep(sweep, {"x": x}, kernels="numpy")
    fast = run_sweep(sweep, {"x": x}, kernels=kernels)
    with np.errstate(over="ignore"):
        made = np.cosh(x) if "cosh" in text else np.exp(x)  # the maths function's value
    huge = made >= 2.0**1016
    assert fast.flagged is not None and fast.flagged.tolist() == huge.tolist()
    assert plain.flagged is None or plain.flagged.sum() < huge.sum()  # numpy's: inf only
    graph = compile_expression(text, ("x",))
    points = Points(("x",), {"x": x}, None)
    options = Options(check=False, strict=False, tape=False)
    answers = {}
    for chosen in (kernels, "numpy"):
        monkeypatch.setenv("GRADCALC_KERNELS", chosen)
        answers[chosen] = gradient_at(graph, points, None, options)[0]
    mine, theirs = answers[kernels], answers["numpy"]
    np.testing.assert_array_equal(mine.value[huge], theirs.value[huge])
    np.testing.assert_array_equal(mine.gradient["x"][huge], theirs.gradient["x"][huge])
    np.testing.assert_array_equal(mine.undefined, theirs.undefined)


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many units in the last place of the larger magnitude apart ``a`` and ``b`` are
    (NaN where exactly one is NaN; 0 where both are)."""
    both_nan = np.isnan(a) & np.isnan(b)
    scale = np.spacing(np.maximum(np.abs(a), np.abs(b)))
    with np.errstate(all="ignore"):
        apart = np.where(a == b, 0.0, np.abs(a - b) / scale)
    return np.where(both_nan, 0.0, apart)


def normwise_ulps(a: np.ndarray, b: np.ndarray) -> float:
    """The largest difference in units in the last place of the batch's largest magnitude
    (a value or gradient is a sum of terms: where they cancel, a one-ulp difference in a
    term is many ulps of the small result, and still one of the terms')."""
    if a.size == 0:
        return 0.0
    assert np.array_equal(np.isnan(a), np.isnan(b))
    finite = np.isfinite(a) & np.isfinite(b)
    assert np.array_equal(a[~finite], b[~finite], equal_nan=True)
    if not finite.any():
        return 0.0
    largest = np.abs(a[finite]).max()
    return float(np.abs(a[finite] - b[finite]).max() / np.spacing(largest))


def assert_same_flags_and_close(plain, fast, count: int, compared=None) -> None:
    """Two replays of ``count`` points flag the same points and findings, and agree at every
    clean point (of the mask ``compared``, default all) within 1e-9 of the batch's largest
    (the benchmark's 1e-8)."""
    flagged = plain.flagged if plain.flagged is not None else np.zeros(count, bool)
    other = fast.flagged if fast.flagged is not None else np.zeros(count, bool)
    assert np.array_equal(flagged, other)
    assert {k: m.tolist() for k, m in plain.findings.items()} == {
        k: m.tolist() for k, m in fast.findings.items()
    }
    clean = ~flagged if compared is None else ~flagged & compared
    pairs = [(plain.values[0], fast.values[0])]
    pairs += [(a, fast.gradients[0][s]) for s, a in plain.gradients[0].items() if a is not None]
    for a, b in pairs:
        assert normwise_ulps(a[clean], b[clean]) <= 2**42


def assert_decides_as_the_replay(plain, fast, count: int, compared=None) -> None:
    """A native replay decides as numpy's steps: it flags every point they flag (and perhaps
    more, where its last bits could decide otherwise: the tape then computes those), finds
    what they find at every point it does not flag, and agrees at every point neither flags
    (of the mask ``compared``, default all) within 1e-9 of the batch's largest."""
    none = np.zeros(count, bool)
    flagged = plain.flagged if plain.flagged is not None else none
    other = fast.flagged if fast.flagged is not None else none
    assert not (flagged & ~other).any()
    keys = {k for k, m in [*plain.findings.items(), *fast.findings.items()] if m.any()}
    for key in keys:
        mine = plain.findings.get(key, none) & ~other
        theirs = fast.findings.get(key, none)
        assert np.array_equal(mine, theirs), key
    clean = ~(flagged | other) if compared is None else ~(flagged | other) & compared
    pairs = [(plain.values[0], fast.values[0])]
    pairs += [(a, fast.gradients[0][s]) for s, a in plain.gradients[0].items() if a is not None]
    for a, b in pairs:
        assert normwise_ulps(a[clean], b[clean]) <= 2**42
