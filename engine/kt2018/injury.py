"""Injury rolls (§4) and flesh wounds."""

from __future__ import annotations

from fractions import Fraction

from engine.kt2018.state import Condition


def out_of_action(dice: int, flesh: int, max_flesh: int, cover: int) -> Fraction:
    """P(an Injury roll of `dice` D6 takes the model out of action).

    The highest face H counts: Q = H + flesh − cover, and Q ≥ 4 is out of action. Q ≤ 3 is a
    flesh wound, which is out of action too when no empty flesh-wound box is left (§9 item 1).
    All dice share one modifier, so only the highest face matters (§9 item 2):
    P(H ≥ t) = 1 − ((t − 1)/6)^dice.
    """
    if flesh >= max_flesh:
        return Fraction(1)
    needed = 4 - flesh + cover
    if needed <= 1:
        return Fraction(1)
    if needed > 6:
        return Fraction(0)
    return 1 - Fraction(needed - 1, 6) ** dice


def roll(
    before: Condition, lost: int, dice: int, max_flesh: int, cover: int
) -> list[tuple[Condition, Fraction]]:
    """The two ends of an Injury roll made when `before` lost its last `lost` wounds.

    Out of action keeps only the wound points removed; a flesh wound puts the model back on
    1 wound with one more box marked.
    """
    p_out = out_of_action(dice, before.flesh, max_flesh, cover)
    total = before.lost + lost
    return [
        (Condition(0, 0, total), p_out),
        (Condition(1, before.flesh + 1, total), 1 - p_out),
    ]
