"""The fight (§9): the exact distribution of both fighters' final wounds, and the outputs of §9.7.3.

A sequence is a finite Markov chain over cells (a numbered moment of `table`, both fighters'
wounds); fights go over the whole wounds grid (`flat`, one resolution for every size).
Sequences follow each other on the distribution of starting wounds while both fighters stand
and `rounds` allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .. import collector
from . import flat
from .fighter import Fight
from .sequence import Sequence

Number = Fraction | float


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


def final_wounds(fight: Fight, exact: bool) -> dict[tuple[int, int], Number]:
    """The joint distribution of (A's final wounds, B's final wounds), on the wounds grid
    (`flat`, compiled loops): every choice is made at every reachable cell of every
    wound-free moment, and the mass moves through a sequence at once."""
    sequence = Sequence(fight)
    return flat.resolve(flat.Flat(fight, sequence), exact)


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
