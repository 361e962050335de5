"""The primitive registry: every operation gradcalc can record, one entry each.

An entry (:class:`~gradcalc.core.ops.record.Op`) holds everything about one primitive: its
numpy forward function, one gradient rule per input, its sympy counterpart (the true
mathematics, used to cross-check), how it is written and parsed, the inputs where it is
undefined or not differentiable, and the region tests sample from. Everything else -- the
parser's function names and operator table, operator overloads on
:class:`~gradcalc.core.tensor.Tensor`, the parametrised tests, ``explain``'s rule names, the
replay's NaN checks, the ``gradcalc ops`` listing -- is derived from :data:`REGISTRY`. The
entries live in one module per family (:data:`FAMILIES`); adding an op is one entry there.

Gradient rules use a fixed vocabulary: ``g`` is the incoming adjoint, ``ans``
the op's output, ``x, y`` its inputs. They are written with these very ops
(through :data:`F`), so a backward pass is itself recorded by any outer tape and
nested tapes give higher derivatives.

>>> from gradcalc import constant
>>> F.sin(constant(0.0))
Tensor(0.)
>>> sorted(REGISTRY)[:4]
['abs', 'acos', 'acosh', 'add']
"""

from __future__ import annotations

from gradcalc.core.ops import (
    activations,
    arith,
    explog,
    hyperbolic,
    linalg,
    piecewise,
    reduce,
    shape,
    trig,
)
from gradcalc.core.ops.record import (
    ANYWHERE,
    NOT_DIFFERENTIABLE,
    PROBES,
    UNDEFINED,
    DomainIssue,
    F,
    Interval,
    Op,
    written_name,
)
from gradcalc.core.tensor import Tensor, apply

__all__ = [
    "ANYWHERE",
    "FAMILIES",
    "FUNCTION_NAMES",
    "NOT_DIFFERENTIABLE",
    "OPERATORS",
    "PROBES",
    "REGISTRY",
    "UNDEFINED",
    "DomainIssue",
    "F",
    "Interval",
    "Op",
    "written_name",
]

#: The family modules, in the order their ops are listed (``gradcalc ops``).
FAMILIES = (arith, explog, trig, hyperbolic, piecewise, activations, linalg, reduce, shape)

#: Every primitive, by name.
REGISTRY: dict[str, Op] = {op.name: op for family in FAMILIES for op in family.OPS}

F.__dict__.update(REGISTRY)

#: Every name the expression parser may call, mapped to its op.
FUNCTION_NAMES: dict[str, Op] = {name: op for op in REGISTRY.values() for name in op.names}

#: Every binary-operator token the parser reads (``"^"``), mapped to its op.
OPERATORS: dict[str, Op] = {token: op for op in REGISTRY.values() for token in op.infix}


def _install_operators() -> None:
    """Route Tensor's arithmetic operators through the registry (reflected ones swap sides)."""
    for op in REGISTRY.values():
        for dunder in op.dunders:
            if dunder == "__getitem__":  # v[0], X[1], X[:, 0]: the index is a parameter
                setattr(Tensor, dunder, lambda self, key, op=op: op(self, index=key))
            elif dunder.startswith("__r") and op.arity == 2:
                setattr(Tensor, dunder, lambda self, other, op=op: apply(op, other, self))
            else:  # (apply directly, as calling the op does: a Python call fewer per operator)
                setattr(Tensor, dunder, lambda *args, op=op: apply(op, *args))


_install_operators()
