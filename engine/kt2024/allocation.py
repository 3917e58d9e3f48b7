"""§7 R2–R3: Just a Scratch and the exact save allocation of §7.1, in closed form.

The defender's best allocation depends only on (c*, n*, cs, ns) and on how the damage profile
orders a crit against one and two normals (with Durable, which step it undoes): nine orders
at most (`order`). So the closed form (`survivors`) is evaluated once, at import, for every
count a shot can have and every order (`SURVIVORS`, about half a millisecond), the survivors
(c′, n′) as one code; and R4's raw damage of every code under the usual damage profiles
(`damages`). An action looks up the outcome pairs that occur, a code and then its damage,
rather than a dozen array operations per pair.
"""

from __future__ import annotations

import numpy as np

from .scenario import MOST_ATTACKS, MOST_DEFENCE_DICE, JustAScratch

EVERY, UP_TO_PAIRS, SPARE_ONLY = range(3)
"""The closed form's cases (see `survivors`): which steps of cancelling one more crit qualify."""
NEVER = 3
"""Durable's undo threshold when it does not apply: no step is ever 3 normals."""


def durable_applies(durable: bool, critical_damage: int) -> bool:
    """Durable (KT2021) only reduces crits of 4+ damage (a crit never drops below 3)."""
    return durable and critical_damage >= 4


def order(critical_damage: int, normal_damage: int, durable: bool) -> tuple[int, int]:
    """What the allocation of a damage profile depends on: the case of the closed form, and
    the fewest further normals through (1 or 2) that make Durable's last step not worth it
    (ND · k > CD − 1; `NEVER` without Durable)."""
    if 2 * normal_damage <= critical_damage:
        case = EVERY
    elif normal_damage <= critical_damage:
        case = UP_TO_PAIRS
    else:
        case = SPARE_ONLY
    undo = NEVER
    if durable_applies(durable, critical_damage):
        undo = next((k for k in (1, 2) if normal_damage * k > critical_damage - 1), NEVER)
    return case, undo


def survivors(
    crits: np.ndarray,
    normals: np.ndarray,
    crit_saves: np.ndarray,
    normal_saves: np.ndarray,
    case: int,
    undo: int,
) -> tuple[np.ndarray, np.ndarray]:
    """§7.1 for every (c*, n*, cs, ns) given (broadcast together) under an `order`: the
    surviving crits c′ and normals n′. Ties: fewest crits, then fewest normals.

    The defender cancels t crits, each with a crit save or a pair of normal saves; every save
    left over goes on normal hits, which can only lower the cost and the surviving normals.
    For a given t the fewest normal saves go on crits when crit saves go first: max(0, t − cs)
    pairs, so with x = n* − cs − ns the normals left are max(0, x + t + max(0, t − cs)), and
    t ranges over 0..min(c*, cs + ns // 2).

    Why a closed form: each further crit cancelled changes the cost by −CD + ND·k, where
    k ∈ {0, 1, 2} is how many more normals get through, and k never falls as t grows (first
    0 while saves are spare, then 1 while crit saves cancel crits, then 2 for pairs). The cost
    is convex in t, so the best t is the last one whose step still does not raise it (a step
    of 0 is taken: it leaves fewer crits). Which steps qualify depends only on how CD compares
    with ND and 2·ND (`case`); Durable adds 1 to the step that cancels the last crit, which
    then no longer pays when its k reaches `undo`.
    """
    x = normals - crit_saves - normal_saves
    top = np.minimum(crits, crit_saves + normal_saves // 2)
    if case == EVERY:
        t = top
    elif case == UP_TO_PAIRS:  # steps of k ≤ 1: up to the first pair with k = 2
        t = np.minimum(top, np.maximum(crit_saves, (crit_saves - x + 1) // 2))
    else:  # steps of k = 0 only: while normals still get through none more
        spare = np.where(x + crit_saves <= 0, (crit_saves - x) // 2, np.maximum(0, -x))
        t = np.minimum(top, spare)
    n_left = _normals_left(x, t, crit_saves)
    if undo != NEVER:
        last = (t == crits) & (crits >= 1)
        step = n_left - _normals_left(x, t - 1, crit_saves)
        t = t - (last & (step >= undo))
        n_left = _normals_left(x, t, crit_saves)
    return crits - t, n_left


def raw_damage(
    crits: np.ndarray, normals: np.ndarray, profile: tuple[int, int, bool]
) -> np.ndarray:
    """R4 and R6: the damage of `crits` and `normals` hits that get through, `profile` being
    (criticalDamage, normalDamage, durable); Durable takes 1 from the first crit."""
    critical_damage, normal_damage, durable = profile
    raw = crits * critical_damage + normals * normal_damage
    return raw - (crits >= 1) if durable_applies(durable, critical_damage) else raw


def _normals_left(x: np.ndarray, t: np.ndarray, crit_saves: np.ndarray) -> np.ndarray:
    """Normal hits through when t crits are cancelled, crit saves first (see `survivors`)."""
    return np.maximum(0, x + t + np.maximum(0, t - crit_saves))


def _cells(most: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (a, b) with a + b ≤ `most`, as two columns."""
    a, b = np.indices((most + 1, most + 1))
    inside = a + b <= most
    return a[inside], b[inside]


_HIT_C, _HIT_N = _cells(MOST_ATTACKS)
_SAVE_CS, _SAVE_NS = _cells(MOST_DEFENCE_DICE)
HIT_CELL = np.full((MOST_ATTACKS + 1,) * 2, len(_HIT_C))
HIT_CELL[_HIT_C, _HIT_N] = np.arange(len(_HIT_C))
SAVE_CELL = np.full((MOST_DEFENCE_DICE + 1,) * 2, len(_SAVE_CS))
SAVE_CELL[_SAVE_CS, _SAVE_NS] = np.arange(len(_SAVE_CS))
"""A pair's survivors are in its hits' cell's row (`HIT_CELL[c, n]`) and its saves' cell's
column (`SAVE_CELL[cs, ns]`) of an order's table. Counts beyond the limits point past every
row or column, so that they fail rather than read another pair's survivors."""


SIDE = MOST_ATTACKS + 1
"""Survivors (c′, n′) as one code, c′·SIDE + n′ (`SURVIVORS`): every count of hits fits."""
CODE_CRITS, CODE_NORMALS = (v.ravel() for v in np.indices((SIDE, SIDE)))
"""c′ and n′ of each code."""
CODE_CRITS.flags.writeable = CODE_NORMALS.flags.writeable = False


def _survivors_of(grid: tuple[np.ndarray, ...], case: int, undo: int) -> np.ndarray:
    """One order's table: the code of each pair's (c′, n′), a row per hits' cell and a column
    per saves' cell, as intp, the index dtype."""
    crits, normals = survivors(*grid, case, undo)
    table = (crits * SIDE + normals).astype(np.intp).reshape(len(_HIT_C), len(_SAVE_CS))
    table.flags.writeable = False
    return table


def _survivor_tables() -> dict[tuple[int, int], np.ndarray]:
    """Every order's survivors of every pair of cells, hits' cell major; the counts in int16
    (they are small, and it roughly halves the cost of the import)."""
    hits = (np.repeat(v, len(_SAVE_CS)).astype(np.int16) for v in (_HIT_C, _HIT_N))
    saves = (np.tile(v, len(_HIT_C)).astype(np.int16) for v in (_SAVE_CS, _SAVE_NS))
    grid = (*hits, *saves)
    cases, undos = (EVERY, UP_TO_PAIRS, SPARE_ONLY), (1, 2, NEVER)
    return {(case, undo): _survivors_of(grid, case, undo) for case in cases for undo in undos}


SURVIVORS = _survivor_tables()
"""Every order's survivors as codes of every pair of cells, built at import: shared by every
action, never filled cold. The pairs of some hits and some saves are the rows of the hits'
cells, and in them the columns of the saves' cells: two `take`s (a broadcast sum of cells
and one `take` costs twice as much)."""


def survivors_of(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (c′, n′) of survivors codes: only for the rules that count them (instances)."""
    return CODE_CRITS[codes], CODE_NORMALS[codes]


DAMAGE_TABULATED = 8
"""The largest critical and normal damage whose raw damage of every survivors code is a table
built at import (`damages`; 126 profiles of 441 codes, about 0.4 MB and 0.6 ms)."""
_DAMAGES = {
    (cd, nd, durable): raw_damage(CODE_CRITS, CODE_NORMALS, (cd, nd, durable))
    for cd in range(DAMAGE_TABULATED + 1)
    for nd in range(DAMAGE_TABULATED + 1)
    for durable in (False, True)
    if not durable or durable_applies(durable, cd)
}
for _table in _DAMAGES.values():
    _table.flags.writeable = False  # shared by every action


def damages(profile: tuple[int, int, bool]) -> np.ndarray:
    """R4 and R6 for every survivors code under `profile` (criticalDamage, normalDamage,
    durable): its raw damage (`raw_damage`), read from the table built at import when it holds
    the profile, so that a pair's damage is one lookup of its code."""
    cd, nd, durable = profile
    table = _DAMAGES.get((cd, nd, durable and durable_applies(durable, cd)))
    return table if table is not None else raw_damage(CODE_CRITS, CODE_NORMALS, profile)


def hit_cells(crits: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """The cells of hit outcomes (c, n): their rows of `SURVIVORS`' tables."""
    return HIT_CELL[crits, normals]


def save_cells(crit_saves: np.ndarray, normal_saves: np.ndarray) -> np.ndarray:
    """The cells of save outcomes (cs, ns): their columns of `SURVIVORS`' tables."""
    return SAVE_CELL[crit_saves, normal_saves]


def resolve_saves(
    hits: tuple[np.ndarray, np.ndarray],
    saves: tuple[np.ndarray, np.ndarray],
    profile: tuple[int, int, bool],
    jas: JustAScratch,
    cells: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """R2 then R3 for every (c, n) of `hits` against every (cs, ns) of `saves`, `profile`
    being (criticalDamage, normalDamage, durable): the crits and normals that get through, as
    survivors codes (`survivors_of` reads them), and their damage, as grids (a row per hit
    outcome, a column per save outcome). `cells` are the hits' and the saves' cells
    (`hit_cells`, `save_cells`) when the caller has them.

    Just a Scratch (CRITS) is decided knowing the saves: it cancels whichever die leaves the
    lower best-allocation cost; on a tie a crit if CD ≥ ND, else a normal.
    """
    (crits, normals), (crit_saves, normal_saves) = hits, saves
    table, damage = SURVIVORS[order(*profile)], damages(profile)
    if cells is None:
        cells = hit_cells(crits, normals), save_cells(crit_saves, normal_saves)
    hit, save = cells
    if jas == "CRITS":
        k1_codes = table.take(hit_cells(np.maximum(crits - 1, 0), normals), 0).take(save, 1)
        k2_codes = table.take(hit_cells(crits, np.maximum(normals - 1, 0)), 0).take(save, 1)
        k1, k2 = damage[k1_codes], damage[k2_codes]
        both = ((crits >= 1) & (normals >= 1))[:, None]
        crit_first = profile[0] >= profile[1]
        cancel_crit = np.where(both, (k1 < k2) | ((k1 == k2) & crit_first), (crits >= 1)[:, None])
        return np.where(cancel_crit, k1_codes, k2_codes), np.where(cancel_crit, k1, k2)
    if jas == "NORMALS":
        hit = hit_cells(crits, np.maximum(normals - 1, 0))
    codes = table.take(hit, 0).take(save, 1)
    return codes, damage[codes]
