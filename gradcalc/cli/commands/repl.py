"""``gradcalc repl``: an interactive session (the session itself: :mod:`gradcalc.cli.repl`)."""

from __future__ import annotations

from gradcalc.cli.context import AppContext


def repl(context: AppContext) -> int:
    """An interactive session: define f once, then ask for gradients, Hessians and checks."""
    import dataclasses

    from gradcalc.cli import repl as session

    # a line of the session never names a file, whatever --file says
    return session.run(
        session.Session(context=dataclasses.replace(context, files=False, one_command=False))
    )
