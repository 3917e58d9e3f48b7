"""Finite distributions as integer weights over a common total.

Every probability in this ruleset is a count of equally likely die-face combinations divided
by a power product of die sizes. Keeping integer numerators until the output avoids slow
Fraction arithmetic inside the attack sequence and keeps every answer exact.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V", bound=Hashable)


@dataclass(frozen=True)
class Odds(Generic[K]):
    """P(outcome) = weights[outcome] / total; the weights sum to `total`."""

    weights: Mapping[K, int]
    total: int

    def group(self, key: Callable[[K], V]) -> Odds[V]:
        """The distribution of `key(outcome)`."""
        grouped: dict[V, int] = {}
        for outcome, weight in self.weights.items():
            value = key(outcome)
            grouped[value] = grouped.get(value, 0) + weight
        return Odds(grouped, self.total)

    def probability(self, event: Callable[[K], bool]) -> Fraction:
        return Fraction(sum(w for o, w in self.weights.items() if event(o)), self.total)

    def expectation(self, value: Callable[[K], int]) -> Fraction:
        return Fraction(sum(value(o) * w for o, w in self.weights.items()), self.total)

    def fractions(self) -> dict[K, Fraction]:
        """outcome -> probability, zero-weight outcomes left out."""
        return {o: Fraction(w, self.total) for o, w in self.weights.items() if w}
