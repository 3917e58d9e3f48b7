"""kt2018 cache keys: equivalent requests share one key, and the rewrites change no output."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kt2018 import attacks, canonical, mortal, psybolt
from schema import registry


def key(request: dict[str, Any]) -> str:
    handler, parsed = registry.resolve(request)
    return handler.cache_key(parsed)


BASE = {
    "ruleset": "kt2018",
    "mode": "shooting",
    "attacker": {"ballisticSkill": 3},
    "weapons": [{"type": "heavy", "attacks": 2, "strength": 5, "ap": -1, "damage": "D3"}],
    "target": {"toughness": 4, "save": 3, "wounds": 2},
}


def variant(base: dict[str, Any], **sections: dict[str, Any]) -> dict[str, Any]:
    """`base` with members merged into its sections (`weapons` merges into weapon 0)."""
    request = copy.deepcopy(base)
    for section, members in sections.items():
        if section == "weapons":
            request["weapons"][0].update(members)
        elif isinstance(members, dict):
            request.setdefault(section, {}).update(members)
        else:
            request[section] = members
    return request


def test_key_layout() -> None:
    k = key(BASE)
    prefix = "kt2018-v1:shooting:"
    assert k.startswith(prefix)
    body = json.loads(k[len(prefix) :])
    assert k[len(prefix) :] == json.dumps(body, sort_keys=True, separators=(",", ":"))
    assert body["options"] == {"exact": False}
    assert body["weapons"][0]["damage"] == "D3"
    assert body["weapons"][0]["attacks"] == "2"
    assert body["armour"]["invulnerableSave"] is None


SAME = [
    variant(BASE, weapons={"attacks": "2", "damage": " 1d3+0 "}),
    variant(BASE, weapons={"name": "Missile launcher"}),
    variant(
        BASE,
        attacker={"fleshWounds": 0, "killTeamBroken": False, "rerollHits": "none"},
        situation={"longRange": False, "overwatch": False},
        options={"exact": False},
    ),
    variant(BASE, target={"fleshWounds": 0, "maxFleshWounds": 3, "invulnerableSave": None}),
    variant(BASE, target={"withinOneInchOfIntervening": True}),  # without obscured: no effect
    variant(BASE, attacker={"weaponSkill": 5}),  # not used in shooting
]


@pytest.mark.parametrize("request_", SAME)
def test_equivalent_requests_share_a_key(request_: dict[str, Any]) -> None:
    assert key(request_) == key(BASE)
    assert registry.run(request_) == registry.run(BASE)


DIFFERENT = [
    variant(BASE, options={"exact": True}),
    variant(BASE, attacker={"ballisticSkill": 4}),
    variant(BASE, weapons={"damage": "D3+1"}),
    variant(BASE, target={"obscured": True}),
    variant(BASE, target={"obscured": True, "withinOneInchOfIntervening": True}),
    variant(BASE, situation={"longRange": True}),
    {
        **BASE,
        "mode": "fight",
        "attacker": {"weaponSkill": 3},
        "weapons": [{"attacks": 2, "strength": 5, "ap": -1, "damage": "D3"}],
    },
]


@pytest.mark.parametrize("request_", DIFFERENT)
def test_different_requests_differ(request_: dict[str, Any]) -> None:
    assert key(request_) != key(BASE)


def test_advanced_implies_moved() -> None:
    assault = variant(BASE, weapons={"type": "assault"})
    a = variant(assault, attacker={"advanced": True})
    b = variant(assault, attacker={"advanced": True, "moved": True})
    assert key(a) == key(b)
    assert key(a) != key(variant(assault, attacker={"moved": True}))


def test_fight_ignores_cover() -> None:
    melee = {
        "ruleset": "kt2018",
        "mode": "fight",
        "attacker": {"weaponSkill": 3},
        "weapons": [{"attacks": 3, "strength": 4, "damage": 2}],
        "target": {"toughness": 4, "save": 4, "wounds": 2},
    }
    covered = variant(melee, target={"obscured": True, "withinOneInchOfIntervening": True})
    assert key(covered) == key(melee)


@pytest.mark.parametrize(("a", "b"), [("psychic", "shooting"), ("fight", "other")])
def test_mortal_sources_with_the_same_injury_modifier_merge(a: str, b: str) -> None:
    base = {
        "ruleset": "kt2018",
        "mode": "mortalWounds",
        "amount": "D3",
        "target": {"wounds": 2, "obscured": True, "withinOneInchOfIntervening": True},
    }
    assert key({**base, "source": a}) == key({**base, "source": b})
    assert key({**base, "source": "shooting"}) != key({**base, "source": "other"})


def test_every_mode_has_a_versioned_key() -> None:
    requests = [
        {"ruleset": "kt2018", "mode": "psybolt", "psyker": {"wounds": 1}, "target": {"wounds": 1}},
        {"ruleset": "kt2018", "mode": "nerveTest", "leadership": 7},
        {
            "ruleset": "kt2018",
            "mode": "breakCheck",
            "models": 4,
            "modelsDown": 3,
            "highestLeadership": 7,
        },
    ]
    for request in requests:
        assert key(request).startswith(f"kt2018-v1:{request['mode']}:")
    nerve = requests[1]
    assert key(nerve) == key({**nerve, "modifier": 0, "otherFriendlyWithinTwoInches": 0})


# The rewrites must never change an answer: evaluate the canonical scenario and the original.

flags = st.booleans()
shielding = st.fixed_dictionaries({"obscured": flags, "withinOneInchOfIntervening": flags})


@given(st.sampled_from(["shooting", "fight"]), shielding, flags, flags, st.integers(2, 6))
@settings(max_examples=40, deadline=None)
def test_combat_rewrites_keep_results(
    mode: str, shield: dict[str, bool], advanced: bool, moved: bool, skill: int
) -> None:
    shooting = mode == "shooting"
    request = {
        "ruleset": "kt2018",
        "mode": mode,
        "attacker": {
            "ballisticSkill" if shooting else "weaponSkill": skill,
            "moved": moved,
            "advanced": advanced and shooting,
        },
        "weapons": [
            {
                "type": "assault" if shooting else "melee",
                "attacks": "D3",
                "strength": 4,
                "damage": "D3",
            }
        ],
        "target": {"toughness": 4, "save": 5, "wounds": 2, **shield},
    }
    _, parsed = registry.resolve(request)
    scenario = parsed.scenario
    assert attacks.evaluate(canonical.canonical(scenario)) == attacks.evaluate(scenario)


@given(st.sampled_from(["shooting", "psychic", "fight", "other"]), shielding)
@settings(max_examples=30, deadline=None)
def test_mortal_and_psybolt_rewrites_keep_results(source: str, shield: dict[str, bool]) -> None:
    target = {"wounds": 1, "fleshWounds": 1, **shield}
    _, parsed = registry.resolve(
        {
            "ruleset": "kt2018",
            "mode": "mortalWounds",
            "amount": "D3",
            "source": source,
            "target": target,
        }
    )
    assert mortal.evaluate(canonical.canonical(parsed.scenario)) == mortal.evaluate(parsed.scenario)
    _, parsed = registry.resolve(
        {"ruleset": "kt2018", "mode": "psybolt", "psyker": {"wounds": 1}, "target": target}
    )
    assert psybolt.evaluate(canonical.canonical(parsed.scenario)) == psybolt.evaluate(
        parsed.scenario
    )
