"""``gradcalc ops``: what the expression language accepts, derived from the registry.

Nothing here is a hand-written list of functions: every entry comes from
:data:`gradcalc.core.ops.FUNCTION_NAMES` (the spellings the parser accepts), the op's sympy
counterpart (the derivative rule is ``sympy.diff`` of it), and the op's domain rule
(probed on a grid of inputs, so the reasons shown are the registry's own words).
The operators and constants come from the parser's tables.

>>> sin = entry("sin")
>>> sin.rules, sin.domain
(('d/dx sin(x) = cos(x)',), ())
>>> [reason for _, reason in entry("log").domain]
['ln is undefined for negative numbers', 'ln(0) is -infinity']
>>> entry("ln").name, entry("ln").spellings
('log', ('ln',))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from gradcalc.core.errors import InputError, did_you_mean
from gradcalc.core.ops import FUNCTION_NAMES, REGISTRY, Op
from gradcalc.lang.literals import CONSTANT_VALUES, CONSTANTS
from gradcalc.symbolic.translate.derivative import derivative as symbolic_derivative


@dataclass(frozen=True)
class Entry:
    """One line of the catalog.

    Attributes:
        name: the spelling shown first (the registry key when the parser accepts it).
        spellings: the other spellings the parser accepts.
        call: how it is written, e.g. ``atan2(y, x)``.
        sympy: the sympy counterpart at the call's arguments, as text.
        rules: one derivative rule per argument, e.g. ``d/dx sin(x) = cos(x)``.
        derivatives: the right-hand sides of ``rules`` (sympy text).
        domain: ``(kind, reason)`` pairs: where it is undefined or not differentiable.
        kind: ``function``, ``operator`` or ``constant``.
    """

    name: str
    spellings: tuple[str, ...]
    call: str
    sympy: str
    rules: tuple[str, ...]
    derivatives: tuple[str, ...]
    domain: tuple[tuple[str, str], ...]
    kind: str = "function"
    value: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "spellings": list(self.spellings),
            "call": self.call,
            "sympy": self.sympy,
            "derivatives": list(self.rules),
            "domain": [{"kind": kind, "reason": reason} for kind, reason in self.domain],
            **({"value": self.value} if self.value is not None else {}),
        }

    def domain_text(self) -> str:
        """The domain in words: ``everywhere`` when nothing is reported."""
        if self.kind == "constant":
            return ""
        return "; ".join(reason for _, reason in self.domain) or "everywhere"


def function_ops() -> list[Op]:
    """The registry's ops the parser can call, in registry order (each once)."""
    return list(dict.fromkeys(FUNCTION_NAMES.values()))


def _symbols(op: Op) -> list[Any]:
    import sympy as sp

    # nonzero: DiracDelta terms (the jump of sign or step at 0) vanish; the domain says where
    return [sp.Symbol(name, real=True, nonzero=True) for name in op.args]


def derivative(op: Op, index: int) -> Any:
    """sympy's derivative of the op's counterpart with respect to input ``index``, away
    from the points listed in its domain (DiracDelta terms vanish there; a piecewise
    constant function such as floor, which sympy leaves unevaluated, has slope 0)."""
    import sympy as sp

    symbols = _symbols(op)
    return sp.powsimp(symbolic_derivative(op.sympy(sp, *symbols), symbols[index]))


def _call(name: str, op: Op) -> str:
    args = ", ".join(op.args)
    if op.variadic:
        return f"{name}({args}, ...)"
    if op.takes_base:
        return f"{name}({args}), {name}({args}, b)"
    if op.keywords:
        return f"{name}({args}, {', '.join(f'{k}=...' for k in op.keywords)})"
    return f"{name}({args})"


def probe_domain(op: Op) -> tuple[tuple[str, str], ...]:
    """Every (kind, reason) the op's domain rule reports somewhere on the probe grid."""
    grids = np.meshgrid(*([np.array(op.probes)] * op.arity), indexing="ij")
    found = op.issues(*(grid.ravel() for grid in grids))
    return tuple(dict.fromkeys((issue.kind, issue.reason) for issue in found))


def _operator_call(op: Op) -> str:
    x, *rest = op.args
    return f"-{x}" if not rest else f"{x} {op.symbol} {rest[0]}"


@cache
def _entry(op: Op, kind: str) -> Entry:
    import sympy as sp

    names = op.args
    if kind == "operator":
        first = op.symbol or op.name
        others = [token for token in op.infix if token != first]
        call = _operator_call(op)
    else:
        first = op.name if op.name in op.names else op.names[0]
        others = [name for name in op.names if name != first]
        call = _call(first, op)
    if not op.elementwise:  # a tensor op: its rule in words (no scalar derivative)
        return Entry(first, tuple(others), call, "", (op.summary,), (op.summary,), (), kind)
    plain_call = f"{first}({', '.join(names)})" if kind == "function" else call
    derivatives = tuple(sp.sstr(derivative(op, k)) for k in range(op.arity))
    if op.arity == 1:
        rules = tuple(f"d/d{names[0]} {plain_call} = {d}" for d in derivatives)
    else:
        rules = tuple(
            f"∂/∂{name} {plain_call} = {d}" for name, d in zip(names, derivatives, strict=True)
        )
    counterpart = sp.sstr(op.sympy(sp, *_symbols(op)))
    return Entry(
        first, tuple(others), call, counterpart, rules, derivatives, probe_domain(op), kind
    )


def operators() -> list[Entry]:
    """The arithmetic operators, from the registry's ops with a symbol."""
    return [_entry(op, "operator") for op in REGISTRY.values() if op.symbol is not None]


def functions() -> list[Entry]:
    """Every function the parser accepts, in registry order."""
    return [_entry(op, "function") for op in function_ops()]


def constants() -> list[Entry]:
    """The constants the parser knows (``pi``, ``e``), with their values."""
    by_value: dict[str, list[str]] = {}
    for spelling, const in CONSTANTS.items():
        by_value.setdefault(const, []).append(spelling)
    return [
        Entry(spellings[0], tuple(spellings[1:]), spellings[0], const, (), (), (), "constant",
              CONSTANT_VALUES[const])
        for const, spellings in by_value.items()
    ]  # fmt: skip


def entry(name: str) -> Entry:
    """The catalog entry of one spelling (function, operator or constant).

    >>> entry("^").name
    '**'
    >>> entry("sni")
    Traceback (most recent call last):
    ...
    gradcalc.core.errors.InputError: no function, operator or constant 'sni'; did you mean 'sin'...
    """
    everything = catalog()
    for item in everything:
        if name == item.name or name in item.spellings:
            return item
    choices = [s for item in everything for s in (item.name, *item.spellings)]
    raise InputError(
        f"no function, operator or constant {name!r}; {did_you_mean(name, choices)}see gradcalc ops"
    )


def catalog() -> list[Entry]:
    """Operators, then functions, then constants."""
    return [*operators(), *functions(), *constants()]


# --- output --------------------------------------------------------------------------------


def to_json(entries: list[Entry]) -> list[dict[str, Any]]:
    return [item.to_json() for item in entries]


def plain_lines(entries: list[Entry]) -> list[str]:
    """One tab-separated line per entry: name, other spellings, rules, domain."""
    lines = []
    for item in entries:
        rules = "; ".join(item.rules) or f"= {item.value!r}"
        lines.append(
            "\t".join([item.name, ",".join(item.spellings) or "-", rules, item.domain_text()])
        )
    return lines


def _short_rules(item: Entry) -> str:
    """The derivatives without repeating the call: ``cos(x)``, or ``∂/∂y: ...`` per input."""
    if len(item.derivatives) == 1:
        return item.derivatives[0]
    return "\n".join(
        rule.split(" ", 1)[0] + ": " + d for rule, d in zip(item.rules, item.derivatives)
    )


def tables(entries: list[Entry]) -> list[Any]:
    """Rich tables: operators, functions and constants (only the non-empty ones)."""
    from rich.table import Table

    parts: list[Any] = []
    for kind, title in [("operator", "Operators"), ("function", "Functions")]:
        chosen = [item for item in entries if item.kind == kind]
        if not chosen:
            continue
        table = Table(title=title, title_justify="left")
        table.add_column(kind, no_wrap=True)
        table.add_column("also", no_wrap=True)
        table.add_column("derivative (d/dx)")
        table.add_column("undefined or not differentiable")
        for item in chosen:
            domain = "\n".join(reason for _, reason in item.domain) or "-"
            table.add_row(item.call, " ".join(item.spellings), _short_rules(item), domain)
        parts.append(table)
    chosen = [item for item in entries if item.kind == "constant"]
    if chosen:
        table = Table(title="Constants", title_justify="left")
        table.add_column("constant", no_wrap=True)
        table.add_column("also", no_wrap=True)
        table.add_column("value", justify="right")
        for item in chosen:
            table.add_row(item.name, " ".join(item.spellings), repr(item.value))
        parts.append(table)
    return parts
