"""Requests and answers of ruleset `threshold` (threshold.md), registered at import.

Validation choices where the spec names a range but not an error code (kt2024.md §12 style):
counts and sizes above their maximum are LIMIT_EXCEEDED (`attacks`, `x`, `units`, `currentHP`,
`startingModels`, `hpPerModel`, dice per expression, expression constants above 100); game
ranges (`skillBonus`, `dc`, thresholds, die sizes, enums) and cross-field rules (Major ≥ Minor,
unit fields together, currentHP ≤ N × W) are INVALID_INPUT. A member whose default is null
(`attack.dc`, a target's `hpPerModel` and `startingModels`, a unit's `name`) takes null as
"absent" (`schema.fields.Absent`): the OpenAPI document advertises that default, so a client
may send it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import orjson
from pydantic import Field, StrictBool, StrictStr, ValidationError
from pydantic_core import ErrorDetails

from engine.errors import InputError
from engine.threshold import ENGINE_VERSION
from engine.threshold.attack import AttackResult, evaluate_attack
from engine.threshold.canonical import (
    canonical_attack,
    canonical_deadly_demise,
    canonical_heal,
)
from engine.threshold.deadly_demise import DeadlyDemiseResult, evaluate_deadly_demise
from engine.threshold.dice import parse_dice
from engine.threshold.heal import HealResult, evaluate_heal
from engine.threshold.scenario import (
    Attack,
    AttackScenario,
    DeadlyDemiseScenario,
    HealScenario,
    Target,
    Unit,
)
from engine.threshold.sequence import Aftermath
from schema import registry
from schema.answers.threshold import (
    ThresholdAttackResult,
    ThresholdDeadlyDemiseResult,
    ThresholdHealResult,
    ThresholdUnitAftermath,
)
from schema.errors import dotted, field_error, from_validation_error
from schema.fields import Absent, Count, DiceText, ExactOptions, RuleRange, StrictModel
from schema.report import distribution, exact_members

RULESET = "threshold"
MAX_UNITS = 6


class TargetModel(StrictModel):
    """§2 `target`; the unit structure fields are absent or both present."""

    minorThreshold: RuleRange(1, 100)
    majorThreshold: RuleRange(1, 100)
    currentHP: Count(200, 1)
    hpPerModel: Absent(Count(50, 1))
    startingModels: Absent(Count(20, 1))


class NamedTargetModel(TargetModel):
    """§3 unit: a target plus a caller's label (not echoed: outputs keep request order)."""

    name: Absent(StrictStr)


class AttackModel(StrictModel):
    attacks: Count(10, 1) = 1
    skillBonus: RuleRange(-20, 20) = 0
    dc: Absent(RuleRange(1, 40))
    skillRollMode: Literal["normal", "advantage", "disadvantage"] = "normal"
    damage: DiceText
    damageType: Literal["normal", "direct"] = "normal"
    centrepiece: StrictBool = False


class AttackRequest(StrictModel):
    attack: AttackModel
    target: TargetModel
    options: ExactOptions = ExactOptions()


class DeadlyDemiseRequest(StrictModel):
    x: Count(6, 1)
    units: list[NamedTargetModel] = Field(min_length=1, max_length=MAX_UNITS)
    options: ExactOptions = ExactOptions()


class HealRequest(StrictModel):
    startingModels: Count(20, 1) = 1
    hpPerModel: Count(50, 1)
    currentHP: Count(200, 1)
    amount: DiceText
    canReturnModels: StrictBool = False
    options: ExactOptions = ExactOptions()


S = TypeVar("S")
M = TypeVar("M", bound=StrictModel)


@dataclass(frozen=True)
class Parsed(Generic[S]):
    """An engine scenario plus the one request option that changes the answer's shape."""

    scenario: S
    exact: bool


def _field_error(error: ErrorDetails, prefix: str) -> InputError:
    if error["type"] == "too_long":  # only `units` has a maximum length
        limit = int(error["ctx"]["max_length"])
        field = dotted(tuple(error["loc"]), prefix)
        return InputError("LIMIT_EXCEEDED", field, f"at most {limit} entries", limit)
    return field_error(error, prefix)


def _validate(model: type[M], body: Mapping[str, Any]) -> M:
    try:
        return model.model_validate(dict(body))
    except ValidationError as exc:
        raise from_validation_error(exc, convert=_field_error) from None


def _target(model: TargetModel, path: str) -> Target:
    if model.majorThreshold < model.minorThreshold:
        raise InputError(
            "INVALID_INPUT", f"{path}.majorThreshold", "must be at least minorThreshold"
        )
    if (model.hpPerModel is None) != (model.startingModels is None):
        missing = "hpPerModel" if model.hpPerModel is None else "startingModels"
        raise InputError(
            "INVALID_INPUT", f"{path}.{missing}", "hpPerModel and startingModels go together"
        )
    unit = None
    if model.hpPerModel is not None:
        unit = Unit(model.startingModels, model.hpPerModel)
        _check_pool(model.currentHP, unit, f"{path}.currentHP")
    return Target(model.minorThreshold, model.majorThreshold, model.currentHP, unit)


def _check_pool(current_hp: int, unit: Unit, field: str) -> None:
    if current_hp > unit.starting_models * unit.hp_per_model:
        raise InputError("INVALID_INPUT", field, "must be at most startingModels × hpPerModel")


def parse_attack(body: Mapping[str, Any]) -> Parsed[AttackScenario]:
    request = _validate(AttackRequest, body)
    a = request.attack
    attack = Attack(
        damage=parse_dice(a.damage, "attack.damage"),
        attacks=a.attacks,
        skill_bonus=a.skillBonus,
        dc=a.dc,
        skill_roll_mode=a.skillRollMode,
        damage_type=a.damageType,
        centrepiece=a.centrepiece,
    )
    return Parsed(AttackScenario(attack, _target(request.target, "target")), request.options.exact)


def parse_deadly_demise(body: Mapping[str, Any]) -> Parsed[DeadlyDemiseScenario]:
    request = _validate(DeadlyDemiseRequest, body)
    units = tuple(_target(unit, f"units.{i}") for i, unit in enumerate(request.units))
    return Parsed(DeadlyDemiseScenario(request.x, units), request.options.exact)


def parse_heal(body: Mapping[str, Any]) -> Parsed[HealScenario]:
    request = _validate(HealRequest, body)
    _check_pool(request.currentHP, Unit(request.startingModels, request.hpPerModel), "currentHP")
    scenario = HealScenario(
        hp_per_model=request.hpPerModel,
        current_hp=request.currentHP,
        amount=parse_dice(request.amount, "amount"),
        starting_models=request.startingModels,
        can_return_models=request.canReturnModels,
    )
    return Parsed(scenario, request.options.exact)


# --- canonical JSON (cache keys) ---------------------------------------------------------


def _key(mode: str, body: dict[str, Any], exact: bool) -> str:
    """`threshold-v1:<mode>:` + the canonical request, every field present, keys sorted."""
    body["options"] = {"exact": exact}
    return f"{ENGINE_VERSION}:{mode}:" + orjson.dumps(body, option=orjson.OPT_SORT_KEYS).decode()


def _target_json(target: Target) -> dict[str, Any]:
    unit = target.unit
    return {
        "minorThreshold": target.minor_threshold,
        "majorThreshold": target.major_threshold,
        "currentHP": target.current_hp,
        "hpPerModel": unit.hp_per_model if unit else None,
        "startingModels": unit.starting_models if unit else None,
    }


def attack_key(parsed: Parsed[AttackScenario]) -> str:
    scenario = canonical_attack(parsed.scenario)
    a = scenario.attack
    attack = {
        "attacks": a.attacks,
        "skillBonus": a.skill_bonus,
        "dc": a.dc,
        "skillRollMode": a.skill_roll_mode,
        "damage": a.damage.canonical(),
        "damageType": a.damage_type,
        "centrepiece": a.centrepiece,
    }
    body = {"attack": attack, "target": _target_json(scenario.target)}
    return _key("attack", body, parsed.exact)


def deadly_demise_key(parsed: Parsed[DeadlyDemiseScenario]) -> str:
    scenario = canonical_deadly_demise(parsed.scenario)
    body = {"x": scenario.x, "units": [_target_json(t) for t in scenario.units]}
    return _key("deadlyDemise", body, parsed.exact)


def heal_key(parsed: Parsed[HealScenario]) -> str:
    s = canonical_heal(parsed.scenario)
    body = {
        "startingModels": s.starting_models,
        "hpPerModel": s.hp_per_model,
        "currentHP": s.current_hp,
        "amount": s.amount.canonical(),
        "canReturnModels": s.can_return_models,
    }
    return _key("heal", body, parsed.exact)


# --- answers (kt2024.md §10 shape) -------------------------------------------------------


def _aftermath(result: Aftermath, exact: bool) -> dict[str, Any]:
    """The members of `ThresholdAftermath`; `modelsDestroyed` only for a unit."""
    members: dict[str, Any] = {
        "hp_loss": distribution(result.hp_loss, exact),
        **exact_members(
            exact,
            expected_hp_loss=result.expected_hp_loss,
            p_destroyed=result.p_destroyed,
            p_devastating=result.p_devastating,
            p_battle_shock_test=result.p_battle_shock_test,
        ),
    }
    if result.models_destroyed is not None:
        members["models_destroyed"] = distribution(result.models_destroyed, exact)
    return members


def render_attack(result: AttackResult, exact: bool) -> dict[str, Any]:
    return ThresholdAttackResult.build(
        hp_loss_per_successful_attack=distribution(result.hp_loss_per_successful_attack, exact),
        **exact_members(
            exact,
            p_success=result.p_success,
            p_devastating_per_successful_attack=result.p_devastating_per_successful_attack,
        ),
        **_aftermath(result.aftermath, exact),
    )


def render_deadly_demise(result: DeadlyDemiseResult, exact: bool) -> dict[str, Any]:
    units = [
        ThresholdUnitAftermath.build(
            hp_loss_if_triggered=distribution(unit.hp_loss_if_triggered, exact),
            **_aftermath(unit.aftermath, exact),
        )
        for unit in result.units
    ]
    return ThresholdDeadlyDemiseResult.build(
        **exact_members(exact, p_trigger=result.p_trigger), units=units
    )


def render_heal(result: HealResult, exact: bool) -> dict[str, Any]:
    return ThresholdHealResult.build(
        hp_after=distribution(result.hp_after, exact),
        hp_restored=distribution(result.hp_restored, exact),
        models_returned=distribution(result.models_returned, exact),
        **exact_members(
            exact,
            expected_hp_restored=result.expected_hp_restored,
            p_fully_restored=result.p_fully_restored,
        ),
    )


def _evaluator(
    engine: Callable[[S], Any], render: Callable[[Any, bool], dict[str, Any]]
) -> Callable[[Parsed[S]], dict[str, Any]]:
    def evaluate(parsed: Parsed[S]) -> dict[str, Any]:
        return render(engine(parsed.scenario), parsed.exact)

    return evaluate


registry.register(
    registry.Mode(
        RULESET,
        "attack",
        parse_attack,
        attack_key,
        _evaluator(evaluate_attack, render_attack),
        model=AttackRequest,
        results=(ThresholdAttackResult,),
    )
)
registry.register(
    registry.Mode(
        RULESET,
        "deadlyDemise",
        parse_deadly_demise,
        deadly_demise_key,
        _evaluator(evaluate_deadly_demise, render_deadly_demise),
        model=DeadlyDemiseRequest,
        results=(ThresholdDeadlyDemiseResult,),
    )
)
registry.register(
    registry.Mode(
        RULESET,
        "heal",
        parse_heal,
        heal_key,
        _evaluator(evaluate_heal, render_heal),
        model=HealRequest,
        results=(ThresholdHealResult,),
    )
)
