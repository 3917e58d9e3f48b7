"""§7 R2–R3: Just a Scratch and the exact save allocation of §7.1, as lookup tables.

The defender's best allocation depends only on (c*, n*, cs, ns) and the damage profile, so it
is tabulated once per (criticalDamage, normalDamage, durable) over every count the limits
allow, vectorised over the whole table, and Just a Scratch is laid over it once per damage
profile (`damage.hit_tables` keeps the result); a shooting action then only looks it up.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .scenario import JustAScratch

MAX_HITS = 20  # attack dice (§12): c + n ≤ 20
MAX_SAVES = 9  # defence dice (§12): cs + ns ≤ 9
TABLE_DTYPE = np.int16
"""Tables hold counts ≤ 20 and damage ≤ 20 · 20 (§12): int16 keeps a table at 88 kB, so the
memos of every damage profile stay small (`allocate` ≤ 256 tables of three, 68 MB at most)."""


def _grid(saves: int) -> tuple[np.ndarray, ...]:
    """(c*, n*, cs, ns) for every hit count and every save count up to `saves` dice."""
    hits, kept = np.arange(MAX_HITS + 1), np.arange(saves + 1)
    return np.ix_(hits, hits, kept, kept)


def durable_applies(durable: bool, critical_damage: int) -> bool:
    """Durable (KT2021) only reduces crits of 4+ damage (a crit never drops below 3)."""
    return durable and critical_damage >= 4


@lru_cache(maxsize=256)
def allocate(
    critical_damage: int, normal_damage: int, durable: bool, saves: int
) -> tuple[np.ndarray, ...]:
    """§7.1 over every (c*, n*, cs, ns), cs, ns ≤ `saves`: surviving crits c′, surviving
    normals n′ and the cost. Tables are as large as the defence dice collected (three, mostly):
    a table for nine dice costs 6 times the cells and 3 times the passes.

    The defender cancels t crits, each with a crit save or a pair of normal saves; every save
    left over goes on normal hits, which can only lower the cost and the surviving normals.
    For a given t the fewest normal saves go on crits when crit saves go first: max(0, t − cs)
    pairs, so the normals left are max(0, n* − cs − ns + t + max(0, t − cs)). Only t is
    enumerated (up to cs + ns // 2). Ties: fewest crits, then fewest normals.
    """
    crits, normals, crit_saves, normal_saves = _grid(saves)
    shape = np.broadcast_shapes(crits.shape, normals.shape, crit_saves.shape, normal_saves.shape)
    width = MAX_HITS + 1
    best = np.full(shape, np.iinfo(np.int64).max, dtype=np.int64)
    dur = durable_applies(durable, critical_damage)
    for t in range(min(MAX_HITS, saves + saves // 2) + 1):
        pairs = np.maximum(0, t - crit_saves)
        valid = (t <= crits) & (2 * pairs <= normal_saves)
        c_left = crits - t
        n_left = np.maximum(0, normals - crit_saves - normal_saves + t + pairs)
        cost = c_left * critical_damage + n_left * normal_damage - (dur & (c_left >= 1))
        key = (cost * width + c_left) * width + n_left
        best = np.where(valid & (key < best), key, best)
    n_left = best % width
    c_left = best // width % width
    cost = best // (width * width)
    return c_left.astype(TABLE_DTYPE), n_left.astype(TABLE_DTYPE), cost.astype(TABLE_DTYPE)


def resolve_saves(
    critical_damage: int, normal_damage: int, durable: bool, jas: JustAScratch, saves: int
) -> tuple[np.ndarray, np.ndarray]:
    """R2 then R3 over every (c, n, cs, ns), cs, ns ≤ `saves`: the hits that get through.

    Just a Scratch (CRITS) is decided knowing the saves: it cancels whichever die leaves the
    lower best-allocation cost; on a tie a crit if CD ≥ ND, else a normal.
    """
    c_left, n_left, cost = allocate(critical_damage, normal_damage, durable, saves)
    crits, normals, crit_saves, normal_saves = _grid(saves)
    shape = c_left.shape
    crits = np.broadcast_to(crits, shape)
    normals = np.broadcast_to(normals, shape)
    if jas == "NONE":
        return c_left, n_left
    if jas == "NORMALS":
        c_star, n_star = crits, np.maximum(normals - 1, 0)
    else:
        both = (crits >= 1) & (normals >= 1)
        k1 = cost[np.maximum(crits - 1, 0), normals, crit_saves, normal_saves]
        k2 = cost[crits, np.maximum(normals - 1, 0), crit_saves, normal_saves]
        crit_first = critical_damage >= normal_damage
        cancel_crit = np.where(both, (k1 < k2) | ((k1 == k2) & crit_first), crits >= 1)
        c_star = np.where(cancel_crit, crits - 1, crits)
        n_star = np.where(cancel_crit | (normals == 0), normals, normals - 1)
    return (
        c_left[c_star, n_star, crit_saves, normal_saves],
        n_left[c_star, n_star, crit_saves, normal_saves],
    )
