"""Losing wounds (§3 steps 4.d–4.g, §7 step 2–3): damage, then an Injury roll at 0 wounds."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from engine.kt2018 import injury
from engine.kt2018.state import Condition


def suffer(
    before: Condition,
    amount: Mapping[int, Fraction],
    max_flesh: int,
    cover: int,
    mortal: bool,
) -> list[tuple[Condition, Fraction]]:
    """Where a model standing at `before` ends after losing a random `amount` of wounds.

    Wounds beyond those remaining are discarded. Reaching 0 wounds triggers an Injury roll
    with one die per point of the full `amount` rolled (§9 item 2) — or a single die for mortal
    wounds, which are points of damage without a Damage characteristic (§4).
    """
    outcomes: list[tuple[Condition, Fraction]] = []
    for value, p in amount.items():
        if value < before.wounds:
            left = Condition(before.wounds - value, before.flesh, before.lost + value)
            outcomes.append((left, p))
            continue
        dice = 1 if mortal else value
        for after, q in injury.roll(before, before.wounds, dice, max_flesh, cover):
            outcomes.append((after, p * q))
    return outcomes


def injured(before: Condition, after: Condition) -> bool:
    """Whether the step from `before` to `after` made an Injury roll (it ends in one or other)."""
    return after.out_of_action or after.flesh > before.flesh
