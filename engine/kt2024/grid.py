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

from .decisions import last_block_parry, wise_parry
from .fight_state import CERTAIN, CRIT, NORMAL, Moment, Odds, Pair, Status, oriented, times
from .fighter import Fight, Strategy
from .sequence import Sequence, turn
from .strike import (
    ACTIONS,
    CRIT_STRIKE,
    NORMAL_STRIKE,
    Action,
    blow,
    can_parry,
    parry,
    relic,
    suffer,
)

STATE_BUDGET = 60_000
"""The most heuristic choices and projected ends one fight may hold, each an array over the
wounds grid (ends 7.7 kB, choices 1 kB at 30 × 30 wounds, so some 280 MB at most).
Measured at the §12 maxima (8 dice a side, 30 wounds, 5 sequences): 11,500 with Feel No Pain
and Relics on both sides, 19,300 with most flag rules on both sides too; so this only guards
against a runaway."""

CODE = {action: code for code, action in enumerate(ACTIONS)}
Move = tuple[Odds, Pair, int]
"""(odds, the wound-free pair after the action, damage to the opponent)."""
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
        self._moves: dict[tuple[int, Pair, Action, bool], tuple[Move, ...]] = {}
        self._choices: dict[tuple[int, Pair, Strategy], Choice] = {}
        self._ends: dict[tuple[Moment, tuple[Strategy, Strategy]], np.ndarray] = {}
        self._hurts: dict[tuple[int, int], np.ndarray] = {}
        self._openings: dict[tuple[int, int], tuple[Opening, ...]] = {}

    def check(self) -> None:
        if len(self._ends) + len(self._choices) > STATE_BUDGET:
            raise too_large("states", STATE_BUDGET)

    # ---- moves -----------------------------------------------------------------------
    def moves(self, x: int, pair: Pair, action: Action, chance: bool) -> tuple[Move, ...]:
        """Fighter x's action on a wound-free pair: S1–S11 or §9.4, with the Relic and Feel No
        Pain dice (`chance`) or without (§9.6). Murderous Entrance's second strike is folded
        in: it comes only when the target survived the first, and when it did not, the
        sequence is over at that cell whatever the second strike would have done."""
        key = (x, pair, action, chance)
        found = self._moves.get(key)
        if found is not None:
            return found
        fx, fy = self.fighters[x], self.fighters[1 - x]
        xs, ys = oriented(pair, x)
        verb, kind = action
        if verb == "PARRY":
            xs, ys = parry(fx, fy, xs, ys, kind)
            found = ((CERTAIN, (xs, ys) if x == 0 else (ys, xs), 0),)
        else:
            first_crit = kind == CRIT and not xs.crit_struck
            result = []
            for odds, xs2, ys2, dmg in self._strike(x, xs, ys, kind, chance):
                if first_crit and fx.murderous_entrance2021 and xs2.successes:  # S11
                    again = CRIT if xs2.crits else NORMAL
                    for odds2, xs3, ys3, dmg2 in self._strike(x, xs2, ys2, again, chance):
                        result.append((times(odds, odds2), xs3, ys3, dmg + dmg2))
                else:
                    result.append((odds, xs2, ys2, dmg))
            found = tuple(
                (odds, (xs2, ys2) if x == 0 else (ys2, xs2), dmg) for odds, xs2, ys2, dmg in result
            )
        self._moves[key] = found
        return found

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
                for odds, after, dmg in self.moves(x, moment.pair, ACTIONS[code], True)
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

    def _strike(
        self, x: int, xs: Status, ys: Status, kind: str, chance: bool
    ) -> list[tuple[Odds, Status, Status, int]]:
        """S1–S9 of one strike: (odds, X, Y, damage dealt) per Relic and Feel No Pain outcome."""
        fx, fy = self.fighters[x], self.fighters[1 - x]
        dmg, xs, ys = blow(fx, fy, xs, ys, kind)
        return [
            (times(odds, fnp), xs, y_after, final)
            for odds, dealt, y_after in relic(fx, fy, xs, ys, kind, dmg, chance)  # S8
            for fnp, final in suffer(fy, dealt, chance)  # S9
        ]

    def total(self, x: int, pair: Pair, action: Action) -> int:
        """The projected damage of fighter x's action (a strike with its S11 follow-up)."""
        return self.moves(x, pair, action, False)[0][2]

    # ---- heuristic choices (§9.5) ------------------------------------------------------
    def heuristic(self, moment: Moment) -> Choice:
        """A heuristic mover's choice at every cell of a wound-free moment (code −1: no
        Duelist parry)."""
        seq, x = self.sequence, moment.active
        if moment.duel:
            action = seq.duelist_parry(moment)
            return (None, (CODE[action] if action else -1,))
        pair = moment.pair
        return self.choice(x, (pair[0].tactical(), pair[1].tactical()), seq.fighters[x].strategy)

    def choice(self, x: int, pair: Pair, strategy: Strategy) -> Choice:
        """Fighter x's §9.5 choice (x active with ≥1 unresolved success) at every cell of a
        tactical wound-free pair."""
        key = (x, pair, strategy)
        found = self._choices.get(key)
        if found is None:
            found = self._decide(x, pair, strategy)
            if found[0] is not None:  # codes 0..3: one byte a cell
                found = (found[0].astype(np.int8), found[1])
            self._choices[key] = found
            self.check()
        return found

    def _decide(self, x: int, pair: Pair, strategy: Strategy) -> Choice:
        y = 1 - x
        fx, fy = self.fighters[x], self.fighters[y]
        xs, ys = oriented(pair, x)
        hit = CODE[CRIT_STRIKE if xs.crits else NORMAL_STRIKE]
        if not ys.successes:  # D0
            return (None, (hit,))
        if not (can_parry(fy, xs, ys, CRIT) or can_parry(fy, xs, ys, NORMAL)):  # D1
            return (None, (hit,))
        if (fx.stun2021 or fx.shock) and not xs.crit_struck and xs.crits and not ys.crits:
            return (None, (hit,))  # D3 (its crit strike is D2's strike too)
        rest = self._strategy(x, pair, strategy, hit)  # D5
        target = self.wounds[y]
        block = self._last_block(x, xs, ys)  # D4
        if block is not None:
            code, reach = block
            blocks = target <= reach
            if np.count_nonzero(blocks):
                rest = (np.where(blocks, code, self.spread(rest)), (*rest[1], code))
        kills = target <= self.total(x, pair, ACTIONS[hit])  # D2
        if np.count_nonzero(kills):
            rest = (np.where(kills, hit, self.spread(rest)), (hit, *rest[1]))
        return rest

    def spread(self, choice: Choice) -> np.ndarray | int:
        return choice[1][0] if choice[0] is None else choice[0]

    def _strategy(self, x: int, pair: Pair, strategy: Strategy, hit: int) -> Choice:
        """D5 at every cell."""
        y = 1 - x
        xs, ys = oriented(pair, x)
        wise = wise_parry(self.fighters[y], xs, ys)
        if strategy == "STRIKE" or wise is None:
            return (None, (hit,))
        if strategy == "PARRY":
            return (None, (CODE[wise],))
        plan: tuple[Strategy, Strategy] = (strategy, "STRIKE") if x == 0 else ("STRIKE", strategy)
        ((_, struck_pair, dmg),) = self.moves(x, pair, ACTIONS[hit], False)
        ((_, parried_pair, _),) = self.moves(x, pair, wise, False)
        struck = self.ends(turn(y, struck_pair), plan)
        if dmg:
            struck = struck.take(self.shift(x, dmg))
        parried = self.ends(turn(y, parried_pair), plan)
        if strategy == "MIN_DAMAGE_TO_SELF":  # X's wounds at the end
            strikes = self.final(struck, x) >= self.final(parried, x)
        else:  # MAX_DAMAGE: Y's wounds at the end
            strikes = self.final(struck, y) <= self.final(parried, y)
        if strikes.all():
            return (None, (hit,))
        if not np.count_nonzero(strikes):
            return (None, (CODE[wise],))
        return (np.where(strikes, hit, CODE[wise]), (hit, CODE[wise]))

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

    def ends(self, moment: Moment, plan: tuple[Strategy, Strategy]) -> np.ndarray:
        """Where the projected rest of F4 from a tactical wound-free moment ends, as encoded
        cells (A's wounds × width + B's wounds) over the grid, both fighters deciding by
        `plan`."""
        key = (moment, plan)
        found = self._ends.get(key)
        if found is not None:
            return found
        x, pair = moment.active, moment.pair
        if not pair[x].successes:  # neither has one: over
            found = self.cells
        else:
            codes, present = self.choice(x, pair, plan[x])
            for code in present:
                ((_, after, dmg),) = self.moves(x, pair, ACTIONS[code], False)
                sub = self.ends(turn(1 - x, after), plan)
                if dmg:  # no damage leaves every cell where it is
                    sub = sub.take(self.shift(x, dmg))
                found = sub if found is None else np.where(codes == code, sub, found)
        self._ends[key] = found
        self.check()
        return found

    def _last_block(self, x: int, xs: Status, ys: Status) -> tuple[int, int] | None:
        """D4's candidate parry and the projected damage of X's strikes after it."""
        block = last_block_parry(self.fighters[x], self.fighters[1 - x], xs, ys)
        if block is None:
            return None
        action, xs2, ys2 = block
        reach = 0
        while xs2.successes:
            kind = CRIT if xs2.crits else NORMAL
            pair = (xs2, ys2) if x == 0 else (ys2, xs2)
            ((_, pair, dmg),) = self.moves(x, pair, ("STRIKE", kind), False)
            xs2, ys2 = oriented(pair, x)
            reach += dmg
        return CODE[action], reach


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
