"""Collection for the whole repository: a doctest of a module that needs an optional extra
is skipped, saying which, when the extra is not installed; slow doctest files are marked
``slow`` (``pytest -m "not slow"`` is the quick subset)."""

from __future__ import annotations

import importlib.util

import pytest

#: Doctest files that take seconds (real processes): marked slow, like the slow tests.
SLOW_DOCTESTS = ("docs/exit-codes.md",)
#: module file -> (the package it needs, the extra that installs it)
OPTIONAL = {
    "gradcalc/io/parquet.py": ("pyarrow", "parquet"),
    "gradcalc/cli/ipython.py": ("IPython", "notebook"),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.as_posix().endswith(SLOW_DOCTESTS):
            item.add_marker(pytest.mark.slow)
        for path, (package, extra) in OPTIONAL.items():
            if item.path.as_posix().endswith(path) and not importlib.util.find_spec(package):
                reason = f"{package} is not installed: pip install 'gradcalc[{extra}]'"
                item.add_marker(pytest.mark.skip(reason=reason))
