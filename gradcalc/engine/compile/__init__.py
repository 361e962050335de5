"""engine.compile: the replay over many points -- a graph recorded once as a straight-line
program (sweep, signs), run in chunks by numpy (replay, replay_steps, recycle), by numexpr
(fused) or as one native loop compiled by LLVM (native, native_code, native_bounds,
native_rules).

Imports core, lang, symbolic, engine.evaluate and engine.judge."""
