"""Exact D6 arithmetic shared by the stages: chances of a single roll and counts of many."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import comb

ZERO = Fraction(0)
ONE = Fraction(1)
SIXTH = Fraction(1, 6)
FACES = range(1, 7)
# A D3 is a D6 halved rounded up: a uniform 1..3.
D3 = {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}


def at_least(value: int) -> Fraction:
    """P(D6 ≥ value); 7 or more never happens, which is how "cannot" is written throughout."""
    return Fraction(min(6, max(0, 7 - value)), 6)


def binomial(n: int, p: Fraction) -> list[Fraction]:
    """P(k successes of n independent chances p) for k = 0..n."""
    q = ONE - p
    return [comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)]


def convolve(a: Sequence[Fraction], b: Sequence[Fraction]) -> list[Fraction]:
    """Distribution of the sum of two independent counts given as lists indexed by value."""
    out = [ZERO] * (len(a) + len(b) - 1)
    for i, pa in enumerate(a):
        if pa:
            for j, pb in enumerate(b):
                out[i + j] += pa * pb
    return out


def thin(counts: Mapping[int, Fraction], p: Fraction) -> dict[int, Fraction]:
    """Each of a random number of items succeeds independently with chance p: P(k successes)."""
    out: dict[int, Fraction] = {}
    for n, pn in counts.items():
        for k, pk in enumerate(binomial(n, p)):
            out[k] = out.get(k, ZERO) + pn * pk
    return out


def none_of(counts: Mapping[int, Fraction], p: Fraction) -> Fraction:
    """P(not one of a random number of items has the chance-p property)."""
    return sum((pn * (ONE - p) ** n for n, pn in counts.items()), ZERO)


def mean(counts: Mapping[int, Fraction]) -> Fraction:
    return sum((n * pn for n, pn in counts.items()), ZERO)
