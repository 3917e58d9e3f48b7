"""The closed forms of the shooting path against the die-by-die oracle, on small pools: the
roll as one-die polynomials (`dice.roll_counts`) and the §7.1 allocation as the last step of a
convex cost (`allocation.survivors`, looked up by `allocation.resolve_saves`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from itertools import product
from typing import get_args

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from kt2024_oracle import best_allocation, just_a_scratch
from kt2024_oracle import roll as oracle_roll

from engine.kt2024 import allocation
from engine.kt2024 import dice as dice_module
from engine.kt2024.allocation import order, raw_damage, resolve_saves, survivors, survivors_of
from engine.kt2024.dice import PER_DIE_MODES, at_most, roll_counts
from engine.kt2024.scenario import Reroll


def rolls(most_dice: int, modes: Sequence[Reroll]) -> tuple[st.SearchStrategy, ...]:
    """(dice, success, critical, reroll, cursed) of `roll_counts`."""
    dice = st.integers(0, most_dice)
    return dice, st.integers(2, 6), st.integers(2, 6), st.sampled_from(modes), st.booleans()


@settings(max_examples=300, deadline=None)
@given(*rolls(4, get_args(Reroll)))
def test_roll_counts_equal_the_oracle(
    dice: int, success: int, critical: int, reroll: Reroll, cursed: bool
) -> None:
    rolled = roll_counts(dice, success, critical, reroll, cursed)
    expected = {k: p for k, p in oracle_roll(dice, success, critical, reroll, cursed).items() if p}
    keys = zip(*(column.tolist() for column in rolled[:4]), strict=True)
    ways = zip(keys, rolled.ways.tolist(), strict=True)
    got = {key: Fraction(w, rolled.den) for key, w in ways if w}
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 5), st.integers(0, 7))
def test_at_most_counts_every_face_sequence(faces: int, dice: int) -> None:
    """Ceaseless's table against the face sequences themselves."""
    rows = at_most(faces, dice)
    for n in range(dice + 1):
        most = [max(Counter(seq).values(), default=0) for seq in product(range(faces), repeat=n)]
        assert rows[n].tolist() == [sum(m <= b for m in most) for b in range(dice + 1)]


def per_die_power_equals_the_general_sum(
    dice: int, success: int, critical: int, reroll: Reroll, cursed: bool, shortcut: str = ""
) -> None:
    """A shortcut of `roll_counts` (the per-die power, or with `shortcut` another set of modes
    of `dice`) against the general sum, which it takes with the set emptied."""
    shortcut = shortcut or "PER_DIE_MODES"
    fast = roll_counts.__wrapped__(dice, success, critical, reroll, cursed)
    modes = getattr(dice_module, shortcut)
    try:
        setattr(dice_module, shortcut, type(modes)())
        general = roll_counts.__wrapped__(dice, success, critical, reroll, cursed)
    finally:
        setattr(dice_module, shortcut, modes)
    for column, other in zip(fast[:4], general[:4], strict=True):
        assert column.tolist() == other.tolist()
    # the same chances, over the general sum's 6**(2·dice) or a divisor of it
    assert general.den % fast.den == 0
    scale = general.den // fast.den
    assert [w * scale for w in fast.ways.tolist()] == general.ways.tolist()


@settings(max_examples=200, deadline=None)
@given(*rolls(12, sorted(PER_DIE_MODES)))
def test_per_die_power_equals_the_general_sum(
    dice: int, success: int, critical: int, reroll: Reroll, cursed: bool
) -> None:
    """The one-power shortcut of the modes whose choice is per die against the general sum
    over eligible and re-rolled dice, on pools beyond the oracle's reach."""
    per_die_power_equals_the_general_sum(dice, success, critical, reroll, cursed)


@settings(max_examples=25, deadline=None)
@given(st.integers(13, 20), *rolls(0, sorted(PER_DIE_MODES))[1:])
def test_per_die_multinomials_equal_the_general_sum(
    dice: int, success: int, critical: int, reroll: Reroll, cursed: bool
) -> None:
    """Beyond one 64-bit word a slot the per-die power is read by the multinomial theorem
    (`dice._power`): against the general sum's packed integers, up to the API's 20 dice, with
    Curse of Rot too (a cursed die is a fail, counted once)."""
    per_die_power_equals_the_general_sum(dice, success, critical, reroll, cursed)


@settings(max_examples=200, deadline=None)
@given(*rolls(20, sorted(dice_module.HORNER_MODES)))
def test_balanced_horner_equals_the_general_sum(
    dice: int, success: int, critical: int, reroll: Reroll, cursed: bool
) -> None:
    """The Balanced stages' Horner's rule (`dice._balanced`) against the general sum over
    eligible and re-rolled dice, up to the API's 20 dice."""
    per_die_power_equals_the_general_sum(dice, success, critical, reroll, cursed, "HORNER_MODES")


# damages beyond DAMAGE_TABULATED (8) too: their raw damages are computed, not read
profiles = st.tuples(st.integers(0, 11), st.integers(0, 11), st.booleans())
hits = st.tuples(st.integers(0, 6), st.integers(0, 6))
saves = st.tuples(st.integers(0, 4), st.integers(0, 4))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(hits, saves), min_size=1, max_size=8), profiles)
def test_allocation_equals_every_assignment_of_saves(
    cells: list[tuple[tuple[int, int], tuple[int, int]]], profile: tuple[int, int, bool]
) -> None:
    """Evaluated over several cells at once, as an action does, each cell as the oracle's
    try-every-(a, b, d, e) allocation."""
    c, n, cs, ns = (np.array(column) for column in zip(*(h + s for h, s in cells), strict=True))
    c_left, n_left = survivors(c, n, cs, ns, *order(*profile))
    cost = raw_damage(c_left, n_left, profile)
    for i, ((ci, ni), (csi, nsi)) in enumerate(cells):
        assert (cost[i], c_left[i], n_left[i]) == best_allocation(ci, ni, csi, nsi, *profile)


@settings(max_examples=400, deadline=None)
@given(hits, saves, profiles, st.sampled_from(["NONE", "CRITS", "NORMALS"]))
def test_just_a_scratch_then_allocation_equal_the_oracle(
    hit: tuple[int, int], save: tuple[int, int], profile: tuple[int, int, bool], jas: str
) -> None:
    cd, nd, durable = profile
    c, n, cs, ns = (np.array([v]) for v in hit + save)
    codes, raw = resolve_saves((c, n), (cs, ns), profile, jas)
    got = [int(grid.ravel()[0]) for grid in (*survivors_of(codes), raw)]
    c_star, n_star = just_a_scratch(jas, *hit, *save, cd, nd, durable)
    cost, c_left, n_left = best_allocation(c_star, n_star, *save, cd, nd, durable)
    assert got == [c_left, n_left, cost]


def test_damages_of_every_survivors_code_are_their_raw_damage() -> None:
    """R4 and R6 of every code (c′, n′), read from the table built at import or computed
    beyond it, against the damage written out: CD a crit, ND a normal, Durable's 1 off the
    first crit when CD ≥ 4."""
    for cd, nd in product(range(allocation.DAMAGE_TABULATED + 3), repeat=2):
        for durable in (False, True):
            got = allocation.damages((cd, nd, durable)).tolist()
            for code, value in enumerate(got):
                c, n = divmod(code, allocation.SIDE)
                assert value == c * cd + n * nd - (durable and cd >= 4 and c >= 1)
