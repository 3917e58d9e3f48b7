"""§8 rounds and outputs: the shooting computation end to end.

Rounds repeat the action with fresh dice. Saintly Relics ignore at most one instance per round
and two per battle, so the rounds form a small Markov chain over relics used (0, 1, 2): each
round convolves the damage so far with the action's damage for that state.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from . import precision as pr
from .damage import action
from .precision import Weights
from .scenario import Shoot

MAX_RELIC_IGNORES = 2


@dataclass(frozen=True)
class ShootResult:
    """Probabilities as Fractions (exact) or floats. The damage distribution is kept as it was
    computed, the totals with P > 0 (`support`, ascending) and their numerators over `den`
    (floats over 1 in float mode): an answer renders "p/q" and floats from those integers, so no
    `Fraction` is built per damage value unless `damage` is read."""

    exact: bool
    support: list[int]
    numerators: list[int] | list[float]
    den: int
    expected_damage: Fraction | float
    kill_probability: Fraction | float
    kill_probability_by_round: list[Fraction | float]

    @cached_property
    def damage(self) -> dict[int, Fraction | float]:
        """Total damage to its probability (P > 0)."""
        if not self.exact:
            return dict(zip(self.support, self.numerators, strict=True))
        den = self.den
        return {v: Fraction(n, den) for v, n in zip(self.support, self.numerators, strict=True)}


def _add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Sum of two distributions of different lengths."""
    if len(x) < len(y):
        x, y = y, x
    out = x.copy()
    out[: len(y)] += y
    return out


def round_totals(s: Shoot) -> list[Weights]:
    """The distribution of total damage after each round (index = damage).

    Without relics every round adds the same action: totals are successive convolutions.
    With relics the state is the number of ignores used so far (0, 1, 2): a round from a state
    below 2 may use one ignore; from 2 it rolls no relic dice at all.
    """
    a, d, exact, rounds = s.attacker, s.defender, s.options.exact, s.options.rounds
    spent = action(a, d, relics=False, exact=exact)[0]
    if d.saintly_relics == "NONE":
        totals = [spent]
        for _ in range(rounds - 1):
            last = totals[-1]
            totals.append(Weights(pr.convolve(last.num, spent.num), last.den * spent.den))
        return totals
    unused, used = action(a, d, relics=True, exact=exact)
    den = pr.common((spent, unused, used))
    moves = {
        0: ((0, unused.rescaled(den)), (1, used.rescaled(den))),
        1: ((1, unused.rescaled(den)), (MAX_RELIC_IGNORES, used.rescaled(den))),
        MAX_RELIC_IGNORES: ((MAX_RELIC_IGNORES, spent.rescaled(den)),),
    }
    states = {0: np.ones(1, dtype=object if exact else float)}
    totals = []
    for i in range(rounds):
        after: dict[int, np.ndarray] = {}
        for ignores, dist in states.items():
            for target, step in moves[ignores]:
                out = pr.convolve(dist, step)
                after[target] = _add(after[target], out) if target in after else out
        states = after
        combined = pr.zeros(1, exact)
        for dist in states.values():
            combined = _add(combined, dist)
        totals.append(Weights(combined, den ** (i + 1)))
    return totals


def shoot(s: Shoot) -> ShootResult:
    """The exact (or float) answer to one shooting scenario (§8.4).

    The final totals are read once into Python numbers (`tolist`): float numerators are over 1,
    so they are the probabilities themselves."""
    exact, wounds = s.options.exact, s.defender.wounds
    totals = round_totals(s)
    num, den = totals[-1].num, totals[-1].den
    at = num.nonzero()[0]
    live = num[at]
    expected = pr.value(np.dot(at, live), den, exact)  # numpy's sums: the float bits of
    by_round = [pr.value(w.num[wounds:].sum(), w.den, exact) for w in totals]  # every revision
    return ShootResult(exact, at.tolist(), live.tolist(), den, expected, by_round[-1], by_round)
