"""``python -m gradcalc``: the command line, as the ``gradcalc`` console script runs it."""

from gradcalc.cli.app import main

main()
