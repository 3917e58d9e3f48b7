"""The real resolution of a fight (§9.7) on the wounds grid: probability mass pushed forward.

Each sequence pushes the mass of its starting wounds (per relics used) through the wound-free
moments of `grid` in an order in which every move goes to a later moment (each move uses up a
success, each F3 step passes to the next), so a moment's mass is complete when it is taken:
it splits by the mover's choice at each cell, by the odds of the action's outcomes, and shifts
by the damage dealt. Mass at a cell where a fighter falls leaves at once; the rest ends with
both standing and starts the next sequence.
"""

from __future__ import annotations

import heapq
import itertools
from fractions import Fraction
from typing import Any

import numpy as np

from .fight_state import CERTAIN, Moment, Odds, Status
from .fighter import Fight
from .grid import Choice, Grid, too_large, total
from .optimal import Optimal
from .sequence import Sequence
from .strike import strike_dice
from .weights import power6

MASS_BUDGET = 512 * 2**20
"""Bytes the masses of the moments still to be taken may hold at once in one sequence. Relics
multiply the moments (relics used this sequence and in all, per fighter), and exact masses
near the §12 maxima are arrays of 800-bit integers: 5 sequences of 8 dice a side at 30
wounds with Feel No Pain and Relics on both sides held 3 GB in exact mode (87 s of CPU time)
before this budget, 380 MB in float mode; exact, it is now refused after about 2 s."""

WORK_BUDGET = 1_500_000_000
"""Cell operations (cells × 64-bit words per number, per pushed mass) one fight may spend.
Measured at the §12 maxima in float mode: Feel No Pain and Relics on both sides 0.78·10⁹
(10 s of CPU time), with most flag rules too 0.90·10⁹ (13 s); beyond this budget (about 20 s)
a request is refused rather than left computing for minutes."""


class Precision:
    """The chain's arithmetic, one code path for both precisions (§10).

    Float: probabilities as float64. Exact: integer numerators over one power of 6 per
    sequence. A move from a state with t unresolved successes (both fighters) to one with t′
    multiplies by its odds a / 6**d; written over 6**(depth·(t − t′)) — `depth` being the most
    Relic and Feel No Pain dice one strike can roll, never less than d per success used up —
    every mass of a state with t successes shares the denominator 6**(base + depth·(top − t)).
    Numerators fit int64 when the whole fight's denominator does, else they are Python ints.
    """

    def __init__(self, sequence: Sequence, exact: bool, rounds: int) -> None:
        self.exact = exact
        self.depth = strike_dice(sequence.fighters)
        self.top = max(ca + na + cb + nb for _, (ca, na, _), (cb, nb, _) in sequence.rolls)
        """The most unresolved successes a sequence opens with (both fighters)."""
        self.roll_depth = sequence.rolls[0][0][1]
        """The dice of F1 and F2: every joint roll's odds are over 6**roll_depth."""
        self.step = step = self.roll_depth + self.depth * self.top
        """The exponent of 6 one sequence adds to the denominator."""
        self.dtype: Any = np.int64 if exact else float
        self.words = 1  # 64-bit words per number, at most
        if exact and power6(step * rounds) >= 2**63:
            self.dtype = object
            self.words = 2 + power6(step * rounds).bit_length() // 64  # object header too

    def zeros(self, shape: tuple[int, ...]) -> np.ndarray:
        return np.zeros(shape, dtype=self.dtype)

    def factor(self, odds: Odds, grow: int) -> float | int:
        """The factor of a mass for odds, its denominator's exponent growing by `grow` (≥
        the odds')."""
        if not self.exact:
            return 1 if odds == CERTAIN else odds[0] / power6(odds[1])
        return odds[0] * power6(grow - odds[1])

    def scale(self, mass: np.ndarray, odds: Odds, grow: int) -> np.ndarray:
        """`mass` times odds, its denominator's exponent growing by `grow`."""
        factor = self.factor(odds, grow)
        return mass if factor == 1 else mass * factor

    def lift(self, mass: np.ndarray, left: int) -> np.ndarray:
        """A mass of a state with `left` successes over the sequence's final denominator."""
        return mass * power6(self.depth * left) if self.exact and self.depth and left else mass


class Chain:
    """The real resolution (§9.7) of a fight, mass pushed over the wounds grid; OPTIMAL
    fighters take the choices `optimal.Optimal` solves, the others their §9.5 choices."""

    def __init__(self, fight: Fight, sequence: Sequence, exact: bool) -> None:
        self.sequence = sequence
        self.grid = grid = Grid(fight, sequence)
        self.first = sequence.first
        self.shape = self.grid.shape
        rounds = fight.options.rounds
        self.precision = p = Precision(sequence, exact, rounds)
        self.roll_depth, self.step = p.roll_depth, p.step
        self._settled: tuple[np.ndarray, ...] | None = None
        self._edges: dict[tuple[Moment, int], tuple[tuple[Any, Moment, int], ...]] = {}
        self._openings: dict[tuple[int, int], dict[tuple[int, int], list]] = {}
        self.work = 0
        self.optimal = None
        if any(f.strategy == "OPTIMAL" for f in sequence.fighters):
            self.optimal = Optimal(sequence, grid, p.depth, self.step, rounds)

    def choose(self, moment: Moment, left: int) -> Choice:
        """The mover's choice at every cell (code −1: no Duelist parry)."""
        if self.optimal is not None and self.sequence.fighters[moment.active].strategy == "OPTIMAL":
            return self.optimal.choice(moment, left)
        return self.grid.heuristic(moment)

    def play(self, rounds: int, start: tuple[int, int]) -> dict[tuple[int, int], Any]:
        """The joint distribution of both fighters' final wounds (Fraction or float)."""
        p = self.precision
        finals = p.zeros(self.shape)
        starts = {(0, 0): p.zeros(self.shape)}
        starts[(0, 0)][start] = 1
        run = self.settled_from if self.sequence.certain else self.sequence_from
        for played in range(1, rounds + 1):
            ended, dead = run(starts, rounds - played + 1)
            if p.exact:
                finals = finals * power6(self.step)
            finals += dead
            starts = ended
            if played == rounds or not starts:
                for mass in starts.values():
                    finals += mass
                break
        den = power6(self.step * played) if p.exact else 1
        return {
            (a, b): Fraction(int(finals[a, b]), den) if p.exact else float(finals[a, b])
            for a, b in zip(*(index.tolist() for index in np.nonzero(finals)), strict=True)
        }

    def settled_from(
        self, starts: dict[tuple[int, int], np.ndarray], left: int
    ) -> tuple[dict[tuple[int, int], np.ndarray], np.ndarray]:
        """`sequence_from` for a `certain` sequence (no Feel No Pain, Relics or OPTIMAL):
        once rolled it is settled, so the sequence is one fixed transition between cells."""
        src, dst, weight = self.transition()
        mass = starts[(0, 0)].ravel()
        moved = weight * mass[src]
        if self.precision.exact:  # `dst` ascending: sum each run of equal cells
            runs = np.flatnonzero(np.diff(dst, prepend=-1))
            flat = self.precision.zeros(self.shape).ravel()
            flat[dst[runs]] = np.add.reduceat(moved, runs)
        else:
            flat = np.bincount(dst, weights=moved, minlength=mass.size)
        ended = flat.reshape(self.shape)
        dead = ended.copy()
        dead[1:, 1:] = 0
        ended[0, :] = ended[:, 0] = 0
        return ({(0, 0): ended} if ended.any() else {}), dead

    def transition(self) -> tuple[np.ndarray, ...]:
        """(source cell, end cell, summed roll odds) of a settled sequence, every pair of a
        source where both stand and an end it reaches, ordered by end cell: each roll's
        opening moves every cell by its curse damage (F2) and then to where the projection
        with both real strategies ends (`Grid.ends`), which is the real resolution here."""
        if self._settled is not None:
            return self._settled
        seq, grid, p = self.sequence, self.grid, self.precision
        cells = len(grid.cells)
        a, b = grid.wounds
        alive = np.flatnonzero((a > 0) & (b > 0))
        keys, odds = [], []
        for (num, _), (ca, na, la), (cb, nb, lb) in seq.rolls:
            moment = seq.duel(self.first, (Status(ca, na, 0), Status(cb, nb, 0)))
            while moment.duel:  # F3 parries deal no damage
                ((_, moment),) = seq.after(moment, seq.duelist_parry(moment))
            moved = grid.hurt(la, lb)[alive]
            n = seq.table.number(moment.active, moment.pair)
            ends = grid.ends(n, seq.strategies).take(moved)
            keys.append(ends * cells + alive)
            odds.append(np.full(len(alive), num if p.exact else num / power6(self.roll_depth)))
        key, inverse = np.unique(np.concatenate(keys), return_inverse=True)
        weight = p.zeros((len(key),))
        np.add.at(weight, inverse, np.concatenate(odds).astype(p.dtype))
        self._settled = (key % cells, key // cells, weight)
        return self._settled

    def sequence_from(
        self, starts: dict[tuple[int, int], np.ndarray], left: int
    ) -> tuple[dict[tuple[int, int], np.ndarray], np.ndarray]:
        """One sequence (`left` to play, this one included) from the masses of its starting
        wounds (per relics used by A and B):
        the masses where it ends with both standing (per relics used) and the mass of the
        cells where a fighter is at 0 (over the sequence's final denominator)."""
        p = self.precision
        dead = p.zeros(self.shape)
        masses: dict[Moment, np.ndarray] = {}
        queue: list[tuple[int, int, int, Moment]] = []
        order = itertools.count()
        cost = dead.size * p.words  # per pushed mass
        most = MASS_BUDGET // (8 * cost)

        def push(moment: Moment, mass: np.ndarray, x: int, dmg: int) -> None:
            """Add `mass` (every cell standing) after fighter x dealt `dmg` to the other."""
            self.work += cost
            if self.work > WORK_BUDGET:
                raise too_large("cell operations", WORK_BUDGET)
            target = masses.get(moment)
            if target is None:
                if len(masses) >= most:
                    raise too_large("bytes of pending masses", MASS_BUDGET)
                target = masses[moment] = p.zeros(self.shape)
                pair = moment.pair
                stage = 2 if not moment.duel else 0 if moment.active == self.first else 1
                heapq.heappush(queue, (-total(pair), stage, next(order), moment))
            if dmg == 0:
                target += mass
                return
            left = total(moment.pair)
            if x == 0:
                if dmg < self.shape[1] - 1:
                    target[:, 1 : self.shape[1] - dmg] += mass[:, 1 + dmg :]
                dead[:, 0] += p.lift(mass[:, 1 : 1 + dmg].sum(axis=1), left)
            else:
                if dmg < self.shape[0] - 1:
                    target[1 : self.shape[0] - dmg, :] += mass[1 + dmg :, :]
                dead[0, :] += p.lift(mass[1 : 1 + dmg, :].sum(axis=0), left)

        for relics, start in starts.items():
            for curse, cursed in self.cursed(start).items():
                alive, fallen = cursed
                for odds, grow, moment in self.openings(relics)[curse]:
                    dead += p.scale(fallen, odds, self.step)
                    push(moment, p.scale(alive, odds, grow), 0, 0)

        ended: dict[tuple[int, int], np.ndarray] = {}
        while queue:
            *_, moment = heapq.heappop(queue)
            mass = masses.pop(moment)
            if not np.count_nonzero(mass):  # its mass all fell: what follows it carries nothing
                continue
            pair = moment.pair
            if not moment.duel and total(pair) == 0:
                spent = (pair[0].relics_used, pair[1].relics_used)
                if spent in ended:
                    ended[spent] += mass
                else:
                    ended[spent] = mass
                continue
            x = moment.active
            codes, present = self.choose(moment, left)
            if codes is not None:
                codes = codes.reshape(self.shape)
            for code in dict.fromkeys(present):
                if codes is not None:
                    part = np.where(codes == code, mass, 0)
                    if not np.count_nonzero(part):  # no mass takes this action: nothing to follow
                        continue
                else:
                    part = mass
                for factor, nxt, dmg in self.edges(moment, code):
                    push(nxt, part if factor is None else part * factor, x, dmg)
        return ended, dead

    def edges(self, moment: Moment, code: int) -> tuple[tuple[Any, Moment, int], ...]:
        """The moves of the mover's action `code` (−1: no Duelist parry) as (the factor of
        its mass, None for 1; the next moment; the damage dealt), memoised."""
        key = (moment, code)
        found = self._edges.get(key)
        if found is None:
            p, t, edges = self.precision, total(moment.pair), []
            for odds, nxt, dmg in self.grid.steps(moment, code):
                factor = p.factor(odds, p.depth * (t - total(nxt.pair)))
                edges.append((None if factor == 1 else factor, nxt, dmg))
            found = tuple(edges)
            self._edges[key] = found
        return found

    def openings(self, relics: tuple[int, int]) -> dict[tuple[int, int], list]:
        """Per curse damage (A's, B's): each joint roll's odds, the growth of its exponent
        and the moment opening its F3, for sequences starting with `relics` used."""
        found = self._openings.get(relics)
        if found is None:
            p = self.precision
            found = self._openings[relics] = {}
            for odds, curse, moment in self.grid.openings(relics):
                grow = self.roll_depth + p.depth * (p.top - total(moment.pair))
                found.setdefault(curse, []).append((odds, grow, moment))
        return found

    def cursed(self, start: np.ndarray) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
        """F2: the start mass after each rolled curse damage (la to A, lb to B), split into
        the cells where both stand and those where one fell (over the final denominator)."""
        out = {}
        height, width = self.shape
        for la, lb in {(la, lb) for _, (_, _, la), (_, _, lb) in self.sequence.rolls}:
            moved = self.precision.zeros(self.shape)
            rows = self.precision.zeros(self.shape)
            if la < height - 1:
                rows[1 : height - la] = start[1 + la :]
            rows[0] = start[1 : 1 + la].sum(axis=0) if la else start[0]
            if lb < width - 1:
                moved[:, 1 : width - lb] = rows[:, 1 + lb :]
            moved[:, 0] = rows[:, 1 : 1 + lb].sum(axis=1) if lb else rows[:, 0]
            fallen = moved.copy()
            fallen[1:, 1:] = 0
            moved[0, :] = 0
            moved[:, 0] = 0
            out[(la, lb)] = (moved, fallen)
        return out
