"""OPTIMAL (§9.8): backward induction over the whole battle, on the wounds grid.

The value of a wound-free moment, from fighter A's side, is the pair (U, D) at every cell of the
(wounds A, wounds B) grid: U = P(B ends at 0) − P(A ends at 0), D = E[A's final wounds − B's
final wounds]. A maximises it, B minimises it (its own U and D are the negatives, so OPTIMAL vs
OPTIMAL is zero-sum expectiminimax); a heuristic mover plays its §9.5 choice. Ties fall to the
earlier candidate of §9.8 O4.

Values are exact in both precisions, so the policy never depends on `exact`: integer numerators
over a power of 6 that every candidate at a moment shares, so that comparing two candidates is
comparing integers. A moment with t unresolved successes (both fighters) and `left` sequences to
play (this one included) is over 6**(depth·t + (left − 1)·step), with `depth` and `step` as in
the chain (`grid.Precision`): a move from t to t′ with odds a / 6**d multiplies its successor's
numerators by a·6**(depth·(t − t′) − d).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.errors import InputError

from .fight_state import Moment, Status
from .grid import CODE, Choice, Grid, total
from .sequence import Sequence, turn
from .strike import ACTIONS
from .weights import power6

STATE_BUDGET = 60_000
"""The most (moment, sequences left) values OPTIMAL may solve in one fight. Each is two arrays
over the wounds grid of integer numerators (Python integers once they outgrow int64); near the
§12 maxima (8 dice a side, 30 wounds, 5 sequences) they would need many gigabytes. Past this
budget the request is refused rather than left to exhaust the process."""

Value = tuple[np.ndarray, np.ndarray]
"""(U numerators, D numerators) over the flat wounds grid, from A's side."""


class Optimal:
    """The OPTIMAL fighters' choices in one fight, solved on demand and memoised."""

    def __init__(
        self,
        sequence: Sequence,
        grid: Grid,
        depth: int,
        step: int,
        choose: Callable[[Moment, int], Choice],
        rounds: int,
    ) -> None:
        self.sequence, self.grid, self.depth, self.step = sequence, grid, depth, step
        self.choose = choose
        a, b = grid.wounds
        big = 31 * power6(step * rounds) >= 2**63
        self.dtype: Any = object if big else np.int64
        self.terminal = (
            ((b == 0).astype(np.int64) - (a == 0)).astype(self.dtype),
            (a - b).astype(self.dtype),
        )
        self.dead = (a == 0) | (b == 0)
        self._values: dict[tuple[Moment, int], Value] = {}
        self._choices: dict[tuple[Moment, int], Choice] = {}
        self._starts: dict[tuple[tuple[int, int], int], Value] = {}
        self._curses: dict[tuple[int, int], np.ndarray] = {}

    def choice(self, moment: Moment, left: int) -> Choice:
        """The OPTIMAL mover's choice at every cell, `left` sequences to play."""
        key = (moment, left)
        if key not in self._choices:
            self.value(moment, left)
        return self._choices[key]

    def value(self, moment: Moment, left: int) -> Value:
        key = (moment, left)
        known = self._values.get(key)
        if known is not None:
            return known
        if len(self._values) >= STATE_BUDGET:
            raise self.too_large()
        seq = self.sequence
        pair = moment.pair
        t = total(pair)
        if not moment.duel and t == 0:  # over: the next sequence, or the battle's end
            base = power6((left - 1) * self.step)
            u, d = self.terminal[0] * base, self.terminal[1] * base
            if left > 1:
                nu, nd = self.start((pair[0].relics_used, pair[1].relics_used), left - 1)
                u, d = np.where(self.dead, u, nu), np.where(self.dead, d, nd)
            self._values[key] = (u, d)
            return (u, d)
        x = moment.active
        optimal = seq.fighters[x].strategy == "OPTIMAL"
        if optimal:
            candidates = tuple(CODE[a] if a else -1 for a in seq.candidates(moment))
            codes = None
        else:
            codes, candidates = self.choose(moment, left)
        value: Value | None = None
        best = None
        for code in dict.fromkeys(candidates):
            q = self._after(moment, x, code, t, left)
            if value is None:
                value, best = q, (None if optimal else codes)
                first = code
            elif optimal:
                u, d = value
                if x == 0:
                    wins = (q[0] > u) | ((q[0] == u) & (q[1] > d))
                else:
                    wins = (q[0] < u) | ((q[0] == u) & (q[1] < d))
                if wins.any():
                    value = (np.where(wins, q[0], u), np.where(wins, q[1], d))
                    best = np.where(wins, code, first if best is None else best)
            else:
                match = codes == code
                value = (np.where(match, q[0], value[0]), np.where(match, q[1], value[1]))
        if optimal:
            present = tuple(dict.fromkeys(candidates)) if best is not None else (first,)
            self._choices[key] = (best, present)
        self._values[key] = value
        return value

    def _after(self, moment: Moment, x: int, code: int, t: int, left: int) -> Value:
        """Fighter x's action `code` (−1: no Duelist parry) at every cell."""
        seq, grid = self.sequence, self.grid
        following = 1 - x if x == seq.first else None
        if code < 0:
            return self.value(seq.duel(following, moment.pair), left)
        u = d = None
        for odds, after, dmg in grid.moves(x, moment.pair, ACTIONS[code], True):
            nxt = seq.duel(following, after) if moment.duel else turn(1 - x, after)
            vu, vd = self.value(nxt, left)
            shift = grid.shift(x, dmg)
            factor = odds[0] * power6(self.depth * (t - total(after)) - odds[1])
            vu, vd = vu.take(shift) * factor, vd.take(shift) * factor
            u, d = (vu, vd) if u is None else (u + vu, d + vd)
        return (u, d)

    def start(self, relics: tuple[int, int], left: int) -> Value:
        """The value of a sequence about to be rolled (F1), over 6**(left·step)."""
        key = (relics, left)
        known = self._starts.get(key)
        if known is not None:
            return known
        seq = self.sequence
        u = d = None
        for odds, (ca, na, la), (cb, nb, lb) in seq.rolls:
            pair = (
                Status(ca, na, 0, relics_used=relics[0]),
                Status(cb, nb, 0, relics_used=relics[1]),
            )
            vu, vd = self.value(seq.duel(seq.first, pair), left)
            shift = self.curse(la, lb)
            factor = odds[0] * power6(self.step - odds[1] - self.depth * (ca + na + cb + nb))
            vu, vd = vu.take(shift) * factor, vd.take(shift) * factor
            u, d = (vu, vd) if u is None else (u + vu, d + vd)
        self._starts[key] = (u, d)
        return (u, d)

    def curse(self, la: int, lb: int) -> np.ndarray:
        """Flat cells after F2's curse damage (la to A, lb to B), fallen cells kept."""
        found = self._curses.get((la, lb))
        if found is None:
            a, b = self.grid.wounds
            moved = np.maximum(0, a - la) * self.grid.width + np.maximum(0, b - lb)
            found = self._curses[(la, lb)] = np.where(self.dead, self.grid.cells, moved)
        return found

    def too_large(self) -> InputError:
        side = "fighterA" if self.sequence.fighters[0].strategy == "OPTIMAL" else "fighterB"
        return InputError(
            "LIMIT_EXCEEDED",
            f"{side}.strategy",
            f"OPTIMAL would have to solve more than {STATE_BUDGET} fight states for these "
            "attacks, wounds and rounds; use fewer of them or a heuristic strategy",
            STATE_BUDGET,
        )
