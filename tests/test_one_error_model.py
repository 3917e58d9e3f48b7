"""One error model through both doors (issue 29): the same bad request gets the same
(code, field) set over REST and over GraphQL, from one table of cases, whether GraphQL finds
the problem coercing a variable or validating the envelope."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from service.app import create_app
from service.settings import Settings

SHOOT = "query($input: Kt2024ShootInput!) { shoot(input: $input) { expectedDamage } }"
FIGHT = (
    "query($input: Kt2024FightInput!) { fight(input: $input) { fighterA { expectedDamageDealt } } }"
)
GRID = """query($a: [Kt2024ShootAttackerInput!]!, $d: [Kt2024ShootDefenderInput!]!) {
  matchupGrid(attackers: $a, defenders: $d) { cachedCells } }"""

# (name, REST path, REST body, GraphQL document, its variables, the (code, field) set)
CASES: list[tuple[str, str, Any, str, dict[str, Any], set[tuple[str, str]]]] = [
    ("three bad fields", "/v1/shoot",
     {"attacker": {"attacks": -1, "hit": 7}, "defender": {"save": 9}},
     SHOOT, {"input": {"attacker": {"attacks": -1, "hit": 7}, "defender": {"save": 9}}},
     {("INVALID_INPUT", "attacker.attacks"), ("INVALID_INPUT", "attacker.hit"),
      ("INVALID_INPUT", "defender.save")}),
    ("a string for a count", "/v1/shoot", {"attacker": {"attacks": "x"}},
     SHOOT, {"input": {"attacker": {"attacks": "x"}}}, {("INVALID_INPUT", "attacker.attacks")}),
    ("two strings", "/v1/shoot", {"attacker": {"attacks": "x", "hit": "y"}},
     SHOOT, {"input": {"attacker": {"attacks": "x", "hit": "y"}}},
     {("INVALID_INPUT", "attacker.attacks"), ("INVALID_INPUT", "attacker.hit")}),
    ("over a limit", "/v1/shoot", {"attacker": {"attacks": 99}},
     SHOOT, {"input": {"attacker": {"attacks": 99}}}, {("LIMIT_EXCEEDED", "attacker.attacks")}),
    ("a fighter's range", "/v1/fight", {"fighterA": {"hit": 9}},
     FIGHT, {"input": {"fighterA": {"hit": 9}}}, {("INVALID_INPUT", "fighterA.hit")}),
    ("a grid cell's type", "/v1/grid",
     {"attackers": [{"attacks": 4}, {"attacks": "x"}], "defenders": [{"save": 3}]},
     GRID, {"a": [{"attacks": 4}, {"attacks": "x"}], "d": [{"save": 3}]},
     {("INVALID_INPUT", "attackers.1.attacks")}),
]  # fmt: skip


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings())) as c:
        yield c


@pytest.mark.parametrize(
    ("path", "body", "document", "variables", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_both_doors_name_the_same_problems(
    client: TestClient,
    path: str,
    body: Any,
    document: str,
    variables: dict[str, Any],
    expected: set[tuple[str, str]],
) -> None:
    rest = client.post(path, json=body)
    assert rest.status_code in (400, 422)
    assert {(e["code"], e["field"]) for e in rest.json()["errors"]} == expected
    graphql = client.post("/graphql", json={"query": document, "variables": variables}).json()
    assert not graphql.get("data")
    found = {(e["extensions"]["code"], e["extensions"]["field"]) for e in graphql["errors"]}
    assert found == expected
    assert all(e["extensions"]["message"] for e in graphql["errors"])


def test_a_document_level_problem_keeps_its_graphql_code(client: TestClient) -> None:
    reply = client.post("/graphql", json={"query": "{ shoot(input: {}) { nope } }"}).json()
    assert [e["extensions"]["code"] for e in reply["errors"]] == ["GRAPHQL_VALIDATION_FAILED"]
