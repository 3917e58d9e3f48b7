"""The inputs of the three modes (threshold.md §2–§4) as immutable values.

Validation (ranges, limits) happens in `schema.threshold`; these types assume valid input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.threshold.dice import DiceExpr

SkillRollMode = Literal["normal", "advantage", "disadvantage"]
DamageType = Literal["normal", "direct"]


@dataclass(frozen=True)
class Unit:
    """Optional unit structure (§1.2): the HP pool is `starting_models` × `hp_per_model`."""

    starting_models: int
    hp_per_model: int

    def models_on_table(self, hp: int) -> int:
        """ceil(hp / W): a model stays on the table while any of its HP remains."""
        return -(-hp // self.hp_per_model)


@dataclass(frozen=True)
class Target:
    """A unit that loses HP: its Damage thresholds and current HP pool."""

    minor_threshold: int
    major_threshold: int
    current_hp: int
    unit: Unit | None = None


@dataclass(frozen=True)
class Attack:
    """`attacks` identical attacks; `dc` None means no skill roll (always succeeds)."""

    damage: DiceExpr
    attacks: int = 1
    skill_bonus: int = 0
    dc: int | None = None
    skill_roll_mode: SkillRollMode = "normal"
    damage_type: DamageType = "normal"
    centrepiece: bool = False


@dataclass(frozen=True)
class AttackScenario:
    attack: Attack
    target: Target


@dataclass(frozen=True)
class DeadlyDemiseScenario:
    """A model with Deadly Demise `x` is destroyed next to `units` (request order)."""

    x: int
    units: tuple[Target, ...]


@dataclass(frozen=True)
class HealScenario:
    hp_per_model: int
    current_hp: int
    amount: DiceExpr
    starting_models: int = 1
    can_return_models: bool = False
