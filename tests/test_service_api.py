"""End-to-end: REST and GraphQL against a real `killmath serve` (in-process cache only)."""

from __future__ import annotations

import csv
import io
from fractions import Fraction

import httpx
import orjson
import pytest
from graphql_typed import SCHEMA, as_rest, query_of, variables, without_nulls
from service_harness import cli_batch, graphql, without_service_members

from engine import REVISION
from service.graphql.schema import build_schema

SHOOT = {
    "attacker": {"attacks": 5, "hit": 3, "lethal": 5, "piercing": 1, "reroll": "BALANCED"},
    "defender": {"save": 4, "wounds": 9, "feelNoPain": 5, "coverSaves": 1},
    "options": {"exact": True, "rounds": 2},
}
FIGHT = {
    "fighterA": {"attacks": 4, "hit": 3, "wounds": 10, "strategy": "OPTIMAL"},
    "fighterB": {"attacks": 3, "hit": 4, "wounds": 8, "brutal": True},
    "options": {"exact": True},
}

SHOOT_QUERY = """
query($input: Kt2024ShootInput!) {
  shoot(input: $input) {
    damageDistribution { value probability exact }
    expectedDamage expectedDamageExact killProbability killProbabilityExact
    killProbabilityByRound killProbabilityByRoundExact canonicalKey cached
  }
}"""
SIDE = """{ remainingWoundsDistribution { value probability exact }
  incapacitatedProbability incapacitatedProbabilityExact
  damageDealtDistribution { value probability exact }
  expectedDamageDealt expectedDamageDealtExact }"""
FIGHT_QUERY = (
    "query($input: Kt2024FightInput!) { fight(input: $input) { "
    f"fighterA {SIDE} fighterB {SIDE} canonicalKey cached }} }}"
)


def cli(envelope: dict) -> dict:
    (line,) = cli_batch([orjson.dumps(envelope).decode()])
    return orjson.loads(line)


@pytest.mark.parametrize(("mode", "body"), [("shoot", SHOOT), ("fight", FIGHT)])
def test_rest_equals_cli(url, mode, body):
    response = httpx.post(f"{url}/v1/{mode}", json=body)
    assert response.status_code == 200
    answer = response.json()
    assert answer["canonicalKey"].startswith(f"kt2024-v2:{mode}:")
    assert without_service_members(answer) == cli({"mode": mode, **body})


@pytest.mark.parametrize(
    ("mode", "body", "query"), [("shoot", SHOOT, SHOOT_QUERY), ("fight", FIGHT, FIGHT_QUERY)]
)
def test_graphql_equals_cli(url, mode, body, query):
    rest = httpx.post(f"{url}/v1/{mode}", json=body).json()
    answer = graphql(url, query, {"input": body})["data"][mode]
    expected = cli({"mode": mode, **body})
    # exact output was asked for, so GraphQL's nullable members are all present
    assert without_service_members(answer) == expected
    assert answer["canonicalKey"] == rest["canonicalKey"]
    assert answer["cached"] is True  # REST filled the cache GraphQL reads


def test_graphql_replies_are_reused_only_once_they_say_cached(url):
    query = "query($i: Kt2024ShootInput!) { shoot(input: $i) { expectedDamage cached } }"
    variables = {"i": {"attacker": {"attacks": 7, "hit": 5}}}  # used by no other test

    def hits() -> float:
        text = httpx.get(url + "/metrics").text
        line = 'killmath_cache_lookups_total{result="hit",tier="reply"} '
        return float(text.split(line)[1].split()[0]) if line in text else 0.0

    before = hits()
    first, second, third = (graphql(url, query, variables)["data"]["shoot"] for _ in range(3))
    assert (first["cached"], second["cached"], third["cached"]) == (False, True, True)
    assert first["expectedDamage"] == second["expectedDamage"] == third["expectedDamage"]
    assert hits() - before == 1  # the first reply said cached: false, so only the second was kept


def test_float_mode_graphql_leaves_exact_members_null(url):
    body = {"attacker": {"attacks": 3}}
    answer = graphql(url, SHOOT_QUERY, {"input": body})["data"]["shoot"]
    assert answer["expectedDamageExact"] is None
    assert all(e["exact"] is None for e in answer["damageDistribution"])
    assert answer["expectedDamage"] == cli({"mode": "shoot", **body})["expectedDamage"]


def test_scenarios_differing_only_in_wounds_keep_their_own_answers(url):
    # kt2024's engine scenarios compare equal whatever the wounds; keys must not
    answers = []
    for wounds in (7, 19):
        body = {"attacker": {"attacks": 6}, "defender": {"save": 3, "wounds": wounds}}
        answers.append(httpx.post(url + "/v1/shoot", json=body).json())
        assert without_service_members(answers[-1]) == cli({"mode": "shoot", **body})
    assert answers[0]["canonicalKey"] != answers[1]["canonicalKey"]
    assert answers[0]["killProbability"] > answers[1]["killProbability"]
    grid = {"attackers": [{"attacks": 6}], "defenders": [{"wounds": 7}, {"wounds": 19}]}
    cells = httpx.post(url + "/v1/grid", json=grid).json()["cells"]
    assert [c["killProbability"] for c in cells] == [a["killProbability"] for a in answers]


def test_batch_equals_cli_line_for_line(url):
    envelopes = [
        {"ruleset": "kt2024", "mode": "shoot", **SHOOT},
        {"mode": "fight", **FIGHT},
        {"mode": "shoot", "attacker": {"attacks": 21}},
        {"mode": "shoot", "attacker": {"bogus": 1}},
        {"ruleset": "nope", "mode": "shoot"},
        [],
    ]
    response = httpx.post(url + "/v1/batch", json=envelopes)
    assert response.status_code == 200
    expected = [
        orjson.loads(line) for line in cli_batch([orjson.dumps(e).decode() for e in envelopes])
    ]
    assert response.json() == expected
    assert response.json()[2]["error"]["code"] == "LIMIT_EXCEEDED"


def test_every_registered_ruleset_is_served_like_the_cli(url):
    answer = httpx.get(url + "/v1/rulesets").json()
    assert answer["engineRevision"] == REVISION
    rulesets = answer["rulesets"]
    assert set(rulesets) >= {"kt2024"}
    assert rulesets["kt2024"] == ["fight", "shoot"]
    schema = graphql(url, "{ __schema { queryType { fields { name } } } }")
    names = {f["name"] for f in schema["data"]["__schema"]["queryType"]["fields"]}
    assert {"rulesets", "shoot", "fight", "matchups", "matchupGrid"} <= names
    for ruleset, modes in rulesets.items():
        if ruleset != "kt2024":
            for mode in modes:
                assert f"{ruleset}{mode[:1].upper()}{mode[1:]}" in names


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"attacker": {"attacks": 21}}, 422, "LIMIT_EXCEEDED", "attacker.attacks"),
        ({"attacker": {"hit": 7}}, 400, "INVALID_INPUT", "attacker.hit"),
        ({"attacker": {"hit": "3"}}, 400, "INVALID_INPUT", "attacker.hit"),
        ({"attacker": {"wat": 1}}, 400, "INVALID_INPUT", "attacker.wat"),
        ({"mode": "fight"}, 400, "INVALID_INPUT", "mode"),
        ([1, 2], 400, "INVALID_INPUT", ""),
    ],
)
def test_rest_errors(url, body, status, code, field):
    response = httpx.post(url + "/v1/shoot", json=body)
    assert response.status_code == status
    error = response.json()["error"]
    assert (error["code"], error["field"]) == (code, field)
    assert ("limit" in error) == (code == "LIMIT_EXCEEDED")


def test_malformed_and_oversized_bodies(url):
    response = httpx.post(url + "/v1/shoot", content=b"{not json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_INPUT"
    big = b'{"attacker": {}, "pad": "' + b"x" * 2_000_000 + b'"}'
    response = httpx.post(url + "/v1/shoot", content=big)
    assert response.status_code == 413
    assert response.json()["error"]["limit"] == 1_048_576

    def chunks():  # no Content-Length: the limit is enforced while streaming
        for _ in range(40):
            yield b" " * 65536

    response = httpx.post(url + "/v1/batch", content=chunks())
    assert response.status_code == 413
    too_many = [{"mode": "shoot"}] * 1001
    response = httpx.post(url + "/v1/batch", json=too_many)
    assert response.status_code == 422
    assert response.json()["error"]["limit"] == 1000


@pytest.mark.parametrize(
    ("body", "status"),
    [(b"{not json", 400), (b'{"variables": {}}', 400), (b"[1, 2]", 400), (b"1", 400)],
)
def test_graphql_refusals_before_execution_use_the_graphql_error_body(url, body, status):
    """Strawberry answers these with plain text (a non-object body with a 500); the service
    answers with a GraphQL response carrying the error members (tests/test_graphql_http.py)."""
    response = httpx.post(
        url + "/graphql", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    (error,) = response.json()["errors"]
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert error["message"]


def test_graphql_errors_carry_the_error_members(url):
    answer = graphql(url, SHOOT_QUERY, {"input": {"attacker": {"attacks": 25}}})
    (error,) = answer["errors"]
    assert error["extensions"] == {
        "code": "LIMIT_EXCEEDED",
        "field": "attacker.attacks",
        "message": "must be at most 20",
        "limit": 20,
    }


def test_graphql_document_limits(url):
    aliases = " ".join(f"a{i}: rulesets {{ name }}" for i in range(60))
    answer = graphql(url, "{ " + aliases + " }")
    assert "aliases" in answer["errors"][0]["message"]
    tokens = "{ " + " ".join(["rulesets { name }"] * 30_000) + " }"
    answer = graphql(url, tokens)
    assert "token" in answer["errors"][0]["message"].lower()


def test_graphql_depth_limit():
    """Our schema is at most 4 deep, so the limiter is checked on a schema built with 2."""
    deep = "{ fight(input: {}) { fighterA { remainingWoundsDistribution { value } } } }"
    shallow = "{ rulesets { name } }"
    schema = build_schema(max_depth=2, max_aliases=10, max_tokens=1000)
    assert "exceeds maximum operation depth" in schema.execute_sync(deep).errors[0].message
    assert schema.execute_sync(shallow).errors is None


def test_graphiql_on_get(url):
    response = httpx.get(url + "/graphql", headers={"accept": "text/html"})
    assert response.status_code == 200
    assert "graphiql" in response.text.lower()


def test_matchups_mix_rulesets_and_errors(url):
    query = """
    query($inputs: [MatchupInput!]!) {
      matchups(inputs: $inputs) {
        __typename
        ... on Kt2024ShootResult { expectedDamage canonicalKey }
        ... on Kt2024FightResult { fighterA { incapacitatedProbability } }
        ... on Kt2018CombatResult { pOutOfAction canonicalKey }
        ... on MatchupError { code field limit }
      }
    }"""
    kt2018 = OTHER_RULESETS[0][2]
    inputs = [
        {"shoot": {"attacker": {"attacks": 3}}},
        {"fight": {"fighterA": {"attacks": 2}}},
        {"kt2018Shooting": {**kt2018, "weapons": [{**kt2018["weapons"][0], "type": "RAPID_FIRE"}]}},
        {"shoot": {"attacker": {"attacks": 30}}},
    ]
    results = graphql(url, query, {"inputs": inputs})["data"]["matchups"]
    assert [r["__typename"] for r in results] == [
        "Kt2024ShootResult",
        "Kt2024FightResult",
        "Kt2018CombatResult",
        "MatchupError",
    ]
    shoot = cli({"mode": "shoot", "attacker": {"attacks": 3}})
    assert results[0]["expectedDamage"] == shoot["expectedDamage"]
    expected = cli({"ruleset": "kt2018", "mode": "shooting", **kt2018})
    assert results[2]["pOutOfAction"] == expected["pOutOfAction"]
    assert results[2]["canonicalKey"].startswith("kt2018-")
    assert results[3] == {
        "__typename": "MatchupError",
        "code": "LIMIT_EXCEEDED",
        "field": "attacker.attacks",
        "limit": 20,
    }
    too_many = graphql(url, query, {"inputs": [{"shoot": {}}] * 1001})
    assert too_many["errors"][0]["extensions"]["limit"] == 1000


GRID = {
    "attackers": [{"attacks": 4, "hit": 3}, {"attacks": 5, "hit": 4, "piercing": 1}],
    "defenders": [{"save": 3, "wounds": 8}, {"save": 5, "wounds": 10, "feelNoPain": 5}],
    "situations": [{}, {"name": "cover", "defender": {"coverSaves": 1}}],
    "options": {"exact": True},
    "atLeast": [1, 4, 8],
}


def test_grid_cells_equal_single_shoots(url):
    response = httpx.post(url + "/v1/grid", json=GRID)
    assert response.status_code == 200
    grid = response.json()
    assert grid["atLeast"] == [1, 4, 8]
    assert len(grid["cells"]) == 8
    for cell in grid["cells"]:
        situation = GRID["situations"][cell["situation"]]
        single = cli(
            {
                "mode": "shoot",
                "attacker": GRID["attackers"][cell["attacker"]],
                "defender": {
                    **GRID["defenders"][cell["defender"]],
                    **situation.get("defender", {}),
                },
                "options": {"exact": True},
            }
        )
        assert cell["expectedDamageExact"] == single["expectedDamageExact"]
        assert cell["killProbabilityExact"] == single["killProbabilityExact"]
        for entry in cell["damageAtLeast"]:
            tail = sum(
                (
                    Fraction(e["exact"])
                    for e in single["damageDistribution"]
                    if e["value"] >= entry["k"]
                ),
                Fraction(0),
            )
            assert Fraction(entry["exact"]) == tail
            assert entry["probability"] == float(tail)


def test_grid_csv_and_graphql_agree_with_json(url):
    grid = httpx.post(url + "/v1/grid", json=GRID).json()
    response = httpx.post(url + "/v1/grid", json=GRID, headers={"accept": "text/csv"})
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) == len(grid["cells"])
    for row, cell in zip(rows, grid["cells"], strict=True):
        assert float(row["expectedDamage"]) == cell["expectedDamage"]
        assert row["damageAtLeast4Exact"] == cell["damageAtLeast"][1]["exact"]
    query = """
    query($a: [Kt2024ShootAttackerInput!]!, $d: [Kt2024ShootDefenderInput!]!,
          $s: [SituationInput!], $o: Kt2024ShootOptionsInput, $k: [Int!]) {
      matchupGrid(attackers: $a, defenders: $d, situations: $s, options: $o, atLeast: $k) {
        atLeast cachedCells
        cells { attacker defender situation expectedDamageExact damageAtLeast { k exact } }
      }
    }"""
    variables = {
        "a": GRID["attackers"],
        "d": GRID["defenders"],
        "s": GRID["situations"],
        "o": GRID["options"],
        "k": GRID["atLeast"],
    }
    answer = graphql(url, query, variables)["data"]["matchupGrid"]
    assert answer["cachedCells"] == 8
    for mine, theirs in zip(answer["cells"], grid["cells"], strict=True):
        assert mine["expectedDamageExact"] == theirs["expectedDamageExact"]
        assert mine["damageAtLeast"] == [
            {"k": e["k"], "exact": e["exact"]} for e in theirs["damageAtLeast"]
        ]


def test_grid_default_thresholds_and_errors(url):
    grid = httpx.post(
        url + "/v1/grid", json={"attackers": [{}], "defenders": [{"wounds": 5}, {}]}
    ).json()
    assert grid["atLeast"] == list(range(1, 13))  # up to the largest wounds (12 = default)
    response = httpx.post(url + "/v1/grid", json={"attackers": [{}] * 101, "defenders": [{}] * 100})
    assert response.status_code == 422
    assert response.json()["error"]["limit"] == 10_000
    response = httpx.post(
        url + "/v1/grid",
        json={"attackers": [{}, {"hit": 9}], "defenders": [{}], "situations": [{}]},
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "attackers.1.hit"
    response = httpx.post(
        url + "/v1/grid",
        json={"attackers": [{}], "defenders": [{}], "situations": [{"defender": {"save": 1}}]},
    )
    assert response.json()["error"]["field"] == "situations.0.defender.save"


def test_operations_endpoints(url):
    assert httpx.get(url + "/healthz").json() == {"status": "ok"}
    assert httpx.get(url + "/readyz").json() == {"status": "ready", "redis": "disabled"}
    response = httpx.get(url + "/v1/rulesets", headers={"x-request-id": "abc123"})
    assert response.headers["x-request-id"] == "abc123"
    httpx.post(url + "/v1/shoot", json={"attacker": {"attacks": 1}})
    metrics = httpx.get(url + "/metrics").text
    for name in (
        'killmath_http_requests_total{method="POST",route="/v1/shoot",status="200"}',
        'killmath_http_request_duration_seconds_bucket{le="0.0005",route="/v1/shoot"}',
        'killmath_cache_lookups_total{result="miss",tier="l1"}',
        'killmath_engine_compute_seconds_count{mode="shoot",ruleset="kt2024"}',
    ):
        assert name in metrics
    response = httpx.get(url + "/nope")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def refs(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in refs(value)]
    return []


def test_openapi_document(url):
    document = httpx.get(url + "/openapi.json").json()
    schemas = document["components"]["schemas"]
    for ref in refs(document):
        assert ref.startswith("#/components/schemas/")
        assert ref.rsplit("/", 1)[1] in schemas, ref
    assert document["openapi"] == "3.1.0"
    assert {"/v1/shoot", "/v1/fight", "/v1/batch", "/v1/grid", "/v1/rulesets"} <= set(
        document["paths"]
    )
    schemas = document["components"]["schemas"]
    shoot = schemas["Envelope_kt2024_shoot"]
    assert shoot["additionalProperties"] is False
    assert {"attacker", "defender", "options", "ruleset", "mode"} <= set(shoot["properties"])
    assert schemas["FieldError"]["required"] == ["code", "field", "message"]


OTHER_RULESETS = [
    (
        "kt2018",
        "shooting",
        {
            "attacker": {"ballisticSkill": 3},
            "weapons": [{"type": "rapidFire", "attacks": 1, "strength": 4}],
            "target": {"toughness": 3, "save": 5, "wounds": 1},
            "options": {"exact": True},
        },
    ),
    (
        "threshold",
        "attack",
        {
            "attack": {"attacks": 3, "dc": 6, "damage": "d12+2"},
            "target": {"minorThreshold": 5, "majorThreshold": 9, "currentHP": 4},
        },
    ),
]


@pytest.mark.parametrize(("ruleset", "mode", "body"), OTHER_RULESETS)
def test_other_rulesets_over_graphql_and_batch_equal_the_cli(url, ruleset, mode, body):
    """Every member of the typed answer (tests/test_graphql_typed.py asks every example)."""
    envelope = {"ruleset": ruleset, "mode": mode, **body}
    expected = cli(envelope)
    assert "error" not in expected
    assert httpx.post(url + "/v1/batch", json=[envelope]).json() == [expected]
    name = f"{ruleset}{mode[:1].upper()}{mode[1:]}"
    query, input_name = query_of(name)
    given = variables(body, SCHEMA.type_map[input_name])
    answer = graphql(url, query, {"i": given})["data"][name]
    assert answer["canonicalKey"].startswith(f"{ruleset}-")
    typed = {k: v for k, v in answer.items() if k not in ("canonicalKey", "cached")}
    assert as_rest(typed) == without_nulls(expected)
