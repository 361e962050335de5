"""symbolic.translate: between our graphs and sympy -- the conversion (convert), each op's
derivative, printing, the user's notation, shapes, numeric values, and sympy's start-up.

Imports core and lang; no other room of symbolic (it is the lowest)."""
