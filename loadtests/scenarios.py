"""Scenario generators for the load tests: realistic kt2024 profiles and reusable pools.

Kept apart from the Locust users so the test suite can check, without importing Locust (which
monkey-patches the standard library), that every scenario a load test sends is valid input.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Profile = dict[str, Any]
Envelope = dict[str, Any]

POOL_SEED = 2024
REROLLS = ("NONE", "NONE", "NONE", "BALANCED", "CEASELESS", "RELENTLESS")
STRATEGIES = ("MAX_DAMAGE", "MAX_DAMAGE", "STRIKE", "PARRY", "MIN_DAMAGE_TO_SELF", "OPTIMAL")


def attacker(rng: random.Random) -> Profile:
    """A ranged weapon profile: mostly 4–5 attacks, some heavy weapons, common weapon rules."""
    profile: Profile = {
        "attacks": rng.choice((3, 4, 4, 4, 5, 5, 6, 6, 8, 10)),
        "hit": rng.choice((2, 3, 3, 3, 4, 4, 5)),
        "normalDamage": rng.choice((2, 3, 3, 3, 4, 4, 5)),
    }
    profile["criticalDamage"] = profile["normalDamage"] + rng.choice((1, 1, 2, 2, 3))
    rules: list[Callable[[], Profile]] = [
        lambda: {"lethal": 5},
        lambda: {"piercing": rng.choice((1, 1, 2))},
        lambda: {"piercingCrits": 1},
        lambda: {"devastating": rng.choice((1, 2, 3))},
        lambda: {"accurate": 1},
        lambda: {"reroll": rng.choice(REROLLS)},
        lambda: {"punishing": True},
        lambda: {"rending": True},
        lambda: {"severe": True},
        lambda: {"saturate": True},
    ]
    for rule in rng.sample(rules, k=rng.choice((0, 1, 1, 2, 2, 3))):
        profile.update(rule())
    return profile


def defender(rng: random.Random) -> Profile:
    """A target operative: save 2+–5+, 7–18 wounds, sometimes cover or Feel No Pain."""
    profile: Profile = {
        "save": rng.choice((2, 3, 3, 3, 4, 4, 5)),
        "wounds": rng.choice((7, 8, 8, 9, 10, 12, 13, 14, 15, 18)),
    }
    if rng.random() < 0.3:
        profile["coverSaves"] = 1
    if rng.random() < 0.15:
        profile["feelNoPain"] = rng.choice((5, 6))
    if rng.random() < 0.1:
        profile["invulnerableSave"] = rng.choice((4, 5))
    return profile


def shoot(rng: random.Random) -> Envelope:
    return {
        "attacker": attacker(rng),
        "defender": defender(rng),
        "options": {"rounds": rng.choice((1, 1, 1, 1, 2, 3))},
    }


def fighter(rng: random.Random) -> Profile:
    """A melee profile: 3–5 attacks (OPTIMAL, the expensive strategy, now and then)."""
    normal = rng.choice((3, 4, 4, 5))
    profile: Profile = {
        "attacks": rng.choice((3, 4, 4, 5)),
        "hit": rng.choice((2, 3, 3, 4)),
        "normalDamage": normal,
        "criticalDamage": normal + rng.choice((1, 2)),
        "wounds": rng.choice((8, 9, 10, 12, 14)),
        "strategy": rng.choice(STRATEGIES),
    }
    extra = rng.choice(({}, {}, {"lethal": 5}, {"brutal": True}, {"shock": True}))
    return {**profile, **extra}


def fight(rng: random.Random) -> Envelope:
    return {"fighterA": fighter(rng), "fighterB": fighter(rng), "options": {}}


class Popular:
    """A fixed pool of scenarios drawn with Zipf-like weights: a few are asked very often."""

    def __init__(self, make: Callable[[random.Random], Envelope], size: int, seed: int) -> None:
        rng = random.Random(seed)
        self.items = [make(rng) for _ in range(size)]
        self.weights = [1.0 / (rank + 1) for rank in range(size)]

    def draw(self, rng: random.Random) -> Envelope:
        return rng.choices(self.items, self.weights)[0]


POPULAR_SHOOTS = Popular(shoot, 300, POOL_SEED)
POPULAR_FIGHTS = Popular(fight, 60, POOL_SEED + 1)
# A list builder's world: the weapons and operatives of a few kill teams.
_roster = random.Random(POOL_SEED + 2)
ROSTER_ATTACKERS = [attacker(_roster) for _ in range(24)]
ROSTER_DEFENDERS = [defender(_roster) for _ in range(16)]
SITUATIONS = [
    {"name": "open"},
    {"name": "cover", "defender": {"coverSaves": 1}},
    {"name": "obscured", "attacker": {"obscured": True}},
]
