"""The fast shooting path against the brute-force oracle, on random small scenarios."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kt2024_oracle import shoot as oracle_shoot

from schema import registry

REROLLS = [
    "NONE", "BALANCED", "DOUBLE_BALANCED", "CEASELESS", "RELENTLESS", "CRIT_FISH",
    "REROLL_ONES", "ONES_AND_BALANCED", "CEASELESS_AND_BALANCED",
]  # fmt: skip

DEFAULT_ATTACKER = {
    "attacks": 4,
    "hit": 3,
    "normalDamage": 3,
    "criticalDamage": 4,
    "lethal": 6,
    "accurate": 0,
    "autoCrits": 0,
    "devastating": 0,
    "piercing": 0,
    "piercingCrits": 0,
    "reroll": "NONE",
    "failsToNorms": 0,
    "normsToCrits": 0,
    "punishing": False,
    "rending": False,
    "severe": False,
    "saturate": False,
    "closeAssault": False,
    "eliteModerate": False,
    "eliteExtreme": False,
    "puritySeal": False,
    "mysticScry": False,
    "curseOfRot": False,
    "obscured": False,
}
DEFAULT_DEFENDER = {
    "defenceDice": 3, "save": 3, "wounds": 12, "critSave": 6, "coverSaves": 0,
    "coverCritSaves": 0, "reroll": "NONE", "failsToNorms": 0, "normsToCrits": 0,
    "indomitus": False, "feelNoPain": None, "justAScratch": "NONE", "saintlyRelics": "NONE",
    "durable": False, "invulnerableSave": None,
}  # fmt: skip

flag = st.booleans()
small = st.integers(0, 2)


@st.composite
def attackers(draw: st.DrawFn) -> dict:
    elite = draw(st.sampled_from([(False, False), (True, False), (False, True)]))
    return {
        "attacks": draw(st.integers(0, 3)),
        "hit": draw(st.integers(2, 6)),
        "normalDamage": draw(st.integers(0, 4)),
        "criticalDamage": draw(st.integers(0, 5)),
        "lethal": draw(st.integers(2, 6)),
        "accurate": draw(small),
        "autoCrits": draw(small),
        "devastating": draw(small),
        "piercing": draw(small),
        "piercingCrits": draw(small),
        "reroll": draw(st.sampled_from(REROLLS)),
        "failsToNorms": draw(small),
        "normsToCrits": draw(small),
        "punishing": draw(flag),
        "rending": draw(flag),
        "severe": draw(flag),
        "saturate": draw(flag),
        "closeAssault": draw(flag),
        "eliteModerate": elite[0],
        "eliteExtreme": elite[1],
        "puritySeal": draw(flag),
        "mysticScry": draw(flag),
        "curseOfRot": draw(flag),
        "obscured": draw(flag),
    }


@st.composite
def defenders(draw: st.DrawFn) -> dict:
    return {
        "defenceDice": draw(st.integers(0, 3)),
        "save": draw(st.integers(2, 6)),
        "wounds": draw(st.integers(1, 12)),
        "critSave": draw(st.integers(2, 6)),
        "coverSaves": draw(st.integers(0, 1)),
        "coverCritSaves": draw(st.integers(0, 1)),
        "reroll": draw(st.sampled_from(REROLLS)),
        "failsToNorms": draw(st.integers(0, 1)),
        "normsToCrits": draw(st.integers(0, 1)),
        "indomitus": draw(flag),
        "feelNoPain": draw(st.sampled_from([None, 4, 5, 6])),
        "justAScratch": draw(st.sampled_from(["NONE", "CRITS", "NORMALS"])),
        "saintlyRelics": draw(st.sampled_from(["NONE", "ONE_D6", "TWO_D6"])),
        "durable": draw(flag),
        "invulnerableSave": draw(st.sampled_from([None, 3, 5])),
    }


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(attackers(), defenders(), st.integers(1, 3))
def test_fast_path_equals_brute_force(attacker: dict, defender: dict, rounds: int) -> None:
    scenario = {
        "attacker": attacker,
        "defender": defender,
        "options": {"rounds": rounds, "exact": True},
    }
    got = registry.run(scenario, "shoot")
    dist, by_round = oracle_shoot(attacker, defender, rounds)
    assert {e["value"]: Fraction(e["exact"]) for e in got["damageDistribution"]} == dist
    assert [Fraction(x) for x in got["killProbabilityByRoundExact"]] == by_round
    assert Fraction(got["expectedDamageExact"]) == sum(t * p for t, p in dist.items())


TIES = [
    # Mystic Scry scores X and Y equally (CD + Devastating = 2 ND): normal→crit must win
    ({"attacks": 3, "hit": 4, "normalDamage": 2, "criticalDamage": 4, "mysticScry": True}, {}),
    ({"attacks": 3, "hit": 3, "normalDamage": 2, "criticalDamage": 3, "devastating": 1,
      "mysticScry": True}, {"save": 4}),
    # Just a Scratch with equal damage on both kinds: ties cancel a crit
    ({"attacks": 3, "hit": 3, "normalDamage": 3, "criticalDamage": 3}, {"justAScratch": "CRITS"}),
    # Ceaseless ties between fail faces pick the lowest face
    ({"attacks": 3, "hit": 5, "reroll": "CEASELESS"}, {"defenceDice": 2}),
    ({"attacks": 3, "hit": 6, "reroll": "CEASELESS_AND_BALANCED"}, {"reroll": "CEASELESS"}),
    # Durable inside the allocation, with relics and FNP
    ({"attacks": 3, "hit": 3, "normalDamage": 3, "criticalDamage": 5},
     {"durable": True, "saintlyRelics": "TWO_D6", "feelNoPain": 5}),
    # Curse of Rot with re-rolling defence dice and Indomitus
    ({"attacks": 2, "curseOfRot": True}, {"reroll": "ONES_AND_BALANCED", "indomitus": True}),
]  # fmt: skip


@pytest.mark.parametrize(("attacker", "defender"), TIES)
def test_tie_breaks_equal_brute_force(attacker: dict, defender: dict) -> None:
    test_fast_path_equals_brute_force.hypothesis.inner_test(
        {**DEFAULT_ATTACKER, **attacker}, {**DEFAULT_DEFENDER, **defender}, 2
    )
