"""The shape of a written answer: a list, a vector, a matrix or a set of points.

Students write a gradient as ``2x, 2y``, ``[2x, 2y]``, ``(2x, 2y)`` or ``<2x, 2y>``; a Hessian
as ``[[2, 0], [0, 2]]`` or ``[2, 0; 0, 2]``; critical points as ``{(1, 0), (-1, 0)}``. Only the
brackets and separators are read here; every entry is left as text for the parser.

>>> shape_of("[ 2x , 2y ]")
Answer(kind='vector', rows=(('2x', '2y'),))
>>> shape_of("[2, 0; 0, 2]").rows
(('2', '0'), ('0', '2'))
>>> points_of("{(1,0), (-1, 0)}")
(('1', '0'), ('-1', '0'))
>>> answer_form(["dy/dx = 2x"])
{'x': '2x'}
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gradcalc.core.errors import InputError

_NAME = r"[A-Za-z][A-Za-z0-9_]*"
#: ``x = ...``: the answer for ∂/∂x.
_NAMED = re.compile(rf"\s*({_NAME})\s*=(?!=)(.*)\Z", re.S)
#: ``df/dx = ...``, ``dy/dx = ...``, ``d/dx = ...``, ``∂f/∂x = ...``: also the answer for ∂/∂x.
_LEIBNIZ = re.compile(rf"\s*[d∂]\s*(?:{_NAME})?\s*/\s*[d∂]\s*({_NAME})\s*=(?!=)(.*)\Z", re.S)
#: ``f'(x) = ...``, ``y' = ...``, ``f''(x) = ...``: the derivative of that order.
_PRIMED = re.compile(rf"\s*({_NAME})\s*('+)\s*(?:\([^()=]*\))?\s*=(?!=)(.*)\Z", re.S)
#: ``d^2y/dx^2 = ...``, ``d2f/dx2 = ...``: the derivative of that order in one variable.
_HIGHER = re.compile(
    rf"\s*d\s*\^?\s*(\d)\s*((?:{_NAME})?)\s*/\s*d\s*([A-Za-z][A-Za-z_]*)\s*\^?\s*(\d)"
    rf"\s*=(?!=)(.*)\Z",
    re.S,
)
_ORDINALS = {1: "first", 2: "second", 3: "third"}

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {close: opening for opening, close in _OPEN.items()}


@dataclass(frozen=True)
class Answer:
    """``kind``: ``list`` (no brackets: ``2x, 2y``), ``vector`` (one bracketed row) or
    ``matrix`` (rows); ``rows`` holds the entries' texts (one row unless a matrix).

    >>> Answer("matrix", (("1", "2"), ("3", "4"))).entries
    ['1', '2', '3', '4']
    """

    kind: str
    rows: tuple[tuple[str, ...], ...]

    @property
    def entries(self) -> list[str]:
        """Every entry, row by row."""
        return [entry for row in self.rows for entry in row]


def shape_of(texts: str | Sequence[str]) -> Answer:
    """The shape of a derivative answer (one text, or one per ``--answer`` option: several
    bracketed vectors are the rows of a matrix).

    >>> shape_of("<2x, 2y>").kind, shape_of("(x + 1)").rows, shape_of("2x, x^2").kind
    ('vector', (('(x + 1)',),), 'list')
    >>> shape_of(["[2, 0]", "[0, 2]"]).kind
    'matrix'

    Raises:
        InputError: unbalanced brackets, an empty entry, or rows of different lengths.
    """
    if isinstance(texts, str):
        texts = [texts]
    shaped = [_shape(text) for text in texts]
    if len(shaped) > 1 and all(s.kind == "vector" for s in shaped):
        return _matrix(tuple(s.rows[0] for s in shaped))
    if len(shaped) > 1 and any(s.kind == "matrix" for s in shaped):
        raise InputError("give a matrix answer as one --answer: [[a, b], [c, d]]")
    if len(shaped) == 1:
        return shaped[0]
    return Answer("list", (tuple(entry for s in shaped for entry in s.entries),))


def answer_form(answers: Sequence[str], order: int = 1) -> list[str] | dict[str, str]:
    """The answers as given (positional), or by variable when each names one: ``x = ...``,
    ``df/dx = ...`` or ``∂f/∂x = ...`` (all of them, or none). A head that says an order,
    ``f'(x) = ...`` or ``d^2y/dx^2 = ...``, is taken off: it must say the derivative asked
    for (``order``).

    >>> answer_form(["2x*y", "x^2"]), answer_form(["df/dx = 2x*y", "y=x^2"])
    (['2x*y', 'x^2'], {'x': '2x*y', 'y': 'x^2'})
    >>> answer_form(["f'(x) = 3x^2"]), answer_form(["y'' = 6x"], order=2)
    (['3x^2'], ['6x'])

    Raises:
        InputError: some answers named and some not, a name given twice, or a head of
            another order.
    """
    texts = [_unprimed(text, order) for given in answers for text in _headed_list(given)]
    named = [_first_order(text, order) or _NAMED.match(text) for text in texts]
    if not any(named):
        return texts
    if not all(named):
        raise InputError("give every --answer as name=expr (or df/dx = expr), or none of them")
    form: dict[str, str] = {}
    heads: dict[str, str] = {}  # each name's answer as written, for the refusal of a repeat
    for text, m in zip(texts, named):
        assert m is not None  # (every text is named: refused above otherwise)
        name = m.group(1)
        if name in heads:
            raise InputError(
                f"{name} is answered twice ({heads[name]!r} and {text.strip()!r}): "
                "give each derivative once"
            )
        form[name], heads[name] = m.group(2).strip(), text.strip()
    return form


def _first_order(text: str, order: int) -> re.Match[str] | None:
    """The match of a Leibniz head (``df/dx = ...``, ``∂f/∂x = ...``), which says the first
    derivative: refused when the question asks for another order.

    >>> _first_order("dy/dx = 6x", 1).group(2)
    ' 6x'
    >>> try:
    ...     _first_order("dy/dx = 6x", 2)
    ... except InputError as refusal:
    ...     print(refusal.message.split(": ")[1])
    --order is 2 (write d2y/dx2 = ... or y''(x) = ...)
    """
    found = _LEIBNIZ.match(text)
    if found is None or order == 1:
        return found
    head = text[: text.index("=")].strip()
    name = re.sub(r"\s", "", head).split("/")[0][1:] or "f"
    variable, nth = found.group(1), _ORDINALS.get(order, f"order-{order}")
    primed = f" or {name}{chr(39) * order}({variable}) = ..." if order <= 3 else ""
    raise InputError(
        f"{head} is the first derivative, but the question asks for the {nth} one: "
        f"--order is {order} (write d{order}{name}/d{variable}{order} = ...{primed})"
    )


def _headed_list(text: str) -> list[str]:
    """One answer, or the answers of a list whose every item has its head:
    ``df/dx = 2x*y, df/dy = x^2`` is two (``2x*y, x^2`` stays one list, for :func:`shape_of`).

    >>> _headed_list("x = 2y, y = 2x"), _headed_list("2y, 2x"), _headed_list("x = max(a, b)")
    (['x = 2y', ' y = 2x'], ['2y, 2x'], ['x = max(a, b)'])
    """
    items = _split(text, ",")
    heads = (_LEIBNIZ, _NAMED, _PRIMED, _HIGHER)
    if len(items) > 1 and all(any(h.match(item) for h in heads) for item in items):
        return items
    return [text]


def _unprimed(text: str, order: int) -> str:
    """``text`` without a head that says the order (``f''(x) =``, ``d^2y/dx^2 =``), checked
    against the ``order`` asked for.

    >>> _unprimed("d^2y/dx^2 = 6x", 2), _unprimed("d3f/dx3=6", 3)
    ('6x', '6')
    """
    primed, higher = _PRIMED.match(text), _HIGHER.match(text)
    if primed is not None:
        name, primes, body = primed.groups()
        head, said = f"{name}{primes}", len(primes)
    elif higher is not None and higher[1] == higher[4] and higher[1] != "1":
        digit, name, variable, _, body = higher.groups()
        head, said = f"d^{digit}{name}/d{variable}^{digit}", int(digit)
    else:
        return text
    if said != order:
        what = _ORDINALS.get(said, f"order-{said}")
        fix = f"add --order {said}" if order == 1 else f"--order is {order}"
        raise InputError(
            f"{head} is the {what} derivative, but the question asks for the "
            f"{_ORDINALS.get(order, f'order-{order}')} one: {fix}"
        )
    return body.strip()


def points_of(text: str) -> tuple[tuple[str, ...], ...]:
    """The points of a set: ``{(1, 0), (-1, 0)}`` (braces optional), ``{}`` for none, and
    for one variable ``{1, -1}``. Each point's coordinates, as texts.

    >>> points_of("(1, 0), (-1, 0)"), points_of("{}"), points_of("{1, -1}")
    ((('1', '0'), ('-1', '0')), (), (('1',), ('-1',)))

    Raises:
        InputError: unbalanced brackets or an empty coordinate.
    """
    inner = text.strip()
    _balanced(inner)
    if _wrapped(inner, "{"):
        inner = inner[1:-1].strip()
    if not inner or inner.lower() in ("none", "empty"):
        return ()
    points = []
    for item in _split(inner, ","):
        item = item.strip()
        if _wrapped(item, "(") or _wrapped(item, "["):
            coordinates = _split(item[1:-1], ",")
            if len(coordinates) > 1 or _wrapped(item, "["):
                points.append(_entries(coordinates, item))
                continue
        points.append(_entries([item], text))
    return tuple(points)


def _shape(text: str) -> Answer:
    inner = text.strip()
    _balanced(inner)
    if inner.startswith("{"):
        raise InputError(
            f"{text.strip()!r} is a set: sets of points answer check --critical; "
            "write a gradient as [a, b]"
        )
    if inner.startswith("<") and inner.endswith(">"):
        return Answer("vector", (_entries(_split(inner[1:-1], ","), text),))
    bracketed = _wrapped(inner, "[") or (_wrapped(inner, "(") and _is_row(inner))
    body = inner[1:-1] if bracketed else inner
    if bracketed and ";" in _outside_brackets(body):
        return _matrix(tuple(_entries(_split(row, ","), text) for row in _split(body, ";")))
    items = [item.strip() for item in _split(body, ",")]
    if (bracketed or len(items) > 1) and all(_is_row(item) for item in items):
        return _matrix(tuple(_entries(_split(item[1:-1], ","), text) for item in items))
    return Answer("vector" if bracketed else "list", (_entries(items, text),))


def _is_row(text: str) -> bool:
    """``[a]``, ``[a, b]`` or ``(a, b)`` -- not ``(a)``, which is an expression."""
    return _wrapped(text, "[") or (_wrapped(text, "(") and len(_split(text[1:-1], ",")) > 1)


def _matrix(rows: tuple[tuple[str, ...], ...]) -> Answer:
    if len({len(row) for row in rows}) > 1:
        sizes = ", ".join(str(len(row)) for row in rows)
        raise InputError(f"the rows of the matrix have different lengths ({sizes})")
    return Answer("matrix", rows)


def _entries(items: Sequence[str], text: str) -> tuple[str, ...]:
    entries = tuple(item.strip() for item in items)
    if any(not entry for entry in entries):
        raise InputError(f"an empty entry in {text.strip()!r}")
    return entries


def one_group(text: str) -> bool:
    """Whether ``text`` is one bracketed vector or matrix: ``(4, 1)``, ``[4, 1]``,
    ``<4, 1>``, ``[[2, 0], [0, 2]]`` -- not ``(1/3)*2, 4``.

    >>> one_group(" <4, 1>"), one_group("[[2, 0], [0, 2]]"), one_group("(1/3)*2, 4")
    (True, True, False)

    Raises:
        InputError: unbalanced or crossed brackets (``(4, 1``).
    """
    inner = text.strip()
    _balanced(inner)
    angled = inner.startswith("<") and inner.endswith(">")
    return angled or any(_wrapped(inner, opening) for opening in "([")


def _wrapped(text: str, opening: str) -> bool:
    """Whether ``text`` is one bracketed group: ``[a, b]`` but not ``[a] + [b]``."""
    if not (text.startswith(opening) and text.endswith(_OPEN[opening])):
        return False
    depth = 0
    for i, char in enumerate(text):
        depth += (char in _OPEN) - (char in _CLOSE)
        if depth == 0:
            return i == len(text) - 1
    return False


def _split(text: str, separator: str) -> list[str]:
    """Split at ``separator`` outside every kind of bracket."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char in _OPEN) - (char in _CLOSE)
        if char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _outside_brackets(text: str) -> str:
    """The characters of ``text`` outside brackets."""
    depth, kept = 0, []
    for char in text:
        depth += (char in _OPEN) - (char in _CLOSE)
        if depth == 0:
            kept.append(char)
    return "".join(kept)


def _balanced(text: str) -> None:
    """Refuse unbalanced or crossed brackets, naming the first bad one."""
    stack: list[str] = []
    for i, char in enumerate(text):
        if char in _OPEN:
            stack.append(char)
        elif char in _CLOSE and (not stack or stack.pop() != _CLOSE[char]):
            raise InputError(f"{char!r} at column {i + 1} of {text!r} closes nothing open")
    if stack:
        raise InputError(f"{stack[-1]!r} in {text!r} is never closed")
