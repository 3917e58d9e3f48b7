"""Wound rolls: Strength against Toughness (§3 step 4.b)."""

from __future__ import annotations

from fractions import Fraction

from engine.kt2018.rolls import success
from engine.kt2018.scenario import Reroll


def required(strength: int, toughness: int) -> int:
    """The D6 result needed to wound, from the table of §3 step 4.b read top to bottom."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength <= toughness:
        return 6
    return 5


def probability(strength: int, toughness: int, reroll: Reroll) -> Fraction:
    """P(one hit wounds), re-roll included (a 1 always fails, a 6 always succeeds)."""
    need = required(strength, toughness)
    return success(lambda face: face >= need, reroll)
