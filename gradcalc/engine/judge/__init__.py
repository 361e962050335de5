"""engine.judge: a result judged against sympy -- exact values, the cross-check of each
gradient and the verdict on where they disagree.

Imports core, lang, symbolic and engine.evaluate."""
