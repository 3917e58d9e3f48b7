"""The fight (§9): the exact distribution of both fighters' final wounds, and the outputs of §9.7.3.

Each sequence is pushed forward as a Markov chain: every moment carries the total weight of the
paths reaching it, and identical moments merge. Every action spends at least one unresolved
success, so processing moments by decreasing number of successes (F3 before F4) visits each
one once. Sequences follow each other while both fighters stand and `rounds` allows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .fight_state import Moment
from .fighter import Fight
from .optimal import Optimal
from .sequence import Sequence, successes
from .strike import Action
from .weights import ExactWeights, FloatWeights, Weights

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


def chooser(sequence: Sequence) -> Callable[[Moment, int], Action | None]:
    """What the mover does at a moment: its heuristic, or OPTIMAL's solved choice."""
    if all(f.strategy != "OPTIMAL" for f in sequence.fighters):
        return lambda moment, left: sequence.heuristic(moment)
    optimal = Optimal(sequence)

    def choose(moment: Moment, left: int) -> Action | None:
        if sequence.fighters[sequence.mover(moment)].strategy == "OPTIMAL":
            return optimal.choice(moment, left)
        return sequence.heuristic(moment)

    return choose


def rank(sequence: Sequence, moment: Moment) -> tuple[int, int]:
    """Processing order: more unresolved successes first; F3 (first, then second) before F4."""
    phase = (0 if moment.active == sequence.first else 1) if moment.duel else 2
    return (-successes(moment.pair), phase)


def final_wounds(fight: Fight, weights: Weights) -> dict[tuple[int, int], Any]:
    """The joint distribution of (A's final wounds, B's final wounds), as `weights`."""
    sequence = Sequence(fight)
    choose = chooser(sequence)
    rounds = fight.options.rounds
    finals: dict[tuple[int, int], Any] = {}

    def put(table: dict, key: Any, w: Any) -> None:
        table[key] = weights.add(table[key], w) if key in table else w

    starts: dict[Ending, Any] = {
        ((fight.fighter_a.wounds, fight.fighter_b.wounds), (0, 0)): weights.one
    }
    for played in range(rounds):
        left = rounds - played
        frontier: dict[tuple[int, int], dict[Moment, Any]] = {}
        for (wounds, relics), w in starts.items():
            for odds, pair in sequence.begin(wounds, relics):
                if pair[0].wounds == 0 or pair[1].wounds == 0:  # F2 ended the battle
                    put(finals, (pair[0].wounds, pair[1].wounds), weights.scale(w, odds))
                    continue
                moment = sequence.opening_moment(pair)
                put(frontier.setdefault(rank(sequence, moment), {}), moment, weights.scale(w, odds))
        starts = {}
        while frontier:
            bucket = frontier.pop(min(frontier))
            for moment, w in bucket.items():
                if sequence.over(moment):
                    a, b = moment.pair
                    if a.wounds and b.wounds and left > 1:
                        put(starts, ((a.wounds, b.wounds), (a.relics_used, b.relics_used)), w)
                    else:
                        put(finals, (a.wounds, b.wounds), w)
                    continue
                for odds, nxt in sequence.after(moment, choose(moment, left)):
                    put(frontier.setdefault(rank(sequence, nxt), {}), nxt, weights.scale(w, odds))
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


def evaluate(fight: Fight) -> FightResult:
    """The fight's outputs, exact (`Fraction`) when `options.exact`, else float64."""
    weights: Weights = ExactWeights() if fight.options.exact else FloatWeights()
    finals = final_wounds(fight, weights)
    zero = weights.result(weights.scale(weights.one, (0, 0)))
    return FightResult(
        fighter_a=fighter_result(finals, 0, fight.fighter_b.wounds, zero),
        fighter_b=fighter_result(finals, 1, fight.fighter_a.wounds, zero),
    )
