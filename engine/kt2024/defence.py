"""§6 defence dice: Piercing, cover, the defence roll, Indomitus, FailsToNorms, NormsToCrits."""

from __future__ import annotations

import numpy as np

from .allocation import save_cells
from .dice import SIMPLICES, TABULATED_DICE, Kept, outcomes_key, roll
from .scenario import MOST_DEFENCE_DICE, Attacker, Defender


def locked_in(normals: np.ndarray, locked: np.ndarray | int) -> np.ndarray:
    """D3, D5a, D6: the LOCKED normal saves (cover's, Indomitus', FailsToNorms') retained
    among the rolled normal saves, where NormsToCrits no longer reaches them."""
    return normals + locked


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


COVER_TABULATED = 3
"""The most cover saves whose outcomes are tabulated (`_COVERED`)."""
_COVERED = {
    (key, cover): (
        normals := locked_in(outcomes.normals, cover),
        save_cells(outcomes.crits, normals),
    )
    for key, outcomes in SIMPLICES.items()
    for cover in range(1, COVER_TABULATED + 1)
    if key[0] <= TABULATED_DICE and key[0] + cover <= MOST_DEFENCE_DICE
}
"""D3 for every roll of up to TABULATED_DICE dice, by its outcomes (`dice.outcomes_key`) and
cover: the normal saves with the cover saves LOCKED among them, and their save cells, built
at import (about 0.2 ms): a defender in cover whose dice nothing else changes (nine in ten
of them) reads them rather than computing them (`saves`)."""
for _table in (column for both in _COVERED.values() for column in both):
    _table.flags.writeable = False  # shared by every defence pool


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
    if not (cover_crits or d.indomitus or d.fails_to_norms or d.norms_to_crits):
        if not cover:
            return rolled.as_saves()  # most defenders: D4–D7 keep the roll
        covered = _COVERED.get((outcomes_key(dice - cover, success, critical, cursed), cover))
        if covered is not None:  # in cover, and nothing else: the normals read, with cells
            return rolled.kept(rolled.crits, *covered)
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
        normals = locked_in(normals, locked)
    return rolled.kept(crits, normals)
