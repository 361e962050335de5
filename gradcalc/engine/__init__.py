"""engine: evaluation on the tape, typed results, singularities, diagnostics, the replay.

Imports core, lang and symbolic. Its rooms, each importing only the ones before it:
evaluate, judge, compile, tensors, run.
"""
