"""A fight on the wounds grid: a sequence as moves between wound-free states.

Within a sequence nothing but the wounds depends on the wounds: who acts, what a strike does to
the unresolved successes and flags, its damage and its Relic and Feel No Pain odds are functions
of the *wound-free* state (both statuses with wounds 0, whose step it is). A strike only
subtracts its damage from the target's wounds. So every wound-free state carries numpy arrays
over the whole (wounds A, wounds B) grid at once:

* a heuristic fighter's choice (§9.5) at every cell (D2 and D4 compare the target's wounds with
  a projected damage total, D5 compares projected ends);
* where the deterministic projection of §9.6 ends from every cell (`Grid.ends`, encoded cells);
* OPTIMAL's values and choices (`optimal`) and the probability mass of the real resolution
  (`chain`), which build on the moves here.
"""

from __future__ import annotations

import numpy as np

from engine.errors import InputError

from .fight_state import CERTAIN, Moment, Odds, Pair, Status
from .fighter import Fight, Strategy
from .sequence import Sequence, turn
from .strike import ACTIONS, moves

STATE_BUDGET = 60_000
"""The most heuristic choices and projected ends one fight may hold, each an array over the
wounds grid (ends 7.7 kB, choices 1 kB at 30 × 30 wounds, so some 280 MB at most).
Measured at the §12 maxima (8 dice a side, 30 wounds, 5 sequences): 11,500 with Feel No Pain
and Relics on both sides, 19,300 with most flag rules on both sides too; so this only guards
against a runaway."""

CODE = {action: code for code, action in enumerate(ACTIONS)}
Step = tuple[Odds, Moment, int]
"""(odds, the wound-free moment after the action, damage to the opponent)."""
Opening = tuple[Odds, tuple[int, int], Moment]
"""(odds of a joint roll, its curse damage to A and to B, the wound-free moment opening F3)."""
Choice = tuple[np.ndarray | None, tuple[int, ...]]
"""A choice over the grid: (action codes per cell, or None when every cell takes `codes[0]`;
the codes that occur)."""


class Grid:
    """Moves, heuristic choices and projected ends of one fight, over its wounds grid."""

    def __init__(self, fight: Fight, sequence: Sequence) -> None:
        self.sequence = sequence
        self.fighters = sequence.fighters
        self.width = fight.fighter_b.wounds + 1
        self.shape = (fight.fighter_a.wounds + 1, self.width)
        cells = np.arange(self.shape[0] * self.width)
        self.cells = cells
        self.wounds = (cells // self.width, cells % self.width)  # per flat cell
        self.table = sequence.table
        self._numbers: dict[Moment, int] = {}
        self._choices: dict[tuple[int, Strategy], Choice] = {}
        self._ends: dict[tuple[int, tuple[Strategy, Strategy]], np.ndarray] = {}
        self._hurts: dict[tuple[int, int], np.ndarray] = {}
        self._openings: dict[tuple[int, int], tuple[Opening, ...]] = {}

    def check(self) -> None:
        if len(self._ends) + len(self._choices) > STATE_BUDGET:
            raise too_large("states", STATE_BUDGET)

    # ---- moves -----------------------------------------------------------------------
    def steps(self, moment: Moment, code: int) -> tuple[Step, ...]:
        """The outcomes of the mover's action `code` (−1: no Duelist parry) at a wound-free
        moment, with the Relic and Feel No Pain dice; the next moment is F3's next Duelist
        parry or the other fighter's F4 turn. The chain and OPTIMAL both follow a moment's
        actions through these (each memoises them in its own terms)."""
        seq, x = self.sequence, moment.active
        following = 1 - x if x == seq.first else None
        if code < 0:
            return ((CERTAIN, seq.duel(following, moment.pair), 0),)
        return tuple(
            [
                (odds, seq.duel(following, after) if moment.duel else turn(1 - x, after), dmg)
                for odds, after, dmg in moves(self.fighters, x, moment.pair, ACTIONS[code], True)
            ]
        )

    def openings(self, relics: tuple[int, int]) -> tuple[Opening, ...]:
        """F1 and F2 per joint roll, for sequences starting with `relics` used (A's, B's);
        the chain and OPTIMAL both start their sequences from these."""
        found = self._openings.get(relics)
        if found is None:
            seq = self.sequence
            found = self._openings[relics] = tuple(
                (
                    odds,
                    (la, lb),
                    seq.duel(
                        seq.first,
                        (
                            Status(ca, na, 0, relics_used=relics[0]),
                            Status(cb, nb, 0, relics_used=relics[1]),
                        ),
                    ),
                )
                for odds, (ca, na, la), (cb, nb, lb) in seq.rolls
            )
        return found

    # ---- heuristic choices (§9.5) ------------------------------------------------------
    def heuristic(self, moment: Moment) -> Choice:
        """A heuristic mover's choice at every cell of a wound-free moment (code −1: no
        Duelist parry)."""
        seq = self.sequence
        if moment.duel:
            action = seq.duelist_parry(moment)
            return (None, (CODE[action] if action else -1,))
        n = self._numbers.get(moment)
        if n is None:
            n = self._numbers[moment] = self.table.number(moment.active, moment.pair)
        return self.choice(n, seq.fighters[moment.active].strategy)

    def choice(self, n: int, strategy: Strategy) -> Choice:
        """The §9.5 choice of the mover of tactical moment n (`table`) at every cell."""
        key = (n, strategy)
        found = self._choices.get(key)
        if found is None:
            found = self._decide(n, strategy)
            if found[0] is not None:  # codes 0..3: one byte a cell
                found = (found[0].astype(np.int8), found[1])
            self._choices[key] = found
            self.check()
        return found

    def _decide(self, n: int, strategy: Strategy) -> Choice:
        t = self.table
        hit = t.hit[n]
        if t.always[n] or t.stun[n]:  # D0, D1, D3 (D3's CRIT strike is the mover's "strike")
            return (None, (hit,))
        x = t.mover[n]
        rest = self._strategy(n, x, strategy, hit)  # D5
        target = self.wounds[1 - x]
        if t.block[n] >= 0:  # D4
            blocks = target <= t.reach[n]
            if np.count_nonzero(blocks):
                rest = (np.where(blocks, t.block[n], self.spread(rest)), (*rest[1], t.block[n]))
        kills = target <= t.damage[hit][n]  # D2
        if np.count_nonzero(kills):
            rest = (np.where(kills, hit, self.spread(rest)), (hit, *rest[1]))
        return rest

    def spread(self, choice: Choice) -> np.ndarray | int:
        return choice[1][0] if choice[0] is None else choice[0]

    def _strategy(self, n: int, x: int, strategy: Strategy, hit: int) -> Choice:
        """D5 at every cell."""
        t = self.table
        wise = t.wise[n]
        if strategy == "STRIKE" or wise < 0:
            return (None, (hit,))
        if strategy == "PARRY":
            return (None, (wise,))
        plan: tuple[Strategy, Strategy] = (strategy, "STRIKE") if x == 0 else ("STRIKE", strategy)
        struck = self.ends(t.next[hit][n], plan)
        dmg = t.damage[hit][n]
        if dmg:
            struck = struck.take(self.shift(x, dmg))
        parried = self.ends(t.next[wise][n], plan)
        y = 1 - x
        if strategy == "MIN_DAMAGE_TO_SELF":  # X's wounds at the end
            strikes = self.final(struck, x) >= self.final(parried, x)
        else:  # MAX_DAMAGE: Y's wounds at the end
            strikes = self.final(struck, y) <= self.final(parried, y)
        if strikes.all():
            return (None, (hit,))
        if not np.count_nonzero(strikes):
            return (None, (wise,))
        return (np.where(strikes, hit, wise), (hit, wise))

    def final(self, ends: np.ndarray, me: int) -> np.ndarray:
        """Fighter me's wounds in encoded end cells."""
        return ends // self.width if me == 0 else ends % self.width

    # ---- the deterministic projection (§9.6) -------------------------------------------
    def shift(self, x: int, dmg: int) -> np.ndarray:
        """Flat cell indices after fighter x deals `dmg` to the other (`hurt`)."""
        key = (0, dmg) if x == 0 else (dmg, 0)
        found = self._hurts.get(key)  # a hot path: the memo looked up without a call
        return found if found is not None else self.hurt(*key)

    def hurt(self, la: int, lb: int) -> np.ndarray:
        """Flat cell indices after `la` damage to A and `lb` to B (a strike's, or F2's curse
        damage); cells where a fighter is at 0 stay (the sequence is over there)."""
        key = (la, lb)
        found = self._hurts.get(key)
        if found is None:
            a, b = self.wounds
            moved = np.maximum(0, a - la) * self.width + np.maximum(0, b - lb)
            found = self._hurts[key] = np.where((a > 0) & (b > 0), moved, self.cells)
        return found

    def ends(self, n: int, plan: tuple[Strategy, Strategy]) -> np.ndarray:
        """Where the projected rest of F4 from tactical moment n (`table`) ends, as encoded
        cells (A's wounds × width + B's wounds) over the grid, both fighters deciding by
        `plan`."""
        key = (n, plan)
        found = self._ends.get(key)
        if found is not None:
            return found
        t = self.table
        if t.over[n]:
            found = self.cells
        else:
            codes, present = self.choice(n, plan[t.mover[n]])
            for code in present:
                sub = self.ends(t.next[code][n], plan)
                dmg = t.damage[code][n]
                if dmg:  # no damage leaves every cell where it is
                    sub = sub.take(self.shift(t.mover[n], dmg))
                found = sub if found is None else np.where(codes == code, sub, found)
        self._ends[key] = found
        self.check()
        return found


def total(pair: Pair) -> int:
    return pair[0].crits + pair[0].normals + pair[1].crits + pair[1].normals


def too_large(what: str, limit: int) -> InputError:
    """The refusal of a fight whose resolution would need more than `limit` of `what` (the
    budgets of the grid, the chain and the single-sequence tables alike)."""
    return InputError(
        "LIMIT_EXCEEDED",
        "options.rounds",
        f"the exact chain of this fight needs more than {limit} {what}; "
        "use fewer rounds, attacks or wounds",
        limit,
    )
