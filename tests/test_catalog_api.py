"""The catalog over HTTP (Starlette TestClient) and GraphQL (CatalogQuery)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import strawberry
from graphql_typed import SCHEMA as TYPES
from graphql_typed import as_rest, selection, without_nulls
from starlette.testclient import TestClient

from schema.catalog import catalog
from schema.importers import import_text
from schema.weapon_rules import parse_rules
from service.app import create_app
from service.graphql.catalog import CatalogQuery
from service.graphql.schema import CONFIG
from service.settings import Settings

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(redis_url=None, log_level="WARNING"))) as c:
        yield c


def test_weapon_rules(client: TestClient) -> None:
    text = '"Range 8", Hot, Lethal 5+, Piercing 1", Poison'
    response = client.get("/v1/weapon-rules", params={"text": text})
    assert response.status_code == 200
    assert response.json() == parse_rules(text).as_json()
    assert response.json()["unknown"] == ["Poison"]


def test_weapon_rules_errors(client: TestClient) -> None:
    missing = client.get("/v1/weapon-rules")
    assert missing.status_code == 400 and missing.json()["error"]["field"] == "text"
    long = client.get("/v1/weapon-rules", params={"text": "Hot, " * 1000})
    assert long.status_code == 422 and long.json()["error"]["limit"] == 2000


def test_kill_teams(client: TestClient) -> None:
    body = client.get("/v1/kill-teams").json()
    assert body["catalogVersion"] == catalog().version
    assert [t["id"] for t in body["killTeams"]] == [t.id for t in catalog().kill_teams]


def test_operatives_paginate_through_the_whole_catalog(client: TestClient) -> None:
    seen, after = [], None
    while True:
        params = {"first": 4} | ({"after": after} if after else {})
        body = client.get("/v1/operatives", params=params).json()
        assert body["totalCount"] == len(catalog().operatives)
        seen += [op["id"] for op in body["operatives"]]
        after = body["pageInfo"]["endCursor"]
        if not body["pageInfo"]["hasNextPage"]:
            break
    assert seen == list(catalog().operatives)


def test_operative_filters(client: TestClient) -> None:
    def ids(**params: str) -> list[str]:
        return [op["id"] for op in client.get("/v1/operatives", params=params).json()["operatives"]]

    assert ids(killTeam="kommandos") == [
        op.id for op in catalog().operatives.values() if op.kill_team_id == "kommandos"
    ]
    assert ids(keyword="sergeant") == [
        "kasrkin.sergeant",
        "angels-of-death.intercessor-sergeant",
        "angels-of-death.assault-intercessor-sergeant",
    ]
    assert ids(name="SNIPA") == ["kommandos.snipa-boy"]
    assert ids(killTeam="nobody") == []


@pytest.mark.parametrize(
    ("params", "status", "field"),
    [
        ({"first": "101"}, 422, "first"),
        ({"first": "0"}, 400, "first"),
        ({"first": "many"}, 400, "first"),
        ({"after": "garbage!"}, 400, "after"),
    ],
)
def test_operative_list_errors(client: TestClient, params: dict, status: int, field: str) -> None:
    response = client.get("/v1/operatives", params=params)
    assert response.status_code == status and response.json()["error"]["field"] == field


def test_one_operative_and_profile(client: TestClient) -> None:
    body = client.get("/v1/operatives/kasrkin.gunner").json()
    assert body == {
        "catalogVersion": catalog().version,
        **catalog().operatives["kasrkin.gunner"].as_json(),
    }
    profile = client.get("/v1/weapon-profiles/kasrkin.gunner.meltagun").json()
    assert profile["fields"]["devastating"] == 4 and profile["type"] == "ranged"
    for path in ("/v1/operatives/kasrkin.nobody", "/v1/weapon-profiles/nope"):
        missing = client.get(path)
        assert missing.status_code == 404 and missing.json()["error"]["field"] == "id"


def test_import_upload(client: TestClient) -> None:
    content = (FIXTURES / "import_battlescribe.cat").read_bytes()
    response = client.post("/v1/import", content=content)
    assert response.status_code == 200
    assert response.json() == import_text(content).as_json()
    forced = client.post("/v1/import", params={"format": "ktdash-json"}, content=content)
    assert forced.status_code == 400 and forced.json()["error"]["field"] == "file"
    bad = client.post("/v1/import", content=b"nonsense")
    assert bad.status_code == 400


def test_referenced_matchup_shares_the_cache_entry(client: TestClient) -> None:
    """Through the service: the inline request after the referenced one is a cache hit."""
    referenced = {
        "attacker": {"weaponProfileId": "kommandos.snipa-boy.scoped-big-shoota.stationary"},
        "defender": {"operativeId": "kasrkin.trooper", "coverSaves": 1},
        "options": {"exact": True},
    }
    inline = {
        "attacker": {
            "attacks": 5,
            "hit": 3,
            "normalDamage": 3,
            "criticalDamage": 3,
            "devastating": 2,
        },
        "defender": {"defenceDice": 3, "save": 4, "wounds": 8, "coverSaves": 1},
        "options": {"exact": True},
    }
    first = client.post("/v1/shoot", json=referenced)
    second = client.post("/v1/shoot", json=inline)
    assert first.json()["canonicalKey"] == second.json()["canonicalKey"]
    assert second.headers["cache-status"] == "killmath-lru; hit"
    assert first.content == second.content
    error = client.post("/v1/shoot", json={"attacker": {"weaponProfileId": "nope"}})
    assert error.status_code == 400
    assert error.json()["error"]["field"] == "attacker.weaponProfileId"


# --------------------------------------------------------------------------- GraphQL

SCHEMA = strawberry.Schema(query=CatalogQuery, config=CONFIG)


def _run(document: str, **variables: object) -> dict:
    result = SCHEMA.execute_sync(document, variable_values=variables)
    assert result.errors is None, result.errors
    assert result.data is not None
    return result.data


def test_graphql_operatives_cursor_pagination() -> None:
    document = """query($after: String) {
      operatives(first: 5, after: $after, filter: {killTeamId: "kommandos"}) {
        totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id wounds } }
      }
    }"""
    ids, after = [], None
    while True:
        page = _run(document, after=after)["operatives"]
        ids += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert ids == [op.id for op in catalog().kill_teams[1].operatives]
    assert page["totalCount"] == len(ids)


def test_graphql_lookups() -> None:
    fields = selection(TYPES.type_map["Kt2024Fields"])
    data = _run(f"""{{
      catalogVersion
      killTeams {{ id operatives {{ id }} }}
      operative(id: "kommandos.boss-nob") {{ name save wounds defender {fields}
        weapons {{ name type profiles {{ id fields {fields} weaponRules }} }} }}
      missing: operative(id: "nope") {{ id }}
      weaponProfile(id: "kommandos.boss-nob.power-klaw") {{ attacks hit normalDamage
        criticalDamage fields {fields} }}
      weaponRules(text: "Cea, Bal, Lethal 7+") {{ fields {fields} unknown
        malformed {{ rule message }} }}
    }}""")
    assert data["missing"] is None
    data = as_rest(data, TYPES.query_type)
    assert data["catalogVersion"] == catalog().version
    assert len(data["killTeams"]) == len(catalog().kill_teams)
    nob = data["operative"]
    assert nob["defender"] == {"defenceDice": 3, "save": 5, "wounds": 14}
    klaw = next(w for w in nob["weapons"] if w["name"] == "Power klaw")["profiles"][0]
    assert klaw["weaponRules"] == "Brutal, Shock" and klaw["fields"]["brutal"] is True
    assert (
        data["weaponProfile"]["fields"]
        == catalog().profiles["kommandos.boss-nob.power-klaw"].attacker_fields()
    )
    rules = data["weaponRules"]
    assert rules["fields"] == {"reroll": "CEASELESS_AND_BALANCED"}
    assert rules["unknown"] == ["Lethal 7+"] and rules["malformed"][0]["rule"] == "Lethal"


def test_graphql_import_and_errors() -> None:
    content = (FIXTURES / "import_ktdash.json").read_text()
    answer = selection(TYPES.query_type.fields["importProfiles"].type)
    data = _run(f"query($c: String!) {{ importProfiles(content: $c) {answer} }}", c=content)
    typed = as_rest(data["importProfiles"], TYPES.query_type.fields["importProfiles"].type)
    assert typed == without_nulls(import_text(content).as_json())
    bad = SCHEMA.execute_sync('{ importProfiles(content: "???") { format } }')
    assert bad.errors and bad.errors[0].extensions["field"] == "file"
    page = SCHEMA.execute_sync("{ operatives(first: 500) { totalCount } }")
    assert page.errors and page.errors[0].extensions["code"] == "LIMIT_EXCEEDED"


def test_catalog_query_is_served_at_graphql(client: TestClient) -> None:
    document = """{ operatives(first: 2, filter: {keyword: "GUNNER"}) {
      totalCount edges { node { id weapons { profiles { id } } } } } }"""
    response = client.post("/graphql", json={"query": document})
    assert response.status_code == 200
    page = response.json()["data"]["operatives"]
    assert page["totalCount"] == 1
    assert page["edges"][0]["node"]["id"] == "kasrkin.gunner"


def test_team_against_team_grid_from_catalog_ids(client: TestClient) -> None:
    """A list builder's grid: every Kasrkin ranged profile against every Kommando, in and out
    of cover; each cell equals the single shoot of the same referenced matchup."""
    cat = catalog()
    attackers = [
        {"weaponProfileId": p.id}
        for op in cat.kill_teams[0].operatives
        for p in op.profiles()
        if p.type == "ranged"
    ]
    defenders = [{"operativeId": op.id} for op in cat.kill_teams[1].operatives]
    situations = [{}, {"defender": {"coverSaves": 1}}]
    body = {
        "attackers": attackers,
        "defenders": defenders,
        "situations": situations,
        "options": {"exact": True},
        "atLeast": [1, 10],
    }
    response = client.post("/v1/grid", json=body)
    assert response.status_code == 200, response.text
    cells = response.json()["cells"]
    assert len(cells) == len(attackers) * len(defenders) * len(situations)
    last = cells[-1]
    single = client.post(
        "/v1/shoot",
        json={
            "attacker": attackers[last["attacker"]],
            "defender": {
                **defenders[last["defender"]],
                **situations[last["situation"]]["defender"],
            },
            "options": {"exact": True},
        },
    ).json()
    assert last["expectedDamageExact"] == single["expectedDamageExact"]
    assert last["killProbabilityExact"] == single["killProbabilityExact"]
