"""engine.evaluate: a graph run on the tape at every point at once -- the evaluator, the
points it is given, the typed results, singularities, diagnostics, classification, higher
orders (hessian, jacobian, derivatives) and the notebook display of results.

Imports core, lang and symbolic; no other room of the engine (it is the lowest)."""
