"""§6 defence dice: Piercing, cover, the defence roll, Indomitus, FailsToNorms, NormsToCrits."""

from __future__ import annotations

import numpy as np

from .dice import Kept, roll
from .scenario import Attacker, Defender


def save_thresholds(d: Defender) -> tuple[int, int]:
    """(success, critical) of a defence die: the invulnerable save replaces the save (§3)."""
    success = d.invulnerable_save if d.invulnerable_save is not None else d.save
    critical = d.crit_save
    return success, critical if critical > success else success  # a conditional, not max()


def piercing(a: Attacker, d: Defender, crits: int) -> int:
    """D1: Piercing x, or Piercing Crits x when the final pool has a crit and it is larger.

    An invulnerable save ignores Piercing entirely.
    """
    if d.invulnerable_save is not None:
        return 0
    x = a.piercing
    return a.piercing_crits if crits >= 1 and a.piercing_crits > x else x


def collected(a: Attacker, d: Defender, crits: int) -> int:
    """D2: the number of defence dice collected."""
    dice = d.defence_dice - piercing(a, d, crits)
    return dice if dice > 0 else 0  # a conditional, not max(): read twice a cold shot


def saves(d: Defender, dice: int, saturate: bool, cursed: bool) -> Kept:
    """D3–D8: exact distribution of (cs, ns, K) from `dice` collected defence dice, as face
    sequences over one denominator, an entry per rolled outcome.

    Cover saves are part of the collected dice and LOCKED; the Indomitus save and FailsToNorms
    saves are LOCKED too, so NormsToCrits only promotes ROLLED normal saves. Each step is one
    array operation over every rolled outcome. Not memoised: its one caller,
    `damage.defence_pool`, is, on the same fields.
    """
    cover_crits = cover = 0
    if not saturate and (d.cover_crit_saves or d.cover_saves):
        cover_crits = min(d.cover_crit_saves, dice)
        cover = min(d.cover_saves, dice - cover_crits)
    success, critical = save_thresholds(d)
    rolled = roll(dice - cover_crits - cover, success, critical, d.reroll, cursed)
    if not (cover_crits or cover or d.indomitus or d.fails_to_norms or d.norms_to_crits):
        return rolled.as_saves()  # most defenders: D4–D7 keep the roll
    crits, normals, fails = rolled.crits, rolled.normals, rolled.fails
    if cover_crits:  # an array pass only where a count changes
        crits = crits + cover_crits
    locked: np.ndarray | int = cover
    if d.indomitus:  # D5a: a cursed die counts as a fail here
        two = fails >= 2
        fails, locked = fails - 2 * two, locked + two
    if d.fails_to_norms:  # D6
        locked = locked + np.minimum(d.fails_to_norms, fails)
    if d.norms_to_crits:  # D7
        promoted = np.minimum(d.norms_to_crits, normals)
        crits, normals = crits + promoted, normals - promoted
    if not isinstance(locked, int) or locked:
        normals = normals + locked
    return rolled.kept(crits, normals)
