"""Hit rolls (kt2013.md §3.2–3.3, §4.1): from the number of attacks to the number of hits.

The dice of a batch are interchangeable, so a batch is enumerated by counts of (hits, ones,
lows) — the multinomial over three face classes — instead of by 6ⁿ face tuples (§8).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb

from engine.dice_expr import DiceExpr
from engine.kt2013.dice import Number
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

    Counting is in integers over 36^dice equally likely outcomes (every die rolled twice, the
    second roll ignored unless it is a re-roll), which is much faster than Fractions here.
    """
    hit_faces = 7 - roll.need
    low_faces = roll.need - 2
    if preferred_enemy:
        one_faces = hit_faces
    elif roll.special is not None:
        one_faces = 7 - roll.special
    else:
        one_faces = 0  # a 1 that is not re-rolled: its second roll never hits
    # rerolled_ones[r][k]: ways for k of r re-rolled 1s to hit (over 6^r)
    rerolled_ones = [
        [comb(r, k) * one_faces**k * (6 - one_faces) ** (r - k) for k in range(r + 1)]
        for r in range(dice + 1)
    ]
    crafted = ((6 - hit_faces, 0), (hit_faces, 1))  # (ways, extra hit) of the re-rolled die
    ways = [0] * (dice + 1)
    for ones in range(dice + 1):
        for lows in range(dice - ones + 1 if low_faces else 1):
            hits = dice - ones - lows
            first = comb(dice, ones) * comb(dice - ones, lows) * hit_faces**hits * low_faces**lows
            master_low = master_crafted and lows > 0
            master_one = master_crafted and not lows and ones > 0 and not preferred_enemy
            crafted_dice = 1 if master_low or master_one else 0
            others = ones - (1 if master_one else 0)
            # the die Master-crafted re-rolls, if any; every other die's second roll is idle
            rerolls = crafted if crafted_dice else ((1, 0),)
            idle = 6 ** (dice - others - crafted_dice)
            for crafted_ways, extra in rerolls:
                base = first * crafted_ways * idle
                for more, w in enumerate(rerolled_ones[others]):
                    ways[hits + extra + more] += base * w
    return tuple(Fraction(w, 36**dice) for w in ways)


def hit_distribution(attack: Attack, number: type[Number] = Fraction) -> dict[int, Number]:
    """P(total hits), as `number`: the number of attacks is rolled once (§3.1), then the batch."""
    weapon = attack.weapon
    roll = hit_roll(attack)
    mixed = hits_of(weapon.attacks, roll, weapon.master_crafted, attack.attacker.preferred_enemy)
    return {hits: number(p) for hits, p in mixed}


@cache
def hits_of(
    attacks: DiceExpr, roll: HitRoll | None, master_crafted: bool, preferred_enemy: bool
) -> tuple[tuple[int, Fraction], ...]:
    """The exact hit distribution, memoised on exactly the inputs it depends on (a bounded set:
    attack expressions up to 20, the hit rolls of §3.2 and two flags)."""
    out: dict[int, Fraction] = {}
    for dice, p_dice in attacks.distribution().items():
        if roll is None:  # every attack hits, no roll
            out[dice] = out.get(dice, 0) + p_dice
            continue
        for hits, p in enumerate(batch_hits(dice, roll, master_crafted, preferred_enemy)):
            if p:
                out[hits] = out.get(hits, 0) + p_dice * p
    return tuple(sorted(out.items()))
