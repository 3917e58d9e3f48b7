"""End-to-end: catalog references over GraphQL, grid thresholds of catalog defenders, typed
threshold inputs and the catalog routes in `/openapi.json`, against a real `killmath serve`.

The inline equivalents below are the datacards' stat lines written out by hand, so a
referenced request is checked against what a player would type, not against the expansion
code under test.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import httpx
import pytest
from datacards import POWER_KLAW
from jsonschema import Draft202012Validator
from service_harness import graphql, rest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SNIPA = "kommandos.snipa-boy.scoped-big-shoota.stationary"
SNIPA_INLINE = {"attacks": 5, "hit": 3, "normalDamage": 3, "criticalDamage": 3, "devastating": 2}
TROOPER_INLINE = {"defenceDice": 3, "save": 4, "wounds": 8}
NOB_INLINE = {"defenceDice": 3, "save": 5, "wounds": 14}
KLAW_INLINE = {**POWER_KLAW, "wounds": 14}
POWER_WEAPON_INLINE = {
    "attacks": 4,
    "hit": 3,
    "normalDamage": 4,
    "criticalDamage": 6,
    "lethal": 5,
    "wounds": 9,
}

SHOOT_REFERENCED = {
    "attacker": {
        "operativeId": "kommandos.snipa-boy",
        "weaponProfileId": SNIPA,
        "weaponRules": "Balanced, Lethal 5+",
    },
    "defender": {"operativeId": "kasrkin.trooper", "coverSaves": 1},
    "options": {"exact": True, "rounds": 2},
}
SHOOT_INLINE = {
    "attacker": {**SNIPA_INLINE, "reroll": "BALANCED", "lethal": 5},
    "defender": {**TROOPER_INLINE, "coverSaves": 1},
    "options": {"exact": True, "rounds": 2},
}
FIGHT_REFERENCED = {
    "fighterA": {
        "operativeId": "kommandos.boss-nob",
        "weaponProfileId": "kommandos.boss-nob.power-klaw",
    },
    "fighterB": {"weaponProfileId": "kasrkin.sergeant.power-weapon", "strategy": "PARRY"},
    "options": {"exact": True},
}
FIGHT_INLINE = {
    "fighterA": KLAW_INLINE,
    "fighterB": {**POWER_WEAPON_INLINE, "strategy": "PARRY"},
    "options": {"exact": True},
}

SHOOT_QUERY = """query($input: Kt2024ShootInput!) { shoot(input: $input) {
  damageDistribution { value probability exact } expectedDamage expectedDamageExact
  killProbability killProbabilityExact killProbabilityByRound killProbabilityByRoundExact
  canonicalKey } }"""
SIDE = """{ remainingWoundsDistribution { value exact } incapacitatedProbabilityExact
  damageDealtDistribution { value exact } expectedDamageDealtExact }"""
FIGHT_QUERY = (
    "query($input: Kt2024FightInput!) { fight(input: $input) { "
    f"fighterA {SIDE} fighterB {SIDE} canonicalKey }} }}"
)
MATCHUPS_QUERY = """query($inputs: [MatchupInput!]!) { matchups(inputs: $inputs) {
  __typename
  ... on Kt2024ShootResult { expectedDamageExact canonicalKey }
  ... on Kt2024FightResult { fighterA { expectedDamageDealtExact } canonicalKey }
  ... on MatchupError { code field message } } }"""
GRID_QUERY = """query($attackers: [Kt2024ShootAttackerInput!]!,
    $defenders: [Kt2024ShootDefenderInput!]!, $situations: [SituationInput!]) {
  matchupGrid(attackers: $attackers, defenders: $defenders, situations: $situations,
              options: {exact: true}) {
    atLeast cells { attacker defender situation expectedDamageExact killProbabilityExact
                    damageAtLeast { k exact } } } }"""


# --------------------------------------------------------------- GraphQL catalog references


def test_graphql_shoot_by_catalog_ids_equals_the_inline_request(url):
    referenced = graphql(url, SHOOT_QUERY, {"input": SHOOT_REFERENCED})["data"]["shoot"]
    inline = rest(url, "/v1/shoot", SHOOT_INLINE)
    assert referenced["canonicalKey"] == inline["canonicalKey"]
    for name in ("expectedDamageExact", "killProbabilityExact", "killProbabilityByRoundExact"):
        assert referenced[name] == inline[name]
    assert referenced["damageDistribution"] == inline["damageDistribution"]
    assert sum(Fraction(e["exact"]) for e in referenced["damageDistribution"]) == 1


def test_graphql_fight_by_catalog_ids_equals_the_inline_request(url):
    referenced = graphql(url, FIGHT_QUERY, {"input": FIGHT_REFERENCED})["data"]["fight"]
    inline = rest(url, "/v1/fight", FIGHT_INLINE)
    assert referenced["canonicalKey"] == inline["canonicalKey"]
    for side in ("fighterA", "fighterB"):
        mine, theirs = referenced[side], inline[side]
        assert mine["expectedDamageDealtExact"] == theirs["expectedDamageDealtExact"]
        assert mine["incapacitatedProbabilityExact"] == theirs["incapacitatedProbabilityExact"]
        assert mine["remainingWoundsDistribution"] == [
            {"value": e["value"], "exact": e["exact"]}
            for e in theirs["remainingWoundsDistribution"]
        ]


def test_graphql_matchups_take_catalog_ids(url):
    inputs = [
        {"shoot": SHOOT_REFERENCED},
        {"fight": FIGHT_REFERENCED},
        {"shoot": {"attacker": {"weaponProfileId": "kommandos.boss-nob.power-klaw"}}},
    ]
    shoot, fight, wrong = graphql(url, MATCHUPS_QUERY, {"inputs": inputs})["data"]["matchups"]
    single_shoot = rest(url, "/v1/shoot", SHOOT_INLINE)
    single_fight = rest(url, "/v1/fight", FIGHT_INLINE)
    assert shoot["canonicalKey"] == single_shoot["canonicalKey"]
    assert shoot["expectedDamageExact"] == single_shoot["expectedDamageExact"]
    assert fight["canonicalKey"] == single_fight["canonicalKey"]
    assert (
        fight["fighterA"]["expectedDamageDealtExact"]
        == single_fight["fighterA"]["expectedDamageDealtExact"]
    )
    assert wrong["__typename"] == "MatchupError"
    assert (wrong["code"], wrong["field"]) == ("INVALID_INPUT", "attacker.weaponProfileId")
    assert "melee" in wrong["message"]


def test_graphql_reference_errors_name_the_field(url):
    answer = graphql(url, SHOOT_QUERY, {"input": {"defender": {"operativeId": "kasrkin.nobody"}}})
    (error,) = answer["errors"]
    assert error["extensions"]["field"] == "defender.operativeId"
    assert error["extensions"]["code"] == "INVALID_INPUT"
    unknown_rule = {"attacker": {"weaponProfileId": SNIPA, "weaponRules": "Poison"}}
    (error,) = graphql(url, SHOOT_QUERY, {"input": unknown_rule})["errors"]
    assert error["extensions"]["field"] == "attacker.weaponRules"
    # a target takes only operativeId: the typed input has no other reference member
    answer = graphql(url, SHOOT_QUERY, {"input": {"defender": {"weaponProfileId": SNIPA}}})
    assert "weaponProfileId" in answer["errors"][0]["message"]
    assert answer.get("data") is None


def test_graphql_grid_by_catalog_ids_equals_the_inline_grid(url):
    attackers = [{"weaponProfileId": SNIPA}, {"weaponProfileId": "kasrkin.trooper.hot-shot-lasgun"}]
    defenders = [{"operativeId": "kasrkin.trooper"}, {"operativeId": "kommandos.boss-nob"}]
    situations = [{}, {"defender": {"coverSaves": 1}}]
    grid = graphql(
        url,
        GRID_QUERY,
        {"attackers": attackers, "defenders": defenders, "situations": situations},
    )["data"]["matchupGrid"]
    inline = rest(
        url,
        "/v1/grid",
        {
            "attackers": [
                SNIPA_INLINE,
                {"attacks": 4, "hit": 3, "normalDamage": 3, "criticalDamage": 4},
            ],
            "defenders": [TROOPER_INLINE, NOB_INLINE],
            "situations": situations,
            "options": {"exact": True},
        },
    )
    assert grid["atLeast"] == inline["atLeast"] == list(range(1, 15))  # the Nob's 14 wounds
    assert len(grid["cells"]) == len(inline["cells"]) == 8
    for mine, theirs in zip(grid["cells"], inline["cells"], strict=True):
        assert mine["expectedDamageExact"] == theirs["expectedDamageExact"]
        assert mine["killProbabilityExact"] == theirs["killProbabilityExact"]
        assert mine["damageAtLeast"] == [
            {"k": e["k"], "exact": e["exact"]} for e in theirs["damageAtLeast"]
        ]


# ------------------------------------------------------------------------ grid thresholds


def _tails(distribution: list[dict], ks: list[int]) -> list[str]:
    """P(damage ≥ k) from a single shoot's exact distribution."""
    out = []
    for k in ks:
        p = sum((Fraction(e["exact"]) for e in distribution if e["value"] >= k), Fraction(0))
        out.append(f"{p.numerator}/{p.denominator}")
    return out


def test_grid_thresholds_reach_the_referenced_defenders_wounds(url):
    """The Nob has 14 wounds: P(damage ≥ 13) and P(damage ≥ 14) are part of the answer."""
    attacker = {"attacks": 6, "hit": 2, "normalDamage": 4, "criticalDamage": 5}
    grid = rest(
        url,
        "/v1/grid",
        {
            "attackers": [attacker],
            "defenders": [{"operativeId": "kommandos.boss-nob"}],
            "options": {"exact": True},
        },
    )
    assert grid["atLeast"] == list(range(1, 15))
    single = rest(
        url,
        "/v1/shoot",
        {"attacker": attacker, "defender": NOB_INLINE, "options": {"exact": True}},
    )
    (cell,) = grid["cells"]
    assert [e["exact"] for e in cell["damageAtLeast"]] == _tails(
        single["damageDistribution"], grid["atLeast"]
    )
    assert cell["damageAtLeast"][-1]["exact"] == single["killProbabilityExact"]


def test_grid_thresholds_follow_situation_wounds_and_stay_below_defaults(url):
    trooper = {"operativeId": "kasrkin.trooper"}
    only_trooper = rest(url, "/v1/grid", {"attackers": [{}], "defenders": [trooper]})
    assert only_trooper["atLeast"] == list(range(1, 9))  # 8 wounds, not the default 12
    wounded_up = rest(
        url,
        "/v1/grid",
        {
            "attackers": [{}],
            "defenders": [trooper, {}],
            "situations": [{}, {"defender": {"wounds": 20}}],
        },
    )
    assert wounded_up["atLeast"] == list(range(1, 21))


# ----------------------------------------------------------------- typed threshold inputs


def _argument_type(url: str, name: str) -> str:
    query = "{ __schema { queryType { fields { name args { type { ofType { name kind } } } } } } }"
    fields = graphql(url, query, {})["data"]["__schema"]["queryType"]["fields"]
    (field,) = [f for f in fields if f["name"] == name]
    kind = field["args"][0]["type"]["ofType"]
    return f"{kind['kind']} {kind['name']}"


@pytest.mark.parametrize("mode", ["Attack", "DeadlyDemise", "Heal"])
def test_threshold_queries_take_typed_inputs(url, mode):
    assert _argument_type(url, f"threshold{mode}") == f"INPUT_OBJECT Threshold{mode}Input"


def test_typed_threshold_input_refuses_unknown_members_and_keeps_the_errors(url):
    query = """query($i: ThresholdAttackInput!) { thresholdAttack(input: $i) { canonicalKey } }"""
    target = {"minorThreshold": 5, "majorThreshold": 9, "currentHP": 4}
    bogus = graphql(url, query, {"i": {"attack": {"damage": 3, "bogus": 1}, "target": target}})
    assert "bogus" in bogus["errors"][0]["message"]
    swapped = {**target, "minorThreshold": 9, "majorThreshold": 5}
    answer = graphql(url, query, {"i": {"attack": {"damage": 3}, "target": swapped}})
    extensions = answer["errors"][0]["extensions"]
    assert extensions["code"] == "INVALID_INPUT"
    assert extensions["field"].startswith("target.")


# ------------------------------------------------------------------------------- OpenAPI


@pytest.fixture(scope="module")
def document(url):
    return httpx.get(url + "/openapi.json").json()


def _validator(document: dict, schema: dict) -> Draft202012Validator:
    """A validator of `schema` whose `#/components/...` references resolve in the document."""
    return Draft202012Validator({"allOf": [schema], "components": document["components"]})


def _response_schema(document: dict, path: str, method: str, status: str) -> dict:
    response = document["paths"][path][method]["responses"][status]
    return response["content"]["application/json"]["schema"]


def test_openapi_threshold_envelopes_come_from_the_models(document):
    schemas = document["components"]["schemas"]
    for mode in ("attack", "deadlyDemise", "heal"):
        envelope = schemas[f"Envelope_threshold_{mode}"]
        assert envelope["additionalProperties"] is False
        assert "ruleset" in envelope["required"]
    batch = document["paths"]["/v1/batch"]["post"]["requestBody"]["content"]
    refs = [r["$ref"] for r in batch["application/json"]["schema"]["items"]["anyOf"]]
    assert "#/components/schemas/Envelope_threshold_heal" in refs
    for schema in schemas.values():
        Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize(
    ("mode", "referenced"), [("shoot", SHOOT_REFERENCED), ("fight", FIGHT_REFERENCED)]
)
def test_openapi_request_bodies_admit_catalog_references(document, mode, referenced):
    body = document["paths"][f"/v1/{mode}"]["post"]["requestBody"]["content"]
    validator = _validator(document, body["application/json"]["schema"])
    validator.validate(referenced)
    assert not validator.is_valid({**referenced, "options": {"bogus": 1}})
    defender = document["components"]["schemas"]["DefenderModel"]["properties"]
    assert "operativeId" in defender and "weaponProfileId" not in defender


GETS = [
    ("/v1/weapon-rules", "/v1/weapon-rules?text=Lethal%205%2B,%20Hot,%20Poison,%20Lethal%207%2B"),
    ("/v1/kill-teams", "/v1/kill-teams"),
    ("/v1/operatives", "/v1/operatives?first=3&killTeam=kasrkin"),
    ("/v1/operatives/{id}", "/v1/operatives/kommandos.boss-nob"),
    ("/v1/weapon-profiles/{id}", "/v1/weapon-profiles/kasrkin.sergeant.plasma-pistol.supercharge"),
]


@pytest.mark.parametrize(("path", "request_path"), GETS)
def test_catalog_routes_are_documented_and_answer_as_documented(url, document, path, request_path):
    response = httpx.get(url + request_path)
    assert response.status_code == 200
    _validator(document, _response_schema(document, path, "get", "200")).validate(response.json())


@pytest.mark.parametrize(
    ("path", "request_path", "status"),
    [
        ("/v1/weapon-rules", "/v1/weapon-rules", "400"),
        ("/v1/operatives", "/v1/operatives?first=1000", "422"),
        ("/v1/operatives/{id}", "/v1/operatives/kasrkin.nobody", "404"),
        ("/v1/weapon-profiles/{id}", "/v1/weapon-profiles/nope", "404"),
    ],
)
def test_catalog_errors_are_documented(url, document, path, request_path, status):
    response = httpx.get(url + request_path)
    assert str(response.status_code) == status
    _validator(document, _response_schema(document, path, "get", status)).validate(response.json())


@pytest.mark.parametrize("fixture", ["import_ktdash.json", "import_battlescribe.cat"])
def test_import_is_documented(url, document, fixture):
    operation = document["paths"]["/v1/import"]["post"]
    (fmt,) = operation["parameters"]
    assert fmt["name"] == "format" and "battlescribe-cat" in fmt["schema"]["enum"]
    response = httpx.post(url + "/v1/import", content=(FIXTURES / fixture).read_bytes())
    assert response.status_code == 200, response.text
    assert response.json()["operatives"]
    _validator(document, _response_schema(document, "/v1/import", "post", "200")).validate(
        response.json()
    )
