r"""Many small gradient jobs through one process: ``gradcalc grad --jobs FILE`` (``-``: stdin).

A shell loop that starts ``gradcalc`` once per gradient pays the start-up (importing numpy,
sympy and the CLI) every time. The jobs mode pays it once and then answers a stream of jobs,
one per line, each either a JSON object::

    {"expr": "3*w1^2 + 2*w1*w2", "at": {"w1": 5, "w2": "3"}, "wrt": ["w1"], "of": ["f"]}

(``wrt`` and ``of`` optional; values are numbers or exact text such as ``"pi/4"``) or the
plain form ``EXPR<TAB>w1=5,w2=3``. Blank lines and lines starting with ``#`` are skipped.

Each job is answered, in input order and flushed at once, by one JSON line: the object
``gradcalc grad --format json --no-tape`` prints, with ``"job"`` (the input line number)
first; several targets (``of``) give ``{"job": n, "results": [...]}``. A job that cannot be
answered gives ``{"job": n, "error": "...", "exit_code": 2}`` (and ``"offset"``, where in
its text, when known) and the stream goes on; one
undefined at its point is answered like ``grad`` answers it (``"undefined"`` says why).

>>> import io, json
>>> out = io.StringIO()
>>> jobs = ['{"expr": "x^2*y", "at": {"x": 3, "y": 2}}', "1/x\tx=0", "x^\tx=1"]
>>> run_jobs(jobs, out, check=False)
2
>>> for line in out.getvalue().splitlines():
...     answer = json.loads(line)
...     print(answer["job"], answer.get("gradient"), answer.get("undefined") or answer.get("error"))
1 {'x': 12.0, 'y': 9.0} None
2 {'x': None} 1/x: undefined: division by zero
3 None '^' needs an expression after it
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any, TextIO

from gradcalc.core.errors import ExitCode, GradcalcError, InputError
from gradcalc.engine.api import Options, compile_expression, gradient_at
from gradcalc.engine.points import parse_at
from gradcalc.lang.graph import Graph
from gradcalc.render.gradient import to_json

#: How the exit status of a whole stream is chosen: the first of these that any job hit.
EXIT_PRIORITY = (ExitCode.CHECK_FAILED, ExitCode.USAGE, ExitCode.UNDEFINED)


def run_jobs(lines: Iterable[str], out: TextIO, **options: Any) -> int:
    """Answer every job in ``lines`` on ``out``; the exit status of the whole stream.

    The status is 0 when every job was answered cleanly, else 1 if any check failed, else 2
    if any job was malformed, else 3 (some job undefined at its point). ``options`` are the
    fields of :class:`~gradcalc.engine.api.Options` (``check=False`` skips sympy's check).
    """
    settings = Options(**{"strict": False, **options})
    seen: set[int] = set()
    for number, line in enumerate(lines, start=1):
        text = line.rstrip("\r\n")
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        answer, code = _answer(number, text, settings)
        seen.add(code)
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return next((int(c) for c in EXIT_PRIORITY if c in seen), int(ExitCode.OK))


def _answer(number: int, text: str, options: Options) -> tuple[dict[str, Any], int]:
    """One job's JSON answer and its exit code."""
    try:
        expression, specs, wrt, of = parse_job(text)
        points = parse_at(specs)
        graph = _compiled(expression, points.names, None if of is None else tuple(of))
        results = gradient_at(graph, points, wrt, options)
    except GradcalcError as error:
        code = int(error.exit_code)
        answer = {"job": number, "error": error.render().splitlines()[0], "exit_code": code}
        if error.column is not None:
            answer["offset"] = error.column  # where in the job's text, counted from 0
        return answer, code
    objects = [to_json(result, 0, tape=False) for result in results]
    code = ExitCode.OK
    if any(r.check is not None and r.check.status == "disagree" for r in results):
        code = ExitCode.CHECK_FAILED
    elif any(r.undefined.any() for r in results):
        code = ExitCode.UNDEFINED
    if len(objects) == 1:
        return {"job": number, **objects[0]}, int(code)
    return {"job": number, "results": objects}, int(code)


@functools.lru_cache(maxsize=256)
def _compiled(expression: str, names: tuple[str, ...], of: tuple[str, ...] | None) -> Graph:
    """Compile once per expression: jobs that repeat one at many points also share its
    symbolic derivative (cached on the graph)."""
    return compile_expression(expression, names, of)


def parse_job(text: str) -> tuple[str, list[str], list[str] | None, list[str] | None]:
    r"""A job line as (expression, ``--at`` specs, wrt, of).

    >>> parse_job('{"expr": "x*y", "at": {"x": 1, "y": "pi/2"}, "wrt": ["x"]}')
    ('x*y', ['x=1,y=pi/2'], ['x'], None)
    >>> parse_job("x*y\tx=1,y=2")
    ('x*y', ['x=1,y=2'], None, None)

    Raises:
        InputError: for a line that is neither form, or fields of the wrong type.
    """
    if not text.lstrip().startswith("{"):
        expression, tab, at = text.partition("\t")
        if not tab:
            raise InputError("a plain job is EXPRESSION<TAB>x=1,y=2 (or write a JSON object)")
        return expression, [at] if at.strip() else [], None, None
    try:
        job = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise InputError(f"the job is not valid JSON: {error}") from None
    if not isinstance(job, dict):
        raise InputError("a JSON job must be an object with an expr field")
    unknown = sorted(set(job) - {"expr", "at", "wrt", "of"})
    if unknown:
        raise InputError(f"unknown job field {unknown[0]!r}: a job has expr, at, wrt, of")
    expression = job.get("expr")
    if not isinstance(expression, str):
        raise InputError('a job needs "expr": the expression as a string')
    at = job.get("at", {})
    if not isinstance(at, dict):
        raise InputError('"at" must be an object such as {"x": 1, "y": "pi/4"}')
    values = [f"{name}={_value_text(name, value)}" for name, value in at.items()]
    return expression, [",".join(values)] if values else [], _names(job, "wrt"), _names(job, "of")


def _value_text(name: str, value: Any) -> str:
    """A JSON value as ``--at`` text: numbers exactly as given, strings as typed."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InputError(f'"at": {name} must be a number or a string such as "pi/4"')
    return value if isinstance(value, str) else repr(value)


def _names(job: dict[str, Any], field: str) -> list[str] | None:
    names = job.get(field)
    if names is None:
        return None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InputError(f'"{field}" must be a list of names such as ["x", "y"]')
    return names
