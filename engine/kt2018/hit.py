"""Hit rolls (§3 steps 3 and 4.a)."""

from __future__ import annotations

from fractions import Fraction

from engine.kt2018.rolls import success
from engine.kt2018.scenario import Combat, Weapon


def modifier(combat: Combat, weapon: Weapon) -> int:
    """The cumulative, uncapped hit modifier M of §3 step 3."""
    attacker = combat.attacker
    total = attacker.hit_modifier - attacker.flesh_wounds
    if attacker.kill_team_broken:
        total -= 1
    if combat.phase == "fight":
        return total - 1 if combat.intervening_terrain else total
    if combat.long_range and weapon.type != "grenade":
        total -= 1
    if combat.target.obscured:
        total -= 1
    if weapon.type == "assault" and attacker.advanced:
        total -= 1
    if weapon.type == "heavy" and (attacker.moved or attacker.advanced):
        total -= 1
    return total


def probability(combat: Combat, weapon: Weapon) -> Fraction:
    """P(one attack hits), re-roll included.

    A 1 always misses and a 6 always hits. Overwatch hits on an unmodified 6 only, ignoring
    skill and modifiers; a re-rolled Overwatch die must show 6 too (§9 item 6).
    """
    if combat.overwatch:
        return success(lambda face: face == 6, combat.attacker.reroll_hits)
    skill = combat.attacker.skill
    m = modifier(combat, weapon)
    return success(
        lambda face: face != 1 and (face == 6 or face + m >= skill), combat.attacker.reroll_hits
    )
