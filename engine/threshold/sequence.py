"""A unit's HP pool through a sequence of attempts (threshold.md §2 steps 4–5, §1.2).

The state after each attempt is (HP left, Devastating Wounds seen, Battle Shock test owed);
nothing else about the past matters, so a forward pass over at most
(currentHP + 1) × 4 states per attempt is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.threshold.hp_loss import Hit
from engine.threshold.odds import Odds
from engine.threshold.scenario import Target

State = tuple[int, bool, bool]
"""(HP left h, some attempt triggered Devastating Wounds, one of those left h > 0)."""


def resolve(current_hp: int, attempts: int, attempt: Odds[Hit]) -> Odds[State]:
    """The final state after `attempts` independent attempts, each distributed as `attempt`.

    Attempts after destruction are not resolved: a destroyed state keeps its weight, scaled
    by `attempt.total` to stay on the common denominator.
    """
    # HP loss never takes h below 0, so every loss of at least current_hp acts the same.
    per_attempt = attempt.group(lambda hit: (min(hit[0], current_hp), hit[1]))
    states: dict[State, int] = {(current_hp, False, False): 1}
    for _ in range(attempts):
        following: dict[State, int] = {}
        for (hp, devastating, battle_shock), weight in states.items():
            if hp == 0:
                key = (0, devastating, battle_shock)
                following[key] = following.get(key, 0) + weight * per_attempt.total
                continue
            for (loss, triggered), chance in per_attempt.weights.items():
                left = max(hp - loss, 0)
                key = (left, devastating or triggered, battle_shock or (triggered and left > 0))
                following[key] = following.get(key, 0) + weight * chance
        states = following
    return Odds(states, per_attempt.total**attempts)


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
