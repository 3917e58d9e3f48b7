"""§8 rounds and outputs: the shooting computation end to end.

Rounds repeat the action with fresh dice. Saintly Relics ignore at most one instance per round
and two per battle, so the rounds form a small Markov chain over relics used (0, 1, 2): each
round convolves the damage so far with the action's damage for that state.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from . import precision as pr
from .damage import action
from .precision import Weights
from .scenario import Shoot

MAX_RELIC_IGNORES = 2


@dataclass(frozen=True)
class ShootResult:
    """Probabilities as Fractions (exact) or floats; `damage` maps total damage to P > 0."""

    damage: dict[int, Fraction | float]
    expected_damage: Fraction | float
    kill_probability: Fraction | float
    kill_probability_by_round: list[Fraction | float]


def _convolve(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.convolve(x, y)


def _add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Sum of two distributions of different lengths."""
    if len(x) < len(y):
        x, y = y, x
    out = x.copy()
    out[: len(y)] += y
    return out


def round_totals(s: Shoot) -> list[Weights]:
    """The distribution of total damage after each round (index = damage)."""
    a, d, exact = s.attacker, s.defender, s.options.exact
    spent = action(a, d, relics=False, exact=exact)[0]
    live = action(a, d, relics=True, exact=exact) if d.saintly_relics != "NONE" else None
    den = spent.den if live is None else pr.common((spent, *live))
    step_spent = spent.rescaled(den)
    # state: relics used -> numerators of total damage so far, all over `total_den`
    one = pr.zeros(1, exact)
    one[0] = 1
    states: dict[int, np.ndarray] = {0 if live else MAX_RELIC_IGNORES: one}
    total_den = 1
    totals = []
    for _ in range(s.options.rounds):
        nxt: dict[int, np.ndarray] = {}
        for used, dist in states.items():
            if used >= MAX_RELIC_IGNORES or live is None:
                moves = [(used, step_spent)]
            else:
                moves = [(used, live[0].rescaled(den)), (used + 1, live[1].rescaled(den))]
            for target, step in moves:
                out = _convolve(dist, step)
                nxt[target] = _add(nxt[target], out) if target in nxt else out
        states, total_den = nxt, total_den * den
        combined = pr.zeros(1, exact)
        for dist in states.values():
            combined = _add(combined, dist)
        totals.append(Weights(combined, total_den))
    return totals


def shoot(s: Shoot) -> ShootResult:
    """The exact (or float) answer to one shooting scenario (§8.4)."""
    exact, wounds = s.options.exact, s.defender.wounds
    totals = round_totals(s)
    final = totals[-1]
    support = np.flatnonzero(final.num)
    dist = dict(
        zip(support.tolist(), pr.values(Weights(final.num[support], final.den), exact), strict=True)
    )
    expected = pr.value(np.dot(support, final.num[support]), final.den, exact)
    by_round = [pr.value(w.num[wounds:].sum(), w.den, exact) for w in totals]
    return ShootResult(dist, expected, by_round[-1], by_round)
