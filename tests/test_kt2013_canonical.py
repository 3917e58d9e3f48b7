"""kt2013 canonical form and cache key: equivalent requests share a key, results never change."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from kt2013_requests import requests

from engine.kt2013 import canonical, evaluate
from schema import registry

LARGE = [1, 4, 10, 20, "D3", "D6+2", "2D6", "3D6"]
CHECK = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

REQUIRED_NULLABLE = {"save", "strength"}
BOLTER = {
    "ruleset": "kt2013",
    "mode": "shooting",
    "attacker": {"ballisticSkill": 4},
    "weapon": {"attacks": 2, "strength": 4, "ap": 5},
    "target": {"toughness": 4, "save": 3, "wounds": 1},
}


def key(envelope: dict) -> str:
    mode, attack = registry.resolve(envelope)
    return mode.cache_key(attack)


def edit(envelope: dict, mode: str | None = None, **parts: dict) -> dict:
    """A copy of `envelope` with members merged into its attacker/weapon/target/options."""
    out = json.loads(json.dumps(envelope))
    if mode is not None:
        out["mode"] = mode
    for part, members in parts.items():
        out.setdefault(part, {}).update(members)
    return out


def test_key_format() -> None:
    got = key(BOLTER)
    prefix = "kt2013-v1:shooting:"
    assert got.startswith(prefix)
    body = json.loads(got.removeprefix(prefix))
    assert got.removeprefix(prefix) == json.dumps(body, sort_keys=True, separators=(",", ":"))
    assert body["weapon"]["attacks"] == "2"
    assert body["options"] == {"exact": False}
    assert body["target"]["vehicle"] is False


@pytest.mark.parametrize(
    "same",
    [
        edit(BOLTER, weapon={"attacks": "2"}),
        edit(BOLTER, weapon={"attacks": " 2 ", "rending": False, "poisoned": None}),
        edit(BOLTER, attacker={"weaponSkill": 9}, target={"weaponSkill": 3}),  # shooting: no WS
        edit(BOLTER, weapon={"haywire": True}, attacker={"tankHunter": True}),  # not a vehicle
        edit(BOLTER, target={"monstrousCreature": True}),  # no Monster Hunter to care
        edit(BOLTER, target={"eternalWarrior": True}),  # S4 cannot cause Instant Death on T4
        edit(BOLTER, weapon={"ignoresCover": True}),  # no cover to ignore
    ],
)
def test_equivalent_requests_share_a_key(same: dict) -> None:
    assert key(same) == key(BOLTER)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (edit(BOLTER, attacker={"snapShots": True}), edit(BOLTER, attacker={"ballisticSkill": 1})),
        (
            edit(BOLTER, target={"coverSave": 5, "stealth": True, "shrouded": True}),
            edit(BOLTER, target={"coverSave": 2}),
        ),
        (edit(BOLTER, target={"shrouded": True}), edit(BOLTER, target={"coverSave": 5})),
        (edit(BOLTER, weapon={"attacks": "d3"}), edit(BOLTER, weapon={"attacks": "1D3+0"})),
        (
            edit(BOLTER, weapon={"strength": 8}, target={"feelNoPain": 5}),
            edit(BOLTER, weapon={"strength": 8}),
        ),
        (
            edit(
                BOLTER,
                mode="fight",
                attacker={"weaponSkill": 4},
                weapon={"ignoresCover": True},
                target={"weaponSkill": 4, "coverSave": 3},
            ),
            edit(
                BOLTER,
                mode="fight",
                attacker={"weaponSkill": 4, "ballisticSkill": 2},
                target={"weaponSkill": 4},
            ),
        ),
    ],
)
def test_rewrites_collapse_equivalent_inputs(one: dict, other: dict) -> None:
    assert key(one) == key(other)
    assert registry.run(one) == registry.run(other)


@pytest.mark.parametrize(
    "other",
    [
        edit(BOLTER, options={"exact": True}),
        edit(BOLTER, mode="fight", attacker={"weaponSkill": 4}, target={"weaponSkill": 4}),
        edit(BOLTER, attacker={"ballisticSkill": 5}),
        edit(BOLTER, weapon={"attacks": "D3"}),
        edit(BOLTER, target={"coverSave": 5}),
    ],
)
def test_different_requests_have_different_keys(other: dict) -> None:
    assert key(other) != key(BOLTER)


def test_fields_without_effect_are_dropped_against_vehicles() -> None:
    haywire = {
        "ruleset": "kt2013",
        "mode": "fight",
        "attacker": {"weaponSkill": 4},
        "weapon": {"attacks": 3, "strength": None, "haywire": True},
        "target": {"vehicle": True, "armourValue": 12, "hullPoints": 3},
    }
    noisy = edit(
        haywire,
        attacker={"weaponSkill": 1, "preferredEnemy": True, "monsterHunter": True},
        weapon={"strength": 9, "rending": True, "ap": 1, "masterCrafted": True, "shred": True},
        target={"coverSave": 3, "stealth": True},
    )
    assert key(noisy) == key(haywire)


def canonical_envelope(envelope: dict) -> dict:
    """The canonical attack written back as a request."""
    body = json.loads(key(envelope).split(":", 2)[2])
    return {"ruleset": "kt2013", "mode": envelope["mode"], **body}


@CHECK
@given(requests(vehicle=False, attacks=LARGE, most_wounds=10))
def test_canonical_model_attacks_keep_every_output(req: dict) -> None:
    _, attack = registry.resolve(req)
    assert evaluate(canonical(attack)) == evaluate(attack)
    assert canonical(canonical(attack)) == canonical(attack)
    # the canonical form is itself a valid request with the same key
    assert key(canonical_envelope(req)) == key(req)


@CHECK
@given(requests(vehicle=True, attacks=LARGE, most_wounds=9))
def test_canonical_vehicle_attacks_keep_every_output(req: dict) -> None:
    _, attack = registry.resolve(req)
    assert evaluate(canonical(attack)) == evaluate(attack)
    assert canonical(canonical(attack)) == canonical(attack)
    assert key(canonical_envelope(req)) == key(req)


@CHECK
@given(requests(vehicle=False, attacks=LARGE, most_wounds=10))
def test_defaults_may_be_left_out(req: dict) -> None:
    sparse = {
        part: {
            k: v
            for k, v in members.items()
            if k in REQUIRED_NULLABLE or v not in (None, False, "auto")
        }
        if isinstance(members, dict)
        else members
        for part, members in req.items()
    }
    assert key(sparse) == key(req)
