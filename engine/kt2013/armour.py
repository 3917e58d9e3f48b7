"""Armour penetration (kt2013.md §4.2): what one hit does to a vehicle before saves."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.kt2013.dice import D3, FACES, ONE, SIXTH, ZERO
from engine.kt2013.scenario import Attack
from engine.kt2013.special_rules import rending_active

SNIPER_STRENGTH = 3  # a Sniper weapon counts as Strength 3 against vehicles


@dataclass(frozen=True)
class Penetration:
    """Chances of a glancing and of a penetrating hit; the rest has no effect."""

    glancing: Fraction
    penetrating: Fraction

    @property
    def no_effect(self) -> Fraction:
        return ONE - self.glancing - self.penetrating


def haywire_roll() -> Penetration:
    """Haywire replaces the roll: 1 nothing, 2–5 glancing, 6 penetrating, whatever the armour."""
    return Penetration(4 * SIXTH, SIXTH)


def strength_roll(strength: int, armour_value: int, rending: bool) -> Penetration:
    """S + D6 (+ D3 on a 6 with Rending) against AV: above penetrates, equal glances."""
    glancing = penetrating = ZERO
    for face in FACES:
        extras = D3 if rending and face == 6 else {0: ONE}
        for extra, p_extra in extras.items():
            total = strength + face + extra
            if total > armour_value:
                penetrating += SIXTH * p_extra
            elif total == armour_value:
                glancing += SIXTH * p_extra
    return Penetration(glancing, penetrating)


def with_tank_hunter(first: Penetration, reroll_glancing: bool) -> Penetration:
    """Tank Hunter re-rolls a no-effect result once (a fresh roll, fresh D3 included) and, by the
    caller's policy, a glancing one too, keeping the second result even if it is worse."""
    rerolled = first.no_effect + (first.glancing if reroll_glancing else ZERO)
    kept_glancing = ZERO if reroll_glancing else first.glancing
    return Penetration(
        kept_glancing + rerolled * first.glancing,
        first.penetrating + rerolled * first.penetrating,
    )


def penetration(attack: Attack) -> Penetration:
    """One hit's armour penetration; Tank Hunter applies to Haywire rolls too (§7.7)."""
    weapon, attacker = attack.weapon, attack.attacker
    if weapon.haywire:
        first = haywire_roll()
    else:
        strength = SNIPER_STRENGTH if weapon.sniper else weapon.strength
        first = strength_roll(strength, attack.target.armour_value, rending_active(attack))
    if attacker.tank_hunter:
        return with_tank_hunter(first, attacker.tank_hunter_reroll_glancing)
    return first
