"""§11 canonical form: equivalent inputs share one key, and canonicalisation never changes a result."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kt2024 import Attacker, Defender, Shoot, ShootOptions, shoot
from engine.kt2024.canonical import ENGINE_VERSION, as_json, canonical_shoot, shoot_key
from schema import registry

REROLLS = ["NONE", "BALANCED", "CEASELESS", "CRIT_FISH", "ONES_AND_BALANCED"]


@st.composite
def scenarios(draw: st.DrawFn) -> Shoot:
    elite = draw(st.sampled_from([(False, False), (True, False), (False, True)]))
    a = Attacker(
        attacks=draw(st.integers(0, 4)),
        hit=draw(st.integers(2, 6)),
        normal_damage=draw(st.integers(0, 5)),
        critical_damage=draw(st.integers(0, 6)),
        lethal=draw(st.integers(2, 6)),
        accurate=draw(st.integers(0, 5)),
        auto_crits=draw(st.integers(0, 5)),
        devastating=draw(st.integers(0, 2)),
        piercing=draw(st.integers(0, 5)),
        piercing_crits=draw(st.integers(0, 5)),
        reroll=draw(st.sampled_from(REROLLS)),
        fails_to_norms=draw(st.integers(0, 5)),
        norms_to_crits=draw(st.integers(0, 5)),
        punishing=draw(st.booleans()),
        rending=draw(st.booleans()),
        severe=draw(st.booleans()),
        saturate=draw(st.booleans()),
        close_assault=draw(st.booleans()),
        elite_moderate=elite[0],
        elite_extreme=elite[1],
        purity_seal=draw(st.booleans()),
        mystic_scry=draw(st.booleans()),
        curse_of_rot=draw(st.booleans()),
        obscured=draw(st.booleans()),
    )
    d = Defender(
        defence_dice=draw(st.integers(0, 3)),
        save=draw(st.integers(2, 6)),
        wounds=draw(st.integers(1, 15)),
        crit_save=draw(st.integers(2, 6)),
        cover_saves=draw(st.integers(0, 4)),
        cover_crit_saves=draw(st.integers(0, 4)),
        reroll=draw(st.sampled_from(REROLLS)),
        fails_to_norms=draw(st.integers(0, 4)),
        norms_to_crits=draw(st.integers(0, 4)),
        indomitus=draw(st.booleans()),
        feel_no_pain=draw(st.sampled_from([None, 4, 6])),
        just_a_scratch=draw(st.sampled_from(["NONE", "CRITS", "NORMALS"])),
        saintly_relics=draw(st.sampled_from(["NONE", "ONE_D6", "TWO_D6"])),
        durable=draw(st.booleans()),
        invulnerable_save=draw(st.sampled_from([None, 2, 4, 6])),
    )
    return Shoot(a, d, ShootOptions(rounds=draw(st.integers(1, 3)), exact=True))


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_canonical_form_never_changes_a_result(s: Shoot) -> None:
    c = canonical_shoot(s)
    assert shoot(c) == shoot(s)
    assert canonical_shoot(c) == c
    assert shoot_key(c) == shoot_key(s)


def key(attacker: dict, defender: dict | None = None, options: dict | None = None) -> str:
    body = {"attacker": attacker, "defender": defender or {}, "options": options or {}}
    handler, scenario = registry.resolve(body, "shoot")
    return handler.cache_key(scenario)


EQUIVALENT = [
    ({"attacks": 0, "hit": 5, "rending": True}, {"save": 2}, {"attacks": 0}, {}),  # CS1
    ({"attacks": 3, "accurate": 9}, {}, {"attacks": 3, "accurate": 3, "hit": 5, "rending": True}, {}),
    ({"attacks": 4, "lethal": 2, "hit": 4}, {}, {"attacks": 4, "lethal": 4, "hit": 4}, {}),  # CS2
    ({"obscured": True, "rending": True, "criticalDamage": 9}, {}, {"obscured": True}, {}),  # CS3
    ({"piercing": 7}, {"defenceDice": 3}, {"piercing": 3}, {}),  # CS4
    ({"piercing": 2, "piercingCrits": 1}, {}, {"piercing": 2}, {}),  # CS4
    ({"saturate": True}, {"coverSaves": 2}, {}, {}),  # CS5
    ({}, {"coverSaves": 8}, {}, {"coverSaves": 3}),  # CS5
    ({"criticalDamage": 3}, {"durable": True}, {"criticalDamage": 3}, {}),  # CS6
    ({}, {"save": 4, "critSave": 3}, {}, {"save": 4, "critSave": 4}),  # CS7
    ({}, {"invulnerableSave": 4, "save": 6}, {}, {"invulnerableSave": 4, "save": 2}),  # CS7
    ({"curseOfRot": True}, {"defenceDice": 1, "coverSaves": 1}, {}, {"defenceDice": 1, "coverSaves": 1}),
]  # fmt: skip


@pytest.mark.parametrize(("a1", "d1", "a2", "d2"), EQUIVALENT)
def test_equivalent_inputs_share_one_key(a1: dict, d1: dict, a2: dict, d2: dict) -> None:
    assert key(a1, d1) == key(a2, d2)


def test_key_format() -> None:
    k = key({"attacks": 5})
    prefix = f"{ENGINE_VERSION}:shoot:"
    assert k.startswith(prefix) and ENGINE_VERSION == "kt2024-v2"
    body = json.loads(k[len(prefix) :])
    assert k[len(prefix) :] == json.dumps(body, sort_keys=True, separators=(",", ":"))
    assert body["attacker"]["attacks"] == 5 and body["defender"]["feelNoPain"] is None
    assert body["options"] == {"exact": False, "rounds": 1}


@settings(max_examples=300, deadline=None)
@given(scenarios(), st.booleans())
def test_the_key_is_the_canonical_scenario_as_sorted_json(s: Shoot, exact: bool) -> None:
    """`shoot_key` spells the key member by member from memoised JSON: it must be the whole
    canonical scenario's JSON, sorted at every level, as §11 defines it."""
    s = replace(s, options=replace(s.options, exact=exact))
    body = json.dumps(as_json(canonical_shoot(s)), sort_keys=True, separators=(",", ":"))
    assert shoot_key(s) == f"{ENGINE_VERSION}:shoot:{body}"


def test_exact_and_float_answers_are_cached_apart() -> None:
    assert key({}, options={"exact": True}) != key({}, options={"exact": False})


def test_different_inputs_get_different_keys() -> None:
    assert key({"attacks": 4}) != key({"attacks": 5})
    assert key({}, {"save": 3}) != key({}, {"save": 4})


def test_defaults_are_filled_before_keying() -> None:
    assert key({}) == key({"attacks": 4, "hit": 3}, {"save": 3, "wounds": 12})
    assert replace(Shoot(), options=ShootOptions()) == Shoot()


@st.composite
def equivalent_pairs(draw: st.DrawFn) -> tuple[Shoot, Shoot]:
    """A random scenario and a variant that changes only fields §11 says cannot matter."""
    s = draw(scenarios())
    a, d = s.attacker, s.defender
    changes_a: dict = {}
    changes_d: dict = {}
    if a.lethal <= a.hit:
        changes_a["lethal"] = draw(st.integers(2, a.hit))
    if a.obscured:
        changes_a |= {
            "rending": draw(st.booleans()),
            "punishing": draw(st.booleans()),
            "severe": draw(st.booleans()),
            "devastating": draw(st.integers(0, 3)),
            "critical_damage": draw(st.integers(0, 9)),
            "piercing_crits": draw(st.integers(0, 3)),
        }
    if a.piercing >= d.defence_dice and d.invulnerable_save is None:
        changes_a["piercing"] = draw(st.integers(d.defence_dice, 9))
    if d.invulnerable_save is not None:
        changes_a["piercing"] = draw(st.integers(0, 9))
        changes_d["save"] = draw(st.integers(2, 6))
    if a.saturate:
        changes_d |= {
            "cover_saves": draw(st.integers(0, 9)),
            "cover_crit_saves": draw(st.integers(0, 9)),
        }
    elif d.cover_crit_saves >= d.defence_dice:
        changes_d["cover_crit_saves"] = draw(st.integers(d.defence_dice, 9))
    if a.critical_damage <= 3 and not changes_a.get("critical_damage", 0) > 3:
        changes_d["durable"] = draw(st.booleans())
    if d.invulnerable_save is None and d.crit_save <= d.save:
        changes_d["crit_save"] = draw(st.integers(2, d.save))
    variant = replace(s, attacker=replace(a, **changes_a), defender=replace(d, **changes_d))
    return s, variant


@settings(max_examples=300, deadline=None)
@given(equivalent_pairs())
def test_random_equivalent_inputs_collapse_to_one_key(pair: tuple[Shoot, Shoot]) -> None:
    s, variant = pair
    assert shoot_key(s) == shoot_key(variant)
    assert shoot(s) == shoot(variant)
