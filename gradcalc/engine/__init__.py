"""engine: evaluation on the tape, typed results, singularities, diagnostics, the replay.

Imports core, lang and symbolic.
"""
