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
from schema.errors import from_validation_error
from schema.fields import Count, Dice, ExactOptions, RuleRange, StrictBool, StrictModel

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
]


class AttackerIn(StrictModel):
    """§2.1."""

    ballisticSkill: Characteristic | None = None
    weaponSkill: Characteristic | None = None
    snapShots: StrictBool = False
    preferredEnemy: StrictBool = False
    monsterHunter: StrictBool = False
    tankHunter: StrictBool = False
    tankHunterRerollGlancing: StrictBool = False
    sniper: StrictBool = False


class WeaponIn(StrictModel):
    """§2.2."""

    attacks: Attacks
    strength: Characteristic | None
    ap: RuleRange(1, 6) | None = None
    rending: StrictBool = False
    sniper: StrictBool = False
    fleshbane: StrictBool = False
    poisoned: Roll | None = None
    shred: StrictBool = False
    masterCrafted: StrictBool = False
    ignoresCover: StrictBool = False
    haywire: StrictBool = False


class ModelIn(StrictModel):
    """§2.3: any target that is not a vehicle."""

    vehicle: Literal[False] = False
    toughness: Characteristic
    weaponSkill: Characteristic | None = None
    wounds: Count(MAX_WOUNDS, minimum=1)
    save: Roll | None
    invulnerableSave: Roll | None = None
    coverSave: Roll | None = None
    stealth: StrictBool = False
    shrouded: StrictBool = False
    feelNoPain: Roll | None = None
    eternalWarrior: StrictBool = False
    monstrousCreature: StrictBool = False


class VehicleIn(StrictModel):
    """§2.4."""

    vehicle: Literal[True]
    armourValue: RuleRange(9, 14)
    hullPoints: Count(MAX_HULL_POINTS, minimum=1)
    coverSave: Roll | None = None
    stealth: StrictBool = False
    shrouded: StrictBool = False
    invulnerableSave: Roll | None = None
    meleeHitOn: MeleeHitOn = "auto"


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
    vehicle = isinstance(target, VehicleIn)
    if mode == "shooting":
        _require(
            attacker.ballisticSkill is not None, "attacker.ballisticSkill", "required in shooting"
        )
    else:
        _require(not weapon.sniper, "weapon.sniper", "a Sniper weapon is ranged: not in fight")
        _require(not attacker.snapShots, "attacker.snapShots", "Snap Shots are shooting only")
        if not vehicle:
            _require(
                attacker.weaponSkill is not None,
                "attacker.weaponSkill",
                "required in fight against a non-vehicle",
            )
            _require(target.weaponSkill is not None, "target.weaponSkill", "required in fight")
    _require(
        weapon.strength is not None or weapon.sniper or (vehicle and weapon.haywire),
        "weapon.strength",
        'Strength "X" (null) needs a Sniper weapon, or Haywire against a vehicle',
    )


def _target(target: ModelIn | VehicleIn) -> Model | Vehicle:
    if isinstance(target, VehicleIn):
        return Vehicle(
            armour_value=target.armourValue,
            hull_points=target.hullPoints,
            cover_save=target.coverSave,
            stealth=target.stealth,
            shrouded=target.shrouded,
            invulnerable_save=target.invulnerableSave,
            melee_hit_on=target.meleeHitOn,
        )
    return Model(
        toughness=target.toughness,
        wounds=target.wounds,
        save=target.save,
        weapon_skill=target.weaponSkill,
        invulnerable_save=target.invulnerableSave,
        cover_save=target.coverSave,
        stealth=target.stealth,
        shrouded=target.shrouded,
        feel_no_pain=target.feelNoPain,
        eternal_warrior=target.eternalWarrior,
        monstrous_creature=target.monstrousCreature,
    )


def to_attack(mode: str, body: AttackIn) -> Attack:
    """The engine's scenario for a validated body; InputError for the rules of §2.5."""
    _check(mode, body)
    a, w = body.attacker, body.weapon
    return Attack(
        mode=mode,
        attacker=Attacker(
            ballistic_skill=a.ballisticSkill,
            weapon_skill=a.weaponSkill,
            snap_shots=a.snapShots,
            preferred_enemy=a.preferredEnemy,
            monster_hunter=a.monsterHunter,
            tank_hunter=a.tankHunter,
            tank_hunter_reroll_glancing=a.tankHunterRerollGlancing,
            sniper=a.sniper,
        ),
        weapon=Weapon(
            attacks=w.attacks,
            strength=w.strength,
            ap=w.ap,
            rending=w.rending,
            sniper=w.sniper,
            fleshbane=w.fleshbane,
            poisoned=w.poisoned,
            shred=w.shred,
            master_crafted=w.masterCrafted,
            ignores_cover=w.ignoresCover,
            haywire=w.haywire,
        ),
        target=_target(body.target),
        options=Options(exact=body.options.exact),
    )


def parse(mode: str, body: Mapping[str, Any]) -> Attack:
    """Validate a request body for `mode`; InputError naming the dotted field on failure."""
    try:
        validated = AttackIn.model_validate(body)
    except ValidationError as exc:
        raise _untagged(from_validation_error(exc)) from None
    return to_attack(mode, validated)


def render(result: ModelResult | VehicleResult, exact: bool) -> dict[str, Any]:
    """The §6 outputs in the API shape (kt2018.md §1 item 7)."""
    out: dict[str, Any] = {}
    if isinstance(result, VehicleResult):
        out["glancingHits"] = report.distribution(result.glancing_hits, exact)
        out["penetratingHits"] = report.distribution(result.penetrating_hits, exact)
        out["hullPointsLost"] = report.distribution(result.hull_points_lost, exact)
        report.put_scalar(out, "pWrecked", result.p_wrecked, exact)
        report.put_scalar(out, "pAnyPenetrating", result.p_any_penetrating, exact)
        report.put_scalar(out, "expectedHits", result.expected_hits, exact)
        report.put_scalar(out, "expectedHullPointsLost", result.expected_hull_points_lost, exact)
        return out
    out["woundsLost"] = report.distribution(result.wounds_lost, exact)
    for name, value in (
        ("pRemoved", result.p_removed),
        ("pInstantDeath", result.p_instant_death),
        ("pUnsavedWound", result.p_unsaved_wound),
        ("pAnyHit", result.p_any_hit),
        ("pAnyWound", result.p_any_wound),
        ("expectedHits", result.expected_hits),
        ("expectedWounds", result.expected_wounds),
        ("expectedUnsavedWounds", result.expected_unsaved_wounds),
        ("expectedWoundsLost", result.expected_wounds_lost),
    ):
        report.put_scalar(out, name, value, exact)
    return out


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
        )
    )
