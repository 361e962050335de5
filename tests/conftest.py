"""Hypothesis profiles: ``default`` (660 examples, for CI) and ``long`` (50,000 examples).

    HYPOTHESIS_PROFILE=long nice -n 19 pytest tests/test_properties.py --hypothesis-show-statistics

The number of examples of each property test is :func:`test_properties.budget` (CI, long).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile(
    "long",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
