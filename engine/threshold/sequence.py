"""A unit's HP pool through a sequence of attempts (threshold.md §2 steps 4–5, §1.2).

The state after each attempt is (HP left, Devastating Wounds seen, Battle Shock test owed);
nothing else about the past matters, so a forward pass over at most
(currentHP + 1) × 4 states per attempt is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from engine.threshold.hp_loss import Hit
from engine.threshold.odds import Odds
from engine.threshold.scenario import Target

State = tuple[int, bool, bool]
"""(HP left h, some attempt triggered Devastating Wounds, one of those left h > 0)."""

Pools = dict[tuple[bool, bool], np.ndarray]
"""(devastating, battle_shock) -> integer weights indexed by HP left (numpy object arrays:
Python's exact integers, with numpy running the per-HP loops)."""


def resolve(current_hp: int, attempts: int, attempt: Odds[Hit]) -> Odds[State]:
    """The final state after `attempts` independent attempts, each distributed as `attempt`.

    Attempts after destruction are not resolved: a destroyed state keeps its weight, scaled
    by `attempt.total` to stay on the common denominator.
    """
    # HP loss never takes h below 0, so every loss of at least current_hp acts the same.
    per_attempt = attempt.group(lambda hit: (min(hit[0], current_hp), hit[1]))
    pools: Pools = {(False, False): np.zeros(current_hp + 1, dtype=object)}
    pools[(False, False)][current_hp] = 1
    for _ in range(attempts):
        following: Pools = {}
        for (devastating, battle_shock), weights in pools.items():
            _pool(following, devastating, battle_shock, current_hp)[0] += (
                weights[0] * per_attempt.total
            )
            alive = weights.copy()
            alive[0] = 0
            lost_all = np.cumsum(alive)  # lost_all[k]: weight of 1..k HP left
            for (loss, triggered), chance in per_attempt.weights.items():
                flag = devastating or triggered
                # Devastating Wounds owe a Battle Shock test only if the unit survives.
                survivors = _pool(following, flag, battle_shock or triggered, current_hp)
                survivors[1 : current_hp + 1 - loss] += alive[loss + 1 :] * chance
                _pool(following, flag, battle_shock, current_hp)[0] += lost_all[loss] * chance
        pools = following
    states = {
        (hp, devastating, battle_shock): int(weight)
        for (devastating, battle_shock), weights in pools.items()
        for hp, weight in enumerate(weights)
        if weight
    }
    return Odds(states, per_attempt.total**attempts)


def _pool(pools: Pools, devastating: bool, battle_shock: bool, current_hp: int) -> np.ndarray:
    """The weights of the states with these flags, created empty on first use."""
    return pools.setdefault((devastating, battle_shock), np.zeros(current_hp + 1, dtype=object))


@dataclass(frozen=True)
class Aftermath:
    """What happened to one unit: the outputs shared by `attack` and `deadlyDemise`."""

    hp_loss: dict[int, Fraction]
    expected_hp_loss: Fraction
    p_destroyed: Fraction
    p_devastating: Fraction
    p_battle_shock_test: Fraction
    models_destroyed: dict[int, Fraction] | None


def aftermath(target: Target, final: Odds[State]) -> Aftermath:
    start = target.current_hp
    unit = target.unit
    models_destroyed = None
    if unit is not None:
        on_table = unit.models_on_table(start)
        models_destroyed = final.group(
            lambda state: on_table - unit.models_on_table(state[0])
        ).fractions()
    return Aftermath(
        hp_loss=final.group(lambda state: start - state[0]).fractions(),
        expected_hp_loss=final.expectation(lambda state: start - state[0]),
        p_destroyed=final.probability(lambda state: state[0] == 0),
        p_devastating=final.probability(lambda state: state[1]),
        p_battle_shock_test=final.probability(lambda state: state[2]),
        models_destroyed=models_destroyed,
    )
