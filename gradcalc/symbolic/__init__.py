"""symbolic: sympy conversion, derivatives, exact values, equivalence. Imports core and lang.

Its rooms, each importing only the ones before it: translate, decide, crosscheck.
"""
