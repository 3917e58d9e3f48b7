"""The fight (§9): the exact distribution of both fighters' final wounds, and the outputs of §9.7.3.

A sequence is a finite Markov chain over moments (both fighters' states and whose step it is);
where it ends from each moment is memoised on the full moment. Sequences follow each other on
the distribution of starting wounds while both fighters stand and `rounds` allows.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .chain import Chain
from .fight_state import Pair, Status
from .fighter import Fight
from .grid import too_large
from .projection import Projection
from .sequence import Sequence
from .states import States
from .table import Table
from .weights import ExactWeights, FloatWeights, Weights

TABLE_BUDGET = 2_000_000
"""The most (moment, ending) entries `Outcomes` may tabulate in one fight (heuristic fights of
one sequence with Feel No Pain or Relics, where every strike is a chance step). Measured: 8 dice
a side at 30 wounds with Feel No Pain and Relics on both takes 1.32 million entries, 2.9 s and
a peak RSS of 274 MB (float) or 372 MB (exact), so the budget stays near 550 MB; beyond it
the request is refused rather than left to exhaust the process."""


Number = Fraction | float
Ending = tuple[tuple[int, int], tuple[int, int]]
"""((wounds A, wounds B), (relics used by A, by B)) at the end of a sequence."""


@dataclass(frozen=True)
class FighterResult:
    """One fighter's outputs of §9.7.3."""

    remaining_wounds: dict[int, Number]
    incapacitated: Number
    damage_dealt: dict[int, Number]
    expected_damage_dealt: Number


@dataclass(frozen=True)
class FightResult:
    fighter_a: FighterResult
    fighter_b: FighterResult


class Outcomes:
    """Where the rest of a sequence ends from a cell of its real resolution, {Ending: weight},
    memoised on the cell (moment number, wounds A, wounds B).

    A `certain` sequence is its own projection (§9.6) with both real strategies. Otherwise
    deterministic steps share their successor's table and only chance steps mix tables.
    """

    def __init__(self, sequence: Sequence, weights: Weights, top: int) -> None:
        self.sequence = sequence
        self.weights = weights
        most = tuple(
            (max(roll[i][0] for roll in sequence.rolls), max(roll[i][1] for roll in sequence.rolls))
            for i in (1, 2)
        )
        table = Table(sequence.fighters, most)
        self.states = States(sequence.fighters, table)
        self.projection = Projection(table, top)
        self.width = top + 1
        self._memo: dict[int, dict[Ending, Any]] = {}
        self.entries = 0  # in the tables built by chance steps, against TABLE_BUDGET

    def opening(self, pair: Pair) -> dict[Ending, Any]:
        """Where a sequence opening (at F3) with `pair` ends."""
        seq = self.sequence
        moment = seq.opening_moment(pair)
        while moment.duel:  # F3's Duelist parries: no chance, no damage
            ((_, moment),) = seq.after(moment, seq.heuristic(moment))
        a, b = moment.pair
        if seq.certain:
            n = self.projection.table.number(moment.active, moment.pair)
            end = self.projection.end(seq.strategies, n, a.wounds, b.wounds)
            return {(end, (0, 0)): self.weights.one}
        n = self.states.number(moment.active, (a.with_wounds(0), b.with_wounds(0)))
        return self.ends(n, a.wounds, b.wounds)

    def ends(self, n: int, wa: int, wb: int) -> dict[Ending, Any]:
        key = (n * self.width + wa) * self.width + wb
        table = self._memo.get(key)
        if table is not None:
            return table
        states, weights = self.states, self.weights
        if not wa or not wb or states.over[n]:
            a, b = states.moments[n][1]
            table = {((wa, wb), (a.relics_used, b.relics_used)): weights.one}
        else:
            x = states.moments[n][0]
            code = self.projection.choose(
                states.tactical(n), wa, wb, self.sequence.strategies[x]
            )
            branches = states.branches(n, code)
            if len(branches) == 1:
                _, nxt, dmg = branches[0]
                table = self.ends(nxt, *hurt(x, wa, wb, dmg))
            else:
                table = {}
                for odds, nxt, dmg in branches:
                    for end, w in self.ends(nxt, *hurt(x, wa, wb, dmg)).items():
                        w = weights.scale(w, odds)
                        table[end] = weights.add(table[end], w) if end in table else w
                self.entries += len(table)
                if self.entries > TABLE_BUDGET:
                    raise too_large("states", TABLE_BUDGET)
        self._memo[key] = table
        return table


def hurt(x: int, wa: int, wb: int, dmg: int) -> tuple[int, int]:
    """The wounds after fighter x deals `dmg` to the other."""
    return (wa, max(0, wb - dmg)) if x == 0 else (max(0, wa - dmg), wb)


def final_wounds(fight: Fight, weights: Weights) -> dict[tuple[int, int], Any]:
    """The joint distribution of (A's final wounds, B's final wounds), as `weights`' results.

    Fights of several sequences, and every fight with an OPTIMAL fighter (whose values are
    solved over all wounds anyway), run on the wounds grid (`chain.Chain`): the mass of every
    pair of starting wounds moves through a sequence at once. A heuristic fight of one
    sequence starts from a single pair of wounds and goes cell by cell (`by_sequence`),
    visiting only the wounds it can reach.
    """
    sequence = Sequence(fight)
    optimal = any(f.strategy == "OPTIMAL" for f in sequence.fighters)
    rounds = fight.options.rounds
    if rounds > 1 or optimal:
        chain = Chain(fight, sequence, isinstance(weights, ExactWeights))
        return chain.play(rounds, (fight.fighter_a.wounds, fight.fighter_b.wounds))
    return by_sequence(fight, sequence, weights)


def by_sequence(fight: Fight, sequence: Sequence, weights: Weights) -> dict[tuple[int, int], Any]:
    """`final_wounds` of a heuristic fight, one sequence and one pair of starting wounds (and
    relics used) at a time (any rounds: the grid chain is checked against it)."""
    rounds = fight.options.rounds
    outcomes = Outcomes(sequence, weights, max(fight.fighter_a.wounds, fight.fighter_b.wounds))
    finals: dict[tuple[int, int], Any] = {}

    def put(table: dict, key: Any, w: Any) -> None:
        table[key] = weights.add(table[key], w) if key in table else w

    starts: dict[Ending, Any] = {
        ((fight.fighter_a.wounds, fight.fighter_b.wounds), (0, 0)): weights.one
    }
    for played in range(rounds):
        left = rounds - played
        ending: dict[Ending, Any] = {}
        for ((wa0, wb0), relics), w in starts.items():
            for odds, (ca, na, la), (cb, nb, lb) in sequence.rolls:
                wa, wb = max(0, wa0 - la), max(0, wb0 - lb)
                v = weights.scale(w, odds)
                if wa == 0 or wb == 0:  # F2 ended the battle
                    put(finals, (wa, wb), v)
                    continue
                pair = (
                    Status(ca, na, wa, relics_used=relics[0]),
                    Status(cb, nb, wb, relics_used=relics[1]),
                )
                for end, u in outcomes.opening(pair).items():
                    put(ending, end, weights.times(v, u))
        starts = {}
        for (wounds, spent), w in ending.items():
            if wounds[0] and wounds[1] and left > 1:
                starts[(wounds, spent)] = w
            else:
                put(finals, wounds, w)
    return {key: weights.result(w) for key, w in finals.items()}


def fighter_result(
    finals: dict[tuple[int, int], Number], me: int, start: int, zero: Number
) -> FighterResult:
    """Outputs of fighter `me`; `start` is the opponent's starting wounds."""
    remaining: dict[int, Number] = {}
    dealt: dict[int, Number] = {}
    for wounds, p in finals.items():
        remaining[wounds[me]] = remaining.get(wounds[me], 0) + p
        done = start - wounds[1 - me]
        dealt[done] = dealt.get(done, 0) + p
    return FighterResult(
        remaining_wounds=remaining,
        incapacitated=remaining.get(0, zero),
        damage_dealt=dealt,
        expected_damage_dealt=sum((v * p for v, p in dealt.items()), zero),
    )


@contextmanager
def without_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector (if on) for the computation.

    A fight allocates a great many small acyclic tuples into growing memo tables, and the
    collector's passes over them cost about a quarter of the time; reference counting frees
    everything anyway when the per-fight memos are dropped.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def evaluate(fight: Fight) -> FightResult:
    """The fight's outputs, exact (`Fraction`) when `options.exact`, else float64."""
    weights: Weights = ExactWeights() if fight.options.exact else FloatWeights()
    with without_cyclic_gc():
        finals = final_wounds(fight, weights)
    zero = weights.result(weights.scale(weights.one, (0, 0)))
    return FightResult(
        fighter_a=fighter_result(finals, 0, fight.fighter_b.wounds, zero),
        fighter_b=fighter_result(finals, 1, fight.fighter_a.wounds, zero),
    )
