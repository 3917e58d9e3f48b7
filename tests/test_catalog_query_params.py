"""REST catalog reads filter by GraphQL's names and refuse what they do not read (issue 29):
`?killTeamId=` once answered every operative, silently."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from service.app import create_app
from service.settings import Settings

QUERY = """query($f: OperativeFilterInput) {
  operatives(filter: $f, first: 100) { totalCount edges { node { id } } } }"""


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings())) as c:
        yield c


def _graphql_ids(client: TestClient, where: dict) -> list[str]:
    reply = client.post("/graphql", json={"query": QUERY, "variables": {"f": where}}).json()
    return [edge["node"]["id"] for edge in reply["data"]["operatives"]["edges"]]


@pytest.mark.parametrize(
    "where", [{"killTeamId": "kasrkin"}, {"nameContains": "gun"}, {"keyword": "leader"}]
)
def test_rest_filters_as_graphql_does(client: TestClient, where: dict) -> None:
    rest = client.get("/v1/operatives", params={**where, "first": 100}).json()
    assert [op["id"] for op in rest["operatives"]] == _graphql_ids(client, where)
    assert rest["totalCount"] < client.get("/v1/operatives").json()["totalCount"]


def test_the_older_names_still_filter_and_must_agree(client: TestClient) -> None:
    old = client.get("/v1/operatives", params={"killTeam": "kasrkin"}).json()
    new = client.get("/v1/operatives", params={"killTeamId": "kasrkin"}).json()
    assert old == new
    both = client.get("/v1/operatives", params={"killTeamId": "kasrkin", "killTeam": "kommandos"})
    assert both.status_code == 400 and both.json()["error"]["field"] == "killTeam"


@pytest.mark.parametrize(
    "url",
    ["/v1/operatives?killTeamID=kasrkin", "/v1/kill-teams?page=2", "/v1/catalog?x=1",
     "/v1/operatives/kasrkin.gunner?fields=id", "/v1/weapon-rules?text=Lethal%205%2B&strict=1"],
)  # fmt: skip
def test_an_unknown_query_parameter_is_400_naming_it(client: TestClient, url: str) -> None:
    refused = client.get(url)
    assert refused.status_code == 400
    unknown = url.split("?")[1].split("&")[-1].split("=")[0]
    assert [(e["code"], e["field"]) for e in refused.json()["errors"]] == [
        ("INVALID_INPUT", unknown)
    ]
