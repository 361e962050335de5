"""engine.run: the engine's public functions (api: grad, hessian, jacobian, ...) and the paths
they choose between: one scalar plan (scalar) or the replay over many points (batch).

Imports core, lang, symbolic and every other room of the engine (it is the highest)."""
