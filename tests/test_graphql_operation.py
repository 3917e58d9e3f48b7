"""GraphQL's GetOperation (spec §6.1): several operations need `operationName` (issue 29)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from service.app import create_app
from service.graphql.operation import MESSAGE
from service.settings import Settings

TWO = "query A { rulesets { name } } query B { engineRevision: rulesets { modes } }"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(graphql_reply_cache_bytes=0))) as c:
        yield c


def test_two_unnamed_operations_are_a_request_error(client: TestClient) -> None:
    posted = client.post("/graphql", json={"query": TWO}).json()
    assert "data" not in posted or posted["data"] is None
    assert [e["message"] for e in posted["errors"]] == [MESSAGE]
    got = client.get(
        "/graphql", params={"query": TWO}, headers={"accept": "application/graphql-response+json"}
    )
    assert got.status_code == 400 and got.json()["errors"][0]["message"] == MESSAGE


def test_a_named_operation_or_a_single_one_runs(client: TestClient) -> None:
    named = client.post("/graphql", json={"query": TWO, "operationName": "B"}).json()
    assert "errors" not in named and "engineRevision" in named["data"]
    single = client.post("/graphql", json={"query": "query A { rulesets { name } }"}).json()
    assert "errors" not in single and single["data"]["rulesets"]
    unknown = client.post("/graphql", json={"query": TWO, "operationName": "C"}).json()
    assert unknown["errors"] and not unknown.get("data")
