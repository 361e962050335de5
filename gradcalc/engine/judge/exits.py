"""The one rule from a result to the command's exit status, for every command and entry
point (the command line, ``--jobs``, the REPL): a failed check is 1, else an undefined
answer (a point outside the domain, an overflow, a NaN) is 3, else 0. A check that did not
run is never a failure and never a pass: it changes nothing here, and the result says why.

>>> int(exit_status(failed=False, undefined=True)), int(exit_status(failed=True, undefined=True))
(3, 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from gradcalc.core.errors import ExitCode


def exit_status(*, failed: bool, undefined: bool) -> ExitCode:
    """1 when a check failed, else 3 when an answer is undefined, else 0."""
    if failed:
        return ExitCode.CHECK_FAILED
    return ExitCode.UNDEFINED if undefined else ExitCode.OK


def of_results(results: Iterable[Any]) -> ExitCode:
    """The exit status of gradient results (:class:`~gradcalc.engine.evaluate.results.GradResult`:
    ``check`` and ``undefined``).

    >>> from gradcalc.engine.run.api import grad
    >>> int(of_results([grad("log(x)", at={"x": -1.0}, strict=False)]))
    3
    """
    shown = list(results)
    return exit_status(
        failed=any(r.check is not None and r.check.status == "disagree" for r in shown),
        undefined=any(bool(np.any(r.undefined)) for r in shown),
    )


def undefined_values(values: Iterable[Any]) -> bool:
    """Whether any of the answer's numbers is NaN or infinite (``None``: not an answer).

    >>> undefined_values([1.0, None]), undefined_values([float("nan")])
    (False, True)
    """
    return any(v is not None and not np.all(np.isfinite(v)) for v in values)
