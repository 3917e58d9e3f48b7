"""What an unsaved wound does (kt2013.md §3.6): Instant Death, Feel No Pain, or one wound lost."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.kt2013.dice import ONE, ZERO, at_least
from engine.kt2013.scenario import Attack


def causes_instant_death(attack: Attack) -> bool:
    """Strength at least double the Toughness kills outright unless the target is an Eternal
    Warrior; a Strength of "X" never does."""
    strength = attack.weapon.strength
    target = attack.target
    return strength is not None and strength >= 2 * target.toughness and not target.eternal_warrior


@dataclass(frozen=True)
class UnsavedWound:
    """Chances, for one unsaved wound, of each of its three fates (they sum to 1)."""

    instant_death: Fraction
    discounted: Fraction
    wound_lost: Fraction


def unsaved_wound(attack: Attack) -> UnsavedWound:
    """Instant Death forbids Feel No Pain; otherwise Feel No Pain may discount the wound, and a
    discounted wound counts as saved for every purpose (§7.6)."""
    if causes_instant_death(attack):
        return UnsavedWound(ONE, ZERO, ZERO)
    fnp = attack.target.feel_no_pain
    discounted = ZERO if fnp is None else at_least(fnp)
    return UnsavedWound(ZERO, discounted, ONE - discounted)
