"""§3 die classification and §4 rolling: first roll, Curse of Rot and every re-roll mode.

Outcomes depend only on how many dice fall in each class (crit, normal, cursed, eligible
fail), never on an enumeration of faces. The one face-level fact a re-roll mode can need is a
statistic of how the eligible dice split over their faces: how many show 1 (re-roll ones) or
how many show the most common failed face (Ceaseless). Both are counted in closed form per
number of eligible dice; the dice that are not eligible, and the re-rolled dice, are powers
of one-die polynomials (`roll_counts`). The result is memoised on exactly the fields it
depends on: (dice, success, critical, reroll, cursed); the usual rolls are also computed once
at import, with their weights (`roll`), so that a cold shot computes none of them.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, factorial, gcd
from typing import NamedTuple, get_args

import numpy as np

from .allocation import hit_cells, save_cells
from .precision import Weights, counted, slot_words, unpack
from .scenario import MOST_ATTACKS, Reroll

FACES = 6
CURSED_FACE = 3

ONES_MODES = frozenset({"REROLL_ONES", "ONES_AND_BALANCED"})
CEASELESS_MODES = frozenset({"CEASELESS", "CEASELESS_AND_BALANCED"})
NORMALS_MODES = frozenset({"CRIT_FISH"})
"""Modes that re-roll normal successes as well as fails."""
PER_DIE_MODES = frozenset({"NONE", "RELENTLESS", "CRIT_FISH", "REROLL_ONES"})
"""Modes whose choice for a die depends on that die alone (how many it re-rolls is then a
sum over the dice): the dice stay independent, and the roll is a power of one die's."""
BALANCED_STAGES = {
    "BALANCED": 1,
    "DOUBLE_BALANCED": 2,
    "ONES_AND_BALANCED": 1,
    "CEASELESS_AND_BALANCED": 1,
}
"""Modes ending in a Balanced stage, and how many of the eligible fails left after their first
stage (none, every 1, or the most common failed face) it re-rolls (§4.3)."""
HORNER_MODES = frozenset(BALANCED_STAGES) - CEASELESS_MODES
"""The Balanced modes whose first stage is per die: rolled by one Horner's rule over the dice
left over (`_balanced`)."""


def face_classes(success: int, critical: int, cursed: bool) -> tuple[int, int, int, int]:
    """How many faces are CRIT, NORMAL, cursed and eligible FAIL (§3, §4.2).

    With Curse of Rot every 3 of the first roll is a cursed fail, whatever it would have been.
    Callers clamp `critical` to ≥ `success` first (§3: only successes can be critical).
    """
    crit, normal, fail = FACES + 1 - critical, critical - success, success - 1
    if not cursed:
        return crit, normal, 0, fail
    if critical <= CURSED_FACE:
        return crit - 1, normal, 1, fail
    if success <= CURSED_FACE:
        return crit, normal - 1, 1, fail
    return crit, normal, 1, fail - 1


_COUNTED_MODES = frozenset({"NONE", *ONES_MODES, *CEASELESS_MODES, *BALANCED_STAGES})
"""The modes `rerolled_count` counts from the ones and the most common face."""


def rerolled_count(reroll: Reroll, eligible: int, ones: int, most: int) -> int:
    """How many dice each re-roll mode re-rolls (§4.3).

    `eligible` dice may be re-rolled: the failed ones (cursed dice never are), and for the
    modes of NORMALS_MODES (CRIT_FISH) the normal successes too; `ones` of them show a 1,
    `most` show the most common failed face.
    """
    if reroll in ("RELENTLESS", "CRIT_FISH"):
        return eligible
    if reroll not in _COUNTED_MODES:
        raise ValueError(f"unknown re-roll mode {reroll!r}")
    first = ones if reroll in ONES_MODES else most if reroll in CEASELESS_MODES else 0
    return first + min(eligible - first, BALANCED_STAGES.get(reroll, 0))


@lru_cache(maxsize=256)
def at_most(faces: int, dice: int) -> np.ndarray:
    """Row n = 0..dice, column b = 0..dice: the face sequences of n dice over `faces` faces
    with no face shown more than b times (faces**n from b = n on). Shared and read-only."""
    return _at_most_by_faces(faces, dice)[faces]


def _at_most_by_faces(faces: int, dice: int) -> list[np.ndarray]:
    """`at_most` for every count of faces up to `faces`.

    Why a pass over faces: adding a face shown by t of n dice multiplies the count of the
    other n − t by C(n, t), so each bound's counts after one more face are one triangular
    matrix of binomials times the counts before, every bound in one batched product. The
    counts are at most faces**dice: int64 while that fits (every pool the API takes), Python
    ints beyond.
    """
    n = np.arange(dice + 1)
    shown = n[:, None] - n[None, :]  # t = n − n′
    big = faces**dice >= 2**63
    binomials = np.array(
        [[comb(a, b) for b in range(dice + 1)] for a in range(dice + 1)],
        dtype=object if big else np.int64,
    )
    step = np.where(
        (shown >= 0) & (shown <= n[:, None, None]),  # t ≤ bound, each bound along axis 0
        binomials[n[:, None], np.maximum(shown, 0)],
        0,
    ).astype(binomials.dtype)
    counts = np.zeros((dice + 1, dice + 1), dtype=step.dtype)  # [bound, n]
    counts[:, 0] = 1
    tables = []
    for face in range(faces + 1):
        if face:
            counts = np.einsum("bnm,bm->bn", step, counts)
        table = counts.T
        table.flags.writeable = False
        tables.append(table)
    return tables


_AT_MOST = [table.tolist() for table in _at_most_by_faces(FACES - 1, MOST_ATTACKS)]
"""Ceaseless's counts for every count of eligible fail faces (at most 5) and every pool the
API takes, as Python ints, built at import (about 0.1 ms): no memo for a cold roll to fill."""


def fail_splits(reroll: Reroll, faces: int, fails: int, dice: int) -> list[tuple[int, int, int]]:
    """How `fails` eligible failed dice over `faces` fail faces split, as the mode sees them:
    (ones, most, face sequences), `ones` and `most` left 0 where the mode ignores them;
    `dice` ≥ `fails` is the pool's size (one Ceaseless table serves all its fails)."""
    if reroll in ONES_MODES and faces:
        return [(o, 0, comb(fails, o) * (faces - 1) ** (fails - o)) for o in range(fails + 1)]
    if reroll in CEASELESS_MODES and fails:
        table = _AT_MOST[faces] if faces < FACES and dice <= MOST_ATTACKS else None
        ways = table[fails] if table else at_most(faces, dice)[fails].tolist()
        return [(0, m, ways[m] - ways[m - 1]) for m in range(1, fails + 1) if ways[m] > ways[m - 1]]
    return [(0, 0, faces**fails)]


def _rerolled(reroll: Reroll, faces: int, eligible: int, dice: int) -> dict[int, int]:
    """For `eligible` dice (of `faces` faces) of a pool of `dice`: the number re-rolled m ->
    face sequences of those dice, each kept die counted 6 times (its unused second roll)."""
    ways: dict[int, int] = {}
    for ones, most, split in fail_splits(reroll, faces, eligible, dice):
        m = rerolled_count(reroll, eligible, ones, most)
        ways[m] = ways.get(m, 0) + split * FACES ** (eligible - m)
    return ways


CEASELESS_TABULATED = 8
"""The most dice of the Ceaseless rolls whose splits are tabulated at import."""
_CEASELESS_WAYS = {
    (reroll, faces): [
        _rerolled(reroll, faces, fails, MOST_ATTACKS) for fails in range(CEASELESS_TABULATED + 1)
    ]
    for reroll in CEASELESS_MODES
    for faces in range(FACES)
}
"""`_rerolled` of the Ceaseless modes for every count of fail faces and up to
CEASELESS_TABULATED eligible dice, built at import (about 0.2 ms): Ceaseless reads its counts
from one table for every pool the API takes (`_AT_MOST`), so they do not depend on its size."""


def _by_eligible(reroll: Reroll, faces: int, dice: int) -> list[dict[int, int]]:
    """`_rerolled` for 0..`dice` eligible dice of `faces` faces, Ceaseless's read from the
    table built at import (`_CEASELESS_WAYS`)."""
    row = _CEASELESS_WAYS.get((reroll, faces)) if dice <= CEASELESS_TABULATED else None
    if row is not None:
        return row[: dice + 1]
    return [_rerolled(reroll, faces, f, dice) for f in range(dice + 1)]


Die = tuple[tuple[int, int], ...]
"""A one-die polynomial on packed integers: (shift in bits of the class's slot, faces)."""


def _times(packed: int, die: Die) -> int:
    """`packed` times a one-die polynomial: a shift-and-add per class, linear in its size
    (a product of two packed integers would be quadratic); a plain loop, no generator."""
    total = 0
    for shift, faces in die:
        if faces:
            total += faces * (packed << shift)
    return total


class Rolled(NamedTuple):
    """The outcomes of a roll, as columns: crits, normals, fails (cursed dice included) and
    cursed dice, and `ways`, the face sequences of each over `den` (6**(2·dice), or less when
    a factor common to every way is divided out; int64 while `den` fits, Python ints in an
    object array beyond). The columns are every count the dice allow
    (`simplex`), shared and read-only: an outcome the faces cannot make has 0 ways."""

    crits: np.ndarray
    normals: np.ndarray
    fails: np.ndarray
    cursed: np.ndarray
    ways: np.ndarray
    den: int
    chances: tuple[Weights, Weights] | None = None
    """`ways` over `den` as weights in each precision, (float, exact), for the rolls read from
    the table built at import (`roll`); None for the others, whose pools count them."""
    kept_as: tuple[Kept, Kept] | None = None
    """The roll kept as it is, as hits and as saves (`as_hits`, `as_saves`), each with its
    allocation cells, built with the rolls of the table (`roll`): most attacks and defences
    keep their roll, and a cold shot then builds no `Kept` and finds no cells for them."""

    def kept(self, crits: np.ndarray, normals: np.ndarray, cells: np.ndarray | None = None) -> Kept:
        """The same outcomes after a stage that changed their crits and normals."""
        return Kept(crits, normals, self.cursed, self.ways, self.den, self.chances, cells)

    def as_hits(self) -> Kept:
        """The same outcomes as hits, after a stage that changed no crit and no normal."""
        return self.kept_as[0] if self.kept_as else self.kept(self.crits, self.normals)

    def as_saves(self) -> Kept:
        """The same outcomes as saves, after a stage that changed no crit and no normal."""
        return self.kept_as[1] if self.kept_as else self.kept(self.crits, self.normals)


class Kept(NamedTuple):
    """One side's outcomes after §5 (retained crits and normals) or §6 (crit and normal
    saves), one entry per rolled outcome: two entries may now agree, and every later step
    being per entry, summing them would cost more than it saves."""

    crits: np.ndarray
    normals: np.ndarray
    cursed: np.ndarray
    ways: np.ndarray
    den: int
    chances: tuple[Weights, Weights] | None = None
    """The roll's weights in each precision, when it has them (`Rolled.chances`)."""
    cells: np.ndarray | None = None
    """The allocation cells of (crits, normals) when a table holds them: hit cells for an
    attack's (`allocation.hit_cells`), save cells for a defence's (`save_cells`); None, and
    the side's pool finds them."""


class Simplex(NamedTuple):
    """Every outcome (c, n, k) of `dice` dice, c + n + k ≤ dice, as columns with its fails
    and its slot in a packed roll, and that packing (see `roll_counts`): the denominator
    6**(2·dice), the slots and their 64-bit words, and the bit shifts of one crit, one normal
    and one cursed die."""

    slot: np.ndarray
    crits: np.ndarray
    normals: np.ndarray
    fails: np.ndarray
    cursed: np.ndarray
    den: int
    slots: int
    words: int
    shifts: tuple[int, int, int]


def simplex(dice: int, cursed: bool, normals: bool) -> Simplex:
    """The outcomes a roll of `dice` dice can have: with cursed dice only under Curse of Rot
    and normal successes only when some uncursed face is one (critical above success)."""
    k_slots = dice + 1 if cursed else 1
    c, n, k = (a.ravel() for a in np.indices((dice + 1, dice + 1 if normals else 1, k_slots)))
    inside = c + n + k <= dice
    c, n, k = c[inside], n[inside], k[inside]
    columns = ((c * (dice + 1) + n) * k_slots + k, c, n, dice - c - n, k)
    for column in columns:
        column.flags.writeable = False
    den = FACES ** (2 * dice)
    words = slot_words(den)
    z = 64 * words
    y = z * k_slots
    return Simplex(*columns, den, (dice + 1) ** 2 * k_slots, words, (y * (dice + 1), y, z))


def outcomes_key(dice: int, success: int, critical: int, cursed: bool) -> tuple[int, bool, bool]:
    """The outcomes (`simplex`) of a roll: (dice, cursed, normals), normal successes only when
    the critical threshold is above the success one (`roll_counts` clamps it to ≥ success)."""
    return dice, cursed, critical > success


SIMPLICES = {  # every pool the API takes, built at import: no memo for a cold roll to fill
    (dice, cursed, normals): simplex(dice, cursed, normals)
    for dice in range(MOST_ATTACKS + 1)
    for cursed in (False, True)
    for normals in (False, True)
}


def _pool_of_dice(dice: int, kept: Die, rerolled: Die, by_eligible: list[dict[int, int]]) -> int:
    """Σ C(dice, f) · ways(f, m) · A**(dice − f) · U**m over f eligible dice and m re-rolled,
    packed (see `roll_counts`), by Horner's rule in A: each coefficient of A is a sum of a few
    small multiples of U's powers, so the roll costs one shift-and-add a die and one a power
    of U, linear in the roll's size."""
    powers = [1]  # U**m
    for _ in range(max(max(ways, default=0) for ways in by_eligible)):
        powers.append(_times(powers[-1], rerolled))
    total = 0
    for f in range(dice + 1):
        coefficient = sum([w * powers[m] for m, w in by_eligible[f].items()])
        total = (_times(total, kept) if f else 0) + comb(dice, f) * coefficient
    return total


def _balanced(dice: int, kept: Die, left: int, rerolled: Die, extra: int) -> int:
    """The packed roll of `dice` dice, each `kept` (its first-stage outcome: not eligible, or
    re-rolled by the per-die stage) or an eligible fail left over (`left` faces), when a
    Balanced stage then re-rolls min(g, `extra`) of the g dice left over.

    Why Horner's rule in K = `kept`: the roll is Σ_g C(dice, g) · left**g · K**(dice − g) ·
    6**(g − r) · U**r, r = min(g, extra) (each die left over but not re-rolled counted 6 times,
    its unused second roll), so each coefficient of K is a small multiple of U**r and the sum
    is one shift-and-add a die, linear in the roll's size (a power of K would be quadratic).
    """
    powers = [1]  # U**r
    for _ in range(min(dice, extra)):
        powers.append(_times(powers[-1], rerolled))
    total = 1
    for g in range(1, dice + 1):
        r = min(g, extra)
        total = _times(total, kept) + comb(dice, g) * left**g * FACES ** (g - r) * powers[r]
    return total


def per_die(success: int, critical: int, reroll: Reroll, cursed: bool) -> tuple[int, int, int, int]:
    """One die of a mode of PER_DIE_MODES as (crit, normal, cursed, fail) face sequences of its
    two rolls, over 36: a die not re-rolled counts 6 times (its unused second roll), an
    eligible die re-rolled counts its new faces (uncursed); `critical` ≥ `success`."""
    pc, pn, pk, pf = face_classes(success, critical, cursed)
    uc, un, _, uf = face_classes(success, critical, cursed=False)
    normals_eligible = reroll in NORMALS_MODES
    kept_normals = 0 if normals_eligible else FACES * pn
    one = _rerolled(reroll, pf + pn if normals_eligible else pf, 1, 1)  # m -> ways
    kept, rerolled = one.get(0, 0), one.get(1, 0)  # an eligible die's two fates
    return (
        FACES * pc + rerolled * uc,
        kept_normals + rerolled * un,
        FACES * pk,
        kept + rerolled * uf,
    )


_DIES = {
    (success, critical, reroll, cursed): per_die(success, critical, reroll, cursed)
    for success in range(2, FACES + 1)
    for critical in range(success, FACES + 1)
    for reroll in PER_DIE_MODES
    for cursed in (False, True)
}
"""Every per-die die the API's thresholds make, built at import (120 of them): a cold roll
reads its die rather than classifying faces."""


_FACTORIALS = np.array([factorial(n) for n in range(MOST_ATTACKS + 1)], dtype=object)
_SMALL_FACTORIALS = _FACTORIALS.astype(np.int64)  # 20! < 2**63


def _power(dice: int, outcomes: Simplex, die: tuple[int, int, int, int]) -> tuple[np.ndarray, int]:
    """The coefficients of (crit·x + normal·y + cursed·z + fail)**dice over `outcomes`, `die`
    being (crit, normal, cursed, fail), and their denominator: the ways of a roll whose dice
    are independent.

    Why three ways to read one power: while a slot fits one 64-bit word (12 dice or fewer) the
    packed integer's power and one unpacking are a few C calls. Beyond, its squarings grow
    quadratically, and the multinomial theorem, dice! / (c! n! k! f!) · crit**c · normal**n ·
    cursed**k · fail**f, costs a few operations on arrays of the outcomes instead: int64 ones
    when the die's common factor g (6 when nothing is re-rolled) divides out of every way and
    leaves a denominator 6**(2·dice) / g**dice below 2**53 (every count then an int64 that
    floats read as exactly as the Python int before), else object arrays of Python ints (20
    dice: 56 µs rather than 220 for the power).
    """
    if outcomes.words == 1:
        x, y, z = outcomes.shifts
        crit, normal, cursed, fail = die
        packed = (crit << x) + (normal << y) + (cursed << z) + fail
        return unpack(packed**dice, outcomes.slots, 1).take(outcomes.slot), outcomes.den
    common, den = gcd(*die), outcomes.den
    if dice <= MOST_ATTACKS and den // common**dice < 2**53:
        die, den = tuple(base // common for base in die), den // common**dice
        factorials = _SMALL_FACTORIALS
    elif dice <= MOST_ATTACKS:
        factorials = _FACTORIALS
    else:
        factorials = np.array([factorial(n) for n in range(dice + 1)], dtype=object)
    counts = (outcomes.crits, outcomes.normals, outcomes.cursed, outcomes.fails - outcomes.cursed)
    ways = factorials[dice] // np.prod([factorials[count] for count in counts], axis=0)
    for base, count in zip(die, counts, strict=True):
        if base != 1 and count.any():
            powers = np.array([base**e for e in range(dice + 1)], dtype=factorials.dtype)
            ways = ways * powers[count]
    return ways, den


@lru_cache(maxsize=4096)
def roll_counts(dice: int, success: int, critical: int, reroll: Reroll, cursed: bool) -> Rolled:
    """Exact distribution of (Cr, Nr, Fr, K) for `dice` rolled dice (§4), as face sequences
    over one denominator (6**(2·dice): every die may be rolled twice; see `_power` for when
    it is less).

    With Curse of Rot each first-roll 3 is a cursed FAIL that is never re-rolled; the re-roll
    mode picks how many of the eligible dice are re-rolled; re-rolled dice are classified
    normally (a re-rolled 3 is not cursed).

    Why polynomials: the dice that cannot be re-rolled are independent of the rest, one die
    being A = 6·(pc·x + pn·y + pk·z) (6: its unused second roll), and a re-rolled die is
    U = pc·x + pn·y + pf, its faces uncursed. So the roll is, over f eligible dice and m
    re-rolled, Σ C(dice, f) · ways(f, m) · A**(dice − f) · U**m: a polynomial in (x, y, z)
    whose coefficients are the counts. Each polynomial is one integer with a slot of whole
    64-bit words per monomial x**c·y**n·z**k (Kronecker substitution), and the slots are read
    at once at the end. When each eligible die's fate is its own (PER_DIE_MODES), ways(f, ·)
    is the f-th power of one die's and the sum is (A + V)**dice, V = Σ_m ways(1, m) · U**m:
    one big-integer power, or beyond one word a slot its multinomial coefficients (`_power`).
    """
    key = outcomes_key(dice, success, critical, cursed)
    outcomes = SIMPLICES.get(key) or simplex(*key)
    critical = max(critical, success)
    if reroll in PER_DIE_MODES:
        key = (success, critical, reroll, cursed)
        ways, den = _power(dice, outcomes, _DIES.get(key) or per_die(*key))
    else:
        den = outcomes.den
        pc, pn, pk, pf = face_classes(success, critical, cursed)
        uc, un, _, uf = face_classes(success, critical, cursed=False)
        normals_eligible = reroll in NORMALS_MODES
        kept_normals = 0 if normals_eligible else FACES * pn
        eligible = pf + pn if normals_eligible else pf
        x, y, z = outcomes.shifts
        kept_die: Die = ((x, FACES * pc), (y, kept_normals), (z, FACES * pk))
        rerolled_die: Die = ((x, uc), (y, un), (0, uf))
        if reroll in HORNER_MODES:
            ones = int(reroll in ONES_MODES and eligible > 0)  # a 1 is re-rolled in stage 1
            if ones:
                kept_die = ((x, FACES * pc + uc), (y, kept_normals + un), (z, FACES * pk), (0, uf))
            extra = BALANCED_STAGES[reroll]
            total = _balanced(dice, kept_die, eligible - ones, rerolled_die, extra)
        else:
            by_eligible = _by_eligible(reroll, eligible, dice)
            total = _pool_of_dice(dice, kept_die, rerolled_die, by_eligible)
        ways = unpack(total, outcomes.slots, outcomes.words).take(outcomes.slot)
    return Rolled(outcomes.crits, outcomes.normals, outcomes.fails, outcomes.cursed, ways, den)


TABULATED_DICE = 8
"""The most dice of the rolls without re-rolls tabulated at import (`roll`): every defence
roll the API's usual defenders make and nine attacks in ten of bench_shoot's."""
TABULATED_REROLL_DICE = 6
"""The most dice of the tabulated re-roll rolls: every defence roll (3 dice, or 2 in cover)
and three re-rolled attacks in four of bench_shoot's. Up to 6 dice the eight modes cost about
6 ms at import, up to 8 about 10 ms (a Ceaseless roll of 8 dice costs 2.5 times one of 4),
over the budget of 8 ms for a sixth of the attacks."""
TABULATED_CRITICALS = (5, 6)
"""The critical thresholds of the tabulated rolls (Lethal 5+ and none; a crit save on 5+ or
6): a threshold at or below the success one reads the roll without normal successes."""
TABULATED_CURSED_DICE = 3
"""The most dice of the tabulated cursed rolls without re-rolls: Curse of Rot curses the
defence dice (3, or 2 in cover, for nine defenders in ten), and a cursed roll has up to three
times the outcomes: up to 3 dice cost about 0.3 ms at import, up to 5 about 0.6 ms."""
TABULATED: dict[tuple[Reroll, bool], int] = {
    ("NONE", False): TABULATED_DICE,
    **{(reroll, False): TABULATED_REROLL_DICE for reroll in get_args(Reroll) if reroll != "NONE"},
    ("NONE", True): TABULATED_CURSED_DICE,
}
"""The tabulated rolls, (re-roll mode, Curse of Rot) -> their most dice: every mode uncursed,
and cursed defence dice without re-rolls. Other cursed rolls and Lethal 2+ to 4+ are computed
when asked for."""


def _same_rolls(dice: int, success: int, critical: int, reroll: Reroll, cursed: bool) -> tuple:
    """A key shared by the tabulated rolls that are one roll, so the table computes it once:
    no dice roll alike; a per-die mode's roll is a power of its die (`per_die`), which several
    modes share (CRIT_FISH without normal successes, REROLL_ONES on a 2+); a mode that re-rolls
    every eligible die of a pool this size (Balanced or Ceaseless on one die) rolls as
    RELENTLESS does. `critical` ≥ `success`."""
    if not dice:
        return (cursed,)
    if reroll in PER_DIE_MODES:
        return dice, _DIES[success, critical, reroll, cursed]
    fails = face_classes(success, critical, cursed)[3]  # no mode here re-rolls normals
    every = (_rerolled(reroll, fails, f, dice) == {f: fails**f} for f in range(dice, -1, -1))
    if all(every):  # most eligible dice first: the likeliest to leave one unrolled
        return _same_rolls(dice, success, critical, "RELENTLESS", cursed)
    return dice, success, critical, reroll, cursed


def _tabulated() -> dict[tuple[int, int, int, Reroll, bool], Rolled]:
    """`roll_counts` of every roll of TABULATED with a critical threshold of
    TABULATED_CRITICALS, each with its weights in both precisions (`precision.counted`), keyed
    as `roll` is called: a critical threshold at or below the success one (clamped by
    `roll_counts`) shares the roll of critical = success, and rolls that are one roll
    (`_same_rolls`) share it.

    Why these: they are most of a shot's rolls (a cold shot rolls twice), a roll costs 3 µs
    (no re-roll) to 20 µs (Ceaseless of 6 dice) and `counted` 4 µs more in both precisions,
    and the 420 distinct ones cost about 7 ms at import (73 without re-rolls about 1 ms)."""
    table: dict[tuple[int, int, int, Reroll, bool], Rolled] = {}
    built: dict[tuple, Rolled] = {}
    cells: dict[tuple[int, bool, bool], tuple[np.ndarray, np.ndarray]] = {}  # by outcomes
    for (reroll, cursed), most in TABULATED.items():
        for dice in range(most + 1):
            for success in range(2, FACES + 1):
                for critical in sorted({max(c, success) for c in TABULATED_CRITICALS}):
                    same = _same_rolls(dice, success, critical, reroll, cursed)
                    rolled = built.get(same)
                    if rolled is None:
                        rolled = roll_counts.__wrapped__(dice, success, critical, reroll, cursed)
                        key = outcomes_key(dice, success, critical, cursed)
                        if key not in cells:
                            cells[key] = _cells(rolled.crits, rolled.normals)
                        rolled = built[same] = _with_chances(rolled, cells[key])
                    for asked in range(2, critical + 1) if critical == success else (critical,):
                        table[dice, success, asked, reroll, cursed] = rolled
    return table


def _cells(crits: np.ndarray, normals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The allocation cells of a roll's outcomes as hits and as saves, read-only: shared by
    every roll of those outcomes (`simplex`)."""
    both = hit_cells(crits, normals), save_cells(crits, normals)
    for column in both:
        column.flags.writeable = False
    return both


def _with_chances(rolled: Rolled, cells: tuple[np.ndarray, np.ndarray]) -> Rolled:
    """`rolled` with its weights in both precisions, and kept as it is as hits and as saves
    with their `cells` (`as_hits`, `as_saves`), read-only: shared by every shot."""
    chances = counted(rolled.ways, rolled.den, False), counted(rolled.ways, rolled.den, True)
    chances[0].num.flags.writeable = chances[1].num.flags.writeable = False
    rolled = Rolled(*rolled[:6], chances)
    hits, saves = (rolled.kept(rolled.crits, rolled.normals, side) for side in cells)
    return Rolled(*rolled[:7], (hits, saves))


_ROLLS = _tabulated()


def roll(dice: int, success: int, critical: int, reroll: Reroll, cursed: bool) -> Rolled:
    """`roll_counts`, with its weights, for the usual rolls, read from the table built at
    import (`_tabulated`): no memo for a cold shot to fill. The others are `roll_counts`'."""
    key = (dice, success, critical, reroll, cursed)
    return _ROLLS.get(key) or roll_counts(*key)
