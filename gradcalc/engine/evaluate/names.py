"""The names a point must give: every variable of the expression, and -- where one is
missing -- what the missing name most likely is (``xy`` is x·y, ``cosx`` is cos(x), a
misspelling, another case).

>>> as_product("xy", ["x", "y"])
'x*y'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gradcalc.core.errors import InputError
from gradcalc.lang.graph import Graph
from gradcalc.lang.slips import likely_name


def require_values(graph: Graph, given: Iterable[object]) -> None:
    """Refuse a point without a value for each of the graph's variables, saying what the
    missing name most likely is (a product ``xy``, a glued function ``cosx``, a
    misspelling, another case).

    >>> from gradcalc.engine.run.api import compile_expression
    >>> require_values(compile_expression("x^2*Y"), ["x", "y"])
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: no value given for Y (use --at Y=...); names are ...
    """
    names = [str(n) for n in given]
    missing = [v for v in graph.variables if v not in names]
    if not missing:
        return
    hint = product_clause(missing[0], names)
    if not hint:  # (cosx: cos(x)?; y with yy given: a misspelling?)
        hint = likely_name(missing[0], names)
    case = next((n for n in names if n.lower() == missing[0].lower()), None)
    if case is not None:
        hint = f"; names are case-sensitive: you gave {case}, not {missing[0]}"
    raise InputError(f"no value given for {', '.join(missing)} (use --at {missing[0]}=...){hint}")


def product_clause(name: str, variables: Sequence[str]) -> str:
    """The clause an error adds when ``name`` is ``variables`` side by side, else "".

    >>> product_clause("xy", ["x", "y"]), product_clause("q", ["x"])
    ('; xy is one name: for a product write x*y', '')
    """
    product = as_product(name, variables)
    return f"; {name} is one name: for a product write {product}" if product else ""


def as_product(name: str, variables: Sequence[str]) -> str | None:
    """``xy`` -> ``x*y`` when a name is other variables written side by side (longest first).

    >>> as_product("xy", ["x", "y"]), as_product("w1w2", ["w1", "w2"]), as_product("q", ["x"])
    ('x*y', 'w1*w2', None)
    """
    parts, rest = [], name
    by_length = sorted(variables, key=len, reverse=True)
    while rest:
        match = next((v for v in by_length if v and rest.startswith(v)), None)
        if match is None:
            return None
        parts.append(match)
        rest = rest[len(match) :]
    return "*".join(parts) if len(parts) > 1 else None
