"""A grid's cells are prepared from their parts (each attacker and defender validated once per
situation, the cells assembled and keyed from them): every cell must be the very job its own
request would be — same scenario, same canonical key, same rules ignored — and a refused grid
must name the same members as validating cell by cell."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_kt2024_shoot_properties import scenarios as shoot_scenarios

from engine.errors import InputError
from engine.kt2024.canonical import member_fields
from schema.errors import every
from schema.grid import GridRequest
from schema.kt2024 import shoot as shoot_schema
from service import grid as grids
from service.compute import Job

ATTACKERS = [
    {},
    {"attacks": 6, "hit": 4, "piercing": 2, "reroll": "BALANCED"},
    {"attacks": 0, "curseOfRot": True, "piercing": 1},
    {"attacks": 5, "lethal": 5, "criticalDamage": 3, "saturate": True},
    {"attacks": 4, "obscured": True, "rending": True, "autoCrits": 2},
    {"attacks": 3, "weaponRules": "Lethal 5+, Piercing 1"},
    {"attacks": 4, "weaponRules": "Devastating 2, *Poison"},  # refused unless IGNORE
    {"weaponProfileId": "kasrkin.gunner.meltagun"},
    {"weaponProfileId": "kasrkin.gunner.plasma-gun.standard", "weaponRules": "Balanced"},
]
DEFENDERS = [
    {},
    {"save": 5, "wounds": 7, "invulnerableSave": 4},
    {"defenceDice": 1, "coverSaves": 1, "durable": True},
    {"save": 2, "feelNoPain": 5, "saintlyRelics": "ONE_D6", "wounds": 20},
    {"operativeId": "kasrkin.trooper"},
    {"operativeId": "kasrkin.sergeant", "coverSaves": 1},
]
SITUATIONS = [
    {"name": "open"},
    {"name": "cover", "defender": {"coverSaves": 1}},
    {"attacker": {"weaponRules": "Saturate"}, "options": {"unknownRules": "IGNORE"}},
    {"attacker": {"obscured": True}, "defender": {"defenceDice": 0}},
    {"options": {"exact": True, "rounds": 2}},
]


def grid(body: dict[str, Any]) -> GridRequest:
    return grids.parse(body, max_cells=10_000)


def same_job(assembled: Job, alone: Job) -> None:
    """Equal jobs, wounds included (a Defender's equality leaves them out)."""
    assert assembled.key == alone.key
    assert assembled.ignored == alone.ignored
    assert assembled.mode is alone.mode
    for member in ("attacker", "defender", "options"):
        mine, theirs = (getattr(j.scenario, member) for j in (assembled, alone))
        assert member_fields(mine) == member_fields(theirs)


def refusal(request: GridRequest, prepare: Any) -> list[dict[str, Any]] | None:
    try:
        prepare(request)
    except InputError as exc:
        return [e.as_json() for e in every(exc)]
    return None


bodies = st.fixed_dictionaries(
    {
        "attackers": st.lists(st.sampled_from(ATTACKERS), min_size=1, max_size=4),
        "defenders": st.lists(st.sampled_from(DEFENDERS), min_size=1, max_size=3),
        "situations": st.lists(st.sampled_from(SITUATIONS), min_size=1, max_size=3),
        "options": st.sampled_from([{}, {"exact": True}, {"unknownRules": "IGNORE"}]),
    }
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies)
def test_cells_assembled_from_parts_are_the_cells_own_requests(body: dict[str, Any]) -> None:
    request = grid(body)
    alone = refusal(request, grids._cell_by_cell)
    assert refusal(request, grids.prepare_cells) == alone
    if alone is not None:
        return
    expected = grids._cell_by_cell(request)
    for _ in range(2):  # assembled, then from the memo of cells
        jobs = grids.prepare_cells(request)
        assert len(jobs) == len(expected) == request.cells()
        for assembled, own in zip(jobs, expected, strict=True):
            same_job(assembled, own)


def test_rules_ignored_in_a_cell_are_listed_once_in_order() -> None:
    body = {
        "attackers": [{"attacks": 4, "weaponRules": "*Poison, Blaze*"}],
        "defenders": [{}],
        "situations": [{"attacker": {"weaponRules": "Blaze*, *Poison, Hot"}}],
        "options": {"unknownRules": "IGNORE"},
    }
    (job,) = grids.prepare_cells(grid(body))
    (own,) = grids._cell_by_cell(grid(body))
    same_job(job, own)


@pytest.mark.parametrize(
    "body",
    [
        {"attackers": [{"hit": 9}, {"attacks": 99}], "defenders": [{"save": 1}, {}]},
        {"attackers": [{}], "defenders": [{}], "options": {"unknownRules": "MAYBE"}},
        {"attackers": [{"weaponProfileId": "nope"}], "defenders": [{"save": 7}]},
        {
            "attackers": [{"weaponRules": "*Poison"}, {}],
            "defenders": [{"operativeId": "nobody"}],
            "situations": [{"options": {"exact": "yes"}}, {"defender": {"wounds": 0}}],
        },
        {"attackers": [{"eliteModerate": True, "eliteExtreme": True}], "defenders": [{}]},
        {"attackers": [{"attacks": 2**70}], "defenders": [{}]},
    ],
)
def test_a_refused_grid_names_what_each_cell_would(body: dict[str, Any]) -> None:
    request = grid(body)
    named = refusal(request, grids.prepare_cells)
    assert named is not None
    assert named == refusal(request, grids._cell_by_cell)


def at_least_by_definition(output: dict[str, Any], k: int) -> tuple[float, str | None]:
    """P(damage ≥ k) as the grid defines it: the distribution's tail summed from the top
    (floats, at most 1), or the exact tail rounded once."""
    tail = [e for e in output["damageDistribution"] if e["value"] >= k]
    if "expectedDamageExact" in output:
        exact = sum((Fraction(e["exact"]) for e in tail), Fraction(0))
        return float(exact), f"{exact.numerator}/{exact.denominator}"
    total = 0.0
    for e in reversed(tail):
        total += e["probability"]
    return min(1.0, total), None


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scenario=shoot_scenarios(),
    exact=st.booleans(),
    thresholds=st.lists(st.integers(1, 60), max_size=10, unique=True).map(sorted),
)
def test_a_summary_is_its_answers_tail(scenario: Any, exact: bool, thresholds: list[int]) -> None:
    scenario = replace(scenario, options=replace(scenario.options, exact=exact))
    output = shoot_schema.evaluate(scenario)
    summary = grids._summarise(output, tuple(thresholds))
    assert [e["k"] for e in summary["damageAtLeast"]] == thresholds
    for entry in summary["damageAtLeast"]:
        probability, ratio = at_least_by_definition(output, entry["k"])
        assert entry["probability"] == probability  # to the bit
        assert entry.get("exact") == ratio
    assert summary["expectedDamage"] == output["expectedDamage"]
    assert summary["killProbability"] == output["killProbability"]
