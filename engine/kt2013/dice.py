"""D6 arithmetic shared by the stages: chances of a single roll and counts of many.

Single-roll chances are always exact. The helpers that combine many rolls take `Number`s, so
the same code runs on Fractions (exact answers) or on floats (float-only answers, kt2024.md
§10 allows it), where they are many times faster.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import comb

Number = Fraction | float
ZERO = Fraction(0)
ONE = Fraction(1)
SIXTH = Fraction(1, 6)
FACES = range(1, 7)
# A D3 is a D6 halved rounded up: a uniform 1..3.
D3 = {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}


def at_least(value: int) -> Fraction:
    """P(D6 ≥ value); 7 or more never happens, which is how "cannot" is written throughout."""
    return Fraction(min(6, max(0, 7 - value)), 6)


def binomial(n: int, p: Number) -> list[Number]:
    """P(k successes of n independent chances p) for k = 0..n."""
    q = 1 - p
    return [comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)]


def thin(counts: Mapping[int, Number], p: Number) -> dict[int, Number]:
    """Each of a random number of items succeeds independently with chance p: P(k successes)."""
    out: dict[int, Number] = {}
    for n, pn in counts.items():
        for k, pk in enumerate(binomial(n, p)):
            out[k] = out.get(k, 0) + pn * pk
    return out


def none_of(counts: Mapping[int, Number], p: Number) -> Number:
    """P(not one of a random number of items has the chance-p property)."""
    return sum(pn * (1 - p) ** n for n, pn in counts.items())


def mean(counts: Mapping[int, Number]) -> Number:
    return sum(n * pn for n, pn in counts.items())
