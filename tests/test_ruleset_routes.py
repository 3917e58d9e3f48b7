"""`POST /v1/<ruleset>/<mode>`: one ruleset's mode on a route of its own (issue 29), the same
answer as `/v1/<mode>` with that ruleset, its OpenAPI answer that mode's alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from schema import registry
from service.app import create_app
from service.openapi.document import MODE_EXAMPLES
from service.settings import Settings


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings())) as c:
        yield c


def _envelope(ruleset: str, mode: str) -> dict:
    return {**MODE_EXAMPLES[ruleset, mode], "ruleset": ruleset, "mode": mode}


@pytest.mark.parametrize(
    ("ruleset", "mode"), [(r, m) for r in registry.rulesets() for m in registry.modes(r)]
)
def test_every_mode_answers_on_its_route_as_in_a_batch(
    client: TestClient, ruleset: str, mode: str
) -> None:
    example = MODE_EXAMPLES[ruleset, mode]
    routed = client.post(f"/v1/{ruleset}/{mode}", json=example)
    assert routed.status_code == 200, routed.text
    (line,) = client.post("/v1/batch", json=[_envelope(ruleset, mode)]).json()
    answer = routed.json()
    assert answer.pop("canonicalKey")
    assert answer == line
    said = client.post(f"/v1/{ruleset}/{mode}", json={**example, "ruleset": ruleset})
    assert said.content == routed.content and said.headers["etag"] == routed.headers["etag"]


def test_the_kt2024_routes_are_the_default_routes(client: TestClient) -> None:
    for mode in ("shoot", "fight"):
        body = MODE_EXAMPLES["kt2024", mode]
        routed = client.post(f"/v1/kt2024/{mode}", json=body)
        plain = client.post(f"/v1/{mode}", json=body)
        assert routed.content == plain.content
        assert routed.headers["etag"] == plain.headers["etag"]


def test_another_ruleset_or_mode_is_the_clients_error(client: TestClient) -> None:
    wrong = client.post("/v1/kt2018/nerveTest", json={"ruleset": "kt2024", "leadership": 6})
    assert wrong.status_code == 400
    assert wrong.json()["error"]["field"] == "ruleset"
    for body in ([1, 2], "x", None):
        refused = client.post("/v1/kt2018/nerveTest", json=body)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "INVALID_INPUT"
    assert client.post("/v1/kt2018/nerveTest", content=b"{").status_code == 400
    other = client.post("/v1/kt2018/nerveTest", json={"mode": "breakCheck", "models": 5})
    assert other.status_code == 400
    assert client.post("/v1/kt2018/nope", json={}).status_code == 404


def test_each_route_answers_one_mode_in_the_document(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    fight = document["paths"]["/v1/kt2024/fight"]["post"]
    ok = fight["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/Kt2024FightAnswer"}
    body = fight["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    routed = document["components"]["schemas"][body.rsplit("/", 1)[1]]
    assert "ruleset" not in routed.get("required", [])
