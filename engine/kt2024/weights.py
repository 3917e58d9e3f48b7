"""The two precisions of the fight (§10), behind one interface.

Every probability of a fight is an integer over a power of 6 (all dice have six faces), so the
exact precision keeps a weight as (numerator, exponent) = numerator / 6**exponent: additions only
rescale by a power of 6 and never need a gcd, which makes them far cheaper than `Fraction`. The
float precision keeps plain floats. The Markov chain is written once against `Weights`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Protocol

from .fight_state import Odds

_POWERS = [6**k for k in range(400)]


def power6(k: int) -> int:
    return _POWERS[k] if k < len(_POWERS) else 6**k


def odds_of(p: Fraction) -> Odds:
    """A probability whose denominator divides a power of 6, as (a, d) with the least such d."""
    d = 0
    while power6(d) % p.denominator:
        d += 1
    return (p.numerator * (power6(d) // p.denominator), d)


class Weights(Protocol):
    one: Any

    def scale(self, w: Any, odds: Odds) -> Any: ...

    def add(self, w: Any, v: Any) -> Any: ...

    def times(self, w: Any, v: Any) -> Any: ...

    def result(self, w: Any) -> Fraction | float: ...


class ExactWeights:
    """Weights as (numerator, exponent); `result` gives the Fraction."""

    one = (1, 0)

    @staticmethod
    def scale(w: tuple[int, int], odds: Odds) -> tuple[int, int]:
        return (w[0] * odds[0], w[1] + odds[1])

    @staticmethod
    def add(w: tuple[int, int], v: tuple[int, int]) -> tuple[int, int]:
        if w[1] == v[1]:
            return (w[0] + v[0], w[1])
        if w[1] < v[1]:
            return (w[0] * power6(v[1] - w[1]) + v[0], v[1])
        return (w[0] + v[0] * power6(w[1] - v[1]), w[1])

    times = scale  # a weight is itself a numerator over a power of 6

    @staticmethod
    def result(w: tuple[int, int]) -> Fraction:
        return Fraction(w[0], power6(w[1]))


class FloatWeights:
    """Weights as float64."""

    one = 1.0

    @staticmethod
    def scale(w: float, odds: Odds) -> float:
        return w * (odds[0] / power6(odds[1]))

    @staticmethod
    def add(w: float, v: float) -> float:
        return w + v

    @staticmethod
    def times(w: float, v: float) -> float:
        return w * v

    @staticmethod
    def result(w: float) -> float:
        return w
