"""kt2013 request validation (§2.5, limits of §8) and the CLI batch with kt2013 lines."""

from __future__ import annotations

import io
import json

import pytest

from engine.errors import InputError
from schema import registry
from service.cli.main import run_batch

SHOT = {
    "ruleset": "kt2013",
    "mode": "shooting",
    "attacker": {"ballisticSkill": 4},
    "weapon": {"attacks": 2, "strength": 4},
    "target": {"toughness": 4, "save": 4, "wounds": 1},
}
VEHICLE = {"vehicle": True, "armourValue": 11, "hullPoints": 3}


def request(mode: str = "shooting", target: dict | None = None, **parts: dict) -> dict:
    """SHOT in `mode` (fight gets both Weapon Skills), with members merged into its parts."""
    out = json.loads(json.dumps(SHOT))
    out["mode"] = mode
    if mode == "fight":
        out["attacker"]["weaponSkill"] = 4
        out["target"]["weaponSkill"] = 4
    if target is not None:
        out["target"] = target
    for part, members in parts.items():
        out.setdefault(part, {}).update(members)
    return out


def without(envelope: dict, part: str, member: str) -> dict:
    out = json.loads(json.dumps(envelope))
    del out[part][member]
    return out


def rejected(envelope: dict) -> InputError:
    with pytest.raises(InputError) as caught:
        registry.run(envelope)
    return caught.value


@pytest.mark.parametrize(
    ("envelope", "field"),
    [
        (without(SHOT, "target", "toughness"), "target.toughness"),
        (without(SHOT, "target", "wounds"), "target.wounds"),
        (without(SHOT, "target", "save"), "target.save"),
        (without(SHOT, "weapon", "strength"), "weapon.strength"),
        (without(SHOT, "weapon", "attacks"), "weapon.attacks"),
        (without(SHOT, "attacker", "ballisticSkill"), "attacker.ballisticSkill"),
        (request(target=VEHICLE | {"armourValue": None}), "target.armourValue"),
        (request(target={"vehicle": True, "hullPoints": 3}), "target.armourValue"),
        (request(target={"vehicle": True, "armourValue": 11}), "target.hullPoints"),
        (request("fight", attacker={"weaponSkill": None}), "attacker.weaponSkill"),
        (request("fight", target={"toughness": 4, "save": 4, "wounds": 1}), "target.weaponSkill"),
        (request("fight", weapon={"sniper": True}), "weapon.sniper"),
        (request("fight", attacker={"snapShots": True}), "attacker.snapShots"),
        (request(weapon={"strength": None}), "weapon.strength"),
        (request(weapon={"strength": None, "haywire": True}), "weapon.strength"),
        (
            request("fight", target=VEHICLE, weapon={"strength": None, "rending": True}),
            "weapon.strength",
        ),
        (request(attacker={"ballisticSkill": 0}), "attacker.ballisticSkill"),
        (request(attacker={"ballisticSkill": 11}), "attacker.ballisticSkill"),
        (request(weapon={"strength": 11}), "weapon.strength"),
        (request(weapon={"ap": 0}), "weapon.ap"),
        (request(weapon={"ap": 7}), "weapon.ap"),
        (request(weapon={"poisoned": 1}), "weapon.poisoned"),
        (request(target={"toughness": 11, "save": 4, "wounds": 1}), "target.toughness"),
        (request(target={"toughness": 4, "save": 7, "wounds": 1}), "target.save"),
        (request(target={"toughness": 4, "save": 1, "wounds": 1}), "target.save"),
        (request(target={"toughness": 4, "save": 4, "wounds": 0}), "target.wounds"),
        (
            request(target={"toughness": 4, "save": 4, "wounds": 1, "feelNoPain": 7}),
            "target.feelNoPain",
        ),
        (request(target=VEHICLE | {"armourValue": 15}), "target.armourValue"),
        (request(target=VEHICLE | {"armourValue": 8}), "target.armourValue"),
        (request(target=VEHICLE | {"hullPoints": 0}), "target.hullPoints"),
        (request(target=VEHICLE | {"meleeHitOn": 1}), "target.meleeHitOn"),
        (request(target=VEHICLE | {"meleeHitOn": "always"}), "target.meleeHitOn"),
        (request(target=VEHICLE | {"toughness": 4}), "target.toughness"),
        (
            request(target={"vehicle": "yes", "toughness": 4, "save": 4, "wounds": 1}),
            "target.vehicle",
        ),
        (request(weapon={"attacks": 0}), "weapon.attacks"),
        (request(weapon={"attacks": "D4"}), "weapon.attacks"),
        (request(weapon={"attacks": 2.0}), "weapon.attacks"),
        (request(weapon={"attacks": True}), "weapon.attacks"),
        (request(weapon={"rending": "yes"}), "weapon.rending"),
        (request(weapon={"rending": 1}), "weapon.rending"),
        (request(weapon={"flamer": True}), "weapon.flamer"),
        (request(options={"exact": "true"}), "options.exact"),
        (request(target=[]), "target"),
        ({**SHOT, "weapons": []}, "weapons"),
    ],
)
def test_invalid_input_names_the_field(envelope: dict, field: str) -> None:
    error = rejected(envelope)
    assert (error.code, error.field, error.limit) == ("INVALID_INPUT", field, None)


@pytest.mark.parametrize(
    ("envelope", "field", "limit"),
    [
        (request(weapon={"attacks": 21}), "weapon.attacks", 20),
        (request(weapon={"attacks": "4D6"}), "weapon.attacks", 20),
        (request(weapon={"attacks": "3D6+3"}), "weapon.attacks", 20),
        (request(target={"toughness": 4, "save": 4, "wounds": 11}), "target.wounds", 10),
        (request(target=VEHICLE | {"hullPoints": 10}), "target.hullPoints", 9),
    ],
)
def test_limits_are_limit_exceeded(envelope: dict, field: str, limit: int) -> None:
    error = rejected(envelope)
    assert (error.code, error.field, error.limit) == ("LIMIT_EXCEEDED", field, limit)


@pytest.mark.parametrize(
    "envelope",
    [
        request(weapon={"attacks": 20}),
        request(weapon={"attacks": "3D6+2"}),
        request(target={"toughness": 4, "save": None, "wounds": 10}),
        request(target=VEHICLE | {"hullPoints": 9}),
        request(weapon={"strength": None, "sniper": True}),
        request(target=VEHICLE, weapon={"strength": None, "haywire": True}),
        request("fight", target=VEHICLE, attacker={"weaponSkill": None}),
        request("fight", target=VEHICLE | {"meleeHitOn": 4}, weapon={"attacks": "d6"}),
        # fields without effect in the situation are accepted and ignored (§2.5)
        request(
            "fight",
            target={
                "toughness": 4,
                "weaponSkill": 3,
                "save": 4,
                "wounds": 1,
                "coverSave": 4,
                "stealth": True,
            },
        ),
        request(weapon={"haywire": True}, attacker={"tankHunter": True}),
        request(target=VEHICLE | {"meleeHitOn": 3}, weapon={"fleshbane": True, "poisoned": 3}),
        request(attacker={"weaponSkill": 7}),
    ],
)
def test_accepted_requests(envelope: dict) -> None:
    out = registry.run(envelope)
    key = "woundsLost" if "woundsLost" in out else "hullPointsLost"
    assert sum(e["probability"] for e in out[key]) == pytest.approx(1)


def test_strength_x_against_a_vehicle_without_haywire_is_rejected_but_sniper_is_s3() -> None:
    haywire_model = request(weapon={"strength": None, "haywire": True})
    assert rejected(haywire_model).field == "weapon.strength"
    sniper = request(target=VEHICLE | {"armourValue": 9}, weapon={"strength": None, "sniper": True})
    strength_3 = request(
        target=VEHICLE | {"armourValue": 9}, weapon={"strength": 3, "rending": True}
    )
    assert registry.run(sniper) == registry.run(strength_3)


def test_batch_runs_kt2013_lines_in_order() -> None:
    lines = [
        json.dumps(SHOT | {"options": {"exact": True}}),
        "",
        json.dumps(request("fight", target=VEHICLE, weapon={"attacks": "D3"})),
        json.dumps(request(weapon={"attacks": 21})),
        json.dumps(request(mode="overwatch")),
    ]
    out = io.StringIO()
    assert run_batch(lines, out) is False
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(results) == 4
    assert results[0] == registry.run(SHOT | {"options": {"exact": True}})
    assert results[0]["pRemovedExact"] == results[0]["woundsLost"][-1]["exact"]
    assert set(results[1]) == {
        "glancingHits",
        "penetratingHits",
        "hullPointsLost",
        "pWrecked",
        "pAnyPenetrating",
        "expectedHits",
        "expectedHullPointsLost",
    }
    error = {
        "code": "LIMIT_EXCEEDED",
        "field": "weapon.attacks",
        "message": "must be at most 20",
        "limit": 20,
    }
    assert results[2] == {"error": error, "errors": [error]}
    assert results[3]["error"]["field"] == "mode"


def test_batch_succeeds_when_every_kt2013_line_does() -> None:
    out = io.StringIO()
    assert run_batch([json.dumps(SHOT), json.dumps(request("fight"))], out) is True
    assert len(out.getvalue().splitlines()) == 2
