"""GraphQL `WeaponProfile.versus` and `Operative.versus`: catalog types answer matchups where
they stand, one batch per query level.

The cache's bulk read is counted on the app's own cache object: a nested query of more than
a thousand cells reads the cache once per level that asks `versus`, however many fields ask.
Every cell equals the direct `/v1/shoot` of the same referenced matchup, asked of another app
with a cache of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from schema.catalog import catalog
from service.app import create_app
from service.settings import Settings

CELL = "weaponProfile defender expectedDamage expectedDamageExact killProbability "
CELL += "killProbabilityExact canonicalKey cached"
NESTED = f"""
query($ids: [String!]!) {{
  killTeams {{ operatives {{ id
    open: versus(operativeIds: $ids, options: {{exact: true}}) {{ {CELL} }}
    cover: versus(operativeIds: $ids, situation: {{defender: {{coverSaves: 1}}}},
                  options: {{exact: true}}) {{ {CELL} }}
    twice: versus(operativeIds: $ids, options: {{exact: true, rounds: 2}}) {{ {CELL} }}
  }} }}
}}"""
TWO_LEVELS = f"""
query($ids: [String!]!) {{
  killTeams {{ operatives {{
    versus(operativeIds: $ids) {{ {CELL} }}
    weapons {{ profiles {{ id type versus(operativeIds: $ids) {{ {CELL} }} }} }}
  }} }}
}}"""
SITUATIONS = {
    "open": ({}, {"exact": True}),
    "cover": ({"coverSaves": 1}, {"exact": True}),
    "twice": ({}, {"exact": True, "rounds": 2}),
}


def _client(**settings: object) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(redis_url=None, log_level="WARNING", **settings))) as c:
        yield c


@pytest.fixture
def client() -> Iterator[TestClient]:
    yield from _client()


@pytest.fixture(scope="module")
def reference() -> Iterator[TestClient]:
    yield from _client()


class Reads:
    """Counts the cache's bulk reads and the distinct keys each asked for."""

    def __init__(self, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
        cache = client.app.state.computer.cache
        self.calls: list[int] = []
        original = cache.get_many

        async def counted(keys, fits):
            self.calls.append(len(keys))
            return await original(keys, fits)

        monkeypatch.setattr(cache, "get_many", counted)


def _query(client: TestClient, document: str, ids: list[str]) -> dict:
    response = client.post("/graphql", json={"query": document, "variables": {"ids": ids}})
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body["errors"]
    return body["data"]


def test_a_thousand_nested_cells_cost_one_cache_round_trip(
    client: TestClient, reference: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    cat = catalog()
    ids = list(cat.operatives)
    reads = Reads(client, monkeypatch)
    data = _query(client, NESTED, ids)
    operatives = [op for team in data["killTeams"] for op in team["operatives"]]
    cells = [(alias, op["id"], c) for op in operatives for alias in SITUATIONS for c in op[alias]]
    ranged = sum(p.type == "ranged" for p in cat.profiles.values())
    assert len(cells) == ranged * len(ids) * len(SITUATIONS) >= 1000
    distinct = len({c["canonicalKey"] for _, _, c in cells})  # equal statlines share one
    assert reads.calls == [distinct]
    for alias, op_id, cell in cells:
        profile = cat.profiles[cell["weaponProfile"]]
        assert profile.operative_id == op_id and profile.type == "ranged"
        defender, options = SITUATIONS[alias]
        single = reference.post(
            "/v1/shoot",
            json={"attacker": {"operativeId": op_id, "weaponProfileId": profile.id},
                  "defender": {"operativeId": cell["defender"], **defender}, "options": options},
        ).json()  # fmt: skip
        assert cell["canonicalKey"] == single["canonicalKey"]
        assert cell["expectedDamageExact"] == single["expectedDamageExact"]
        assert cell["killProbabilityExact"] == single["killProbabilityExact"]
        assert cell["killProbability"] == single["killProbability"]
    assert not any(c["cached"] for _, _, c in cells)
    again = _query(client, NESTED, ids)
    assert reads.calls == [distinct, distinct]
    assert all(c["cached"] for t in again["killTeams"] for op in t["operatives"]
               for alias in SITUATIONS for c in op[alias])  # fmt: skip


def test_one_round_trip_per_level_and_shared_cells(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Operative.versus and, a level deeper, WeaponProfile.versus in other situations: one
    read per level. Asked in the same situation, the deeper level's cells are the first's,
    and the request's loader answers them without reading again."""
    ids = ["kommandos.boy", "kasrkin.trooper"]
    reads = Reads(client, monkeypatch)
    data = _query(client, TWO_LEVELS, ids)
    assert len(reads.calls) == 1
    for team in data["killTeams"]:
        for op in team["operatives"]:
            profiles = [p for w in op["weapons"] for p in w["profiles"]]
            deeper = [c for p in profiles for c in p["versus"]]
            assert deeper == op["versus"]
            assert all(p["versus"] == [] for p in profiles if p["type"] == "melee")
    other = TWO_LEVELS.replace(
        "id type versus(operativeIds: $ids)",
        "id type versus(operativeIds: $ids, options: {rounds: 2})",
    )
    assert other != TWO_LEVELS
    _query(client, other, ids)
    assert len(reads.calls) == 3


def test_versus_errors_name_the_field() -> None:
    for client in _client(max_grid_cells=10):
        response = client.post(
            "/graphql", json={"query": NESTED, "variables": {"ids": ["kommandos.boy"]}}
        )
        errors = response.json()["errors"]
        assert {e["extensions"]["code"] for e in errors} == {"LIMIT_EXCEEDED"}
        assert {e["extensions"]["field"] for e in errors} == {"operativeIds"}
    for client in _client():
        document = (
            '{ operative(id: "kasrkin.gunner") { versus(operativeIds: ["nobody"]) { defender } } }'
        )
        (error,) = client.post("/graphql", json={"query": document}).json()["errors"]
        assert error["extensions"]["code"] == "INVALID_INPUT"
        assert error["extensions"]["field"] == "defender.operativeId"


def test_a_null_situation_or_options_member_is_absent(reference: TestClient) -> None:
    """`schema.fields.given`: null stands for the member's default, as if left out."""

    def versus(arguments: str) -> Any:
        document = (
            '{ operative(id: "kasrkin.gunner") { versus(operativeIds: ["kommandos.boy"]'
            + arguments
            + ") { killProbability canonicalKey } } }"
        )
        answer = reference.post("/graphql", json={"query": document}).json()
        assert "errors" not in answer, answer
        return answer["data"]["operative"]["versus"]

    plain = versus("")
    assert versus(", situation: {defender: null, options: null}, options: {rounds: null}") == plain
