"""cli: the Typer app, its commands, jobs and the REPL. The top layer."""
