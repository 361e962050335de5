"""lang: untrusted text to syntax tree to graph; the one input boundary. Imports core."""
