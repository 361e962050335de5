"""symbolic: sympy conversion, derivatives, exact values, equivalence. Imports core and lang."""
