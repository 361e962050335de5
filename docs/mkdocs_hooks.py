"""MkDocs hooks (see mkdocs.yml): render gradcalc's docstrings as Markdown.

The docstrings are written for pytest and for ``help()``, not for Markdown: their doctests
have no fences, so Markdown would read ``>>>`` as nested quotes, and they cross-reference
with Sphinx roles (``:func:`grad```), which Markdown shows as they are. The hook adds a small
Markdown extension, for the pages and for the Python API reference that mkdocstrings renders,
that fences every paragraph starting with ``>>>`` (outside a fenced block) as a Python
session, and shows each Sphinx role as inline code.

The imports of MkDocs and Markdown are inside the functions, so pytest can import this file
without the ``docs`` extra.

>>> fence_sessions(["Text.", "", ">>> 1 + 1", "2", "", "More."])
['Text.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'More.']
>>> fence_sessions(["```python", ">>> 1 + 1", "2", "```"])  # already fenced: unchanged
['```python', '>>> 1 + 1', '2', '```']
>>> plain_roles("See :func:`grad` and :class:`~gradcalc.core.tensor.Variable`.")
'See `grad` and `Variable`.'
"""

from __future__ import annotations

import re
from typing import Any

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
SESSION = re.compile(r"^(\s*)>>>( |$)")
ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):`(~?)([^`]+)`")


def plain_roles(line: str) -> str:
    """Sphinx roles as inline code (``~`` keeps the last dotted part only, as in Sphinx)."""
    return ROLE.sub(
        lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", line
    )


def fence_sessions(lines: list[str]) -> list[str]:
    """``lines`` with each paragraph that starts with ``>>>`` (outside fences) fenced as pycon,
    and Sphinx roles outside fences as inline code.

    The session ends at the first blank line, as a doctest does.
    """
    out: list[str] = []
    fence: str | None = None  # the opening fence of the fenced block we are in
    session: str | None = None  # the indentation of the session we are in
    for line in lines:
        if session is not None:
            if line.strip():
                out.append(line)
                continue
            out.append(f"{session}```")
            session = None
        opening = FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1).startswith(fence):
                fence = None
        elif opening:
            fence = opening.group(1)
        elif (start := SESSION.match(line)) and (not out or not out[-1].strip()):
            session = start.group(1)
            out.append(f"{session}```pycon")
        else:
            line = plain_roles(line)
        out.append(line)
    if session is not None:
        out.append(f"{session}```")
    return out


def on_config(config: Any) -> Any:
    """Add the extension to the Markdown extensions of the pages and of mkdocstrings."""
    from markdown.extensions import Extension
    from markdown.preprocessors import Preprocessor

    class SessionFences(Preprocessor):
        def run(self, lines: list[str]) -> list[str]:
            return fence_sessions(lines)

    class DoctestBlocks(Extension):
        def extendMarkdown(self, md: Any) -> None:  # Markdown's name
            # Before the fenced-code preprocessors (priority 25), which then read our fences.
            md.preprocessors.register(SessionFences(md), "doctest_blocks", 40)

    config.markdown_extensions.append(DoctestBlocks())
    return config


# Run before the plugins, so mkdocstrings' Markdown gets the extension too (mkdocs reads it).
on_config.mkdocs_priority = 100
