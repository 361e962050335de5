"""engine.judge: a result judged against sympy -- exact values, the cross-check of each
gradient and the verdict on where they disagree, and the tangent at a single point (its
slopes exact where the check has them).

Imports core, lang, symbolic and engine.evaluate."""
