"""§6 defence dice: Piercing, cover, the defence roll, Indomitus, FailsToNorms, NormsToCrits."""

from __future__ import annotations

from functools import lru_cache

from .dice import roll_counts
from .scenario import Attacker, Defender

Saves = tuple[int, int, int]
"""(cs, ns, K): critical saves, normal saves, cursed defence dice."""


def save_thresholds(d: Defender) -> tuple[int, int]:
    """(success, critical) of a defence die: the invulnerable save replaces the save (§3)."""
    success = d.invulnerable_save if d.invulnerable_save is not None else d.save
    return success, max(d.crit_save, success)


def piercing(a: Attacker, d: Defender, crits: int) -> int:
    """D1: Piercing x, or Piercing Crits x when the final pool has a crit and it is larger.

    An invulnerable save ignores Piercing entirely.
    """
    if d.invulnerable_save is not None:
        return 0
    return max(a.piercing, a.piercing_crits if crits >= 1 else 0)


def collected(a: Attacker, d: Defender, crits: int) -> int:
    """D2: the number of defence dice collected."""
    return max(0, d.defence_dice - piercing(a, d, crits))


@lru_cache(maxsize=4096)
def saves(d: Defender, dice: int, saturate: bool, cursed: bool) -> tuple[dict[Saves, int], int]:
    """D3–D8: exact distribution of (cs, ns, K) from `dice` collected defence dice, as face
    sequences over one denominator.

    Cover saves are part of the collected dice and LOCKED; the Indomitus save and FailsToNorms
    saves are LOCKED too, so NormsToCrits only promotes ROLLED normal saves.
    """
    cover_crits = 0 if saturate else min(d.cover_crit_saves, dice)
    cover = 0 if saturate else min(d.cover_saves, dice - cover_crits)
    success, critical = save_thresholds(d)
    rolled, den = roll_counts(dice - cover_crits - cover, success, critical, d.reroll, cursed)
    result: dict[Saves, int] = {}
    for (cr, nr, f, k), p in rolled.items():
        locked = cover
        if d.indomitus and f >= 2:  # D5a: a cursed die counts as a fail here
            f, locked = f - 2, locked + 1
        locked += min(d.fails_to_norms, f)  # D6
        promoted = min(d.norms_to_crits, nr)  # D7
        key = (cr + cover_crits + promoted, nr - promoted + locked, k)
        result[key] = result.get(key, 0) + p
    return result, den
