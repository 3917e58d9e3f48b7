"""Hit rolls (kt2013.md §3.2–3.3, §4.1): from the number of attacks to the number of hits.

The dice of a batch are interchangeable, so a batch is enumerated by counts of (hits, ones,
lows) — the multinomial over three face classes — instead of by 6ⁿ face tuples (§8).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import factorial

from engine.kt2013.dice import SIXTH, ZERO, at_least, binomial, convolve
from engine.kt2013.scenario import Attack, Vehicle


@dataclass(frozen=True)
class HitRoll:
    """A hit roll needs `need`+; a 1 may be re-rolled needing `special`+ (BS 6 and more)."""

    need: int
    special: int | None = None


def shooting_roll(ballistic_skill: int) -> HitRoll:
    """The 6th-edition BS chart: BS 1–5 hit on (7 − BS)+; above BS 5 the roll is 2+ and a 1 may
    be re-rolled, needing 6+ at BS 6 down to 2+ at BS 10."""
    if ballistic_skill <= 5:
        return HitRoll(7 - ballistic_skill)
    return HitRoll(2, 12 - ballistic_skill)


def fight_roll(attacker_ws: int, defender_ws: int) -> HitRoll:
    """The WS chart: 3+ against a lower WS, 5+ against more than double, otherwise 4+."""
    if attacker_ws > defender_ws:
        return HitRoll(3)
    if defender_ws > 2 * attacker_ws:
        return HitRoll(5)
    return HitRoll(4)


def hit_roll(attack: Attack) -> HitRoll | None:
    """The roll this attack needs; None when every attack hits without a roll.

    Snap Shots are resolved at BS 1. A vehicle in close combat is hit on the caller's
    `meleeHitOn` ("auto" = no roll), which already reflects how it moved (§2.4).
    """
    attacker, target = attack.attacker, attack.target
    if attack.shooting:
        return shooting_roll(1 if attacker.snap_shots else attacker.ballistic_skill)
    if isinstance(target, Vehicle):
        return None if target.melee_hit_on == "auto" else HitRoll(target.melee_hit_on)
    return fight_roll(attacker.weapon_skill, target.weapon_skill)


@cache
def batch_hits(
    dice: int, roll: HitRoll, master_crafted: bool, preferred_enemy: bool
) -> tuple[Fraction, ...]:
    """P(h hits) for h = 0..dice when `dice` hit rolls are made together (§3.3).

    Failed dice are ones or lows (2..need−1). Master-crafted re-rolls one low if there is one,
    else one 1 unless Preferred Enemy will re-roll the 1s anyway; every other 1 is re-rolled by
    Preferred Enemy (needing `need`) or else by the BS 6+ rule (needing `special`). No die is
    re-rolled twice. This order is the optimal use of the three sources (§3.3.5).
    """
    p_hit = at_least(roll.need)
    p_low = (roll.need - 2) * SIXTH
    if preferred_enemy:
        p_one_rerolled = p_hit
    elif roll.special is not None:
        p_one_rerolled = at_least(roll.special)
    else:
        p_one_rerolled = ZERO
    out = [ZERO] * (dice + 1)
    for ones in range(dice + 1):
        for lows in range(dice - ones + 1):
            if lows and not p_low:
                continue
            hits = dice - ones - lows
            ways = factorial(dice) // (factorial(hits) * factorial(ones) * factorial(lows))
            chance = ways * p_hit**hits * SIXTH**ones * p_low**lows
            master_low = master_crafted and lows > 0
            master_one = master_crafted and not lows and ones > 0 and not preferred_enemy
            extra = binomial(1 if master_low or master_one else 0, p_hit)
            extra = convolve(extra, binomial(ones - (1 if master_one else 0), p_one_rerolled))
            for more, p in enumerate(extra):
                out[hits + more] += chance * p
    return tuple(out)


def hit_distribution(attack: Attack) -> dict[int, Fraction]:
    """P(total hits): the number of attacks is rolled once (§3.1), then the batch is rolled."""
    roll = hit_roll(attack)
    out: dict[int, Fraction] = {}
    for dice, p_dice in attack.weapon.attacks.distribution().items():
        if roll is None:
            out[dice] = out.get(dice, ZERO) + p_dice
            continue
        batch = batch_hits(
            dice, roll, attack.weapon.master_crafted, attack.attacker.preferred_enemy
        )
        for hits, p in enumerate(batch):
            if p:
                out[hits] = out.get(hits, ZERO) + p_dice * p
    return out
