"""Powers of 6: every probability of a fight is an integer over a power of 6 (all its dice have
six faces), so exact fight arithmetic keeps integer numerators over powers of 6 (see
`fight.Precision`; modulo primes in `flat`) and never needs a gcd.
"""

from __future__ import annotations

from fractions import Fraction

Odds = tuple[int, int]
"""(a, d): the probability a / 6**d."""
CERTAIN: Odds = (1, 0)

_POWERS = [6**k for k in range(400)]


def power6(k: int) -> int:
    return _POWERS[k] if k < len(_POWERS) else 6**k


def odds_of(p: Fraction) -> Odds:
    """A probability whose denominator divides a power of 6, as (a, d) with the least such d."""
    d = 0
    while power6(d) % p.denominator:
        d += 1
    return (p.numerator * (power6(d) // p.denominator), d)


def times(p: Odds, q: Odds) -> Odds:
    return (p[0] * q[0], p[1] + q[1])
