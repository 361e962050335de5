"""How results show in a notebook, without their types knowing a renderer.

A renderer registers a function per result type and format (:mod:`gradcalc.render.notebook.html`
does when it is imported; the public names -- ``gradcalc.grad`` and the others -- and
``%load_ext gradcalc`` import it). A result's ``_repr_html_`` asks :func:`show`, which finds
the function along the type's base classes, or gives ``None``: IPython then shows the repr.

>>> class Thing: ...
>>> register("text/html", Thing, lambda thing: "<b>a thing</b>")
>>> show("text/html", Thing()), show("text/latex", Thing())
('<b>a thing</b>', None)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_RENDERERS: dict[tuple[str, type], Callable[[Any], str | None]] = {}


def register(mime: str, kind: type, renderer: Callable[[Any], str | None]) -> None:
    """Show results of type ``kind`` (and its subclasses) as ``mime`` with ``renderer``."""
    _RENDERERS[(mime, kind)] = renderer


def show(mime: str, result: Any) -> str | None:
    """``result`` as ``mime`` text, or ``None`` when no renderer is registered for it."""
    for kind in type(result).__mro__:
        renderer = _RENDERERS.get((mime, kind))
        if renderer is not None:
            return renderer(result)
    return None
