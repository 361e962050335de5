"""The one exit rule, on results computed by the engine, against what the documented exit codes
say (docs/exit-codes.md): a failed check 1, else an undefined answer 3, else 0."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from gradcalc.core.errors import ExitCode
from gradcalc.engine.judge.exits import exit_status, of_results, undefined_values
from gradcalc.engine.run.api import grad


@pytest.mark.parametrize(("failed", "undefined"), list(itertools.product([False, True], repeat=2)))
def test_rule_table(failed: bool, undefined: bool) -> None:
    want = ExitCode.CHECK_FAILED if failed else ExitCode.UNDEFINED if undefined else ExitCode.OK
    assert exit_status(failed=failed, undefined=undefined) == want


@pytest.mark.parametrize(
    ("expression", "x", "want"),
    [
        ("x^2", 3.0, ExitCode.OK),
        ("log(x)", -1.0, ExitCode.UNDEFINED),  # outside the domain
        ("sqrt(x)", 0.0, ExitCode.UNDEFINED),  # infinite slope
        ("1/x", 1e-200, ExitCode.UNDEFINED),  # d/dx = -1e400: overflows float64
        ("1/x", 1e-100, ExitCode.OK),  # d/dx = -1e200: a float64
    ],
)
def test_of_real_results(expression: str, x: float, want: ExitCode) -> None:
    assert of_results([grad(expression, at={"x": x}, strict=False)]) == want


def test_a_check_that_did_not_run_is_neither_pass_nor_failure() -> None:
    skipped = SimpleNamespace(check=SimpleNamespace(status="skipped"), undefined=np.array(False))
    failed = SimpleNamespace(check=SimpleNamespace(status="disagree"), undefined=np.array(True))
    assert of_results([skipped]) == ExitCode.OK
    assert of_results([skipped, failed]) == ExitCode.CHECK_FAILED


@pytest.mark.parametrize(
    ("values", "want"),
    [([1.0, 2.0], False), ([np.inf], True), ([np.array([1.0, np.nan])], True), ([None], False)],
)
def test_undefined_values(values, want: bool) -> None:
    assert undefined_values(values) is want
