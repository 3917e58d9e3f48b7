"""Fight scenarios of kt2024.md §2.2 as immutable values.

A `Fighter` is the attack-dice profile of §5 (the same fields as a shooting attacker, so the
attack pipeline serves both) plus the melee and survival fields of §2.2. Attribute names are
the API's camelCase names in snake_case, so the canonical JSON of §11 is produced mechanically.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .scenario import AttackDice, JustAScratch, SaintlyRelics

Strategy = Literal["MAX_DAMAGE", "MIN_DAMAGE_TO_SELF", "STRIKE", "PARRY", "OPTIMAL"]
Side = Literal["A", "B"]


@dataclass(frozen=True)
class Fighter(AttackDice):
    """One fighter: its attack dice, its melee rules and what protects it (§2.2, §9.3)."""

    wounds: int = 12
    strategy: Strategy = "MAX_DAMAGE"
    brutal: bool = False
    shock: bool = False
    stun2021: bool = False
    storm_shield2021: bool = False
    hammerhand2021: bool = False
    dueller2021: bool = False
    duelist: bool = False
    murderous_entrance2021: bool = False
    just_a_scratch: JustAScratch = "NONE"
    durable: bool = False
    half_damage_first_strike: bool = False
    feel_no_pain: int | None = None
    saintly_relics: SaintlyRelics = "NONE"


@dataclass(frozen=True)
class FightOptions:
    first_to_act: Side = "A"
    rounds: int = 1
    exact: bool = False


@dataclass(frozen=True)
class Fight:
    fighter_a: Fighter = field(default_factory=Fighter)
    fighter_b: Fighter = field(default_factory=Fighter)
    options: FightOptions = field(default_factory=FightOptions)
