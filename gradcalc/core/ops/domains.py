"""Building blocks for the ops' domain rules: where an op is undefined or has no derivative.

Each names its op as the reading notation writes it (:func:`written_name`), so that a reason
names the function the ``read as:`` line shows: ``ln``, not the op ``log``.

>>> [issue.reason for issue in log_like("log")(np.array([-1.0, 0.0]))]
['ln is undefined for negative numbers', 'ln(0) is -infinity']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from gradcalc.core.ops.record import (
    NOT_DIFFERENTIABLE,
    UNDEFINED,
    Domain,
    DomainIssue,
    written_name,
)

#: How close to ``k*pi + offset`` a value may count as a pole, relative to it: the native
#: loop's bound (engine.compile.native_rules), which :func:`multiple_of_pi` stays within.
POLE_TOLERANCE = 4 * float(np.finfo(np.float64).eps)
#: The farthest from a pole a value counts as one, however wide float64's steps are there.
POLE_GAP = 1e-12


def undefined(mask: Any, reason: str, arg: int | None = None) -> DomainIssue:
    """The op is undefined where ``mask`` holds.

    >>> undefined(np.array([True]), "no").kind
    'undefined'
    """
    return DomainIssue(UNDEFINED, np.asarray(mask), reason, arg)


def kink(mask: Any, reason: str, arg: int | None = None) -> DomainIssue:
    """The op (or its input ``arg``'s derivative) is not differentiable where ``mask`` holds.

    >>> kink(np.array([True]), "corner").kind
    'not differentiable'
    """
    return DomainIssue(NOT_DIFFERENTIABLE, np.asarray(mask), reason, arg)


def multiple_of_pi(x: np.ndarray, offset: float = 0.0) -> np.ndarray:
    """True where x is (to double precision) k*pi + offset: the poles of tan, cot, sec, csc.
    The distance to the nearest pole is |cos(x)| (offset pi/2) or |sin(x)| (offset 0), by
    numpy's exact argument reduction; x is a pole when that is within two of float64's
    steps at x, and within :data:`POLE_GAP` -- so a large x, whose steps are wide (0.125 at
    1e15), is a pole only where it truly is one to 12 digits, never by the width of its step.

    >>> multiple_of_pi(np.array([np.pi, 1.0, 1e15, 0.0])).tolist()
    [True, False, False, True]
    >>> multiple_of_pi(np.array([np.pi / 2, 3 * np.pi / 2, 1e15]), np.pi / 2).tolist()
    [True, True, False]
    """
    with np.errstate(all="ignore"):
        distance = np.abs(np.cos(x)) if offset else np.abs(np.sin(x))
        tolerance = np.minimum(2 * np.spacing(np.abs(x)), POLE_GAP)
        result: np.ndarray = distance <= tolerance
    return result


def is_integer(x: np.ndarray) -> np.ndarray:
    """True at finite whole numbers.

    >>> is_integer(np.array([2.0, 2.5, np.inf])).tolist()
    [True, False, False]
    """
    result: np.ndarray = np.isfinite(x) & (x == np.round(x))
    return result


def log_like(name: str) -> Domain:
    """A logarithm's domain: undefined below 0, -infinity at 0."""
    name = written_name(name)
    return lambda x: [
        undefined(x < 0, f"{name} is undefined for negative numbers"),
        undefined(x == 0, f"{name}(0) is -infinity"),
    ]


def poles(offset: float, name: str, where: str) -> Domain:
    """Undefined at ``k*pi + offset`` (tan, sec, csc, cot), to float64's precision: the
    reason says so, since a number typed within float64's rounding of the pole
    (``1.5707963267948966`` for pi/2) reaches the tape as the pole's float.

    >>> (issue,) = poles(np.pi / 2, "tan", "its cosine is 0")(np.ones(1))
    >>> print(issue.reason)
    tan is undefined where its cosine is 0: its argument is pi/2 + k·pi to float64's precision
    """
    name = written_name(name)
    at = "pi/2 + k·pi" if offset else "k·pi"
    reason = f"{name} is undefined where {where}: its argument is {at} to float64's precision"
    return lambda x: [undefined(multiple_of_pi(x, offset), reason)]


def unit_interval(name: str, closed_ok: bool) -> Domain:
    """Undefined outside [-1, 1]; at ±1 an infinite slope (``closed_ok``) or undefined."""
    name = written_name(name)

    def domain(x: np.ndarray) -> Iterable[DomainIssue]:
        yield undefined(np.abs(x) > 1, f"{name} is undefined outside [-1, 1]")
        edge = np.abs(x) == 1
        if closed_ok:
            yield kink(edge, f"{name} has an infinite slope at ±1")
        else:
            yield undefined(edge, f"{name} is infinite at ±1")

    return domain


def root_like(name: str, negative_ok: bool) -> Domain:
    """An infinite slope at 0, and (unless ``negative_ok``) undefined below it."""
    name = written_name(name)

    def domain(x: np.ndarray) -> Iterable[DomainIssue]:
        if not negative_ok:
            yield undefined(x < 0, f"{name} is undefined for negative numbers")
        yield kink(x == 0, f"{name} has an infinite slope at 0")

    return domain


def jump(name: str, at: str, where: Callable[[np.ndarray], np.ndarray]) -> Domain:
    """A jump (no derivative) where ``where`` holds."""
    name = written_name(name)
    return lambda x: [kink(where(x), f"{name} jumps at {at}")]


def corner(name: str, at: str, where: Callable[..., np.ndarray]) -> Domain:
    """A corner (no derivative) where ``where`` holds."""
    name = written_name(name)
    return lambda *xs: [kink(where(*xs), f"{name} has a corner at {at}")]
