"""Tensor values for variables: ``--at W=[[1,2],[3,4]],b=zeros(2),V=@weights.npy``.

A value is a bracket literal (each element a constant, read by the expression parser), a
seeded initialiser (``randn(3,2)``, ``zeros(8)``, ``ones(2,2)``, ``glorot(784,128)``), a
file (``@weights.npy``, ``@weights.csv``, read by the caller's ``load``: files are
:mod:`gradcalc.io`'s) or a plain constant (a 0-d value, as in a scalar ``--at``).

Every value is capped at :data:`MAX_ELEMENTS` elements: ``randn(100000,10000)`` is an input
error before anything is allocated. The initialisers draw from one generator seeded with
``seed`` (default :data:`DEFAULT_SEED`), in the order the values are written.

>>> point = parse_tensor_at(["W=[[1,2],[3,4]],b=zeros(2),c=pi"])
>>> point.values["W"].shape, point.values["b"].tolist(), point.given["c"]
((2, 2), [0.0, 0.0], 'pi')
>>> parse_tensor_at(["W=randn(2,3)"]).values["W"].round(3).tolist()[0]
[0.126, -0.132, 0.64]
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from gradcalc.core.cells import names_a_file
from gradcalc.core.errors import InputError
from gradcalc.engine.evaluate.points import constant_value
from gradcalc.lang.literals import (
    INITIALISER,
    INITIALISERS,
    NAME,
    nested_literal,
    split_top_level,
)

#: The most elements one tensor value may have (80 MB of float64).
MAX_ELEMENTS = 10_000_000
#: The seed of the initialisers when ``--seed`` is not given.
DEFAULT_SEED = 0
DIMENSION = re.compile(r"\s*[0-9]{1,12}\s*\Z")

#: Reads a tensor file (``@path``) into an array; given by the command line (:mod:`gradcalc.io`).
Loader = Callable[[str], np.ndarray]


@dataclass
class TensorPoint:
    """One point whose values may be tensors: ``values`` by name, and ``given``, how each
    was written (``randn(4,8)``, ``@w.npy``, ``[0, 1]``); ``seed`` seeded the initialisers."""

    values: dict[str, np.ndarray]
    given: dict[str, str]
    seed: int = DEFAULT_SEED

    @property
    def names(self) -> tuple[str, ...]:
        """The variables given a value, in order."""
        return tuple(self.values)


def parse_tensor_at(
    specs: Sequence[str], seed: int = DEFAULT_SEED, load: Loader | None = None
) -> TensorPoint:
    """The values of one ``--at`` spec whose values may be tensors.

    Raises:
        InputError: for several specs (several points of tensors have no meaning yet), a
            malformed pair, a repeated or bad name, a bad value (naming the variable).
    """
    if len(specs) > 1:
        raise InputError(
            "with tensor values, give one point (one --at); a data set's rows go in --data"
        )
    rng = np.random.default_rng(seed)
    values: dict[str, np.ndarray] = {}
    given: dict[str, str] = {}
    for pair in split_top_level(specs[0]) if specs else []:
        name, equals, text = (part.strip() for part in pair.partition("="))
        if not equals or not text:
            raise InputError(f"--at expects name=value pairs like W=[[1,2],[3,4]], got {pair!r}")
        if not NAME.match(name):
            raise InputError(f"--at: {name!r} is not a valid variable name")
        if name in values:
            raise InputError(f"--at: {name} is given twice")
        try:
            values[name] = tensor_value(text, rng, load)
        except InputError as error:
            raise InputError(f"--at {name}: {error.message}") from None
        given[name] = text
    return TensorPoint(values, given, seed)


def tensor_value(text: str, rng: np.random.Generator, load: Loader | None = None) -> np.ndarray:
    """The array an ``--at`` value stands for.

    >>> tensor_value("[[1, 2], [3, 1/4]]", np.random.default_rng(0)).tolist()
    [[1.0, 2.0], [3.0, 0.25]]
    >>> tensor_value("ones(1000000, 100000)", np.random.default_rng(0))
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: ones(1000000, 100000) has 100,000,000,000 elements: ...

    Raises:
        InputError: a ragged or non-numeric literal, an unknown initialiser, a bad or too
            large shape, a file without ``load``.
    """
    text = text.strip()
    if text.startswith("@"):
        if not text[1:].strip():
            raise InputError("@ names a file: write @weights.npy or @weights.csv")
        if load is None:
            raise names_a_file(text)
        array = load(text[1:])
        check_elements(array.size, text)
        return array
    if text.startswith("["):
        try:
            shape, elements = nested_literal(text)
        except ValueError as error:
            raise InputError(str(error)) from None
        return np.array([constant_value(e) for e in elements], dtype=float).reshape(shape)
    match = INITIALISER.match(text)
    if match is None or match[1] not in INITIALISERS:
        return np.array(constant_value(text))
    kind, shape = match[1], _shape(text, match[2])
    if kind == "glorot" and len(shape) != 2:
        raise InputError(f"{text}: glorot takes two sizes, glorot(fan_in, fan_out)")
    if kind == "zeros":
        return np.zeros(shape)
    if kind == "ones":
        return np.ones(shape)
    if kind == "randn":
        return rng.standard_normal(shape)
    limit = math.sqrt(6.0 / (shape[0] + shape[1]))
    return rng.uniform(-limit, limit, shape)


def _shape(text: str, arguments: str) -> tuple[int, ...]:
    """The sizes of an initialiser: positive integers, at most :data:`MAX_ELEMENTS` in all."""
    parts = arguments.split(",")
    if not all(DIMENSION.match(p) and int(p) > 0 for p in parts):
        raise InputError(f"{text}: the sizes must be positive whole numbers, e.g. randn(3,2)")
    shape = tuple(int(p) for p in parts)
    if len(shape) > 8:
        raise InputError(f"{text}: at most 8 sizes")
    check_elements(math.prod(shape), text)
    return shape


def check_elements(elements: int, text: str) -> None:
    """Refuse a value of ``text`` with more than :data:`MAX_ELEMENTS` elements.

    >>> check_elements(10**9, "@w.npy")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: @w.npy has 1,000,000,000 elements: the limit is 10,000,000 ...
    """
    if elements > MAX_ELEMENTS:
        raise InputError(
            f"{text} has {elements:,} elements: the limit is {MAX_ELEMENTS:,} for one value"
        )
