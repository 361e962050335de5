"""What :func:`~gradcalc.apps.explain.explain.explain` builds: the structured steps of one gradient
-- the forward pass, the reverse pass (chain-rule terms with their numbers), and the
symbolic derivation rule by rule -- for :mod:`gradcalc.apps.explain.explain_render` to render.

>>> step = ForwardStep(1, "y", "pow", (Operand("x", 3.0, None), Operand("2", 2.0, 2)), 9.0)
>>> step.name, [operand.name for operand in step.operands], step.value
('y', ['x', '2'], 9.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gradcalc.engine.evaluate import display
from gradcalc.symbolic.crosscheck.simplify import Simplified

__all__ = [
    "Derivation",
    "Explanation",
    "ForwardStep",
    "Operand",
    "ReverseStep",
    "RuleStep",
    "Term",
]


@dataclass(frozen=True)
class Operand:
    """One input of a tape record.

    ``name`` is how the explanation calls it (a variable, a statement name, ``#k`` for
    record k, or a constant's text); ``symbol`` is its sympy form: a real symbol named
    ``name``, or the exact number for a constant (``2``, ``2*pi``).
    """

    name: str
    value: float
    symbol: Any


@dataclass(frozen=True)
class ForwardStep:
    """Tape record ``index``: ``name = op(operands) = value``."""

    index: int
    name: str
    op: str
    operands: tuple[Operand, ...]
    value: float


@dataclass(frozen=True)
class Term:
    """One chain-rule contribution to an adjoint: ``∂consumer/∂value · adjoint(consumer)``.

    ``local`` is the local derivative as a sympy expression of the consumer's operands
    (from the registry's sympy counterpart); ``slope`` is its value at the point, from the
    op's own gradient rule (as the tape computes it).
    """

    consumer: str
    local: Any
    operands: tuple[Operand, ...]
    slope: float
    consumer_adjoint: float

    @property
    def contribution(self) -> float:
        """``slope · adjoint(consumer)``."""
        return self.slope * self.consumer_adjoint


@dataclass(frozen=True)
class ReverseStep:
    """The adjoint of one value: the sum of its terms (no terms: the seed, 1)."""

    name: str
    adjoint: float
    terms: tuple[Term, ...]


@dataclass(frozen=True)
class RuleStep:
    """``d/d(source) [subject] = result   (rule)`` for one op node.

    ``definition`` is a statement's right-hand side (``None`` for other subexpressions);
    ``outer`` holds, for the chain rule, ``(u, f(u, ...), ∂f/∂u)`` per argument that
    depends on the source.
    """

    subject: Any
    definition: Any | None
    result: Any
    rule: str
    outer: tuple[tuple[Any, Any, Any], ...] = ()


@dataclass(frozen=True)
class Derivation:
    """The symbolic derivative of the target with respect to one source, rule by rule.

    ``steps`` are in postorder; over :data:`~gradcalc.apps.explain.derivation.MAX_RULE_STEPS`, the
    first ones and the last are kept and ``omitted`` counts the rest. ``result`` may name
    statements; ``expanded`` is the same derivative in the free variables (``None`` without
    statements, or when too large to write out). ``note`` says why a derivation stopped
    early (``result`` is then ``None``).
    """

    source: str
    steps: tuple[RuleStep, ...]
    omitted: int
    result: Any | None
    expanded: Any | None
    note: str = ""


@dataclass
class Explanation:
    """How one gradient at one point comes about, as structured steps for the renderers.

    Attributes:
        expression: the text as typed.
        target: the target's name (``f`` for a bare expression).
        root: the target's name in the passes (its statement name, or ``#k``).
        point: the point, as ``x=3.0``.
        forward: one step per tape record, in order.
        reverse: the seed, then each adjoint in reverse order (records, then variables).
        gradient: per source, the tape's derivative (``None``: independent).
        derivations: one symbolic derivation per source.
        simplified: without a point (``point`` is ``None``, no passes, no gradient), each
            source's derivative simplified (:mod:`gradcalc.symbolic.crosscheck.simplify`).
        read_as: the expression as gradcalc read it (see :mod:`gradcalc.lang.reading`).
        warnings: where that reading is likely not what was meant, both readings.
        variables: the expression's variables, in order (``f(x, y) = ...``).
    """

    expression: str
    target: str
    root: str
    point: str | None
    forward: list[ForwardStep]
    reverse: list[ReverseStep]
    gradient: dict[str, float | None]
    derivations: list[Derivation]
    simplified: dict[str, Simplified] = field(default_factory=dict)
    read_as: str = ""
    warnings: list[str] = field(default_factory=list)
    variables: tuple[str, ...] = ()

    def _repr_html_(self) -> str | None:
        """In a notebook: the panels ``gradcalc explain`` prints, as HTML (the renderer
        :mod:`gradcalc.apps.explain.explain_render` registers)."""
        return display.show("text/html", self)

    def _repr_markdown_(self) -> str | None:
        """In a notebook (Markdown export):
        :func:`~gradcalc.apps.explain.explain_render.to_markdown`."""
        return display.show("text/markdown", self)
