"""Mode `heal` (threshold.md §4): a unit restores HP, possibly returning destroyed models."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.threshold.odds import Odds
from engine.threshold.scenario import HealScenario, Unit


@dataclass(frozen=True)
class HealResult:
    hp_after: dict[int, Fraction]
    hp_restored: dict[int, Fraction]
    models_returned: dict[int, Fraction]
    expected_hp_restored: Fraction
    p_fully_restored: Fraction


def heal_cap(scenario: HealScenario) -> int:
    """The most HP the unit can reach (§4.2, §5.6).

    Without a rule returning models, destroyed models stay destroyed and each survivor heals
    at most to its own starting HP, so the cap is the survivors' starting HP.
    """
    unit = Unit(scenario.starting_models, scenario.hp_per_model)
    if scenario.can_return_models:
        return unit.starting_models * unit.hp_per_model
    return unit.models_on_table(scenario.current_hp) * unit.hp_per_model


def evaluate_heal(scenario: HealScenario) -> HealResult:
    unit = Unit(scenario.starting_models, scenario.hp_per_model)
    start, cap = scenario.current_hp, heal_cap(scenario)
    amount = Odds(scenario.amount.counts(), scenario.amount.outcomes)
    # A negative amount heals nothing; it never wounds.
    hp_after = amount.group(lambda value: min(start + max(value, 0), cap))
    alive = unit.models_on_table(start)
    full = unit.starting_models * unit.hp_per_model
    return HealResult(
        hp_after=hp_after.fractions(),
        hp_restored=hp_after.group(lambda hp: hp - start).fractions(),
        models_returned=hp_after.group(lambda hp: unit.models_on_table(hp) - alive).fractions(),
        expected_hp_restored=hp_after.expectation(lambda hp: hp - start),
        p_fully_restored=hp_after.probability(lambda hp: hp == full),
    )
