r"""Many small gradient jobs through one process: ``gradcalc grad --jobs FILE`` (``-``: stdin).

A shell loop that starts ``gradcalc`` once per gradient pays the start-up (importing numpy,
sympy and the CLI) every time. The jobs mode pays it once and then answers a stream of jobs,
one per line, each either a JSON object::

    {"expr": "3*w1^2 + 2*w1*w2", "at": {"w1": 5, "w2": "3"}, "wrt": ["w1"], "of": ["f"]}

(``wrt``, ``of`` and ``order`` optional; ``"order": N`` asks for the derivatives of orders
1..N with respect to one variable, ``wrt`` or the only one, answered as
``grad --order N --format json`` answers; values are numbers or exact text such as
``"pi/4"``, each read on its own as one constant; a key given twice is an error) or the
plain form ``EXPR w1=5,w2=3`` (the point is the last word; a TAB before it works too). Blank
lines and lines starting with ``#`` are skipped; a line longer than
:data:`~gradcalc.io.lines.MAX_LINE` characters is answered with an error, read in bounded
pieces.

Each job is answered, in input order and flushed at once, by one JSON line: the object
``gradcalc grad --format json --no-tape`` prints, with ``"job"`` (the input line number)
first; several targets (``of``) give ``{"job": n, "results": [...]}``. A job that cannot be
answered gives ``{"job": n, "error": "...", "exit_code": 2}`` (and ``"offset"``, where in
its text, when known) and the stream goes on -- whatever went wrong in that job (a line that
is not UTF-8 too: :func:`~gradcalc.io.lines.open_lines` decodes each line on its own), a memory
error or a bug included (``"exit_code": 70``); one undefined at its point is answered like
``grad`` answers it (``"undefined"`` says why). Compiled expressions are cached up to
:data:`CACHE_NODES` graph nodes in all; expressions that differ only in their numbers
share one symbolic derivative (:mod:`gradcalc.symbolic.translate.shapes`) and, from the second on,
one plan that computes their point without a tape (:mod:`gradcalc.engine.run.scalar`).

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

import json
import re
import signal
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple, TextIO

from gradcalc.cli import limits
from gradcalc.core import budget
from gradcalc.core.cells import names_a_file
from gradcalc.core.errors import ExitCode, GradcalcError, InputError
from gradcalc.core.workers import ordered_map
from gradcalc.engine.evaluate.points import Points, parse_at, points_from_rows
from gradcalc.engine.judge.exits import of_results
from gradcalc.engine.run.api import Options, derivatives_at, gradient_at
from gradcalc.engine.run.scalar import Plans, planning
from gradcalc.io.lines import MAX_LINE, Line, NotUtf8, read_lines
from gradcalc.lang.graph import Graph
from gradcalc.lang.intake import read
from gradcalc.render.output.encoding import dumps
from gradcalc.render.pieces.gradient import to_json
from gradcalc.render.views.views import DerivativeView
from gradcalc.symbolic.translate.shapes import Shapes, sharing

#: How the exit status of a whole stream is chosen: the first of these that any job hit.
EXIT_PRIORITY = (ExitCode.INTERNAL, ExitCode.CHECK_FAILED, ExitCode.USAGE, ExitCode.UNDEFINED)
#: The compiled graphs kept for later jobs: at most this many nodes in all (and 256 graphs).
CACHE_NODES = 200_000
CACHE_GRAPHS = 256
#: The highest ``order`` a job may ask for (as ``grad --order``).
MAX_ORDER = 12


def run_jobs(
    lines: Iterable[Line], out: TextIO, timeout: float = 0.0, workers: int = 1, **options: Any
) -> int:
    """Answer every job in ``lines`` on ``out``; the exit status of the whole stream.

    The status is 0 when every job was answered cleanly, else 1 if any check failed, else 2
    if any job was malformed, else 3 (some job undefined at its point). ``options`` are the
    fields of :class:`~gradcalc.engine.run.api.Options` (``check=False`` skips sympy's check).
    Each job is one request of :mod:`gradcalc.core.budget`: ``timeout`` seconds in all (0:
    none), and ``check_timeout`` for all its sympy work. ``workers`` > 1 answers the jobs in
    that many forked processes (:func:`~gradcalc.core.workers.ordered_map`), in input order
    all the same; a worker that dies costs only the job it was answering.
    """
    settings = Options(**{"strict": False, **options})
    seen: set[int] = set()
    cache = _Cache()

    def answer(job: tuple[int, Line]) -> tuple[str, int]:
        number, line = job
        if not isinstance(line, str):
            message = (
                line.reason(number)
                if isinstance(line, NotUtf8)
                else f"the job line is longer than {MAX_LINE:,} characters (a fixed limit)"
            )
            reply, code = {"job": number, "error": message, "exit_code": 2}, 2
        else:
            reply, code = _isolated(number, line.rstrip("\r\n"), settings, cache, timeout)
        return dumps(reply), code

    with sharing(cache.shapes), planning(cache.plans), budget.handler_kept():
        if workers > 1 and settings.check:
            _warm_up(settings, timeout)
        for text, code in ordered_map(answer, _numbered(lines), workers, _lost):
            seen.add(code)
            out.write(text + "\n")
            out.flush()
    return next((int(c) for c in EXIT_PRIORITY if c in seen), int(ExitCode.OK))


def _numbered(lines: Iterable[Line]) -> Iterator[tuple[int, Line]]:
    """Each job line with its line number (from 1): blank and ``#`` lines skipped, a line
    too long to read given as its length, one that is not UTF-8 as :class:`NotUtf8`
    (``lines``: a text stream, or lines already read by :func:`~gradcalc.io.lines.open_lines`)."""
    for number, line in enumerate(read_lines(lines, MAX_LINE), start=1):
        if not isinstance(line, str) or (line.strip() and not line.lstrip().startswith("#")):
            yield number, line


def _warm_up(options: Options, timeout: float) -> None:
    """Answer one small job with a cache of its own, so that the workers forked next start
    with sympy imported and its printers loaded, once for all of them."""
    scratch = _Cache()
    with sharing(scratch.shapes), planning(scratch.plans):
        _isolated(0, "x^2*sin(y) + exp(x)/y x=1,y=2", options, scratch, timeout)


def _lost(job: tuple[int, Line], status: int) -> tuple[str, int]:
    """The answer of a job whose worker process ended while answering it (``status``: its
    exit status, negative for the signal that ended it)."""
    if status == limits.CPU_EXIT:  # the worker reached --max-cpu (and said so on stderr)
        error, code = limits.cpu_reached(), 2
    elif status == -signal.SIGKILL:
        killed = "the worker answering this job was killed (SIGKILL: out of memory, or its CPU cap)"
        error, code = killed, 2
    else:
        error, code = f"internal error: the worker answering this job ended ({status})", 70
    return json.dumps({"job": job[0], "error": error, "exit_code": code}), code


def _isolated(
    number: int, text: str, options: Options, cache: _Cache, timeout: float
) -> tuple[dict, int]:
    """One job's answer, whatever goes wrong in it: an error of the job is its answer."""
    try:
        with budget.request(timeout, options.check_timeout if options.check else None):
            return _answer(number, text, options, cache)
    except GradcalcError as error:
        code = int(error.exit_code)
        message = in_job_words(error.render().splitlines()[0])
        answer = {"job": number, "error": message, "exit_code": code}
        if error.column is not None:
            answer["offset"] = error.column  # where in the job's text, counted from 0
        return answer, code
    except (MemoryError, RecursionError) as error:
        cache.clear()
        message = "out of memory: the job needs more memory than this process allows"
        if isinstance(error, RecursionError):  # deeper than the room a command has
            from gradcalc.cli.depth import refusal

            message = refusal()
        return {"job": number, "error": message, "exit_code": 2}, 2
    except Exception as bug:  # a bug in gradcalc: this job's answer, not the stream's end
        message = f"internal error: {type(bug).__name__}: {bug}"[:300]
        return {"job": number, "error": message, "exit_code": 70}, 70


#: A command line's advice, as a job gives the same: its point is on its line, not in --at.
_COMMAND_LINE_ADVICE = re.compile(r"use --at ([A-Za-z_][A-Za-z0-9_]*)=\.\.\.")


def in_job_words(message: str) -> str:
    """``message`` with advice for the command line (``use --at y=...``) said as a job
    takes it.

    >>> print(in_job_words("no value given for y (use --at y=...)"))
    no value given for y (add y to the job's point: "at": {"y": ...}, or y=... in a plain job)
    """
    return _COMMAND_LINE_ADVICE.sub(
        lambda m: (
            f'add {m[1]} to the job\'s point: "at": {{"{m[1]}": ...}}, or {m[1]}=... in a plain job'
        ),
        message,
    )


def _answer(number: int, text: str, options: Options, cache: _Cache) -> tuple[dict[str, Any], int]:
    """One job's JSON answer and its exit code (errors are raised)."""
    expression, points, wrt, of, order = read_job(text)
    graph = cache.compiled(expression, points.names, None if of is None else tuple(of))
    if order > 1:
        source = _one_source(graph, wrt, order)
        results: list = [derivatives_at(graph, points, source, order, options)]
        objects = DerivativeView().json(results, 0, tape=False)
    else:
        results = gradient_at(graph, points, wrt, options)
        objects = [to_json(result, 0, tape=False) for result in results]
    code = of_results(results)
    if len(objects) == 1:
        return {"job": number, **objects[0]}, int(code)
    return {"job": number, "results": objects}, int(code)


class _Cache:
    """Compiled graphs by (expression, names, of), least recently used first out, bounded by
    their total size: jobs that repeat an expression at many points compile it once and share
    its symbolic derivative (cached on the graph); expressions of one shape share theirs
    through ``shapes`` (see :mod:`gradcalc.symbolic.translate.shapes`)."""

    def __init__(self) -> None:
        self.graphs: OrderedDict[tuple, Graph] = OrderedDict()
        self.nodes = 0
        self.shapes = Shapes()
        self.plans = Plans()

    def compiled(self, expression: str, names: tuple[str, ...], of: tuple | None) -> Graph:
        key = (expression, names, of)
        if key in self.graphs:
            self.graphs.move_to_end(key)
            return self.graphs[key]
        graph = read(expression, names, of=of).graph
        self.graphs[key] = graph
        self.nodes += len(graph.nodes)
        while len(self.graphs) > 1 and (
            self.nodes > CACHE_NODES or len(self.graphs) > CACHE_GRAPHS
        ):
            _, old = self.graphs.popitem(last=False)
            self.nodes -= len(old.nodes)
        return graph

    def clear(self) -> None:
        self.graphs.clear()
        self.nodes = 0
        self.shapes.clear()
        self.plans = Plans()


def _one_source(graph: Graph, wrt: list[str] | None, order: int) -> str:
    """The one variable a job's derivatives of ``order`` > 1 are taken with respect to."""
    sources = wrt if wrt is not None else list(graph.variables)
    if len(sources) != 1:
        raise InputError(
            f'"order": {order} takes one variable: give it as "wrt": ["x"] '
            f"(the expression has {', '.join(graph.variables) or 'none'})"
        )
    return sources[0]


class Job(NamedTuple):
    """A job: its expression, its point, and the optional wrt, of and order."""

    expression: str
    points: Points
    wrt: list[str] | None
    of: list[str] | None
    order: int = 1


def read_job(text: str) -> Job:
    r"""A job line as (expression, its point, wrt, of, order).

    >>> expression, point, wrt, of, order = read_job('{"expr": "x*y", "at": {"x": 1, "y": "pi/2"}}')
    >>> expression, point.exact, wrt, of, order
    ('x*y', [{'x': '1', 'y': 'pi/2'}], None, None, 1)
    >>> read_job("x*y\tx=1,y=2").points.exact
    [{'x': '1', 'y': '2'}]
    >>> read_job('{"expr": "x^3", "at": {"x": 2}, "order": 3}').order
    3

    Raises:
        InputError: for a line that is neither form, fields of the wrong type or given
            twice, or a value that is not one constant.
    """
    if not text.lstrip().startswith("{"):
        expression, at = plain_job(text)
        return Job(expression, parse_at([at] if at.strip() else []), None, None)
    try:
        job = json.loads(
            text, object_pairs_hook=_no_repeats, parse_float=str, parse_constant=_not_finite
        )  # (a float's own text, read as --at reads it: 1e-400 is out of range, never 0)
    except (ValueError, RecursionError) as error:
        raise InputError(f"the job is not valid JSON: {error}") from None
    if not isinstance(job, dict):
        raise InputError("a JSON job must be an object with an expr field")
    unknown = sorted(set(job) - {"expr", "at", "wrt", "of", "order"})
    if unknown:
        raise InputError(f"unknown job field {unknown[0]!r}: a job has expr, at, wrt, of, order")
    order = job.get("order", 1)
    if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= MAX_ORDER:
        raise InputError(f'"order" must be a whole number from 1 to {MAX_ORDER}')
    given = job.get("expr")
    if not isinstance(given, str):
        raise InputError('a job needs "expr": the expression as a string')
    at = job.get("at", {})
    if not isinstance(at, dict):
        raise InputError('"at" must be an object such as {"x": 1, "y": "pi/4"}')
    row = {name: _value_text(name, value) for name, value in at.items()}
    points = points_from_rows([row] if row else [], what='"at"')
    return Job(given, points, _names(job, "wrt"), _names(job, "of"), order)


def plain_job(text: str) -> tuple[str, str]:
    r"""A plain job line as (expression, point): split at a TAB, else at the whitespace before
    its last word when that word is a point (``x=3``, ``x=1,y=pi/4``); no point otherwise.

    >>> plain_job("x^2 x=3"), plain_job("3*w1^2 + 2*w1*w2   w1=5,w2=3")
    (('x^2', 'x=3'), ('3*w1^2 + 2*w1*w2', 'w1=5,w2=3'))
    >>> plain_job("x y\tx=1,y=2"), plain_job("y = x^2; z = y^2")
    (('x y', 'x=1,y=2'), ('y = x^2; z = y^2', ''))
    """
    expression, tab, at = text.partition("\t")
    if tab:
        return expression, at
    split = _LAST_WORD_POINT.fullmatch(text)
    return (split[1], split[2]) if split else (text, "")


#: A line ending in whitespace and a point as its last word (``x=1,y=2``, no spaces in it).
_LAST_WORD_POINT = re.compile(r"(.*?\S)\s+([A-Za-z][A-Za-z0-9_]*=\S*)\s*", re.S)


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict; a key given twice is an error (not last-wins)."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise InputError(f"the job gives the key {key[:64]!r} twice")
        result[key] = value
    return result


def _not_finite(word: str) -> None:
    """JSON's ``NaN`` and ``Infinity`` (which Python's reader takes) are no values."""
    raise InputError(f'"at": {word} is not a finite number')


def _value_text(name: str, value: Any) -> str:
    """A JSON value as the text of one constant: numbers exactly as given, strings as typed."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InputError(f'"at": {name[:64]!r} must be a number or a string such as "pi/4"')
    if isinstance(value, str) and value.strip().startswith("@"):
        raise names_a_file(value.strip())
    if isinstance(value, str) and "=" in value:  # ("1,e=5": never a second pair)
        raise InputError(
            f'"at": {name[:64]!r} must be one value such as "pi/4", not {value[:64]!r}: give '
            'each variable its own key, {"x": 1, "y": 2}'
        )
    return value if isinstance(value, str) else repr(value)


def _names(job: dict[str, Any], field: str) -> list[str] | None:
    names = job.get(field)
    if names is None:
        return None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InputError(f'"{field}" must be a list of names such as ["x", "y"]')
    return names
