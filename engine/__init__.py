"""Pure combat mathematics: one subpackage per ruleset, no I/O, no web, no cache.

Every ruleset computes exact distributions by enumeration and combinatorics. Results carry
`fractions.Fraction` values when the caller asks for exact answers and floats otherwise.
"""
