"""The shared fixture ``cli`` (gradcalc in this process), and the Hypothesis profiles:
``default`` (660 examples, for CI) and ``long`` (50,000 examples).

    HYPOTHESIS_PROFILE=long nice -n 19 pytest tests/test_properties.py --hypothesis-show-statistics

The number of examples of each property test is :func:`test_properties.budget` (CI, long).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# CI's profile draws the same examples on every run (derandomize): a rare example near a
# pole, where finite differences lose their digits, cannot turn main red at random; the long
# profile explores anew each time.
settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
    derandomize=True,
)
settings.register_profile(
    "long",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def cli() -> Callable[..., Any]:
    """Run ``gradcalc ARGS...`` in this process (Typer's CliRunner); ``stdin`` is its input.

    ``cli("grad", "x^2", "--at", "x=3").stdout`` is what the command prints; the result also
    has ``exit_code`` and ``stderr``.
    """
    from typer.testing import CliRunner

    from gradcalc.cli.app import app

    runner = CliRunner()

    def run(*args: str, stdin: str | bytes | None = None) -> Any:
        return runner.invoke(app, list(args), input=stdin)

    return run
