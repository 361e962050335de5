"""Hypothesis profiles: ``default`` (660 examples, for CI) and ``long`` (50,000 examples).

    HYPOTHESIS_PROFILE=long nice -n 19 pytest tests/test_properties.py --hypothesis-show-statistics

The number of examples of each property test is :func:`test_properties.budget` (CI, long).
"""

from __future__ import annotations

import os

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
