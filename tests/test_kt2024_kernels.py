"""The exact arithmetic of the compiled fight loops against Python's integers.

OPTIMAL's exact comparisons and exact mode's masses rest on two small pieces of `kernels`:
`mulmod` (a product modulo a prime below 2**31, its quotient estimated in floats) and
`exact_sign` (the sign of an integer from its residues modulo 2**64 and some primes, by
Garner's mixed-radix digits).
"""

from __future__ import annotations

from math import prod

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from kt2024_fights import engine_fight, fights, slow

from engine.kt2024 import flat, kernels
from engine.kt2024.precision import PRIMES, garner
from engine.kt2024.sequence import Sequence


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PRIMES[:8] + PRIMES[-2:]), st.data())
def test_mulmod_is_the_product_modulo_the_prime(p: int, data: st.DataObject) -> None:
    residue = st.integers(0, p - 1) | st.sampled_from([0, 1, p - 1, p - 2])
    a, b = data.draw(residue), data.draw(residue)
    assert kernels.mulmod(a, b, p, 1.0 / p) == a * b % p


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 5), st.data())
def test_exact_sign_recovers_the_sign_of_a_small_enough_integer(
    k: int, data: st.DataObject
) -> None:
    primes = PRIMES[:k] if data.draw(st.booleans()) else PRIMES[-k:] if k else ()
    half_range = (2**64 * prod(primes) - 1) // 2
    edges = [0, 1, -1, 2**63, -(2**63), 2**64, -(2**64), half_range, -half_range]
    n = data.draw(
        st.integers(-half_range, half_range)
        | st.sampled_from([e for e in edges if abs(e) <= half_range])
    )
    residues = np.array([n % p for p in primes], dtype=np.int64)
    column = np.array(primes, dtype=np.int64)
    sign = kernels.exact_sign(np.uint64(n % 2**64), residues, column, garner(primes))
    assert sign == (n > 0) - (n < 0)


def reference_reach(grid: flat.Flat, height: int, width: int) -> tuple[list[set], list[set]]:
    """`kernels.reach` cell by cell, as sets of (node, a, b) and (relics, a, b) per level:
    every outcome of every action from every reached cell where both fighters stand."""
    rounds = grid.rounds
    reached: list[set] = [set() for _ in range(rounds)]
    ends: list[set] = [set() for _ in range(rounds)]
    starts = {(0, height - 1, width - 1)}
    for level in reversed(range(rounds)):
        seen = reached[level]
        for relics, a, b in starts:
            for o in range(grid.op_start[relics], grid.op_start[relics + 1]):
                moved = (max(0, a - grid.op_la[o]), max(0, b - grid.op_lb[o]))
                seen.add((int(grid.op_node[o]), *map(int, moved)))
        todo = list(seen)
        while todo:
            i, a, b = todo.pop()
            if a == 0 or b == 0:
                continue
            if grid.ended[i] >= 0:
                ends[level].add((int(grid.ended[i]), a, b))
                continue
            for o in range(grid.br_start[grid.act_start[i]], grid.br_start[grid.act_start[i + 1]]):
                dmg = grid.br_dmg[o]
                moved = (a, max(0, b - dmg)) if grid.mover[i] == 0 else (max(0, a - dmg), b)
                cell = (int(grid.br_next[o]), *map(int, moved))
                if cell not in seen:
                    seen.add(cell)
                    todo.append(cell)
        starts = ends[level]
    return reached, ends


def as_cells(rows: np.ndarray, width: int) -> list[set]:
    """Rows of bits per (level, first index, a) as sets of (first index, a, b) per level."""
    return [
        {(i, a, b) for (i, a), row in np.ndenumerate(level) for b in range(width) if row >> b & 1}
        for level in rows
    ]


@slow(150)
@given(fights(max_attacks=3, max_wounds=6, max_rounds=3))
def test_reach_marks_the_cells_some_play_reaches(body: dict) -> None:
    """`kernels.reach`'s rows of bits (a row shifted or moved per outcome, what falls landing
    on 0) against the same search cell by cell."""
    fight = engine_fight(body, exact=False)
    grid = flat.Flat(fight, Sequence(fight))
    height, width = grid.cells // grid.width, grid.width
    n, m = len(grid.br_next), len(grid.op_node)
    graph = kernels.Graph(
        grid.mover,
        np.zeros(grid.nodes, dtype=bool),
        grid.ended,
        grid.exponent,
        np.zeros((0, 0), dtype=np.int8),
        grid.act_start,
    )
    word = np.zeros(0, np.uint64)
    branches = kernels.Outcomes(
        grid.br_start, np.zeros(n), word, np.zeros((n, 0), np.int64), grid.br_next, grid.br_dmg
    )
    openings = kernels.Openings(
        grid.op_start,
        np.zeros(m),
        word,
        np.zeros((m, 0), np.int64),
        grid.op_la,
        grid.op_lb,
        grid.op_node,
    )
    reached, ends = kernels.reach(graph, branches, openings, grid.rounds, height, width)
    want_reached, want_ends = reference_reach(grid, height, width)
    assert as_cells(reached, width) == want_reached
    assert as_cells(ends, width)[1:] == want_ends[1:]  # level 0's ends start nothing
