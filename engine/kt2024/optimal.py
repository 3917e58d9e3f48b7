"""OPTIMAL (§9.8): backward induction over the whole battle, on the wounds grid.

The value of a wound-free moment, from fighter A's side, is the pair (U, D) at every cell of the
(wounds A, wounds B) grid: U = P(B ends at 0) − P(A ends at 0), D = E[A's final wounds − B's
final wounds]. A maximises it, B minimises it (its own U and D are the negatives, so OPTIMAL vs
OPTIMAL is zero-sum expectiminimax); a heuristic mover plays its §9.5 choice. Ties fall to the
earlier candidate of §9.8 O4.

The policy is the exact one in both precisions (O4), but values are not carried as big
integers: each is a float64 and its residues modulo a few primes below 2**31 (all arithmetic of
the values is linear, with odds a / 6**d as a·6**-d modulo each prime). The exact value of a
moment with t unresolved successes (both fighters) and `left` sequences to play is a numerator
over 6**(depth·t + (left − 1)·step) (`depth` and `step` as in `chain.Precision`), shared by
every candidate there. Floats order two candidates whose gap is wide; for close ones the
residues give the exact difference of the numerators, which is small enough to be recovered
whole from them (`Optimal._wins`).
"""

from __future__ import annotations

from math import ceil, prod

import numpy as np

from engine.errors import InputError

from .fight_state import CERTAIN, Moment, Odds
from .grid import CODE, Choice, Grid, total
from .sequence import Sequence
from .weights import power6

STATE_BUDGET = 60_000
"""The most (moment, sequences left) values OPTIMAL may hold at once in one fight."""

MEMORY_BUDGET = 384 * 2**20
"""Bytes those values may take: each is U and D over the wounds grid, as floats and modulo a
few primes (8 bytes a number). The values of a sequence are dropped once the sequence before
it has taken its start values, so about one sequence's values are held at a time. Measured at
the §12 maxima (8 dice a side, 30 wounds, 5 sequences, no Feel No Pain or Relics): OPTIMAL
against MAX_DAMAGE 5.8 s CPU and a peak RSS of 547 MB, OPTIMAL against OPTIMAL 8.3 s and
565 MB (exact: 9.9 s, 652 MB); with Feel No Pain and Relics it is refused after about 2 s.
Fights needing more are refused rather than left to exhaust the process."""

Value = tuple[np.ndarray, np.ndarray]
"""From A's side over the flat wounds grid: (U and D as floats, shape (2, cells); U and D
modulo each prime of `primes`, shape (2, primes, cells))."""


Branch = tuple[float | None, np.ndarray | None, Moment, np.ndarray | None]
"""(odds as a float and as residues, None when certain; next moment; the flat cells each cell
moves to, None when no damage is dealt) of one outcome."""

TOLERANCE = np.array([1e-9, 1e-7])
"""Gaps in U and in D beyond which the float values of two candidates order them as their exact
values do. Float error stays far below (every value is a convex combination of at most a few
thousand terms of magnitude ≤ 1 for U, ≤ 30 for D, at most a few hundred levels deep)."""

PRIMES = (
    2147483647, 2147483629, 2147483587, 2147483579, 2147483563, 2147483549, 2147483543,
    2147483497, 2147483489, 2147483477, 2147483423, 2147483399, 2147483353, 2147483323,
    2147483269, 2147483249, 2147483237, 2147483179, 2147483171, 2147483137, 2147483123,
    2147483077, 2147483069, 2147483059, 2147483053, 2147483033, 2147483029, 2147482951,
    2147482949, 2147482943, 2147482937, 2147482921, 2147482877, 2147482873, 2147482867,
    2147482859, 2147482819, 2147482817, 2147482811, 2147482801, 2147482763, 2147482739,
    2147482697, 2147482693, 2147482681, 2147482663, 2147482661, 2147482621,
)  # fmt: skip
"""The largest primes below 2**31: residues times residues fit int64. Values are also kept
modulo some of them, so that two close float values can be told equal exactly."""


def primes_for(bound: int) -> tuple[int, ...]:
    """The first of `PRIMES` whose product is above 2·`bound`: enough for any §12 fight (its
    largest exponent of 6 is below 500)."""
    product, count = 1, 0
    while product <= 2 * bound:
        product *= PRIMES[count]
        count += 1
    return PRIMES[:count]


class Optimal:
    """The OPTIMAL fighters' choices in one fight, solved on demand and memoised.

    Values are solved over every cell of the grid at once, per wound-free moment and
    sequences left, and memoised; a sequence's values are dropped once the sequence before it
    has taken its start values (only the choices are kept).
    """

    def __init__(
        self,
        sequence: Sequence,
        grid: Grid,
        depth: int,
        step: int,
        rounds: int,
    ) -> None:
        # no reference back to the chain: a cycle would leave every memo of the fight to the
        # cyclic collector, which then walks millions of young objects at once
        self.sequence, self.grid, self.depth, self.step = sequence, grid, depth, step
        a, b = grid.wounds
        u, d = (b == 0).astype(np.int64) - (a == 0), a - b
        # numerators of close values differ by less than 2·TOLERANCE·6**(largest exponent)
        primes = primes_for(ceil(2 * TOLERANCE.max() * 2**32) * power6(rounds * step) >> 32)
        self.primes = np.array(primes, dtype=np.int64)[:, None]
        self.modulus = prod(primes)
        self.crt = (primes, [self.modulus // p * pow(self.modulus // p, -1, p) for p in primes])
        self.ended: Value = (
            np.stack([u, d]).astype(float),
            np.stack([u % self.primes, d % self.primes]),
        )
        self._residues: dict[Odds, np.ndarray] = {}
        self.dead = (a == 0) | (b == 0)
        self.alive = ~self.dead
        self._values: dict[tuple[Moment, int], Value] = {}
        size = len(self.dead) * 8 * 2 * (1 + len(self.primes))
        self.budget = min(STATE_BUDGET, MEMORY_BUDGET // size)
        self._choices: dict[tuple[Moment, int], Choice] = {}
        self._starts: dict[tuple[tuple[int, int], int], Value] = {}
        self._branches: dict[tuple[Moment, int], tuple[Branch, ...]] = {}

    def choice(self, moment: Moment, left: int) -> Choice:
        """The OPTIMAL mover's choice at every cell, `left` sequences to play."""
        key = (moment, left)
        if key not in self._choices:
            self.value(moment, left)
        return self._choices[key]

    def branches(self, moment: Moment, code: int) -> tuple[Branch, ...]:
        """The outcomes of the mover's action `code` (−1: no Duelist parry)."""
        key = (moment, code)
        found = self._branches.get(key)
        if found is None:
            found = tuple(
                (
                    None if odds == CERTAIN else odds[0] / power6(odds[1]),
                    None if odds == CERTAIN else self.residue(odds),
                    nxt,
                    self.grid.shift(moment.active, dmg) if dmg else None,
                )
                for odds, nxt, dmg in self.grid.steps(moment, code)
            )
            self._branches[key] = found
        return found

    def candidates(self, moment: Moment, left: int) -> tuple[bool, Choice]:
        """(whether the mover is OPTIMAL, its codes per cell and the codes that occur); an
        OPTIMAL mover's codes are its candidates, in the tie-break order of §9.8 O4."""
        seq = self.sequence
        if seq.fighters[moment.active].strategy == "OPTIMAL":
            return True, (None, tuple(CODE[a] if a else -1 for a in seq.candidates(moment)))
        codes, present = self.grid.heuristic(moment)
        return False, (codes, tuple(dict.fromkeys(present)))

    def value(self, moment: Moment, left: int) -> Value:
        """(U, D) in floats and residues at every cell."""
        key = (moment, left)
        known = self._values.get(key)
        if known is not None:
            return known
        if len(self._values) >= self.budget:
            raise self.too_large()
        pair = moment.pair
        if not moment.duel and total(pair) == 0:  # over: the next sequence, or the end
            value = self.ended
            if left > 1:
                nf, nr = self.start((pair[0].relics_used, pair[1].relics_used), left - 1)
                value = (np.where(self.dead, value[0], nf), np.where(self.dead, value[1], nr))
            self._values[key] = value
            return value
        optimal, (codes, present) = self.candidates(moment, left)
        value = self._after(moment, present[0], left)
        if optimal:
            best = None
            for code in present[1:]:
                q = self._after(moment, code, left)
                so_far = present[0] if best is None else best
                wins = self._wins(moment, left, q, value)
                if np.count_nonzero(wins):
                    value = (np.where(wins, q[0], value[0]), np.where(wins, q[1], value[1]))
                    best = np.where(wins, code, so_far)
            if best is not None:  # codes −1..3: one byte a cell
                best = best.astype(np.int8)
            self._choices[key] = (best, present if best is not None else present[:1])
        else:
            for code in present[1:]:
                q, match = self._after(moment, code, left), codes == code
                value = (np.where(match, q[0], value[0]), np.where(match, q[1], value[1]))
        self._values[key] = value
        return value

    def _wins(self, moment: Moment, left: int, q: Value, value: Value) -> np.ndarray:
        """Where a candidate (value q) beats the best so far (`value`) for the mover,
        comparing U, then D, exactly.

        Floats order two values whose gap exceeds `TOLERANCE`. For closer ones the residues
        give the exact difference of their numerators over the moment's power of 6: it is
        below half the product of the primes, so the Chinese remainder theorem recovers it
        with its sign."""
        sign = 1 if moment.active == 0 else -1
        (fq, rq), (fv, rv) = q, value
        gap = fq - fv if sign == 1 else fv - fq
        apart = np.abs(gap) > TOLERANCE[:, None]
        equal = (rq == rv).all(axis=1)  # U, D exactly equal, per cell
        close = self.alive & ~apart[0]
        tied = close & equal[0]
        wins = (apart[0] & (gap[0] > 0)) | (tied & apart[1] & (gap[1] > 0))
        # exact differences where U differs closely, or U ties and D differs closely
        for row, exact in ((0, close & ~equal[0]), (1, tied & ~apart[1] & ~equal[1])):
            if np.count_nonzero(exact):
                cells = np.flatnonzero(exact)
                difference = self.differences(rq[row][:, cells] - rv[row][:, cells], moment, left)
                wins[cells] = difference * sign > 0
        return wins

    def differences(self, residues: np.ndarray, moment: Moment, left: int) -> np.ndarray:
        """The exact differences of numerators whose values differ by `residues` (primes ×
        cells) at a moment: each the integer n with |n| < M / 2 (M the product of the
        primes) and these residues times 6**exponent."""
        exponent = self.depth * total(moment.pair) + (left - 1) * self.step
        primes, weights = self.crt
        scale = np.array([pow(6, exponent, p) for p in primes], dtype=np.int64)[:, None]
        residues = residues % self.primes * scale % self.primes
        out = []
        for column in residues.T.tolist():
            n = sum(r * w for r, w in zip(column, weights, strict=True)) % self.modulus
            out.append(n - self.modulus if 2 * n > self.modulus else n)
        return np.sign(np.array(out, dtype=object)).astype(np.int64)

    def _after(self, moment: Moment, code: int, left: int) -> Value:
        """The value of the mover's action `code` at every cell."""
        f = r = None
        for odds, residue, nxt, shift in self.branches(moment, code):
            vf, vr = self.value(nxt, left)
            if shift is not None:
                vf, vr = vf.take(shift, axis=1), vr.take(shift, axis=2)
            if odds is not None:
                vf, vr = vf * odds, vr * residue % self.primes
            if f is None:
                f, r = vf, vr
            else:
                f, r = f + vf, r + vr
                r %= self.primes
        return (f, r)

    def start(self, relics: tuple[int, int], left: int) -> Value:
        """The value of a sequence about to be rolled (F1), at every cell."""
        key = (relics, left)
        known = self._starts.get(key)
        if known is not None:
            return known
        f = r = None
        for odds, moment, shift in self.openings(relics):
            vf, vr = self.value(moment, left)
            vf = vf.take(shift, axis=1) * (odds[0] / power6(odds[1]))
            vr = vr.take(shift, axis=2) * self.residue(odds) % self.primes
            f, r = (vf, vr) if f is None else (f + vf, r + vr)
        self._starts[key] = (f, r % self.primes)
        # the sequence's values served this start; what later starts need comes back on demand
        self._values = {k: v for k, v in self._values.items() if k[1] != left}
        return self._starts[key]

    def residue(self, odds: Odds) -> np.ndarray:
        """a / 6**d modulo each prime, shaped to multiply residues."""
        found = self._residues.get(odds)
        if found is None:
            a, d = odds
            found = self._residues[odds] = np.array(
                [a * pow(6, -d, p) % p for p in self.primes.ravel().tolist()], dtype=np.int64
            )[:, None]
        return found

    def openings(self, relics: tuple[int, int]) -> list[tuple[Odds, Moment, np.ndarray]]:
        """Per joint roll: its odds, the moment opening F3 and F2's curse move of the cells."""
        return [
            (odds, moment, self.grid.hurt(*curse))
            for odds, curse, moment in self.grid.openings(relics)
        ]

    def too_large(self) -> InputError:
        side = "fighterA" if self.sequence.fighters[0].strategy == "OPTIMAL" else "fighterB"
        return InputError(
            "LIMIT_EXCEEDED",
            f"{side}.strategy",
            f"OPTIMAL would have to hold more than {self.budget} fight states for these "
            "attacks, wounds and rounds; use fewer of them or a heuristic strategy",
            self.budget,
        )
