"""One D6 test with at most one re-roll (§1 item 3), shared by hit and wound rolls."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from engine.kt2018.scenario import Reroll

FACES = range(1, 7)


def success(passes: Callable[[int], bool], reroll: Reroll) -> Fraction:
    """P(the test passes), re-rolling an unmodified 1 (`ones`) or any failure (`failed`) once.

    The re-rolled die is tested exactly like the first, so a face-by-face count is exact.
    """
    p = Fraction(sum(1 for face in FACES if passes(face)), 6)
    if reroll == "ones":
        # A 1 is re-rolled whether or not it passes; the spec's tests all fail on a 1 anyway.
        return p - Fraction(int(passes(1)), 6) + Fraction(1, 6) * p
    if reroll == "failed":
        return p + (1 - p) * p
    return p
