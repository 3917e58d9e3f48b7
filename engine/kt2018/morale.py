"""Modes `nerveTest` and `breakCheck` (§8)."""

from __future__ import annotations

from fractions import Fraction

from engine.kt2018.scenario import BreakCheck, NerveTest


def p_shaken(test: NerveTest) -> Fraction:
    """P(the Nerve test fails): an unmodified 1 always passes, else result > Leadership fails."""
    shift = (
        test.other_friendly_shaken_or_out_of_action
        - test.other_friendly_within_two_inches
        + test.modifier
    )
    fails = sum(1 for r in range(2, 7) if r + shift > test.leadership)
    return Fraction(fails, 6)


def p_broken(check: BreakCheck) -> Fraction:
    """P(the kill team becomes broken): certain when every model is down; a 2D6 roll over the
    highest Leadership when more than half are; impossible otherwise."""
    if check.models_down == check.models:
        return Fraction(1)
    if 2 * check.models_down <= check.models:
        return Fraction(0)
    over = sum(1 for a in range(1, 7) for b in range(1, 7) if a + b > check.highest_leadership)
    return Fraction(over, 36)
