"""§3 die classification and §4 rolling: first roll, Curse of Rot and every re-roll mode.

Outcomes depend only on how many dice fall in each class, so the first roll is a multinomial
over classes (crit, normal, cursed, eligible fail), never an enumeration of faces. The one
face-level fact a re-roll mode can need is a statistic of how the eligible fails split over
their faces: how many show 1 (re-roll ones) or how many show the most common failed face
(Ceaseless). Both are counted in closed form per number of fails. Re-rolled dice are folded
in by class counts. The result is memoised on exactly the fields it depends on:
(dice, success, critical, reroll, cursed).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache, lru_cache
from math import comb, factorial

from .scenario import Reroll

FACES = 6
CURSED_FACE = 3

Outcome = tuple[int, int, int, int]
"""(crits, normals, fails, cursed) after re-rolls; cursed dice are also counted as fails."""

ONES_MODES = frozenset({"REROLL_ONES", "ONES_AND_BALANCED"})
CEASELESS_MODES = frozenset({"CEASELESS", "CEASELESS_AND_BALANCED"})


def face_classes(success: int, critical: int, cursed: bool) -> tuple[int, int, int, int]:
    """How many faces are CRIT, NORMAL, cursed and eligible FAIL (§3, §4.2).

    With Curse of Rot every 3 of the first roll is a cursed fail, whatever it would have been.
    Callers clamp `critical` to ≥ `success` first (§3: only successes can be critical).
    """
    faces = [f for f in range(1, FACES + 1) if not (cursed and f == CURSED_FACE)]
    crit = sum(f >= critical for f in faces)
    normal = sum(success <= f < critical for f in faces)
    return crit, normal, FACES - len(faces), len(faces) - crit - normal


def rerolled_count(reroll: Reroll, eligible: int, ones: int, most: int, normals: int) -> int:
    """How many dice each re-roll mode re-rolls (§4.3).

    `eligible` failed dice may be re-rolled (cursed dice never are), `ones` of them show a 1,
    `most` show the most common failed face; only CRIT_FISH re-rolls the `normals` too.
    """
    if reroll == "NONE":
        return 0
    if reroll == "BALANCED":
        return min(eligible, 1)
    if reroll == "DOUBLE_BALANCED":
        return min(eligible, 2)
    if reroll == "RELENTLESS":
        return eligible
    if reroll == "CRIT_FISH":
        return eligible + normals
    if reroll == "REROLL_ONES":
        return ones
    if reroll == "CEASELESS":
        return most
    if reroll == "ONES_AND_BALANCED":
        return ones + (eligible > ones)
    if reroll == "CEASELESS_AND_BALANCED":
        return most + (eligible > most)
    raise ValueError(f"unknown re-roll mode {reroll!r}")


@cache
def _at_most(faces: int, dice: int, bound: int) -> int:
    """Face sequences of `dice` dice over `faces` faces with no face shown more than `bound`."""
    if faces == 0:
        return int(dice == 0)
    return sum(
        comb(dice, j) * _at_most(faces - 1, dice - j, bound) for j in range(min(bound, dice) + 1)
    )


def fail_splits(reroll: Reroll, faces: int, fails: int) -> list[tuple[int, int, int]]:
    """How `fails` eligible failed dice over `faces` fail faces split, as the mode sees them:
    (ones, most, face sequences), `ones` and `most` left 0 where the mode ignores them."""
    if reroll in ONES_MODES and faces:
        return [(o, 0, comb(fails, o) * (faces - 1) ** (fails - o)) for o in range(fails + 1)]
    if reroll in CEASELESS_MODES and fails:
        ways = [_at_most(faces, fails, m) for m in range(fails + 1)]
        return [(0, m, ways[m] - ways[m - 1]) for m in range(1, fails + 1) if ways[m] > ways[m - 1]]
    return [(0, 0, faces**fails)]


def first_roll(
    dice: int, success: int, critical: int, reroll: Reroll, cursed: bool
) -> dict[tuple[int, int, int, int, int], int]:
    """The first roll as the re-roll mode sees it: (crits, normals kept, fails kept, cursed,
    dice re-rolled) -> number of face sequences (of 6**dice)."""
    pc, pn, pk, pf = face_classes(success, critical, cursed)
    fact = [factorial(i) for i in range(dice + 1)]
    groups: dict[tuple[int, int, int, int, int], int] = {}
    for c in range(dice + 1 if pc else 1):
        for n in range(dice - c + 1 if pn else 1):
            for k in range(dice - c - n + 1 if pk else 1):
                f = dice - c - n - k
                if f and not pf:
                    continue
                ways = fact[dice] // (fact[c] * fact[n] * fact[k] * fact[f]) * pc**c * pn**n
                ways *= pk**k
                for ones, most, split in fail_splits(reroll, pf, f):
                    m = rerolled_count(reroll, f, ones, most, n)
                    normals = n - max(0, m - f)  # only CRIT_FISH re-rolls normals
                    key = (c, normals, f + k - min(m, f), k, m)
                    groups[key] = groups.get(key, 0) + ways * split
    return groups


def _packed(groups: dict[tuple[int, int, int, int, int], int], dice: int, width: int) -> list[int]:
    """The kept dice of the first roll as one integer per number re-rolled (index m): the
    ways of (c, n, k) sit in slot (c·(dice+1) + n)·(K+1) + k, `width` bytes each."""
    cursed = 1 + max((k for _, _, _, k, _ in groups), default=0)
    slots = [bytearray((dice + 1) ** 2 * cursed * width) for _ in range(dice + 1)]
    for (c, n, _, k, m), w in groups.items():
        at = ((c * (dice + 1) + n) * cursed + k) * width
        slots[m][at : at + width] = (w * FACES ** (dice - m)).to_bytes(width, "little")
    return [int.from_bytes(b, "little") for b in slots]


@lru_cache(maxsize=4096)
def roll_counts(
    dice: int, success: int, critical: int, reroll: Reroll, cursed: bool
) -> tuple[dict[Outcome, int], int]:
    """Exact distribution of (Cr, Nr, Fr, K) for `dice` rolled dice (§4), as face sequences
    over one denominator (6**(2·dice): every die may be rolled twice).

    With Curse of Rot each first-roll 3 is a cursed FAIL that is never re-rolled; the re-roll
    mode picks how many dice are re-rolled; re-rolled dice are classified normally (a re-rolled
    3 is not cursed). The kept dice of each number of re-rolls m meet m fresh dice, U**m for
    U = pc·x + pn·y + pf one die: the sum over m is a polynomial in U, evaluated by Horner's
    rule on the slots of one big integer per m (a shift-and-add per die, no product of tables).
    """
    critical = max(critical, success)
    groups = first_roll(dice, success, critical, reroll, cursed)
    denominator = FACES ** (2 * dice)
    width = denominator.bit_length() // 8 + 1
    top_k = max((k for _, _, _, k, _ in groups), default=0)
    packed = _packed(groups, dice, width)
    n_step = (top_k + 1) * width * 8
    c_step = (dice + 1) * n_step
    pc, pn, pf = FACES + 1 - critical, critical - success, success - 1
    total = packed[dice]
    for m in range(dice - 1, -1, -1):
        total = ((total << c_step) * pc + (total << n_step) * pn + total * pf) + packed[m]
    raw = total.to_bytes((dice + 1) ** 2 * (top_k + 1) * width, "little")
    result: dict[Outcome, int] = {}
    for c in range(dice + 1):
        for n in range(dice + 1 - c):
            for k in range(top_k + 1):
                at = ((c * (dice + 1) + n) * (top_k + 1) + k) * width
                ways = int.from_bytes(raw[at : at + width], "little")
                if ways:
                    result[(c, n, dice - c - n, k)] = ways
    return result, denominator


def roll(
    dice: int, success: int, critical: int, reroll: Reroll, cursed: bool
) -> dict[Outcome, Fraction]:
    """`roll_counts` as probabilities (memoised there)."""
    counts, denominator = roll_counts(dice, success, critical, reroll, cursed)
    return {key: Fraction(w, denominator) for key, w in counts.items()}
