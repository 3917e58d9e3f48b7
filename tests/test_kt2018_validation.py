"""kt2018 request validation: field ranges, §2.5 combination rules and §11 limits.

Every rejection must be an InputError naming the field a player would fix; limits of §11 are
LIMIT_EXCEEDED with the maximum, everything else INVALID_INPUT.
"""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

from engine.errors import InputError
from schema import registry


def shooting(**changes: Any) -> dict[str, Any]:
    request = {
        "ruleset": "kt2018",
        "mode": "shooting",
        "attacker": {"ballisticSkill": 3},
        "weapons": [{"type": "rapidFire", "attacks": 1, "strength": 4}],
        "target": {"toughness": 4, "save": 3, "wounds": 1},
    }
    return _apply(request, changes)


def fight(**changes: Any) -> dict[str, Any]:
    request = {
        "ruleset": "kt2018",
        "mode": "fight",
        "attacker": {"weaponSkill": 3},
        "weapons": [{"attacks": 2, "strength": 4}],
        "target": {"toughness": 4, "save": 3, "wounds": 2},
    }
    return _apply(request, changes)


def psybolt(**changes: Any) -> dict[str, Any]:
    request = {
        "ruleset": "kt2018",
        "mode": "psybolt",
        "psyker": {"wounds": 2},
        "target": {"wounds": 1},
    }
    return _apply(request, changes)


def mortal(**changes: Any) -> dict[str, Any]:
    request = {
        "ruleset": "kt2018",
        "mode": "mortalWounds",
        "amount": "D3",
        "source": "shooting",
        "target": {"wounds": 2},
    }
    return _apply(request, changes)


def _apply(request: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """`attacker__ballisticSkill=7` sets a nested member; the value `...` deletes it."""
    request = copy.deepcopy(request)
    for path, value in changes.items():
        *parents, last = path.split("__")
        node: Any = request
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
        if value is ...:
            del node[last]
        else:
            node[last] = value
    return request


def rejected(request: dict[str, Any]) -> InputError:
    with pytest.raises(InputError) as info:
        registry.run(request)
    return info.value


INVALID = [
    (shooting(attacker__ballisticSkill=...), "attacker.ballisticSkill"),
    (fight(attacker__weaponSkill=...), "attacker.weaponSkill"),
    (shooting(attacker__ballisticSkill=7), "attacker.ballisticSkill"),
    (shooting(attacker__ballisticSkill=1), "attacker.ballisticSkill"),
    (shooting(attacker__ballisticSkill="3"), "attacker.ballisticSkill"),
    (shooting(attacker__ballisticSkill=3.0), "attacker.ballisticSkill"),
    (shooting(attacker__fleshWounds=7), "attacker.fleshWounds"),
    (shooting(attacker__moved=1), "attacker.moved"),
    (shooting(attacker__hitModifier=4), "attacker.hitModifier"),
    (shooting(attacker__rerollHits="all"), "attacker.rerollHits"),
    (shooting(attacker__reach=1), "attacker.reach"),
    (shooting(weapons=[]), "weapons"),
    (shooting(weapons={"attacks": 1}), "weapons"),
    (shooting(weapons__0__attacks=0), "weapons.0.attacks"),
    (shooting(weapons__0__attacks="D4"), "weapons.0.attacks"),
    (shooting(weapons__0__attacks="5D3"), "weapons.0.attacks"),
    (shooting(weapons__0__attacks=2.5), "weapons.0.attacks"),
    (shooting(weapons__0__attacks=...), "weapons.0.attacks"),
    (shooting(weapons__0__damage="D6+7"), "weapons.0.damage"),
    (shooting(weapons__0__strength=21), "weapons.0.strength"),
    (shooting(weapons__0__strength=0), "weapons.0.strength"),
    (shooting(weapons__0__ap=1), "weapons.0.ap"),
    (shooting(weapons__0__ap=-7), "weapons.0.ap"),
    (shooting(weapons__0__name="x" * 61), "weapons.0.name"),
    (shooting(weapons__0__type=...), "weapons.0.type"),
    (shooting(weapons__0__type="melee"), "weapons.0.type"),
    (shooting(weapons__0__type="flamer"), "weapons.0.type"),
    (fight(weapons__0__type="pistol"), "weapons.0.type"),
    (shooting(target__toughness=11), "target.toughness"),
    (shooting(target__save=...), "target.save"),
    (shooting(target__save=7), "target.save"),
    (shooting(target__invulnerableSave=1), "target.invulnerableSave"),
    (shooting(target__wounds=0), "target.wounds"),
    (shooting(target__fleshWounds=4), "target.fleshWounds"),
    (shooting(target__maxFleshWounds=2, target__fleshWounds=3), "target.fleshWounds"),
    (shooting(target__maxFleshWounds=0), "target.maxFleshWounds"),
    (shooting(options__exact="yes"), "options.exact"),
    (shooting(options__fast=True), "options.fast"),
    # §2.5 items 3-6
    (shooting(attacker__advanced=True, weapons__0__type="heavy"), "weapons.0.type"),
    (fight(attacker__advanced=True), "attacker.advanced"),
    (
        shooting(
            weapons=[
                {"type": "assault", "attacks": 1, "strength": 4},
                {"type": "grenade", "attacks": "D6", "strength": 3},
            ]
        ),
        "weapons.1.type",
    ),
    (
        shooting(
            weapons=[
                {"type": "pistol", "attacks": 1, "strength": 4},
                {"type": "pistol", "attacks": 1, "strength": 4},
                {"type": "assault", "attacks": 1, "strength": 4},
            ]
        ),
        "weapons.2.type",
    ),
    (
        shooting(
            weapons=[
                {"type": "heavy", "attacks": 1, "strength": 4},
                {"type": "pistol", "attacks": 1, "strength": 4},
            ]
        ),
        "weapons.1.type",
    ),
    (fight(situation__overwatch=True), "situation.overwatch"),
    (fight(situation__longRange=True), "situation.longRange"),
    (shooting(situation__interveningTerrain=True), "situation.interveningTerrain"),
    # other modes
    (psybolt(psyker__wounds=0), "psyker.wounds"),
    (psybolt(psyker__fleshWounds=4), "psyker.fleshWounds"),
    (psybolt(psyker__obscured=True), "psyker.obscured"),
    (psybolt(denyTheWitch="no"), "denyTheWitch"),
    (psybolt(target__wounds=...), "target.wounds"),
    (mortal(amount="D6-1"), "amount"),
    (mortal(amount=0), "amount"),
    (mortal(source=...), "source"),
    (mortal(source="melee"), "source"),
    ({"ruleset": "kt2018", "mode": "nerveTest", "leadership": 11}, "leadership"),
    ({"ruleset": "kt2018", "mode": "nerveTest", "leadership": 7, "modifier": -4}, "modifier"),
    (
        {
            "ruleset": "kt2018",
            "mode": "nerveTest",
            "leadership": 7,
            "otherFriendlyWithinTwoInches": 21,
        },
        "otherFriendlyWithinTwoInches",
    ),
    (
        {
            "ruleset": "kt2018",
            "mode": "breakCheck",
            "models": 3,
            "modelsDown": 4,
            "highestLeadership": 7,
        },
        "modelsDown",
    ),
    (
        {
            "ruleset": "kt2018",
            "mode": "breakCheck",
            "models": 31,
            "modelsDown": 4,
            "highestLeadership": 7,
        },
        "models",
    ),
    ({"ruleset": "kt2018", "mode": "overwatch"}, "mode"),
]


@pytest.mark.parametrize(("request_", "field"), INVALID, ids=[f for _, f in INVALID])
def test_invalid_input_names_the_field(request_: dict[str, Any], field: str) -> None:
    error = rejected(request_)
    assert (error.code, error.field, error.limit) == ("INVALID_INPUT", field, None)


LIMITS = [
    (shooting(weapons=[{"type": "heavy", "attacks": 1, "strength": 4}] * 5), "weapons", 4),
    (shooting(weapons__0__attacks=21), "weapons.0.attacks", 20),
    (shooting(weapons__0__attacks="4D6"), "weapons.0.attacks", 20),
    (shooting(weapons__0__attacks=10**30), "weapons.0.attacks", 20),
    (shooting(weapons__0__damage="2D6+1"), "weapons.0.damage", 12),
    (shooting(weapons__0__damage=13), "weapons.0.damage", 12),
    (fight(weapons__0__damage="4D3+1"), "weapons.0.damage", 12),
    (shooting(target__wounds=21), "target.wounds", 20),
    (psybolt(psyker__wounds=21), "psyker.wounds", 20),
    (psybolt(target__wounds=21), "target.wounds", 20),
    (mortal(amount="3D6+3"), "amount", 20),
    (mortal(amount=21), "amount", 20),
]


@pytest.mark.parametrize(("request_", "field", "limit"), LIMITS, ids=[f for _, f, _ in LIMITS])
def test_limits_are_limit_exceeded(request_: dict[str, Any], field: str, limit: int) -> None:
    error = rejected(request_)
    assert (error.code, error.field, error.limit) == ("LIMIT_EXCEEDED", field, limit)


ACCEPTED = [
    shooting(weapons__0__attacks="4D3+6", weapons__0__damage="2D6"),  # maxima exactly reached
    shooting(weapons__0__attacks=" 2d3+1 ", weapons__0__name="Boltgun"),
    shooting(target__save=None, target__invulnerableSave=4),
    shooting(attacker__weaponSkill=2),  # not used outside `fight`
    fight(attacker__ballisticSkill=2, situation__longRange=False, situation__overwatch=False),
    shooting(attacker__advanced=True, weapons__0__type="assault"),
    shooting(weapons=[{"type": "pistol", "attacks": 1, "strength": 4}] * 2),
    shooting(weapons=[{"type": "grenade", "attacks": "D6", "strength": 3}]),
    shooting(situation__interveningTerrain=False),
    psybolt(target__toughness=4, target__save=None, target__invulnerableSave=5),
    mortal(amount="20", target__wounds=20, target__maxFleshWounds=6, target__fleshWounds=6),
]


@pytest.mark.parametrize("request_", ACCEPTED)
def test_accepted(request_: dict[str, Any]) -> None:
    out = registry.run(request_)
    assert out["pOutOfAction"] + sum(
        e["probability"] for e in out["woundsRemaining"] if e["value"] != "outOfAction"
    ) == pytest.approx(1)


def test_ignored_target_fields_do_not_change_psybolt() -> None:
    assert registry.run(psybolt(target__toughness=4, target__save=2)) == registry.run(psybolt())


def test_largest_request_within_the_limits_completes() -> None:
    """§11 maxima everywhere: 4 weapons × 40 Rapid Fire shots, 2D6 Damage, 20 wounds."""
    weapon = {"type": "rapidFire", "attacks": 20, "strength": 8, "ap": -6, "damage": "2D6"}
    request = shooting(
        weapons=[weapon] * 4,
        target__wounds=20,
        target__maxFleshWounds=6,
        target__save=6,
        target__invulnerableSave=6,
        options__exact=True,
    )
    out = registry.run(request)
    assert sum(Fraction(e["exact"]) for e in out["woundsLost"]) == 1
