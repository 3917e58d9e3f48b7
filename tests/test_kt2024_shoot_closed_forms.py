"""The closed forms of the shooting path against the die-by-die oracle, on small pools: the
roll as one-die polynomials (`dice.roll_counts`) and the §7.1 allocation as the last step of a
convex cost (`allocation.allocate`, `allocation.resolve_saves`)."""

from __future__ import annotations

from fractions import Fraction
from typing import get_args

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from kt2024_oracle import best_allocation, just_a_scratch
from kt2024_oracle import roll as oracle_roll

from engine.kt2024.allocation import allocate, resolve_saves
from engine.kt2024.dice import roll_counts
from engine.kt2024.scenario import Reroll


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 4),
    st.integers(2, 6),
    st.integers(2, 6),
    st.sampled_from(get_args(Reroll)),
    st.booleans(),
)
def test_roll_counts_equal_the_oracle(
    dice: int, success: int, critical: int, reroll: Reroll, cursed: bool
) -> None:
    rolled = roll_counts(dice, success, critical, reroll, cursed)
    expected = {k: p for k, p in oracle_roll(dice, success, critical, reroll, cursed).items() if p}
    keys = zip(*(column.tolist() for column in rolled[:4]), strict=True)
    got = {key: Fraction(w, rolled.den) for key, w in zip(keys, rolled.ways.tolist(), strict=True)}
    assert got == expected


profiles = st.tuples(st.integers(0, 7), st.integers(0, 7), st.booleans())
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
    c_left, n_left, cost = allocate(c, n, cs, ns, *profile)
    for i, ((ci, ni), (csi, nsi)) in enumerate(cells):
        assert (cost[i], c_left[i], n_left[i]) == best_allocation(ci, ni, csi, nsi, *profile)


@settings(max_examples=400, deadline=None)
@given(hits, saves, profiles, st.sampled_from(["NONE", "CRITS", "NORMALS"]))
def test_just_a_scratch_then_allocation_equal_the_oracle(
    hit: tuple[int, int], save: tuple[int, int], profile: tuple[int, int, bool], jas: str
) -> None:
    cd, nd, durable = profile
    c, n, cs, ns = (np.array([v]) for v in hit + save)
    got = resolve_saves((c, n), (cs, ns), profile, jas)
    c_star, n_star = just_a_scratch(jas, *hit, *save, cd, nd, durable)
    _, c_left, n_left = best_allocation(c_star, n_star, *save, cd, nd, durable)
    assert (int(got[0][0]), int(got[1][0])) == (c_left, n_left)
