"""Requests and answers of ruleset kt2013 (kt2013.md), modes `shooting` and `fight`.

Pydantic checks types, ranges (§2) and limits (§8); the cross-field rules of §2.5 follow in
`to_attack`, each naming its field. The target is a model or a vehicle, told apart by its
`vehicle` member; errors inside it are reported as `target.<field>`, without pydantic's tag.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from typing import Annotated, Any, Literal

from pydantic import (
    Discriminator,
    PlainValidator,
    Tag,
    ValidationError,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from engine.errors import InputError
from engine.kt2013 import cache_key, evaluate
from engine.kt2013.hull_points import VehicleResult
from engine.kt2013.removal import ModelResult
from engine.kt2013.scenario import Attack, Attacker, Model, Options, Vehicle, Weapon
from schema import registry, report
from schema.answers.kt2013 import Kt2013ModelResult, Kt2013VehicleResult
from schema.errors import each, from_validation_error
from schema.fields import Choices, Count, Dice, ExactOptions, RuleRange, StrictModel
from schema.models import ApiModel, engine_model, engine_value

MAX_ATTACKS = 20
MAX_WOUNDS = 10
MAX_HULL_POINTS = 9

Characteristic = RuleRange(1, 10)
Roll = RuleRange(2, 6)  # a "X+" roll: saves, Feel No Pain, Poisoned, melee to-hit on a vehicle


def _melee_hit_on(raw: object) -> int | str:
    """`target.meleeHitOn`: "auto" or the X+ of the roll (2..6), one error for both forms."""
    if raw == "auto" or (type(raw) is int and 2 <= raw <= 6):
        return raw
    raise PydanticCustomError("melee_hit_on", 'must be "auto" or an integer between 2 and 6')


Attacks = Dice(MAX_ATTACKS)
MeleeHitOn = Annotated[
    int | str,
    PlainValidator(_melee_hit_on),
    WithJsonSchema({"anyOf": [{"const": "auto"}, {"type": "integer", "minimum": 2, "maximum": 6}]}),
    Choices("MeleeHitOn", (("AUTO", "auto"), *((f"ON_{x}_PLUS", x) for x in range(2, 7)))),
]


_model = partial(engine_model, prefix="Kt2013")


AttackerIn = _model(
    Attacker,
    {"ballistic_skill": Characteristic | None, "weapon_skill": Characteristic | None},
    "The attacking model (§2.1).",
)
WeaponIn = _model(
    Weapon,
    {
        "attacks": Attacks,
        "strength": Characteristic | None,
        "ap": RuleRange(1, 6) | None,
        "poisoned": Roll | None,
    },
    'The weapon profile (§2.2); `strength` null is "X", `ap` null is "–".',
)
TARGET_LIMITS: dict[str, object] = {
    "cover_save": Roll | None,
    "invulnerable_save": Roll | None,
}


class _ModelTag(ApiModel):
    """The tag that tells the two kinds of target apart (the engine needs no such member)."""

    vehicle: Literal[False] = False


class _VehicleTag(ApiModel):
    vehicle: Literal[True]


ModelIn = _model(
    Model,
    TARGET_LIMITS
    | {
        "toughness": Characteristic,
        "weapon_skill": Characteristic | None,
        "wounds": Count(MAX_WOUNDS, minimum=1),
        "save": Roll | None,
        "feel_no_pain": Roll | None,
    },
    "§2.3: any target that is not a vehicle.",
    base=_ModelTag,
)
VehicleIn = _model(
    Vehicle,
    TARGET_LIMITS
    | {
        "armour_value": RuleRange(9, 14),
        "hull_points": Count(MAX_HULL_POINTS, minimum=1),
        "melee_hit_on": MeleeHitOn,
    },
    "§2.4: a vehicle, seen from the facing the caller chose.",
    base=_VehicleTag,
)


def _target_kind(value: Any) -> str:
    vehicle = (
        value.get("vehicle") if isinstance(value, Mapping) else getattr(value, "vehicle", None)
    )
    return "vehicle" if vehicle is True else "model"


TargetIn = Annotated[
    Annotated[ModelIn, Tag("model")] | Annotated[VehicleIn, Tag("vehicle")],
    Discriminator(_target_kind),
]


class AttackIn(StrictModel):
    """The request body (the envelope without `ruleset` and `mode`)."""

    attacker: AttackerIn
    weapon: WeaponIn
    target: TargetIn
    options: ExactOptions = ExactOptions()


def _untagged(error: InputError) -> InputError:
    """'target.vehicle.armourValue' -> 'target.armourValue' (the tag is pydantic's, not API)."""
    head, _, rest = error.field.partition(".")
    tag, _, field = rest.partition(".")
    if head == "target" and tag in ("model", "vehicle"):
        return replace(error, field=".".join(filter(None, ("target", field))))
    return error


def _require(condition: bool, field: str, message: str) -> None:
    if not condition:
        raise InputError("INVALID_INPUT", field, message)


def _check(mode: str, body: AttackIn) -> None:
    """The cross-field rules of §2.5; fields without effect in the situation are accepted."""
    attacker, weapon, target = body.attacker, body.weapon, body.target
    vehicle = target.vehicle
    if mode == "shooting":
        _require(
            attacker.ballistic_skill is not None, "attacker.ballisticSkill", "required in shooting"
        )
    else:
        _require(not weapon.sniper, "weapon.sniper", "a Sniper weapon is ranged: not in fight")
        _require(not attacker.snap_shots, "attacker.snapShots", "Snap Shots are shooting only")
        if not vehicle:
            _require(
                attacker.weapon_skill is not None,
                "attacker.weaponSkill",
                "required in fight against a non-vehicle",
            )
            _require(target.weapon_skill is not None, "target.weaponSkill", "required in fight")
    _require(
        weapon.strength is not None or weapon.sniper or (vehicle and weapon.haywire),
        "weapon.strength",
        'Strength "X" (null) needs a Sniper weapon, or Haywire against a vehicle',
    )


def to_attack(mode: str, body: AttackIn) -> Attack:
    """The engine's scenario for a validated body; InputError for the rules of §2.5."""
    _check(mode, body)
    target = body.target
    return Attack(
        mode=mode,
        attacker=engine_value(Attacker, body.attacker),
        weapon=engine_value(Weapon, body.weapon),
        target=engine_value(Vehicle if target.vehicle else Model, target),
        options=Options(exact=body.options.exact),
    )


def parse(mode: str, body: Mapping[str, Any]) -> Attack:
    """Validate a request body for `mode`; InputError naming the dotted field on failure."""
    try:
        validated = AttackIn.model_validate(body)
    except ValidationError as exc:
        raise each(from_validation_error(exc), _untagged) from None
    return to_attack(mode, validated)


def render(result: ModelResult | VehicleResult, exact: bool) -> dict[str, Any]:
    """The §6 outputs in the API shape (kt2018.md §1 item 7), by their answer model."""
    if isinstance(result, VehicleResult):
        return Kt2013VehicleResult.build(
            glancing_hits=report.distribution(result.glancing_hits, exact),
            penetrating_hits=report.distribution(result.penetrating_hits, exact),
            hull_points_lost=report.distribution(result.hull_points_lost, exact),
            **report.exact_members(
                exact,
                p_wrecked=result.p_wrecked,
                p_any_penetrating=result.p_any_penetrating,
                expected_hits=result.expected_hits,
                expected_hull_points_lost=result.expected_hull_points_lost,
            ),
        )
    return Kt2013ModelResult.build(
        wounds_lost=report.distribution(result.wounds_lost, exact),
        **report.exact_members(
            exact,
            p_removed=result.p_removed,
            p_instant_death=result.p_instant_death,
            p_unsaved_wound=result.p_unsaved_wound,
            p_any_hit=result.p_any_hit,
            p_any_wound=result.p_any_wound,
            expected_hits=result.expected_hits,
            expected_wounds=result.expected_wounds,
            expected_unsaved_wounds=result.expected_unsaved_wounds,
            expected_wounds_lost=result.expected_wounds_lost,
        ),
    )


def answer(attack: Attack) -> dict[str, Any]:
    return render(evaluate(attack), attack.options.exact)


for _mode in ("shooting", "fight"):
    registry.register(
        registry.Mode(
            ruleset="kt2013",
            name=_mode,
            parse=partial(parse, _mode),
            cache_key=cache_key,
            evaluate=answer,
            model=AttackIn,
            results=(Kt2013ModelResult, Kt2013VehicleResult),
        )
    )
