"""Canonical scenarios: equivalent inputs become one value, hence one cache key.

Every rewrite below leaves every output unchanged (checked against the unrewritten
evaluation on random scenarios in `tests/test_threshold_canonical.py`):

* Dice expressions: parsing already keeps only the dice multiset and the summed constant;
  `DiceExpr.canonical` spells them one way.
* Skill roll: only `dc − skillBonus` matters, so skillBonus becomes 0. A roll that cannot fail
  (dc − bonus ≤ 1) is no roll (dc null); one that cannot succeed (> 12) becomes dc 13 with a
  single attack. Without a roll, skillRollMode is `normal`.
* Direct Damage ignores the thresholds and Centrepiece: both become 1 / false.
* Thresholds above the largest possible Damage act alike: they are lowered to
  max(max Damage + 1, 1), and Centrepiece is false when Devastating Wounds (2 × Major) are
  out of reach.
* Unit structure: only W and currentHP decide `modelsDestroyed`, so startingModels becomes
  ceil(currentHP / W), the fewest models that hold currentHP.
* Heal without returning models: any startingModels above the survivors + 1 only says "not
  fully restorable", so it becomes survivors + 1.
"""

from __future__ import annotations

from dataclasses import replace

from engine.threshold.scenario import (
    Attack,
    AttackScenario,
    DeadlyDemiseScenario,
    HealScenario,
    Target,
    Unit,
)

SKILL_DIE = 12


def canonical_attack(scenario: AttackScenario) -> AttackScenario:
    attack = _skill(scenario.attack)
    target = _unit(scenario.target)
    if attack.damage_type == "direct":
        attack = replace(attack, centrepiece=False)
        target = replace(target, minor_threshold=1, major_threshold=1)
        return AttackScenario(attack, target)
    largest = attack.damage.maximum
    target = _thresholds(target, largest)
    if 2 * target.major_threshold > largest:
        attack = replace(attack, centrepiece=False)
    return AttackScenario(attack, target)


def canonical_deadly_demise(scenario: DeadlyDemiseScenario) -> DeadlyDemiseScenario:
    largest = SKILL_DIE * scenario.x
    return replace(scenario, units=tuple(_thresholds(_unit(t), largest) for t in scenario.units))


def canonical_heal(scenario: HealScenario) -> HealScenario:
    if scenario.can_return_models:
        return scenario
    alive = Unit(scenario.starting_models, scenario.hp_per_model).models_on_table(
        scenario.current_hp
    )
    return replace(scenario, starting_models=min(scenario.starting_models, alive + 1))


def _skill(attack: Attack) -> Attack:
    if attack.dc is None:
        return replace(attack, skill_bonus=0, skill_roll_mode="normal")
    needed = attack.dc - attack.skill_bonus
    if needed <= 1:
        return replace(attack, dc=None, skill_bonus=0, skill_roll_mode="normal")
    if needed > SKILL_DIE:
        return replace(attack, dc=SKILL_DIE + 1, skill_bonus=0, skill_roll_mode="normal", attacks=1)
    return replace(attack, dc=needed, skill_bonus=0)


def _unit(target: Target) -> Target:
    if target.unit is None:
        return target
    unit = target.unit
    fewest = unit.models_on_table(target.current_hp)
    return replace(target, unit=replace(unit, starting_models=fewest))


def _thresholds(target: Target, largest_damage: int) -> Target:
    # Never below 1: with 2 × Major ≤ 0, Damage ≤ 0 would wrongly reach Devastating Wounds.
    beyond = max(largest_damage + 1, 1)
    return replace(
        target,
        minor_threshold=min(target.minor_threshold, beyond),
        major_threshold=min(target.major_threshold, beyond),
    )
