"""Saving throws (§3 step 4.c)."""

from __future__ import annotations

from fractions import Fraction

from engine.kt2018.scenario import Armour

NO_SAVE = 7


def need(armour: Armour, ap: int) -> int:
    """The D6 result the target needs: the better of armour after AP and invulnerable (§9.5).

    `NO_SAVE` (7) when neither exists; an armour save pushed to 7+ by AP cannot be made.
    """
    options = [NO_SAVE]
    if armour.save is not None:
        options.append(armour.save - ap)
    if armour.invulnerable_save is not None:
        options.append(armour.invulnerable_save)
    return min(options)


def fails(armour: Armour, ap: int) -> Fraction:
    """P(the save fails). A 1 always fails; a 6 does not save automatically, so 7+ never saves.

    Saves are at least 2+ (save 2..6 and AP ≤ 0), so a 1 failing needs no special case here.
    """
    saves = max(0, 7 - need(armour, ap))
    return 1 - Fraction(saves, 6)
