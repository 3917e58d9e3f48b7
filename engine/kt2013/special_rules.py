"""The special rules of kt2013.md §5 that more than one stage consults.

Each function answers one question about the attack ("is Rending active?"), so the stages read
like the spec and a rule's reach (shooting only, weapon only, ...) is written down once.
"""

from __future__ import annotations

from typing import Literal

from engine.kt2013.scenario import Attack

WoundReroll = Literal["failed", "ones", "none"]


def sniper_active(attack: Attack) -> bool:
    """Sniper (weapon or model) only affects shooting attacks; it gives the flat 4+ to wound.

    The model's Sniper gives only the 4+ (§7.2); Rending and S3-vs-vehicles belong to the weapon.
    """
    return attack.shooting and (attack.weapon.sniper or attack.attacker.sniper)


def rending_active(attack: Attack) -> bool:
    """Rending, or a Sniper weapon (which has Rending; validation keeps it out of fights)."""
    return attack.weapon.rending or attack.weapon.sniper


def wound_reroll(attack: Attack) -> WoundReroll:
    """Which failed wound rolls are re-rolled (§3.4).

    Shred, Monster Hunter against a Monstrous Creature and Poisoned in close combat when
    S ≥ T (§7.5: the shooting paragraph omits the re-roll) re-roll every failure; that
    already covers the 1s Preferred Enemy would re-roll.
    """
    weapon, target = attack.weapon, attack.target
    poisoned_reroll = (
        weapon.poisoned is not None
        and not attack.shooting
        and weapon.strength is not None
        and weapon.strength >= target.toughness
    )
    monster_hunter = attack.attacker.monster_hunter and target.monstrous_creature
    if weapon.shred or monster_hunter or poisoned_reroll:
        return "failed"
    return "ones" if attack.attacker.preferred_enemy else "none"


def cover_save(attack: Attack) -> int | None:
    """The cover save of §3.5 (also used against vehicle hits, §4.3), or None.

    Cover exists only in shooting and not against Ignores Cover. Stealth improves it by 1 and
    Shrouded by 2, cumulatively and to at best 2+; with no terrain cover (7) Stealth alone
    gives 6+, Shrouded alone 5+, both 4+.
    """
    if not attack.shooting or attack.weapon.ignores_cover:
        return None
    target = attack.target
    value = 7 if target.cover_save is None else target.cover_save
    value -= (1 if target.stealth else 0) + (2 if target.shrouded else 0)
    value = max(2, value)
    return value if value <= 6 else None
