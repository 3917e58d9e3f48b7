"""§7 R2–R3: Just a Scratch and the exact save allocation of §7.1, in closed form.

The defender's best allocation depends only on (c*, n*, cs, ns) and the damage profile. It is
evaluated only for the (attack, defence) outcome pairs that occur, as a few array operations
over all of them at once: no table over every count is built, so a cold scenario pays for its
own pairs only and nothing per damage profile is kept.
"""

from __future__ import annotations

import numpy as np

from .scenario import JustAScratch


def durable_applies(durable: bool, critical_damage: int) -> bool:
    """Durable (KT2021) only reduces crits of 4+ damage (a crit never drops below 3)."""
    return durable and critical_damage >= 4


def allocate(
    crits: np.ndarray,
    normals: np.ndarray,
    crit_saves: np.ndarray,
    normal_saves: np.ndarray,
    critical_damage: int,
    normal_damage: int,
    durable: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """§7.1 for every (c*, n*, cs, ns) given (broadcast together): surviving crits c′,
    surviving normals n′ and the cost. Ties: fewest crits, then fewest normals.

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
    with ND and 2·ND; Durable adds 1 to the step that cancels the last crit.
    """
    x = normals - crit_saves - normal_saves
    top = np.minimum(crits, crit_saves + normal_saves // 2)
    if 2 * normal_damage <= critical_damage:  # every step qualifies
        t = top
    elif normal_damage <= critical_damage:  # steps of k ≤ 1: up to the first pair with k = 2
        t = np.minimum(top, np.maximum(crit_saves, (crit_saves - x + 1) // 2))
    else:  # steps of k = 0 only: while normals still get through none more
        spare = np.where(x + crit_saves <= 0, (crit_saves - x) // 2, np.maximum(0, -x))
        t = np.minimum(top, spare)
    n_left = _normals_left(x, t, crit_saves)
    if durable_applies(durable, critical_damage):
        last = (t == crits) & (crits >= 1)
        step = n_left - _normals_left(x, t - 1, crit_saves)
        t = t - (last & (normal_damage * step > critical_damage - 1))
        n_left = _normals_left(x, t, crit_saves)
    c_left = crits - t
    return c_left, n_left, raw_damage(c_left, n_left, (critical_damage, normal_damage, durable))


def raw_damage(
    crits: np.ndarray, normals: np.ndarray, profile: tuple[int, int, bool]
) -> np.ndarray:
    """R4 and R6: the damage of `crits` and `normals` hits that get through, `profile` being
    (criticalDamage, normalDamage, durable); Durable takes 1 from the first crit."""
    critical_damage, normal_damage, durable = profile
    raw = crits * critical_damage + normals * normal_damage
    return raw - (crits >= 1) if durable_applies(durable, critical_damage) else raw


def _normals_left(x: np.ndarray, t: np.ndarray, crit_saves: np.ndarray) -> np.ndarray:
    """Normal hits through when t crits are cancelled, crit saves first (see `allocate`)."""
    return np.maximum(0, x + t + np.maximum(0, t - crit_saves))


def resolve_saves(
    hits: tuple[np.ndarray, np.ndarray],
    saves: tuple[np.ndarray, np.ndarray],
    profile: tuple[int, int, bool],
    jas: JustAScratch,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """R2 then R3 for every (c, n) `hits` against (cs, ns) `saves` (broadcast together),
    `profile` being (criticalDamage, normalDamage, durable): the crits and normals that get
    through, and their damage.

    Just a Scratch (CRITS) is decided knowing the saves: it cancels whichever die leaves the
    lower best-allocation cost; on a tie a crit if CD ≥ ND, else a normal.
    """
    (crits, normals), (crit_saves, normal_saves) = hits, saves
    if jas == "NORMALS":
        normals = np.maximum(normals - 1, 0)
    elif jas == "CRITS":
        k1 = allocate(np.maximum(crits - 1, 0), normals, crit_saves, normal_saves, *profile)[2]
        k2 = allocate(crits, np.maximum(normals - 1, 0), crit_saves, normal_saves, *profile)[2]
        both = (crits >= 1) & (normals >= 1)
        crit_first = profile[0] >= profile[1]
        cancel_crit = np.where(both, (k1 < k2) | ((k1 == k2) & crit_first), crits >= 1)
        normals = np.where(cancel_crit | (normals == 0), normals, normals - 1)
        crits = np.where(cancel_crit, crits - 1, crits)
    return allocate(crits, normals, crit_saves, normal_saves, *profile)
