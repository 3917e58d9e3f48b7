"""Saving throws (kt2013.md §3.5 against wounds, §4.3 against vehicle hits).

The target takes the single best save available; there is never a second save.
"""

from __future__ import annotations

from fractions import Fraction

from engine.kt2013.dice import ZERO, at_least
from engine.kt2013.scenario import Attack
from engine.kt2013.special_rules import cover_save


def armour_save(attack: Attack, rending_wound: bool) -> int | None:
    """The armour save, unless AP beats it or the wound is rending (AP2 beats every 2+..6+, §7.3).

    AP "–" (None) never ignores armour.
    """
    save, ap = attack.target.save, attack.weapon.ap
    if save is None or rending_wound or (ap is not None and ap <= save):
        return None
    return save


def best_save(*values: int | None) -> int | None:
    """The lowest available save value, or None when there is none."""
    available = [v for v in values if v is not None]
    return min(available) if available else None


def saved_chance(value: int | None) -> Fraction:
    return ZERO if value is None else at_least(value)


def wound_saved(attack: Attack, rending_wound: bool) -> Fraction:
    """P(a wound is saved): best of armour, cover and invulnerable (AP never touches the last)."""
    value = best_save(
        armour_save(attack, rending_wound), cover_save(attack), attack.target.invulnerable_save
    )
    return saved_chance(value)


def vehicle_hit_saved(attack: Attack) -> Fraction:
    """P(a glancing or penetrating hit is saved): cover or invulnerable, no armour (§4.3, §7.8)."""
    return saved_chance(best_save(cover_save(attack), attack.target.invulnerable_save))
