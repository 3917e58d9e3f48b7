"""Canonical form and cache keys of ruleset `threshold` (engine/threshold/canonical.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.threshold.attack import evaluate_attack
from engine.threshold.canonical import canonical_attack, canonical_deadly_demise, canonical_heal
from engine.threshold.deadly_demise import evaluate_deadly_demise
from engine.threshold.heal import evaluate_heal
from schema import registry


def key(envelope: dict[str, Any]) -> str:
    mode, parsed = registry.resolve(envelope)
    return mode.cache_key(parsed)


def attack(attack: dict[str, Any], target: dict[str, Any] | None = None, **extra: Any) -> dict:
    target = target or {"minorThreshold": 8, "majorThreshold": 14, "currentHP": 6}
    return {"ruleset": "threshold", "mode": "attack", "attack": attack, "target": target} | extra


def heal(**fields: Any) -> dict[str, Any]:
    return {"ruleset": "threshold", "mode": "heal"} | fields


def demise(x: int, *units: dict[str, Any]) -> dict[str, Any]:
    return {"ruleset": "threshold", "mode": "deadlyDemise", "x": x, "units": list(units)}


UNIT = {"minorThreshold": 8, "majorThreshold": 12, "currentHP": 6}


@pytest.mark.parametrize(
    ("envelope", "prefix", "members"),
    [
        (attack({"damage": "d12"}), "threshold-v1:attack:", {"attack", "target", "options"}),
        (demise(1, UNIT), "threshold-v1:deadlyDemise:", {"x", "units", "options"}),
        (
            heal(hpPerModel=2, currentHP=1, amount=3),
            "threshold-v1:heal:",
            {"startingModels", "hpPerModel", "currentHP", "amount", "canReturnModels", "options"},
        ),
    ],
)
def test_key_is_versioned_sorted_compact_json(envelope: dict, prefix: str, members: set) -> None:
    text = key(envelope)
    assert text.startswith(prefix)
    body = json.loads(text.removeprefix(prefix))
    assert set(body) == members
    assert text.removeprefix(prefix) == json.dumps(body, sort_keys=True, separators=(",", ":"))


def test_every_field_present_with_null_for_absent_unit() -> None:
    body = json.loads(key(attack({"damage": "d12"})).removeprefix("threshold-v1:attack:"))
    assert body == {
        "attack": {
            "attacks": 1,
            "centrepiece": False,
            "damage": "d12",
            "damageType": "normal",
            "dc": None,
            "skillBonus": 0,
            "skillRollMode": "normal",
        },
        "options": {"exact": False},
        "target": {
            "currentHP": 6,
            "hpPerModel": None,
            "majorThreshold": 13,
            "minorThreshold": 8,
            "startingModels": None,
        },
    }


SAME_KEY = {
    "defaults spelled out": [
        attack({"damage": "2d12"}),
        attack(
            {
                "attacks": 1,
                "skillBonus": 0,
                "dc": None,
                "skillRollMode": "normal",
                "damage": "2d12",
                "damageType": "normal",
                "centrepiece": False,
            },
            options={"exact": False},
        ),
    ],
    "dice spellings": [
        attack({"damage": "D6 + 1d12"}),
        attack({"damage": "d12+d6"}),
        attack({"damage": "1d6+1d12+3-3"}),
    ],
    "only dc minus bonus matters": [
        attack({"damage": "d12", "dc": 7, "skillBonus": 2}),
        attack({"damage": "d12", "dc": 5}),
        attack({"damage": "d12", "dc": 1, "skillBonus": -4}),
    ],
    "a roll that cannot fail is no roll": [
        attack({"damage": "d12", "dc": 3, "skillBonus": 5, "skillRollMode": "disadvantage"}),
        attack({"damage": "d12", "dc": 1}),
        attack({"damage": "d12", "skillBonus": -20, "skillRollMode": "advantage"}),
    ],
    "a roll that cannot succeed": [
        attack({"damage": "d12", "dc": 13, "attacks": 1}),
        attack({"damage": "d12", "dc": 40, "attacks": 10, "skillRollMode": "advantage"}),
        attack({"damage": "d12", "dc": 20, "skillBonus": 5, "attacks": 3}),
    ],
    "direct damage ignores thresholds and centrepiece": [
        attack({"damage": "d6", "damageType": "direct"}),
        attack(
            {"damage": "d6", "damageType": "direct", "centrepiece": True},
            {"minorThreshold": 1, "majorThreshold": 90, "currentHP": 6},
        ),
    ],
    "thresholds beyond the largest damage": [
        attack(
            {"damage": "2d6", "centrepiece": True},
            {**UNIT, "minorThreshold": 13, "majorThreshold": 13},
        ),
        attack({"damage": "2d6"}, {**UNIT, "minorThreshold": 50, "majorThreshold": 100}),
    ],
    "fewest models holding the HP": [
        attack({"damage": "d6"}, {**UNIT, "hpPerModel": 2, "startingModels": 3}),
        attack({"damage": "d6"}, {**UNIT, "hpPerModel": 2, "startingModels": 20}),
    ],
    "unit names are labels": [
        demise(2, {**UNIT, "name": "Intercessors"}, UNIT),
        demise(2, UNIT, {**UNIT, "name": "B"}),
    ],
    "heal: dead models stay dead": [
        heal(startingModels=3, hpPerModel=2, currentHP=2, amount="d6"),
        heal(startingModels=20, hpPerModel=2, currentHP=2, amount="1D6", canReturnModels=False),
    ],
}


@pytest.mark.parametrize("group", SAME_KEY.values(), ids=SAME_KEY.keys())
def test_equivalent_requests_share_a_key(group: list[dict[str, Any]]) -> None:
    keys = {key(envelope) for envelope in group}
    assert len(keys) == 1
    assert len({json.dumps(registry.run(envelope), sort_keys=True) for envelope in group}) == 1


DIFFERENT_KEY = [
    attack({"damage": "d12"}),
    attack({"damage": "d12"}, options={"exact": True}),
    attack({"damage": "d12", "dc": 6}),
    attack({"damage": "d12", "dc": 6, "skillRollMode": "advantage"}),
    attack({"damage": "d12", "attacks": 2}),
    attack({"damage": "d12+1"}),
    attack({"damage": "d12", "damageType": "direct"}),
    attack({"damage": "2d12", "centrepiece": True}, {**UNIT, "majorThreshold": 10}),
    attack({"damage": "2d12"}, {**UNIT, "majorThreshold": 10}),
    attack({"damage": "d12"}, {**UNIT, "hpPerModel": 2, "startingModels": 3}),
    demise(2, UNIT),
    demise(3, UNIT),
    demise(2, UNIT, UNIT),
    heal(startingModels=3, hpPerModel=2, currentHP=2, amount="d6"),
    heal(startingModels=3, hpPerModel=2, currentHP=2, amount="d6", canReturnModels=True),
]


def test_different_answers_have_different_keys() -> None:
    assert len({key(envelope) for envelope in DIFFERENT_KEY}) == len(DIFFERENT_KEY)


# --- every rewrite leaves every output unchanged ----------------------------------------

damage = st.one_of(
    st.integers(-50, 40),
    st.builds(
        lambda n, m, c: f"{n}d{m}{c:+d}",
        st.integers(1, 3),
        st.sampled_from([2, 4, 6, 12, 20]),
        st.integers(-10, 10),
    ),
)


@st.composite
def targets(draw: st.DrawFn) -> dict[str, Any]:
    minor = draw(st.integers(1, 100))
    target = {"minorThreshold": minor, "majorThreshold": draw(st.integers(minor, 100))}
    if draw(st.booleans()):
        n, w = draw(st.integers(1, 20)), draw(st.integers(1, 10))
        return target | {
            "currentHP": draw(st.integers(1, min(n * w, 30))),
            "hpPerModel": w,
            "startingModels": n,
        }
    return target | {"currentHP": draw(st.integers(1, 30))}


attacks = st.builds(
    attack,
    st.fixed_dictionaries(
        {
            "attacks": st.integers(1, 4),
            "skillBonus": st.integers(-20, 20),
            "dc": st.none() | st.integers(1, 40),
            "skillRollMode": st.sampled_from(["normal", "advantage", "disadvantage"]),
            "damage": damage,
            "damageType": st.sampled_from(["normal", "direct"]),
            "centrepiece": st.booleans(),
        }
    ),
    targets(),
)


@settings(max_examples=200, deadline=None)
@given(attacks)
def test_canonical_attack_keeps_every_output(envelope: dict[str, Any]) -> None:
    scenario = registry.resolve(envelope)[1].scenario
    canonical = canonical_attack(scenario)
    assert evaluate_attack(canonical) == evaluate_attack(scenario)
    assert canonical_attack(canonical) == canonical


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.lists(targets(), min_size=1, max_size=3))
def test_canonical_deadly_demise_keeps_every_output(x: int, units: list[dict]) -> None:
    scenario = registry.resolve(demise(x, *units))[1].scenario
    canonical = canonical_deadly_demise(scenario)
    assert evaluate_deadly_demise(canonical) == evaluate_deadly_demise(scenario)
    assert canonical_deadly_demise(canonical) == canonical


@st.composite
def heals(draw: st.DrawFn) -> dict[str, Any]:
    n, w = draw(st.integers(1, 20)), draw(st.integers(1, 10))
    return heal(
        startingModels=n,
        hpPerModel=w,
        currentHP=draw(st.integers(1, min(n * w, 200))),
        amount=draw(damage),
        canReturnModels=draw(st.booleans()),
    )


@settings(max_examples=200, deadline=None)
@given(heals())
def test_canonical_heal_keeps_every_output(envelope: dict[str, Any]) -> None:
    scenario = registry.resolve(envelope)[1].scenario
    canonical = canonical_heal(scenario)
    assert evaluate_heal(canonical) == evaluate_heal(scenario)
    assert canonical_heal(canonical) == canonical
