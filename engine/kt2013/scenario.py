"""The request of kt2013.md §2 as immutable values.

Attribute names are the API's camelCase names in snake_case, so the canonical JSON of the cache
key is produced mechanically from these dataclasses (`canonical.as_json`). Ranges and the
cross-field rules of §2.5 are enforced by the request layer before a scenario exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from engine.dice_expr import DiceExpr

Mode = Literal["shooting", "fight"]
AUTO = "auto"


@dataclass(frozen=True)
class Attacker:
    """§2.1. `ballistic_skill` / `weapon_skill` are None where the mode does not need them."""

    ballistic_skill: int | None = None
    weapon_skill: int | None = None
    snap_shots: bool = False
    preferred_enemy: bool = False
    monster_hunter: bool = False
    tank_hunter: bool = False
    tank_hunter_reroll_glancing: bool = False
    sniper: bool = False


@dataclass(frozen=True)
class Weapon:
    """§2.2. `strength` None is "X" (Sniper weapons, Haywire against vehicles); `ap` None is "–"."""

    attacks: DiceExpr
    strength: int | None
    ap: int | None = None
    rending: bool = False
    sniper: bool = False
    fleshbane: bool = False
    poisoned: int | None = None
    shred: bool = False
    master_crafted: bool = False
    ignores_cover: bool = False
    haywire: bool = False


@dataclass(frozen=True)
class Model:
    """§2.3: a non-vehicle target (infantry, monstrous creature, ...)."""

    toughness: int
    wounds: int
    save: int | None
    weapon_skill: int | None = None
    invulnerable_save: int | None = None
    cover_save: int | None = None
    stealth: bool = False
    shrouded: bool = False
    feel_no_pain: int | None = None
    eternal_warrior: bool = False
    monstrous_creature: bool = False


@dataclass(frozen=True)
class Vehicle:
    """§2.4: a vehicle target, seen from the facing the caller chose (`armour_value`)."""

    armour_value: int
    hull_points: int
    cover_save: int | None = None
    stealth: bool = False
    shrouded: bool = False
    invulnerable_save: int | None = None
    melee_hit_on: int | Literal["auto"] = AUTO


@dataclass(frozen=True)
class Options:
    exact: bool = False


@dataclass(frozen=True)
class Attack:
    """One model attacking one model with one weapon profile (the whole request)."""

    mode: Mode
    attacker: Attacker
    weapon: Weapon
    target: Model | Vehicle
    options: Options = field(default_factory=Options)

    @property
    def shooting(self) -> bool:
        return self.mode == "shooting"
