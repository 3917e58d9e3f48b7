"""Wound rolls (kt2013.md §3.4): the chance one hit wounds, and whether the wound is rending."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.kt2013.dice import FACES, SIXTH, ZERO
from engine.kt2013.scenario import Attack
from engine.kt2013.special_rules import rending_active, sniper_active, wound_reroll

CANNOT_WOUND = 7  # a requirement no D6 meets; larger than every real one, so `min` just works


def wound_chart(strength: int, toughness: int) -> int:
    """The 6th-edition wound chart as a function of S − T."""
    diff = strength - toughness
    if diff >= 2:
        return 2
    if diff >= -1:
        return 4 - diff
    if diff >= -3:
        return 6
    return CANNOT_WOUND


def wound_requirement(attack: Attack) -> int:
    """The lowest of the chart (or Sniper's flat 4+), Fleshbane's 2+ and Poisoned's X+ (§7.1).

    A Strength of "X" only reaches here with Sniper active (validation), which replaces the chart.
    """
    weapon = attack.weapon
    if sniper_active(attack):
        candidates = [4]
    else:
        candidates = [wound_chart(weapon.strength, attack.target.toughness)]
    if weapon.fleshbane:
        candidates.append(2)
    if weapon.poisoned is not None:
        candidates.append(weapon.poisoned)
    return min(candidates)


@dataclass(frozen=True)
class WoundRoll:
    """Chances that one hit becomes an ordinary wound or a rending wound (final face 6, Rending)."""

    wound: Fraction
    rending_wound: Fraction

    @property
    def any_wound(self) -> Fraction:
        return self.wound + self.rending_wound


def wound_roll(attack: Attack) -> WoundRoll:
    """Roll to wound, re-roll per `special_rules.wound_reroll`; the final face decides.

    A 1 always fails (every requirement is at least 2); a 6 always wounds with Rending, even
    when the chart says the hit cannot wound.
    """
    need = wound_requirement(attack)
    rending = rending_active(attack)
    reroll = wound_reroll(attack)

    def succeeds(face: int) -> bool:
        return face >= need or (rending and face == 6)

    final = dict.fromkeys(FACES, ZERO)
    for face in FACES:
        rerolled = not succeeds(face) and (reroll == "failed" or (reroll == "ones" and face == 1))
        if rerolled:
            for second in FACES:
                final[second] += SIXTH * SIXTH
        else:
            final[face] += SIXTH
    rending_wound = final[6] if rending else ZERO
    wound = sum((p for face, p in final.items() if succeeds(face)), ZERO) - rending_wound
    return WoundRoll(wound, rending_wound)
