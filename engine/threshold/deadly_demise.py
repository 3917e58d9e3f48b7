"""Mode `deadlyDemise` (threshold.md §3): a destroyed model's Xd12 blast on nearby units."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from engine.threshold.dice import DiceExpr
from engine.threshold.hp_loss import attempts, hits
from engine.threshold.scenario import DeadlyDemiseScenario, Target
from engine.threshold.sequence import Aftermath, aftermath, resolve

D12 = range(1, 13)


def trigger() -> tuple[int, int]:
    """(triggering outcomes, outcomes) of the Focus and Panic d12s: Panic > Focus, ties fail."""
    rolls = list(product(D12, repeat=2))
    return sum(1 for focus, panic in rolls if panic > focus), len(rolls)


@dataclass(frozen=True)
class UnitDemise:
    hp_loss_if_triggered: dict[int, Fraction]
    aftermath: Aftermath


@dataclass(frozen=True)
class DeadlyDemiseResult:
    p_trigger: Fraction
    units: tuple[UnitDemise, ...]


def evaluate_deadly_demise(scenario: DeadlyDemiseScenario) -> DeadlyDemiseResult:
    """Each unit's own Xd12 roll, resolved like one sure, non-Centrepiece normal attack.

    The trigger plays the part of the skill roll; units are independent marginals (§3.2).
    """
    triggers, rolls = trigger()
    damage = DiceExpr((12,) * scenario.x, 0)
    return DeadlyDemiseResult(
        p_trigger=Fraction(triggers, rolls),
        units=tuple(_unit(target, damage, triggers, rolls) for target in scenario.units),
    )


def _unit(target: Target, damage: DiceExpr, triggers: int, rolls: int) -> UnitDemise:
    hit = hits(damage, "normal", target, centrepiece=False)
    if_triggered = resolve(target.current_hp, 1, hit)
    final = resolve(target.current_hp, 1, attempts(triggers, rolls, hit))
    return UnitDemise(
        hp_loss_if_triggered=if_triggered.group(lambda s: target.current_hp - s[0]).fractions(),
        aftermath=aftermath(target, final),
    )
