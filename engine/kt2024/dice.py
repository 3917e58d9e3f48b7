"""§3 die classification and §4 rolling: first roll, Curse of Rot and every re-roll mode.

Outcomes depend only on counts, so a pool is enumerated once as face multisets (at most
C(25,5) = 53130 for 20 dice, weighted by multinomial coefficients) and re-rolled dice are
folded in by class counts. The result is memoised on exactly the fields it depends on:
(dice, success, critical, reroll, cursed).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache, lru_cache
from math import comb, factorial

import numpy as np

from .scenario import Reroll

FACES = 6
CURSED_FACE = 3

Outcome = tuple[int, int, int, int]
"""(crits, normals, fails, cursed) after re-rolls; cursed dice are also counted as fails."""


@cache
def face_multisets(dice: int) -> tuple[np.ndarray, np.ndarray]:
    """Every multiset of `dice` faces as counts per face (rows), with its multinomial weight.

    Weights are exact int64 (they sum to 6**dice ≤ 6**20 < 2**63).
    """
    rows = [(dice,)]
    for _ in range(FACES - 1):
        rows = [(*row[:-1], row[-1] - k, k) for row in rows for k in range(row[-1] + 1)]
    counts = np.array(rows, dtype=np.int64).reshape(-1, FACES)
    fact = np.array([factorial(k) for k in range(dice + 1)], dtype=np.int64)
    weights = np.full(len(counts), factorial(dice), dtype=np.int64)
    for face in range(FACES):
        weights //= fact[counts[:, face]]
    return counts, weights


def face_classes(success: int, critical: int) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks over faces 1..6: CRIT (face ≥ critical) and NORMAL (success ≤ face < critical).

    Callers clamp `critical` to ≥ `success` first (§3: only successes can be critical).
    """
    faces = np.arange(1, FACES + 1)
    return faces >= critical, (faces >= success) & (faces < critical)


def rerolled_count(
    reroll: Reroll, fail_counts: np.ndarray, normals: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """How many dice each re-roll mode re-rolls (§4.3), and how many of them were normals.

    `fail_counts` holds, per multiset, the number of *eligible* failed dice per face (cursed
    dice excluded); only CRIT_FISH re-rolls normals.
    """
    eligible = fail_counts.sum(axis=1)
    zero = np.zeros_like(eligible)
    if reroll == "NONE":
        return zero, zero
    if reroll == "BALANCED":
        return np.minimum(eligible, 1), zero
    if reroll == "DOUBLE_BALANCED":
        return np.minimum(eligible, 2), zero
    if reroll == "RELENTLESS":
        return eligible, zero
    if reroll == "CRIT_FISH":
        return eligible + normals, normals
    ones = fail_counts[:, 0]
    # Ceaseless: the face with most eligible fails (argmax picks the lowest face on ties).
    ceaseless = fail_counts.max(axis=1)
    if reroll == "REROLL_ONES":
        return ones, zero
    if reroll == "CEASELESS":
        return ceaseless, zero
    if reroll == "ONES_AND_BALANCED":
        return ones + (eligible > ones), zero
    if reroll == "CEASELESS_AND_BALANCED":
        return ceaseless + (eligible > ceaseless), zero
    raise ValueError(f"unknown re-roll mode {reroll!r}")


@lru_cache(maxsize=256)
def trinomial(dice: int, success: int, critical: int) -> dict[tuple[int, int, int], int]:
    """Fresh dice by class: (crits, normals, fails) -> number of face sequences (of 6**dice)."""
    pc, pn, pf = FACES + 1 - critical, critical - success, success - 1
    return {
        (c, n, dice - c - n): comb(dice, c)
        * comb(dice - c, n)
        * pc**c
        * pn**n
        * pf ** (dice - c - n)
        for c in range(dice + 1)
        for n in range(dice - c + 1)
        if pc**c * pn**n * pf ** (dice - c - n)
    }


@lru_cache(maxsize=4096)
def roll(
    dice: int, success: int, critical: int, reroll: Reroll, cursed: bool
) -> dict[Outcome, Fraction]:
    """Exact distribution of (Cr, Nr, Fr, K) for `dice` rolled dice (§4).

    First roll by face multiset; with Curse of Rot each first-roll 3 is a cursed FAIL that is
    never re-rolled; the re-roll mode picks how many dice are re-rolled; re-rolled dice are
    classified normally (a re-rolled 3 is not cursed).
    """
    critical = max(critical, success)
    counts, weights = face_multisets(dice)
    is_crit, is_normal = face_classes(success, critical)
    fail_mask = ~(is_crit | is_normal)
    cursed_mask = np.zeros(FACES, dtype=bool)
    if cursed:
        cursed_mask[CURSED_FACE - 1] = True
    crits = counts[:, is_crit & ~cursed_mask].sum(axis=1)
    normals = counts[:, is_normal & ~cursed_mask].sum(axis=1)
    curse = counts[:, cursed_mask].sum(axis=1)
    eligible_fails = counts * (fail_mask & ~cursed_mask)
    fails = eligible_fails.sum(axis=1) + curse
    rerolled, rerolled_normals = rerolled_count(reroll, eligible_fails, normals)
    kept_normals = normals - rerolled_normals
    kept_fails = fails - (rerolled - rerolled_normals)
    groups: dict[tuple[int, int, int, int, int], int] = {}
    for key, w in zip(
        zip(
            crits.tolist(),
            kept_normals.tolist(),
            kept_fails.tolist(),
            curse.tolist(),
            rerolled.tolist(),
            strict=True,
        ),
        weights.tolist(),
        strict=True,
    ):
        groups[key] = groups.get(key, 0) + w
    denominator = FACES ** (2 * dice)
    result: dict[Outcome, int] = {}
    for (c0, n0, f0, k, m), w in groups.items():
        scale = w * FACES ** (dice - m)
        for (c1, n1, f1), ways in trinomial(m, success, critical).items():
            key = (c0 + c1, n0 + n1, f0 + f1, k)
            result[key] = result.get(key, 0) + scale * ways
    return {key: Fraction(w, denominator) for key, w in result.items()}
