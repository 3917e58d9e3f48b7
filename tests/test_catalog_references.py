"""A matchup naming catalog ids is the same engine input — same canonical key, same result —
as the matchup written inline from the datacards."""

from __future__ import annotations

from typing import Any

import pytest
from datacards import POWER_KLAW

from engine.errors import InputError
from schema import references, registry

# Inline equivalents typed from the datacards (not derived from the catalog code).
PLASMA_SUPERCHARGE = {
    "attacks": 4,
    "hit": 3,
    "normalDamage": 5,
    "criticalDamage": 6,
    "lethal": 5,
    "piercing": 1,
}
INTERCESSOR_SERGEANT = {"defenceDice": 3, "save": 3, "wounds": 15}
CHAINSWORD_AI = {"attacks": 5, "hit": 3, "normalDamage": 4, "criticalDamage": 5}


def _key_and_result(envelope: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    mode, scenario = registry.resolve(references.expand(envelope))
    return mode.cache_key(scenario), mode.evaluate(scenario)


@pytest.mark.parametrize("exact", [False, True])
def test_referenced_shoot_equals_inline(exact: bool) -> None:
    situation = {"options": {"exact": exact, "rounds": 2}}
    referenced = {
        "mode": "shoot",
        "attacker": {
            "operativeId": "kasrkin.gunner",
            "weaponProfileId": "kasrkin.gunner.plasma-gun.supercharge",
            "obscured": False,
        },
        "defender": {"operativeId": "angels-of-death.intercessor-sergeant", "coverSaves": 1},
        **situation,
    }
    inline = {
        "mode": "shoot",
        "attacker": {**PLASMA_SUPERCHARGE, "obscured": False},
        "defender": {**INTERCESSOR_SERGEANT, "coverSaves": 1},
        **situation,
    }
    assert _key_and_result(referenced) == _key_and_result(inline)


def test_referenced_fight_equals_inline() -> None:
    referenced = {
        "mode": "fight",
        "fighterA": {"weaponProfileId": "kommandos.boss-nob.power-klaw", "strategy": "STRIKE"},
        "fighterB": {
            "operativeId": "angels-of-death.assault-intercessor-sergeant",
            "weaponProfileId": "angels-of-death.assault-intercessor-sergeant.chainsword",
        },
        "options": {"exact": True},
    }
    inline = {
        "mode": "fight",
        "fighterA": {**POWER_KLAW, "wounds": 14, "strategy": "STRIKE"},
        "fighterB": {**CHAINSWORD_AI, "wounds": 15},
        "options": {"exact": True},
    }
    assert _key_and_result(referenced) == _key_and_result(inline)


def test_situational_overrides_win_over_the_catalog() -> None:
    expanded = references.expand(
        {
            "attacker": {
                "weaponProfileId": "kasrkin.trooper.hot-shot-lasgun",
                "accurate": 1,
                "hit": 2,
                "obscured": True,
            },
            "defender": {"operativeId": "kommandos.boy", "save": 4, "coverSaves": 1},
        }
    )
    assert expanded["attacker"] == {
        "attacks": 4,
        "hit": 2,
        "normalDamage": 3,
        "criticalDamage": 4,
        "accurate": 1,
        "obscured": True,
    }
    assert expanded["defender"] == {"defenceDice": 3, "save": 4, "wounds": 10, "coverSaves": 1}


def test_extra_weapon_rules_combine_with_the_profile() -> None:
    """A ploy granting Balanced to a Ceaseless weapon gives CEASELESS_AND_BALANCED."""
    expanded = references.expand(
        {
            "mode": "fight",
            "fighterA": {
                "weaponProfileId": "kommandos.slasha-boy.twin-choppas",
                "weaponRules": "Balanced, Rending",
            },
            "fighterB": {"weaponProfileId": "kasrkin.trooper.gun-butt"},
        }
    )
    a = expanded["fighterA"]
    assert a["reroll"] == "CEASELESS_AND_BALANCED" and a["rending"] is True and a["lethal"] == 5
    assert expanded["fighterB"] == {
        "wounds": 8,
        "attacks": 3,
        "hit": 4,
        "normalDamage": 2,
        "criticalDamage": 3,
    }
    # a shooting-only rule granted in a fight cannot act there, so it does not appear
    fight = references.expand(
        {"fighterA": {"weaponProfileId": "kommandos.boy.choppa", "weaponRules": "Piercing 1"}}
    )
    assert "piercing" not in fight["fighterA"]


def test_envelopes_without_references_pass_through_unchanged() -> None:
    inline = {"mode": "shoot", "attacker": {"attacks": 4}, "defender": {}}
    assert references.expand(inline) is inline
    other = {"ruleset": "kt2018", "attacker": {"operativeId": "kasrkin.gunner"}}
    assert references.expand(other) is other  # no catalog there: validation will reject it
    assert references.expand([1, 2]) == [1, 2]


@pytest.mark.parametrize(
    ("envelope", "field", "message"),
    [
        (
            {"attacker": {"weaponProfileId": "kasrkin.gunner.laser"}},
            "attacker.weaponProfileId",
            "unknown weapon profile",
        ),
        ({"attacker": {"operativeId": "kasrkin.gunner"}}, "attacker.weaponProfileId", "required"),
        (
            {
                "attacker": {
                    "operativeId": "kasrkin.nobody",
                    "weaponProfileId": "kasrkin.gunner.meltagun",
                }
            },
            "attacker.operativeId",
            "unknown operative",
        ),
        (
            {
                "attacker": {
                    "operativeId": "kasrkin.trooper",
                    "weaponProfileId": "kasrkin.gunner.meltagun",
                }
            },
            "attacker.weaponProfileId",
            "not a weapon of",
        ),
        (
            {"attacker": {"weaponProfileId": "kasrkin.gunner.gun-butt"}},
            "attacker.weaponProfileId",
            "needs a ranged profile",
        ),
        (
            {"fighterA": {"weaponProfileId": "kasrkin.gunner.meltagun"}},
            "fighterA.weaponProfileId",
            "needs a melee profile",
        ),
        (
            {"defender": {"operativeId": "kommandos.grot"}},
            "defender.operativeId",
            "unknown operative",
        ),
        (
            {
                "defender": {
                    "operativeId": "kommandos.boy",
                    "weaponProfileId": "kommandos.boy.slugga",
                }
            },
            "defender.weaponProfileId",
            "only operativeId",
        ),
        ({"defender": {"operativeId": 7}}, "defender.operativeId", "string"),
        ({"attacker": {"weaponProfileId": ["x"]}}, "attacker.weaponProfileId", "string"),
        (
            {"attacker": {"weaponProfileId": "kasrkin.gunner.meltagun", "weaponRules": "Zap"}},
            "attacker.weaponRules",
            "'Zap'",
        ),
        (
            {
                "attacker": {
                    "weaponProfileId": "kasrkin.gunner.meltagun",
                    "weaponRules": "Piercing 1",
                }
            },
            "attacker.weaponRules",
            "contradicts",
        ),
    ],
)
def test_bad_references_name_the_field(envelope: dict, field: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        references.expand(envelope)
    assert err.value.code == "INVALID_INPUT"
    assert err.value.field == field and message in err.value.message


def test_expanded_overrides_are_still_validated() -> None:
    envelope = {
        "mode": "shoot",
        "attacker": {"weaponProfileId": "kasrkin.gunner.meltagun", "attacks": 99},
    }
    with pytest.raises(InputError) as err:
        registry.resolve(references.expand(envelope))
    assert err.value.code == "LIMIT_EXCEEDED" and err.value.field == "attacker.attacks"


def test_inline_profiles_may_give_their_rules_as_text() -> None:
    """`weaponRules` without ids: the datacard text becomes fields, explicit members win."""
    as_text = {
        "mode": "shoot",
        "attacker": {
            "attacks": 4,
            "hit": 3,
            "normalDamage": 4,
            "criticalDamage": 5,
            "weaponRules": 'Rng 8", Hot, Lethal 5+, Prc1, Brutal',
        },
        "defender": {"save": 4},
    }
    as_fields = {
        "mode": "shoot",
        "attacker": {
            "attacks": 4,
            "hit": 3,
            "normalDamage": 4,
            "criticalDamage": 5,
            "lethal": 5,
            "piercing": 1,
        },
        "defender": {"save": 4},
    }
    assert _key_and_result(as_text) == _key_and_result(as_fields)
    explicit = references.expand({"attacker": {"lethal": 4, "weaponRules": "Lethal 5+, Sev"}})
    assert explicit["attacker"] == {"lethal": 4, "severe": True}
    fighter = references.expand({"fighterB": {"weaponRules": "Brutal, Piercing 1"}})
    assert fighter["fighterB"] == {"brutal": True}
    with pytest.raises(InputError) as err:
        references.expand({"attacker": {"weaponRules": "Lethal 5+, Poison"}})
    assert err.value.field == "attacker.weaponRules" and "'Poison'" in err.value.message


def test_a_fighter_named_by_its_operative_alone_cannot_strike_back() -> None:
    """An operative fought without a weapon (one with no melee weapon, in a team matchup):
    its wounds and defensive rules, no attack dice."""
    expanded = references.expand({"fighterB": {"operativeId": "kasrkin.gunner", "wounds": 7}})
    assert expanded["fighterB"]["attacks"] == 0
    assert expanded["fighterB"]["wounds"] == 7
    with pytest.raises(InputError) as err:
        references.expand({"fighterB": {"operativeId": ["kasrkin.gunner"]}})
    assert err.value.field == "fighterB.operativeId"
