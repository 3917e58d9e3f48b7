"""Requests and answers of ruleset `kt2018` (kt2018.md): validation, engine values, output.

Pydantic checks each field (types, rule ranges, §11 limits); the combination rules of §2.5
that span fields are checked afterwards, each naming the field a player would fix. Outputs
follow kt2024.md §10 (kt2018.md §1 item 7). Every mode is registered on import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    StrictBool,
    StrictStr,
    ValidationError,
)
from pydantic_core import PydanticCustomError

from engine.errors import InputError
from engine.kt2018 import attacks, canonical, morale, mortal, psybolt
from engine.kt2018.scenario import (
    Armour,
    Attacker,
    BreakCheck,
    Combat,
    MortalWounds,
    NerveTest,
    Psybolt,
    Target,
    Weapon,
)
from engine.kt2018.state import Outcome
from schema import registry
from schema.answers.base import Result
from schema.answers.kt2018 import (
    Kt2018BreakCheckResult,
    Kt2018CombatResult,
    Kt2018MortalWoundsResult,
    Kt2018NerveTestResult,
    Kt2018PsyboltResult,
)
from schema.errors import from_validation_error
from schema.fields import Count, Dice, ExactOptions, Ignored, RuleRange, StrictModel
from schema.models import ApiModel, engine_model, engine_value
from schema.report import distribution, exact_members

MAX_WEAPONS = 4
MAX_ATTACKS = 20
MAX_DAMAGE = 12
MAX_WOUNDS = 20
MAX_MORTAL_WOUNDS = 20

Reroll = Literal["none", "ones", "failed"]
RANGED = ("assault", "heavy", "rapidFire", "grenade", "pistol")


def _at_most_weapons(value: object) -> object:
    """More than four weapons is a §11 limit, reported before the weapons are validated."""
    if isinstance(value, list) and len(value) > MAX_WEAPONS:
        raise PydanticCustomError("less_than_equal", "at most {le} weapons", {"le": MAX_WEAPONS})
    return value


class AttackerBody(StrictModel):
    ballisticSkill: RuleRange(2, 6) | None = None
    weaponSkill: RuleRange(2, 6) | None = None
    fleshWounds: RuleRange(0, 6) = 0
    killTeamBroken: StrictBool = False
    moved: StrictBool = False
    advanced: StrictBool = False
    hitModifier: RuleRange(-3, 3) = 0
    rerollHits: Reroll = "none"
    rerollWounds: Reroll = "none"


class SituationBody(StrictModel):
    longRange: StrictBool = False
    overwatch: StrictBool = False
    interveningTerrain: StrictBool = False


class WeaponBody(StrictModel):
    name: Annotated[StrictStr, Field(max_length=60)] | None = None
    type: Literal["assault", "heavy", "rapidFire", "grenade", "pistol", "melee"] | None = None
    attacks: Dice(MAX_ATTACKS)
    strength: RuleRange(1, 20)
    ap: RuleRange(-6, 0) = 0
    damage: Dice(MAX_DAMAGE) = Field(default=1, validate_default=True)


_model = partial(engine_model, prefix="Kt2018")


Wounds = Count(MAX_WOUNDS, minimum=1)
FleshWounds = RuleRange(0, 6)
MaxFleshWounds = RuleRange(1, 6)
FLESH_WOUNDS = {"wounds": Wounds, "flesh_wounds": FleshWounds, "max_flesh_wounds": MaxFleshWounds}
WoundedBody = _model(
    Target, FLESH_WOUNDS, "A model that may lose wounds: the target of §2.4 without its protection."
)
CombatTargetBody = _model(
    Armour,
    {
        "toughness": RuleRange(1, 10),
        "save": RuleRange(2, 6) | None,
        "invulnerable_save": RuleRange(2, 6) | None,
    },
    "The target of shooting and fight (§2.4): its condition and its protection.",
    base=WoundedBody,
    name="CombatTarget",
)


class MortalTargetBody(WoundedBody):
    """§6: toughness and saves are not used by mortal wounds and are ignored if present."""

    toughness: Ignored = None
    save: Ignored = None
    invulnerable_save: Ignored = None


class PsykerBody(ApiModel):
    """The psyker of §6: Perils may wound it; terrain never shields it."""

    wounds: Wounds
    flesh_wounds: FleshWounds = 0
    max_flesh_wounds: MaxFleshWounds = 3


class CombatBody(StrictModel):
    attacker: AttackerBody
    situation: SituationBody = SituationBody()
    weapons: Annotated[list[WeaponBody], BeforeValidator(_at_most_weapons), Field(min_length=1)]
    target: CombatTargetBody
    options: ExactOptions = ExactOptions()


class PsyboltBody(StrictModel):
    psyker: PsykerBody
    denyTheWitch: StrictBool = False
    target: MortalTargetBody
    options: ExactOptions = ExactOptions()


class MortalWoundsBody(StrictModel):
    amount: Dice(MAX_MORTAL_WOUNDS)
    source: Literal["shooting", "psychic", "fight", "other"]
    target: MortalTargetBody
    options: ExactOptions = ExactOptions()


class _Exact(ApiModel):
    """The `options` member of the modes whose engine value holds no options."""

    options: ExactOptions = ExactOptions()


NerveTestBody = _model(
    NerveTest,
    {
        "leadership": RuleRange(1, 10),
        "other_friendly_shaken_or_out_of_action": RuleRange(0, 20),
        "other_friendly_within_two_inches": RuleRange(0, 20),
        "modifier": RuleRange(-3, 3),
    },
    "`nerveTest` (§8).",
    base=_Exact,
)
BreakCheckBody = _model(
    BreakCheck,
    {
        "models": RuleRange(1, 30),
        "models_down": RuleRange(0, 30),
        "highest_leadership": RuleRange(1, 10),
    },
    "`breakCheck` (§8).",
    base=_Exact,
)


@dataclass(frozen=True)
class Request:
    """A validated request: the engine's scenario and whether exact output was asked for."""

    scenario: Any
    exact: bool


# --- cross-field rules and conversion -------------------------------------------------------


def _invalid(field: str, message: str) -> InputError:
    return InputError("INVALID_INPUT", field, message)


def _wounded(body: Any, path: str) -> Target:
    """The engine's Target of a WoundedBody (or a PsykerBody, which terrain never shields)."""
    if body.flesh_wounds > body.max_flesh_wounds:
        raise _invalid(f"{path}.fleshWounds", "cannot exceed maxFleshWounds")
    if isinstance(body, PsykerBody):
        return Target(body.wounds, body.flesh_wounds, body.max_flesh_wounds)
    return engine_value(Target, body)


def _weapon_types(body: CombatBody, phase: str) -> list[str]:
    """Each weapon's type after §2.3 defaults, checked against §2.5 items 2–5."""
    types = []
    for i, weapon in enumerate(body.weapons):
        field = f"weapons.{i}.type"
        kind = weapon.type or ("melee" if phase == "fight" else None)
        if kind is None:
            raise _invalid(field, "required for shooting")
        if (kind == "melee") != (phase == "fight"):
            allowed = "melee" if phase == "fight" else ", ".join(RANGED)
            raise _invalid(field, f"{phase} needs a weapon of type {allowed}")
        if phase == "shooting" and body.attacker.advanced and kind != "assault":
            raise _invalid(field, "an Advancing model may fire Assault weapons only")
        types.append(kind)
    if "grenade" in types and len(types) > 1:
        raise _invalid(
            f"weapons.{types.index('grenade')}.type",
            "a grenade is the model's only weapon that phase",
        )
    pistols = [kind == "pistol" for kind in types]
    if any(pistols) and not all(pistols):
        raise _invalid(
            f"weapons.{pistols.index(not pistols[0])}.type",
            "a model fires either its Pistols or its other weapons",
        )
    return types


def _combat(body: CombatBody, phase: Literal["shooting", "fight"]) -> Combat:
    attacker, situation = body.attacker, body.situation
    skill_name = "ballisticSkill" if phase == "shooting" else "weaponSkill"
    skill = getattr(attacker, skill_name)
    if skill is None:
        raise _invalid(f"attacker.{skill_name}", f"required for {phase}")
    flags = (
        ("situation.overwatch", situation.overwatch, "fight"),
        ("situation.longRange", situation.longRange, "fight"),
        ("situation.interveningTerrain", situation.interveningTerrain, "shooting"),
        ("attacker.advanced", attacker.advanced, "fight"),
    )
    for field, value, meaningless_in in flags:
        if value and phase == meaningless_in:
            raise _invalid(field, f"has no meaning in {phase}")
    types = _weapon_types(body, phase)
    target = body.target
    return Combat(
        phase=phase,
        attacker=Attacker(
            skill=skill,
            flesh_wounds=attacker.fleshWounds,
            kill_team_broken=attacker.killTeamBroken,
            moved=attacker.moved,
            advanced=attacker.advanced,
            hit_modifier=attacker.hitModifier,
            reroll_hits=attacker.rerollHits,
            reroll_wounds=attacker.rerollWounds,
        ),
        weapons=tuple(
            Weapon(kind, w.attacks, w.strength, w.ap, w.damage)
            for kind, w in zip(types, body.weapons, strict=True)
        ),
        armour=engine_value(Armour, target),
        target=_wounded(target, "target"),
        long_range=situation.longRange,
        overwatch=situation.overwatch,
        intervening_terrain=situation.interveningTerrain,
    )


def _psybolt(body: PsyboltBody) -> Psybolt:
    return Psybolt(
        psyker=_wounded(body.psyker, "psyker"),
        target=_wounded(body.target, "target"),
        deny_the_witch=body.denyTheWitch,
    )


def _mortal_wounds(body: MortalWoundsBody) -> MortalWounds:
    return MortalWounds(body.amount, body.source, _wounded(body.target, "target"))


def _break_check(body: Any) -> BreakCheck:
    if body.models_down > body.models:
        raise _invalid("modelsDown", "cannot exceed models")
    return engine_value(BreakCheck, body)


# --- output ---------------------------------------------------------------------------------


def _outcome(outcome: Outcome, exact: bool) -> dict[str, Any]:
    """The members of §5 shared by every mode that wounds a target (`Kt2018Outcome`)."""
    return {
        "wounds_lost": distribution(outcome.wounds_lost, exact),
        "wounds_remaining": distribution(outcome.wounds_remaining, exact),
        "flesh_wounds_after": distribution(outcome.flesh_wounds_after, exact),
        **exact_members(
            exact,
            p_out_of_action=outcome.p_out_of_action,
            p_flesh_wound=outcome.p_flesh_wound,
            p_injury_roll=outcome.p_injury_roll,
            expected_wounds_lost=outcome.expected_wounds_lost,
        ),
    }


def _render_combat(request: Request) -> dict[str, Any]:
    result = attacks.evaluate(request.scenario, request.exact)
    return Kt2018CombatResult.build(
        **_outcome(result.outcome, request.exact),
        **exact_members(request.exact, expected_unsaved_wounds=result.expected_unsaved_wounds),
    )


def _render_psybolt(request: Request) -> dict[str, Any]:
    result = psybolt.evaluate(request.scenario)
    return Kt2018PsyboltResult.build(
        **_outcome(result.outcome, request.exact),
        **exact_members(
            request.exact,
            p_perils=result.p_perils,
            p_psyker_out_of_action=result.p_psyker_out_of_action,
            p_psyker_flesh_wound=result.p_psyker_flesh_wound,
            p_manifested=result.p_manifested,
            p_denied=result.p_denied,
            p_resolved=result.p_resolved,
        ),
    )


def _render_mortal_wounds(request: Request) -> dict[str, Any]:
    return Kt2018MortalWoundsResult.build(
        **_outcome(mortal.evaluate(request.scenario), request.exact)
    )


def _render_nerve_test(request: Request) -> dict[str, Any]:
    shaken = morale.p_shaken(request.scenario)
    return Kt2018NerveTestResult.build(
        **exact_members(request.exact, p_shaken=shaken, p_pass=1 - shaken)
    )


def _render_break_check(request: Request) -> dict[str, Any]:
    p_broken = morale.p_broken(request.scenario)
    return Kt2018BreakCheckResult.build(**exact_members(request.exact, p_broken=p_broken))


# --- registration ---------------------------------------------------------------------------


def _register(
    name: str,
    model: type[StrictModel],
    convert: Callable[[Any], Any],
    render: Callable[[Request], dict[str, Any]],
    result: type[Result],
) -> None:
    def parse(body: Mapping[str, Any]) -> Request:
        try:
            validated = model.model_validate(body)
        except ValidationError as exc:
            raise from_validation_error(exc) from None
        return Request(convert(validated), validated.options.exact)

    def cache_key(request: Request) -> str:
        return canonical.cache_key(name, request.scenario, {"exact": request.exact})

    registry.register(
        registry.Mode("kt2018", name, parse, cache_key, render, model=model, results=(result,))
    )


_register(
    "shooting",
    CombatBody,
    lambda body: _combat(body, "shooting"),
    _render_combat,
    Kt2018CombatResult,
)
_register(
    "fight", CombatBody, lambda body: _combat(body, "fight"), _render_combat, Kt2018CombatResult
)
_register("psybolt", PsyboltBody, _psybolt, _render_psybolt, Kt2018PsyboltResult)
_register(
    "mortalWounds",
    MortalWoundsBody,
    _mortal_wounds,
    _render_mortal_wounds,
    Kt2018MortalWoundsResult,
)
_register(
    "nerveTest",
    NerveTestBody,
    partial(engine_value, NerveTest),
    _render_nerve_test,
    Kt2018NerveTestResult,
)
_register("breakCheck", BreakCheckBody, _break_check, _render_break_check, Kt2018BreakCheckResult)
