"""The rolls tabulated at import (`dice.roll`, `dice.TABULATED`) against what they replace:
`roll_counts` and `precision.counted` for every key, and the die-by-die oracle for small pools.
Rolls the table shares (`dice._same_rolls`) are checked under each of their keys."""

from __future__ import annotations

from fractions import Fraction
from typing import get_args

from hypothesis import given, settings
from hypothesis import strategies as st
from kt2024_oracle import roll as oracle_roll

from engine.kt2024 import dice, precision
from engine.kt2024.scenario import Reroll

REROLLS = get_args(Reroll)


def tabulated(success: int, critical: int) -> bool:
    """Whether `roll` reads this critical threshold from the table: one of
    TABULATED_CRITICALS, or any at or below a success one that clamps one of them to it."""
    clamped = min(dice.TABULATED_CRITICALS) <= success
    return critical in dice.TABULATED_CRITICALS or (clamped and critical <= success)


def expected_keys() -> set[tuple[int, int, int, Reroll, bool]]:
    """Every key `roll` reads from the table."""
    keys = set()
    for (reroll, cursed), most in dice.TABULATED.items():
        for n in range(most + 1):
            for success in range(2, dice.FACES + 1):
                for critical in range(2, dice.FACES + 1):
                    if tabulated(success, critical):
                        keys.add((n, success, critical, reroll, cursed))
    return keys


def test_the_table_holds_every_mode_uncursed() -> None:
    assert set(dice.TABULATED) == {(reroll, False) for reroll in REROLLS} | {("NONE", True)}
    assert dice.TABULATED["NONE", True] == dice.TABULATED_CURSED_DICE == 3
    assert dice.TABULATED["NONE", False] == dice.TABULATED_DICE == 8
    assert {dice.TABULATED[r, False] for r in REROLLS if r != "NONE"} == {6}
    assert set(dice._ROLLS) == expected_keys()
    assert len(dice._ROLLS) == 16 * (9 + 8 * 7 + 4)
    for key in [
        (7, 3, 6, "CEASELESS", False),
        (6, 3, 4, "BALANCED", False),
        (4, 3, 6, "NONE", True),
        (3, 3, 6, "RELENTLESS", True),
    ]:
        assert key not in dice._ROLLS and dice.roll(*key).chances is None


def test_every_tabulated_roll_is_roll_counts_with_its_weights() -> None:
    for key, rolled in dice._ROLLS.items():
        computed = dice.roll_counts.__wrapped__(*key)
        assert computed.chances is None
        for column, other in zip(rolled[:5], computed[:5], strict=True):
            assert column.dtype == other.dtype and column.tolist() == other.tolist()
        assert rolled.den == computed.den
        floats, exact = rolled.chances
        expected = precision.counted(computed.ways, computed.den, False)
        assert floats.num.tobytes() == expected.num.tobytes() and floats.den == expected.den == 1
        expected = precision.counted(computed.ways, computed.den, True)
        assert exact.num.tolist() == expected.num.tolist() and exact.den == expected.den
        assert all(type(w) is int for w in exact.num.tolist())
        assert not floats.num.flags.writeable and not exact.num.flags.writeable


def test_shared_rolls_are_computed_once() -> None:
    distinct = {id(rolled) for rolled in dice._ROLLS.values()}
    assert len(distinct) == len({dice._same_rolls(*key) for key in canonical_keys()})
    # no dice roll alike; RELENTLESS on one die is every Balanced or Ceaseless mode's
    assert len({id(dice.roll(0, s, 6, r, False)) for s in range(2, 7) for r in REROLLS}) == 1
    one = dice.roll(1, 4, 6, "RELENTLESS", False)
    for reroll in ("BALANCED", "DOUBLE_BALANCED", "CEASELESS", "CEASELESS_AND_BALANCED"):
        assert dice.roll(1, 4, 6, reroll, False) is one
    # two dice: DOUBLE_BALANCED re-rolls both fails, BALANCED one of them
    assert dice.roll(2, 4, 6, "DOUBLE_BALANCED", False) is dice.roll(2, 4, 6, "RELENTLESS", False)
    assert dice.roll(2, 4, 6, "BALANCED", False) is not dice.roll(2, 4, 6, "RELENTLESS", False)
    # CRIT_FISH without normal successes re-rolls what RELENTLESS does
    assert dice.roll(5, 5, 5, "CRIT_FISH", False) is dice.roll(5, 5, 5, "RELENTLESS", False)
    assert dice.roll(5, 4, 5, "CRIT_FISH", False) is not dice.roll(5, 4, 5, "RELENTLESS", False)


def canonical_keys() -> set[tuple[int, int, int, Reroll, bool]]:
    """The tabulated keys with the critical threshold clamped to ≥ success, as built."""
    return {(n, s, max(c, s), r, k) for n, s, c, r, k in dice._ROLLS}


def exact_outcomes(rolled: dice.Rolled) -> dict[tuple[int, int, int, int], Fraction]:
    """(crits, normals, fails, cursed) -> probability, from the table's exact weights."""
    weights = rolled.chances[True]
    out = {}
    for c, n, f, k, w in zip(
        rolled.crits, rolled.normals, rolled.fails, rolled.cursed, weights.num, strict=True
    ):
        if w:
            out[int(c), int(n), int(f), int(k)] = Fraction(w, weights.den)
    return out


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(0, 3),
    success=st.integers(2, 6),
    critical=st.sampled_from([2, 3, 4, *dice.TABULATED_CRITICALS]),
    reroll=st.sampled_from(REROLLS),
    cursed=st.booleans(),
)
def test_tabulated_rolls_match_the_die_by_die_oracle(
    n: int, success: int, critical: int, reroll: Reroll, cursed: bool
) -> None:
    rolled = dice.roll(n, success, critical, reroll, cursed)
    if tabulated(success, critical) and (reroll == "NONE" or not cursed):
        assert rolled.chances is not None
        expected = oracle_roll(n, success, max(critical, success), reroll, cursed)
        assert exact_outcomes(rolled) == {k: v for k, v in expected.items() if v}
    else:
        assert rolled.chances is None
