"""One D6 test with at most one re-roll (§1 item 3), shared by hit and wound rolls."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from engine.kt2018.scenario import Reroll

FACES = range(1, 7)


def success(passes: Callable[[int], bool], reroll: Reroll) -> Fraction:
    """P(the test passes), re-rolling an unmodified 1 (`ones`) or any failure (`failed`) once.

    The second die is tested exactly like the first, so P(pass) after a re-roll is p again.
    `ones` re-rolls a 1 whether or not it passed (hit and wound rolls always fail on a 1).
    """
    p = Fraction(sum(1 for face in FACES if passes(face)), 6)
    if reroll == "ones":
        return p - Fraction(int(passes(1)), 6) + Fraction(1, 6) * p
    if reroll == "failed":
        return p + (1 - p) * p
    return p
