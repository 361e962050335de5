"""One module per command; each command is a function ``command(context, **options) -> int``
(its exit code), called by the Typer app (:mod:`gradcalc.cli.app`) and by the REPL alike."""
