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
from .fight_state import Moment, Pair, Status
from .fighter import Fight
from .grid import too_large
from .sequence import Sequence
from .weights import ExactWeights, FloatWeights, Weights
from .wounds import restore

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
    """Where the rest of a sequence ends from a moment: {Ending: weight}, memoised.

    Deterministic steps share their successor's table; only chance steps mix tables.
    """

    def __init__(self, sequence: Sequence, weights: Weights) -> None:
        self.sequence = sequence
        self.weights = weights
        self.alike = sequence.tactics.alike
        self.certain = sequence.certain
        self._memo: dict[Moment, dict[Ending, Any]] = {}
        self.entries = 0  # in the tables built by chance steps, against TABLE_BUDGET

    def opening(self, pair: Pair) -> dict[Ending, Any]:
        """Where a sequence opening (at F3) with `pair` ends."""
        if self.certain:
            return {(self.sequence.settle(pair), (0, 0)): self.weights.one}
        return self.ends(self.sequence.opening_moment(pair))

    def ends(self, moment: Moment) -> dict[Ending, Any]:
        table = self._memo.get(moment)
        if table is not None:
            return table
        seq, weights = self.sequence, self.weights
        pair = moment.pair
        alike = self.alike.canonical(pair)
        if alike != pair:  # look the alike wounds up, shift the survivors back
            shifted = self.ends(Moment(moment.duel, moment.active, alike))
            (wa, wb), (wa_, wb_) = (
                (pair[0].wounds, pair[1].wounds),
                (alike[0].wounds, alike[1].wounds),
            )
            return {
                ((restore(fa, wa, wa_), restore(fb, wb, wb_)), spent): w
                for ((fa, fb), spent), w in shifted.items()
            }
        if seq.over(moment):
            a, b = moment.pair
            table = {((a.wounds, b.wounds), (a.relics_used, b.relics_used)): weights.one}
        else:
            branches = seq.after(moment, seq.heuristic(moment))
            if len(branches) == 1:
                table = self.ends(branches[0][1])
            else:
                table = {}
                for odds, nxt in branches:
                    for end, w in self.ends(nxt).items():
                        w = weights.scale(w, odds)
                        table[end] = weights.add(table[end], w) if end in table else w
                self.entries += len(table)
                if self.entries > TABLE_BUDGET:
                    raise too_large("states", TABLE_BUDGET)
        self._memo[moment] = table
        return table


def final_wounds(fight: Fight, weights: Weights) -> dict[tuple[int, int], Any]:
    """The joint distribution of (A's final wounds, B's final wounds), as `weights`' results.

    Fights of several sequences, and every fight with an OPTIMAL fighter (whose values are
    solved over all wounds anyway), run on the wounds grid (`chain.Chain`): the mass of every
    pair of starting wounds moves through a sequence at once. A heuristic fight of one
    sequence starts from a single pair of wounds, which single steps (`by_sequence`) serve
    more cheaply.
    """
    sequence = Sequence(fight)
    optimal = any(f.strategy == "OPTIMAL" for f in sequence.fighters)
    rounds = fight.options.rounds
    if rounds > 1 or optimal:
        chain = Chain(fight, sequence, isinstance(weights, ExactWeights))
        return chain.play(rounds, (fight.fighter_a.wounds, fight.fighter_b.wounds))
    return by_sequence(fight, sequence, weights)


def by_sequence(fight: Fight, sequence: Sequence, weights: Weights) -> dict[tuple[int, int], Any]:
    """`final_wounds` of a heuristic fight, one sequence and one pair of starting wounds at a
    time (any rounds: the grid chain is checked against it). A sequence's opening is looked up
    with canonical wounds (`wounds.Alike`) and the outcome shifted back, so openings whose
    wounds play alike share the work."""
    rounds = fight.options.rounds
    outcomes = Outcomes(sequence, weights)
    finals: dict[tuple[int, int], Any] = {}

    def put(table: dict, key: Any, w: Any) -> None:
        table[key] = weights.add(table[key], w) if key in table else w

    starts: dict[Ending, Any] = {
        ((fight.fighter_a.wounds, fight.fighter_b.wounds), (0, 0)): weights.one
    }
    # sequences looked up by (roll, wounds looked up with, relics used)
    seen: dict[tuple[int, int, int, tuple[int, int]], dict[Ending, Any]] = {}
    plan = opening_plan(sequence)
    for played in range(rounds):
        left = rounds - played
        ending: dict[Ending, Any] = {}
        for ((wa0, wb0), relics), w in starts.items():
            for index, (odds, (ca, na, la), (cb, nb, lb), map_a, map_b) in enumerate(plan):
                wa, wb = max(0, wa0 - la), max(0, wb0 - lb)
                v = weights.scale(w, odds)
                if wa == 0 or wb == 0:  # F2 ended the battle
                    put(finals, (wa, wb), v)
                    continue
                wa_, wb_ = map_a[wa], map_b[wb]
                key = (index, wa_, wb_, relics)
                table = seen.get(key)
                if table is None:
                    pair = (
                        Status(ca, na, wa_, relics_used=relics[0]),
                        Status(cb, nb, wb_, relics_used=relics[1]),
                    )
                    table = seen[key] = outcomes.opening(pair)
                for ((fa, fb), spent), u in table.items():
                    end = ((restore(fa, wa, wa_), restore(fb, wb, wb_)), spent)
                    put(ending, end, weights.times(v, u))
        starts = {}
        for (wounds, spent), w in ending.items():
            if wounds[0] and wounds[1] and left > 1:
                starts[(wounds, spent)] = w
            else:
                put(finals, wounds, w)
    return {key: weights.result(w) for key, w in finals.items()}


def opening_plan(sequence: Sequence) -> list[tuple]:
    """Per joint roll (F1 + F2): its odds, both fighters' (crits, normals, curse damage) and
    the wounds to look its sequence up with (`wounds.Alike.map`) for each fighter."""
    alike = sequence.tactics.alike
    return [
        (
            odds,
            (ca, na, la),
            (cb, nb, lb),
            alike.map(1, cb, nb),
            alike.map(0, ca, na),
        )
        for odds, (ca, na, la), (cb, nb, lb) in sequence.rolls
    ]


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
