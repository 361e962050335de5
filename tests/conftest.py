"""The shared fixture ``cli`` (gradcalc in this process), and the Hypothesis profiles:
``default`` (660 examples, for CI) and ``long`` (50,000 examples).

    HYPOTHESIS_PROFILE=long nice -n 19 pytest tests/test_properties.py --hypothesis-show-statistics

The number of examples of each property test is :func:`test_properties.budget` (CI, long).
"""

from __future__ import annotations

import os
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
    derandomize=False,  # (it would inherit True from "default": every seed the same examples)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


class Cli:
    """gradcalc run in this process by Typer's CliRunner: ``cli("grad", "x^2", "--at", "x=3")``
    (``stdin=`` its input, ``env=`` variables to set), or ``cli.invoke(args, **options)``
    with CliRunner's own options. The result has ``exit_code``, ``stdout`` and ``stderr``."""

    def __init__(self) -> None:
        from typer.testing import CliRunner

        self.runner = CliRunner()

    def __call__(
        self, *args: str, stdin: str | bytes | None = None, env: dict | None = None
    ) -> Any:
        return self.invoke(args, input=stdin, env=env)

    def invoke(self, args: Any, **options: Any) -> Any:
        from gradcalc.cli.app import app

        return self.runner.invoke(app, list(args), **options)


@pytest.fixture(scope="session")
def cli() -> Cli:
    """The one way the tests run the command line in-process (see :class:`Cli`)."""
    return Cli()
