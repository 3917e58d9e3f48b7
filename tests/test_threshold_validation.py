"""Bad `threshold` requests: the InputError code, dotted field and limit (threshold.md §2–§6)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.errors import InputError
from schema import registry

ATTACK = {
    "ruleset": "threshold",
    "mode": "attack",
    "attack": {"attacks": 2, "dc": 7, "damage": "2d12"},
    "target": {"minorThreshold": 8, "majorThreshold": 14, "currentHP": 6},
}
UNIT = {"name": "A", "minorThreshold": 8, "majorThreshold": 12, "currentHP": 6}
DEMISE = {
    "ruleset": "threshold",
    "mode": "deadlyDemise",
    "x": 2,
    "units": [UNIT, {**UNIT, "name": "B"}],
}
HEAL = {
    "ruleset": "threshold",
    "mode": "heal",
    "startingModels": 3,
    "hpPerModel": 2,
    "currentHP": 3,
    "amount": "d6",
}
ABSENT = object()


def changed(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """`base` with the member at dotted `path` set to `value` (removed, if there, when ABSENT)."""
    request = copy.deepcopy(base)
    *parents, last = path.split(".")
    node: Any = request
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if value is ABSENT:
        node.pop(last, None)
    else:
        node[last] = value
    return request


def test_bases_are_valid() -> None:
    for base in (ATTACK, DEMISE, HEAL):
        assert registry.run(base)


@pytest.mark.parametrize(
    ("base", "path", "value", "field", "limit"),
    [
        (ATTACK, "attack.attacks", 11, "attack.attacks", 10),
        (ATTACK, "attack.damage", "4d6+3d4", "attack.damage", 6),
        (ATTACK, "attack.damage", 101, "attack.damage", 100),
        (ATTACK, "target.currentHP", 201, "target.currentHP", 200),
        (ATTACK, "target.hpPerModel", 51, "target.hpPerModel", 50),
        (ATTACK, "target.startingModels", 21, "target.startingModels", 20),
        (DEMISE, "x", 7, "x", 6),
        (DEMISE, "units", [UNIT] * 7, "units", 6),
        (DEMISE, "units.1.currentHP", 250, "units.1.currentHP", 200),
        (HEAL, "amount", "d6+d6+d6+d6+d6+d6+d6", "amount", 6),
        (HEAL, "currentHP", 201, "currentHP", 200),
        (HEAL, "hpPerModel", 51, "hpPerModel", 50),
        (HEAL, "startingModels", 21, "startingModels", 20),
    ],
)
def test_limit_exceeded(base: dict, path: str, value: Any, field: str, limit: int) -> None:
    with pytest.raises(InputError) as caught:
        registry.run(changed(base, path, value))
    assert (caught.value.code, caught.value.field, caught.value.limit) == (
        "LIMIT_EXCEEDED",
        field,
        limit,
    )


@pytest.mark.parametrize(
    ("base", "path", "value", "field"),
    [
        (ATTACK, "attack.attacks", 0, "attack.attacks"),
        (ATTACK, "attack.attacks", 2.0, "attack.attacks"),
        (ATTACK, "attack.attacks", "2", "attack.attacks"),
        (ATTACK, "attack.skillBonus", 21, "attack.skillBonus"),
        (ATTACK, "attack.skillBonus", -21, "attack.skillBonus"),
        (ATTACK, "attack.dc", 0, "attack.dc"),
        (ATTACK, "attack.dc", 41, "attack.dc"),
        (ATTACK, "attack.dc", True, "attack.dc"),
        (ATTACK, "attack.skillRollMode", "elven", "attack.skillRollMode"),
        (ATTACK, "attack.damage", ABSENT, "attack.damage"),
        (ATTACK, "attack.damage", None, "attack.damage"),
        (ATTACK, "attack.damage", "2d12-d6", "attack.damage"),
        (ATTACK, "attack.damage", "d7", "attack.damage"),
        (ATTACK, "attack.damageType", "mortal", "attack.damageType"),
        (ATTACK, "attack.centrepiece", 1, "attack.centrepiece"),
        (ATTACK, "attack.reroll", True, "attack.reroll"),
        (ATTACK, "target.minorThreshold", 0, "target.minorThreshold"),
        (ATTACK, "target.minorThreshold", 101, "target.minorThreshold"),
        (ATTACK, "target.minorThreshold", ABSENT, "target.minorThreshold"),
        (ATTACK, "target.majorThreshold", 7, "target.majorThreshold"),
        (ATTACK, "target.currentHP", 0, "target.currentHP"),
        (ATTACK, "target.hpPerModel", 3, "target.startingModels"),
        (ATTACK, "target.startingModels", 3, "target.hpPerModel"),
        (
            ATTACK,
            "target",
            {**ATTACK["target"], "startingModels": 3, "hpPerModel": None},
            "target.hpPerModel",
        ),
        (ATTACK, "target", [], "target"),
        (ATTACK, "options", {"exact": "yes"}, "options.exact"),
        (ATTACK, "options", {"rounds": 2}, "options.rounds"),
        (DEMISE, "x", 0, "x"),
        (DEMISE, "units", [], "units"),
        (DEMISE, "units.1.majorThreshold", 3, "units.1.majorThreshold"),
        (DEMISE, "units.0.name", 7, "units.0.name"),
        (DEMISE, "units.1.centrepiece", True, "units.1.centrepiece"),
        (HEAL, "hpPerModel", ABSENT, "hpPerModel"),
        (HEAL, "currentHP", 7, "currentHP"),
        (HEAL, "currentHP", 0, "currentHP"),
        (HEAL, "amount", "-d6", "amount"),
        (HEAL, "canReturnModels", "true", "canReturnModels"),
    ],
)
def test_invalid_input(base: dict, path: str, value: Any, field: str) -> None:
    with pytest.raises(InputError) as caught:
        registry.run(changed(base, path, value))
    assert (caught.value.code, caught.value.field, caught.value.limit) == (
        "INVALID_INPUT",
        field,
        None,
    )


@pytest.mark.parametrize(
    ("base", "path"),
    [
        (ATTACK, "target.hpPerModel"),
        (ATTACK, "target.startingModels"),
        (DEMISE, "units.0.hpPerModel"),
        (DEMISE, "units.1.name"),
        (ATTACK, "attack.dc"),
    ],
)
def test_null_is_the_advertised_default(base: dict, path: str) -> None:
    """A member whose default the OpenAPI document gives as null takes null as absent: same
    canonical key, same answer (issue 15: a generated client may send the default)."""
    (mode, absent), (_, null) = (
        registry.resolve(changed(base, path, value)) for value in (ABSENT, None)
    )
    assert mode.cache_key(absent) == mode.cache_key(null)
    assert registry.run(changed(base, path, None)) == registry.run(changed(base, path, ABSENT))


def test_unit_structure_with_current_hp_at_the_pool_is_valid() -> None:
    request = changed(ATTACK, "target", {**ATTACK["target"], "hpPerModel": 2, "startingModels": 3})
    assert [entry["value"] for entry in registry.run(request)["modelsDestroyed"]] == [0, 1, 2, 3]


def test_unknown_mode_names_the_modes() -> None:
    with pytest.raises(InputError) as caught:
        registry.run({**ATTACK, "mode": "shoot"})
    assert caught.value.field == "mode"
    assert "deadlyDemise" in caught.value.message


def test_every_mode_registered() -> None:
    assert sorted(registry.modes("threshold")) == ["attack", "deadlyDemise", "heal"]
