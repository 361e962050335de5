"""sympy's tensor algebra loaded only when something uses it: a start-up saving of the CLI.

Every sum sympy builds runs ``from sympy.tensor.tensor import TensExpr, TensAdd`` inside
``Add.flatten``, only to ask whether a term is a tensor expression. The first such import
loads ``sympy.combinatorics``, whose polyhedron module computes its symmetry groups as it is
imported: about 20 ms of CPU, a fifth of what the headline ``gradcalc grad`` costs beyond
importing sympy, numpy, typer and rich. gradcalc never builds a tensor expression.

:func:`defer_sympy_tensors` puts a stand-in module under that name. Asked for ``TensExpr``
or ``TensAdd`` while the real module is not loaded, it answers with a class nothing is an
instance of -- which is the true answer: no tensor expression can exist before sympy's
tensor module is imported, since only that module makes them. Asked for anything else
(``TensorIndexType``, ``__file__``, ...), it imports the real module, which replaces it in
``sys.modules`` for good. The CLI process installs it (``gradcalc.cli.app.main``); a host
process (the Python API, IPython) keeps sympy untouched.

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> saved = sys.modules.pop(MODULE, None)
>>> defer_sympy_tensors()
>>> sp.diff(x**3 + 2*x, x), type(sys.modules[MODULE]).__name__
(3*x**2 + 2, '_Deferred')
>>> load_sympy_tensors().TensExpr is sys.modules[MODULE].TensExpr
True
"""

from __future__ import annotations

import importlib
import sys
import types

#: The module sympy imports on every sum.
MODULE = "sympy.tensor.tensor"
#: The names ``Add.flatten`` asks for.
ASKED = frozenset({"TensExpr", "TensAdd"})


class NotLoaded:
    """Stands for sympy's tensor classes while their module is not loaded: no object is an
    instance of it (it cannot be made), as none can be of classes not yet defined.

    >>> isinstance(1, NotLoaded)
    False
    """

    def __new__(cls, *args: object, **kwargs: object) -> NotLoaded:
        raise TypeError("sympy's tensor module is not loaded")


class _Deferred(types.ModuleType):
    """The stand-in for :data:`MODULE` in ``sys.modules`` (see the module's doc)."""

    def __getattr__(self, name: str) -> object:
        if name in ASKED and sys.modules.get(MODULE) is self:
            return NotLoaded
        if name == "__path__":  # every ``from ... import`` asks: the real one is no package
            raise AttributeError(name)
        return getattr(load_sympy_tensors(), name)


def load_sympy_tensors() -> types.ModuleType:
    """The real ``sympy.tensor.tensor``, imported now if only the stand-in was there.

    >>> load_sympy_tensors().TensExpr.__name__
    'TensExpr'
    """
    if isinstance(sys.modules.get(MODULE), _Deferred):
        del sys.modules[MODULE]
    return importlib.import_module(MODULE)


def defer_sympy_tensors() -> None:
    """Put the stand-in under :data:`MODULE` unless the real module is already imported
    (then nothing is left to save).

    >>> defer_sympy_tensors()  # the real module, or the stand-in, from now on
    >>> MODULE in sys.modules
    True
    """
    if MODULE not in sys.modules:
        sys.modules[MODULE] = _Deferred(MODULE, __doc__)
