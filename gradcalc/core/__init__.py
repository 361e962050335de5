"""core: the array type, the op registry, the tape. Imports nothing else of gradcalc."""
