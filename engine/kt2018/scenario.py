"""Requests of kt2018.md §2, §6–§8 as immutable, already validated values.

The request layer (`schema.kt2018`) checks ranges and the combination rules of §2.5; the
engine trusts these values. Attribute names are the API names in snake_case so the canonical
JSON (`canonical`) is produced mechanically.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.dice_expr import DiceExpr

ONE = DiceExpr.fixed(1)
Reroll = Literal["none", "ones", "failed"]
WeaponType = Literal["assault", "heavy", "rapidFire", "grenade", "pistol", "melee"]
Phase = Literal["shooting", "fight"]
Source = Literal["shooting", "psychic", "fight", "other"]


@dataclass(frozen=True)
class Attacker:
    """The attacking model; `skill` is BS in shooting and WS in fight (the X of "X+")."""

    skill: int
    flesh_wounds: int = 0
    kill_team_broken: bool = False
    moved: bool = False
    advanced: bool = False
    hit_modifier: int = 0
    reroll_hits: Reroll = "none"
    reroll_wounds: Reroll = "none"


@dataclass(frozen=True)
class Weapon:
    """One weapon profile (§2.3); `strength` is final, `ap` is 0 or negative."""

    type: WeaponType
    attacks: DiceExpr
    strength: int
    ap: int = 0
    damage: DiceExpr = ONE


@dataclass(frozen=True)
class Armour:
    """What protects the target from a wound (§2.4); not used by mortal wounds."""

    toughness: int
    save: int | None
    invulnerable_save: int | None = None


@dataclass(frozen=True)
class Target:
    """The wounded model's condition and the terrain that may help it survive an Injury roll."""

    wounds: int
    flesh_wounds: int = 0
    max_flesh_wounds: int = 3
    obscured: bool = False
    within_one_inch_of_intervening: bool = False

    def cover(self, source: Source) -> int:
        """The −1 to Injury rolls of §4 item 2: shooting or psychic, obscured and within 1"."""
        shielded = self.obscured and self.within_one_inch_of_intervening
        return 1 if shielded and source in ("shooting", "psychic") else 0


@dataclass(frozen=True)
class Combat:
    """`shooting` or `fight` (§2): weapons resolved in order against one target."""

    phase: Phase
    attacker: Attacker
    weapons: tuple[Weapon, ...]
    armour: Armour
    target: Target
    long_range: bool = False
    overwatch: bool = False
    intervening_terrain: bool = False


@dataclass(frozen=True)
class Psybolt:
    """`psybolt` (§6): the psyker is a `Target` too, because Perils may wound it."""

    psyker: Target
    target: Target
    deny_the_witch: bool = False


@dataclass(frozen=True)
class MortalWounds:
    """`mortalWounds` (§7)."""

    amount: DiceExpr
    source: Source
    target: Target


@dataclass(frozen=True)
class NerveTest:
    """`nerveTest` (§8)."""

    leadership: int
    other_friendly_shaken_or_out_of_action: int = 0
    other_friendly_within_two_inches: int = 0
    modifier: int = 0


@dataclass(frozen=True)
class BreakCheck:
    """`breakCheck` (§8)."""

    models: int
    models_down: int
    highest_leadership: int
