"""§8 rounds and outputs: the shooting computation end to end.

Rounds repeat the action with fresh dice. Saintly Relics ignore at most one instance per round
and two per battle, MAX_RELIC_IGNORES: a round rolls relic dice until the second ignore, and
summing the paths by how many ignores were used gives each round's total in closed form
(`round_totals`).
"""

from __future__ import annotations

from fractions import Fraction
from operator import mul
from typing import NamedTuple

import numpy as np

from . import precision as pr
from .damage import action
from .precision import Weights
from .scenario import Attacker, Defender, Shoot

MAX_RELIC_IGNORES = 2
"""R5: instances Saintly Relics ignore in a battle (the fight's states count them;
`round_totals`' closed form, its R² term, is written for two)."""


class ShootResult(NamedTuple):
    """Probabilities as Fractions (exact) or floats. The damage distribution is kept as it was
    computed, the totals with P > 0 (`support`, ascending) and their numerators over `den`
    (floats over 1 in float mode): an answer renders "p/q" and floats from those integers, so no
    `Fraction` is built per damage value unless `damage` is read. (A named tuple: as immutable
    as a frozen dataclass, at a third of its construction's cost.)"""

    exact: bool
    support: list[int]
    numerators: list[int] | list[float]
    den: int
    expected_damage: Fraction | float
    kill_probability: Fraction | float
    kill_probability_by_round: list[Fraction | float]

    @property
    def damage(self) -> dict[int, Fraction | float]:
        """Total damage to its probability (P > 0)."""
        if not self.exact:
            return dict(zip(self.support, self.numerators, strict=True))
        den = self.den
        return {v: Fraction(n, den) for v, n in zip(self.support, self.numerators, strict=True)}


def _times(x: pr.Numerators | None, y: pr.Numerators | None, below: int | None) -> pr.Numerators:
    """The product of two distributions, or, with `below`, its amounts below `below` only
    (from theirs below it: nothing above changes a kill chance before the last round). None
    is the unit (a certain 0), which the product skips."""
    if x is None or y is None:
        return pr.cut(y if x is None else x, below)
    if below is None:
        return pr.times(x, y)
    return pr.cut(pr.times(pr.cut(x, below), pr.cut(y, below)), below)


def _at_least(total: pr.Numerators, wounds: int, den: int, exact: bool) -> Fraction | float:
    """P(total ≥ wounds): exact, 1 less the amounts below wounds (all that a cut total
    holds); in floats the tail's own sum, accurate however small it is."""
    if exact:
        return pr.value(den - pr.below(total, wounds), den, exact)
    return float(np.add.reduce(total[wounds:])) / den  # ndarray.sum's reduction, unwrapped


def _spent(a: Attacker, d: Defender, exact: bool) -> Weights:
    """One action's damage with no relic dice rolled (none live, or both ignores used)."""
    return action(a, d, False, exact)[0]


def _float_powers(step: np.ndarray, rounds: int, wounds: int) -> tuple[Weights, list[float]]:
    """`round_totals` in floats without relics (most multi-round shots), in its cheapest
    shape: a round's total is the last times the action (`pr.times`), whole, with no packing
    or cut to decide, and its kill chance `_at_least`'s."""
    total, kills = step, [_at_least(step, wounds, 1, False)]
    for _ in range(rounds - 1):
        total = pr.times(total, step)
        kills.append(_at_least(total, wounds, 1, False))
    return tuple.__new__(Weights, (total, 1)), kills  # as `shoot` builds its answer


def round_totals(s: Shoot) -> tuple[Weights, list[Fraction | float]]:
    """The distribution of total damage after the last round (index = damage), and after each
    round P(total ≥ wounds).

    Without relics every round adds the same action: totals are its successive powers. With
    relics (R5: one ignore a round at most, two a battle) a round is U (relic dice rolled,
    nothing ignored) or R (one instance ignored) while fewer than two ignores are used, then S
    (no relic dice). Summing the paths, the total after k rounds is

        T_k = U^(k-1)·(U + k·R) + R²·Q_k,   Q_k = Σ_{m=0}^{k-2} (m+1)·U^m·S^(k-2-m):

    no ignore, or one in any of k rounds, or the second in round m + 2 after the first in
    one of m + 1 rounds. Q_1 = 0, Q_2 = 1 and Q_(k+1) = S·Q_k + k·U^(k-1): four products a
    round (a chain over the ignores used makes five). Exact totals before the last round are
    cut below wounds (`_times`), all that their kill chances read: only the last is whole, and
    exact distributions stay packed (`precision.Packed`) from the action's to the last's.
    """
    a, d, exact, rounds, wounds = (s.attacker, s.defender, s.options.exact, s.options.rounds,
                                   s.defender.wounds)  # fmt: skip
    packed = exact and rounds > 1  # a single round has nothing to multiply
    if d.saintly_relics == "NONE":
        spent = _spent(a, d, exact)
        if not exact:
            return _float_powers(spent.num, rounds, wounds)
        step = pr.lift(spent.num, spent.den, packed, spent.den**rounds)
        total, kills = step, [_at_least(spent.num, wounds, spent.den, exact)]
        for k in range(2, rounds + 1):
            # cut below wounds before the last round, the last whole by squaring
            total = _times(total, step, wounds) if k < rounds else pr.power(step, rounds)
            kills.append(_at_least(total, wounds, spent.den**k, exact))
        return Weights(pr.lower(total), spent.den**rounds), kills
    unused, used = action(a, d, True, exact)
    # S, a round after both ignores, is first rolled in the third round (Q_3 = S·Q_2 + …)
    steps = (unused, used) if rounds < 3 else (unused, used, _spent(a, d, exact))
    den = pr.common(steps)
    room = den**rounds * (rounds + 1) ** 2  # T_k's bound: den^k·(1 + k + k(k-1)/2) at most
    u, r, *after_both = (pr.lift(w.rescaled(den), den, packed, room) for w in steps)
    power = twice = None  # U^(k-1) and Q_k (from k = 2); None is the unit: U^0 and Q_2
    r2 = pr.times(r, r) if rounds > 1 else None
    kills = []
    for k in range(1, rounds + 1):
        below = wounds if packed and k < rounds else None
        once = pr.scaled(r, k) if k > 1 else r  # k·R: R itself in the first round
        total = _times(power, pr.plus(u, once), below)
        if k > 1:
            total = pr.plus(total, _times(r2, twice, below))
        kills.append(_at_least(total, wounds, den**k, exact))
        if k < rounds:
            if k > 1:
                twice = pr.plus(_times(after_both[0], twice, None), pr.scaled(power, k))
            power = _times(power, u, None)
    return Weights(pr.lower(total), den**rounds), kills


def shoot(s: Shoot) -> ShootResult:
    """The exact (or float) answer to one shooting scenario (§8.4).

    The final totals are read once into Python numbers (`tolist`): float numerators are over 1,
    so they are the probabilities themselves. The expected damage is their sum weighted by
    damage: exact, of those Python ints (an integer sum is the same in any order, and cheaper
    than numpy's object dot, which converts the damages to objects first); in floats, numpy's
    dot, whose summation every revision's float bits come from."""
    exact = s.options.exact
    (num, den), by_round = round_totals(s)
    at = num.nonzero()[0]
    live = num[at]
    support, numerators = at.tolist(), live.tolist()
    weighted = sum(map(mul, support, numerators)) if exact else at.dot(live)
    expected = pr.value(weighted, den, exact)
    fields = (exact, support, numerators, den, expected, by_round[-1], by_round)
    return tuple.__new__(ShootResult, fields)  # past the generated __new__'s Python frame
