"""engine.tensors: gradients of tensor expressions (tensorgrad), their points and their
cross-check (tensorpoints, tensorcheck), and the layer-by-layer report (layers).

Imports core, lang, symbolic and the engine rooms evaluate, judge and compile."""
