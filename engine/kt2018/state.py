"""The target's condition as an exact distribution, and the outputs of §5 read from it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from engine.kt2018.scenario import Target

OUT_OF_ACTION = "outOfAction"


class Condition(NamedTuple):
    """Wounds left, flesh wounds marked and wound points removed so far.

    `wounds == 0` means out of action: the Injury roll is made the moment the last wound
    goes, so a model never rests on 0 wounds. Flesh wounds of a model out of action no longer
    matter and are stored as 0, which merges states the outputs cannot tell apart.
    """

    wounds: int
    flesh: int
    lost: int

    @property
    def out_of_action(self) -> bool:
        return self.wounds == 0


Distribution = dict[Condition, Fraction]


def start(target: Target) -> Distribution:
    return {Condition(target.wounds, target.flesh_wounds, 0): Fraction(1)}


def gather(weighted: Iterable[tuple[Condition, Fraction]]) -> Distribution:
    """Sum the probabilities of equal conditions, dropping impossible ones."""
    total: defaultdict[Condition, Fraction] = defaultdict(Fraction)
    for condition, p in weighted:
        if p:
            total[condition] += p
    return dict(total)


@dataclass(frozen=True)
class Outcome:
    """What happened to the target (§5, without `expectedUnsavedWounds`)."""

    wounds_lost: dict[int, Fraction]
    wounds_remaining: dict[int | str, Fraction]
    flesh_wounds_after: dict[int | str, Fraction]
    p_out_of_action: Fraction
    p_flesh_wound: Fraction
    p_injury_roll: Fraction
    expected_wounds_lost: Fraction

    @classmethod
    def of(cls, target: Target, final: Mapping[Condition, Fraction]) -> Outcome:
        """Read the outputs off the final distribution.

        Every Injury roll ends in either out of action or one more flesh wound, and only an
        Injury roll takes a model out of action (it starts on ≥ 1 wound), so P(an Injury roll
        was made) = P(out of action) + P(flesh wound).
        """
        lost: defaultdict[int, Fraction] = defaultdict(Fraction)
        remaining: defaultdict[int | str, Fraction] = defaultdict(Fraction)
        flesh: defaultdict[int | str, Fraction] = defaultdict(Fraction)
        p_flesh_wound = Fraction(0)
        for condition, p in final.items():
            lost[condition.lost] += p
            if condition.out_of_action:
                remaining[OUT_OF_ACTION] += p
                flesh[OUT_OF_ACTION] += p
                continue
            remaining[condition.wounds] += p
            flesh[condition.flesh] += p
            if condition.flesh > target.flesh_wounds:
                p_flesh_wound += p
        p_out = remaining.get(OUT_OF_ACTION, Fraction(0))
        return cls(
            wounds_lost=dict(sorted(lost.items())),
            wounds_remaining=dict(remaining),
            flesh_wounds_after=dict(flesh),
            p_out_of_action=p_out,
            p_flesh_wound=p_flesh_wound,
            p_injury_roll=p_out + p_flesh_wound,
            expected_wounds_lost=sum((v * p for v, p in lost.items()), Fraction(0)),
        )
