"""engine: evaluation on the tape, typed results, singularities, diagnostics, replay.

Imports core, lang and symbolic.
"""
