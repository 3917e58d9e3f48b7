"""D6 arithmetic shared by the stages: chances of a single roll and counts of many.

Single-roll chances are always exact. The helpers that combine many rolls take `Number`s, so
the same code runs on Fractions (exact answers) or on floats (float-only answers, kt2024.md
§10 allows it), where they are many times faster.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from math import comb, lcm

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


def common(values: Iterable[Number]) -> tuple[list[Number], int]:
    """Chances as numerators over one denominator, so that the counting below multiplies and
    adds plain integers and divides once at the end (a Fraction would reduce at every step).

    Exact values become integers over their least common denominator; floats stay as they are,
    over 1, and the same formulas then compute in floats.
    """
    values = list(values)
    if any(isinstance(v, float) for v in values):
        return values, 1
    exact = [Fraction(v) for v in values]
    denominator = lcm(*(v.denominator for v in exact))
    return [v.numerator * (denominator // v.denominator) for v in exact], denominator


def ratio(numerator: Number, denominator: int) -> Number:
    """Undo `common`: an exact quotient of integers, else a float division."""
    if isinstance(numerator, int):
        return Fraction(numerator, denominator)
    return numerator / denominator


def thin(counts: Mapping[int, Number], p: Number) -> dict[int, Number]:
    """Each of a random number n of items succeeds independently with chance p: P(k successes).

    Σₙ P(n)·C(n,k)·pᵏ·(1−p)ⁿ⁻ᵏ, each term over the common denominator E·Dᵗᵒᵖ.
    """
    sizes = list(counts)
    chances, e = common(counts.values())
    (success,), d = common([p])
    top = max(sizes)
    out = [0] * (top + 1)
    for n, chance in zip(sizes, chances, strict=True):
        scale = chance * d ** (top - n)
        for k in range(n + 1):
            out[k] += scale * comb(n, k) * success**k * (d - success) ** (n - k)
    return {k: ratio(v, e * d**top) for k, v in enumerate(out)}


def none_of(counts: Mapping[int, Number], p: Number) -> Number:
    """P(not one of a random number n of items has the chance-p property): Σₙ P(n)·(1−p)ⁿ."""
    sizes = list(counts)
    chances, e = common(counts.values())
    (success,), d = common([p])
    top = max(sizes)
    total = sum(
        chance * (d - success) ** n * d ** (top - n)
        for n, chance in zip(sizes, chances, strict=True)
    )
    return ratio(total, e * d**top)


def mean(counts: Mapping[int, Number]) -> Number:
    return sum(n * pn for n, pn in counts.items())
