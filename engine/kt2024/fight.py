"""The fight (§9): the exact distribution of both fighters' final wounds, and the outputs of §9.7.3.

A sequence is a finite Markov chain over cells (a numbered moment of `table`, both fighters'
wounds); fights go over the whole wounds grid (`flat`), and a heuristic fight of one sequence
too large for it pushes its probability mass forward cell by cell (`Resolution`). Sequences
follow each other on the distribution of starting wounds while both fighters stand and
`rounds` allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .. import collector
from . import budgets, flat, kernels
from .fighter import Fight
from .projection import Projection
from .sequence import Sequence
from .weights import CERTAIN, Odds, power6

CELL_BUDGET = 1_000_000
"""The most cells (moment, wounds A, wounds B) the cell-by-cell resolution may carry mass
through in one sequence (a heuristic fight of one sequence whose grid would not fit
`flat.MEMORY_BUDGET`). Measured at the §12 maxima, 8 dice a side at 30 wounds with Feel No
Pain, Relics (2D6), Hammerhand, Durable and Murderous Entrance on both sides, exact: 7.9 s in
all (4.6 s of it the table) with a peak RSS of 918 MB (float fits the grid: 6.9 s). Beyond
the budget the request is refused rather than left to exhaust the process."""


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


class Precision:
    """The resolution's arithmetic, one code path for both precisions (§10).

    Float: probabilities as float64. Exact: integer numerators over one power of 6 per
    sequence. A move from a state with t unresolved successes (both fighters) to one with t′
    multiplies by its odds a / 6**d; written over 6**(depth·(t − t′)) — `depth` being the most
    Relic and Feel No Pain dice one strike can roll, never less than d per success used up —
    every mass of a state with t successes shares the denominator 6**(base + depth·(top − t)).
    """

    def __init__(self, sequence: Sequence, exact: bool) -> None:
        self.exact = exact
        self.depth, self.top, self.step = flat.exponents(sequence)

    def factor(self, odds: Odds, grow: int) -> float | int:
        """The factor of a mass for odds, its denominator's exponent growing by `grow` (≥
        the odds')."""
        if not self.exact:
            return 1 if odds == CERTAIN else odds[0] / power6(odds[1])
        return odds[0] * power6(grow - odds[1])

    def lift(self, mass: Any, left: int) -> Any:
        """A mass of a state with `left` successes over the sequence's final denominator."""
        return mass * power6(self.depth * left) if self.exact and self.depth and left else mass


class Resolution:
    """The real resolution (§9.7) of a heuristic fight's sequences, cell by cell.

    A cell is (moment number of `table`, wounds A, wounds B). The probability mass of every
    opening moves forward through the cells in order of unresolved successes left (every action
    uses one up), so a cell's mass is complete when it is taken and each cell is visited once,
    whichever openings lead to it. A `certain` sequence is its own projection (§9.6) with
    both real strategies, so its openings go straight to where the projection ends.

    Masses are floats, or (exact) integers over one power of 6 per sequence, as in
    `Precision`: a cell with t successes left holds numerators over
    6**(rolls' depth + depth·(top − t)).
    """

    def __init__(self, sequence: Sequence, exact: bool, top: int, rounds: int) -> None:
        self.sequence = sequence
        self.table = sequence.table
        self.projection = Projection(sequence.table, top)
        self.strategies = tuple(kernels.STRATEGY[s] for s in sequence.strategies)
        self.width = top + 1
        self.precision = p = Precision(sequence, exact)
        self.depth, self.top, self.step = p.depth, p.top, p.step
        self._openings: dict[tuple[int, int], list[tuple[Any, int, int, int, int]]] = {}
        self._edges: dict[int, tuple[tuple[Any, int, int, int], ...]] = {}

    def openings(self, relics: tuple[int, int]) -> list[tuple[Any, int, int, int, int]]:
        """Per joint roll (F1, F2) of a sequence starting with `relics` used: its mass at the
        opening (odds over the cell's denominator), the curse damage to A and to B, and the
        F4 moment after F3's Duelist parries (which depend on no wounds) with its successes
        left."""
        found = self._openings.get(relics)
        if found is not None:
            return found
        seq, p, table = self.sequence, self.precision, self.table
        found = self._openings[relics] = []
        hands = np.array([(ca, na, cb, nb) for _, (ca, na, _), (cb, nb, _) in seq.rolls])
        numbers = table.openings(seq.first, hands.reshape(-1, 4), relics).tolist()
        for (odds, (*_, la), (*_, lb)), n in zip(seq.rolls, numbers, strict=True):
            n = seq.f4(n)  # F3
            t = table.left[n] if not seq.certain else 0  # a certain sequence ends at once
            found.append((p.factor(odds, self.step - self.depth * t), la, lb, n, t))
        return found

    def edges(self, n: int, code: int) -> tuple[tuple[Any, int, int, int], ...]:
        """The outcomes of the mover's action `code` at moment n as (the factor of the mass,
        the next moment, the damage dealt, the next moment's successes left), memoised."""
        left, p = self.table.left, self.precision
        found = self._edges[4 * n + code] = tuple(
            (p.factor(odds, self.depth * (left[n] - left[nxt])), nxt, dmg, left[nxt])
            for odds, nxt, dmg in self.table.branches(n, code)
        )
        return found

    def sequence_from(
        self, starts: dict[Ending, Any]
    ) -> tuple[dict[Ending, Any], dict[tuple[int, int], Any]]:
        """One sequence from the masses of its starting wounds and relics used: the masses
        where it ends with both fighters standing, and where one fell (each one sequence's
        power of 6 further down in exact mode)."""
        seq, table, p = self.sequence, self.table, self.precision
        width, top = self.width, self.top
        ended: dict[Ending, Any] = {}
        fallen: dict[tuple[int, int], Any] = {}
        layers: list[dict[int, Any]] = [{} for _ in range(top + 1)]
        certain = seq.certain
        for ((wa0, wb0), relics), w in starts.items():
            for mass, la, lb, n, t in self.openings(relics):
                wa, wb = max(0, wa0 - la), max(0, wb0 - lb)
                if not wa or not wb:  # F2 ended the battle
                    put(fallen, (wa, wb), w * p.lift(mass, t))
                elif certain:  # n is a tactical moment
                    end = self.projection.end(self.strategies, n, wa, wb)
                    if end[0] and end[1]:
                        put(ended, (end, relics), w * mass)
                    else:
                        put(fallen, end, w * mass)
                else:
                    put(layers[t], (n * width + wa) * width + wb, w * mass)
        visited = 0
        strategies, edges = self.strategies, self._edges
        for t in range(top, -1, -1):
            visited += len(layers[t])
            if visited > CELL_BUDGET:
                raise budgets.too_large(budgets.CELLS, CELL_BUDGET)
            for key, mass in layers[t].items():
                rest, wb = divmod(key, width)
                n, wa = divmod(rest, width)
                if not wa or not wb:
                    put(fallen, (wa, wb), p.lift(mass, t))
                    continue
                if table.over[n]:
                    put(ended, ((wa, wb), table.relics_used[n]), p.lift(mass, t))
                    continue
                x = table.mover[n]
                code = self.projection.choose(n, wa, wb, strategies[x])
                for factor, nxt, dmg, u in edges.get(4 * n + code) or self.edges(n, code):
                    if x == 0:
                        cell = (nxt * width + wa) * width + (wb - dmg if wb > dmg else 0)
                    else:
                        cell = (nxt * width + (wa - dmg if wa > dmg else 0)) * width + wb
                    put(layers[u], cell, mass * factor)
        return ended, fallen


def put(table: dict, key: Any, w: Any) -> None:
    table[key] = table[key] + w if key in table else w


def final_wounds(fight: Fight, exact: bool) -> dict[tuple[int, int], Number]:
    """The joint distribution of (A's final wounds, B's final wounds).

    Fights run on the wounds grid (`flat`, compiled loops): every choice is made at every
    reachable cell of every wound-free moment, and the mass moves through a sequence at once.
    A heuristic fight of one sequence whose grid would not fit `flat.MEMORY_BUDGET` goes cell
    by cell instead (`by_sequence`), holding only the cells its mass reaches.
    """
    sequence = Sequence(fight)
    grid = flat.Flat(fight, sequence)
    if fight.options.rounds == 1 and not grid.optimal and not grid.fits(exact):
        return by_sequence(fight, sequence, exact)
    return flat.resolve(grid, exact)


def by_sequence(fight: Fight, sequence: Sequence, exact: bool) -> dict[tuple[int, int], Number]:
    """`final_wounds` of a heuristic fight, cell by cell, one sequence at a time (any rounds:
    the wounds grid's path is checked against it)."""
    rounds = fight.options.rounds
    top = max(fight.fighter_a.wounds, fight.fighter_b.wounds)
    resolution = Resolution(sequence, exact, top, rounds)
    finals: dict[tuple[int, int], Number] = {}
    starts: dict[Ending, Any] = {((fight.fighter_a.wounds, fight.fighter_b.wounds), (0, 0)): 1}
    den = 1
    for played in range(1, rounds + 1):
        ended, fallen = resolution.sequence_from(starts)
        if exact:
            den *= power6(resolution.step)
        if played == rounds:
            for (wounds, _), mass in ended.items():
                put(fallen, wounds, mass)
        for wounds, mass in fallen.items():
            put(finals, wounds, Fraction(mass, den) if exact else mass)
        starts = ended
        if not starts:
            break
    return finals


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


def evaluate(fight: Fight) -> FightResult:
    """The fight's outputs, exact (`Fraction`) when `options.exact`, else float64."""
    exact = fight.options.exact
    with collector.paused():  # a fight's memo tables: many small acyclic tuples
        finals = final_wounds(fight, exact)
    zero = Fraction(0) if exact else 0.0
    return FightResult(
        fighter_a=fighter_result(finals, 0, fight.fighter_b.wounds, zero),
        fighter_b=fighter_result(finals, 1, fight.fighter_a.wounds, zero),
    )
