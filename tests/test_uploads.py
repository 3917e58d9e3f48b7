"""Uploads: `/v1/import` and GraphQL `importProfiles` take files the importer takes, above the
general body limit, under a limit of their own; nothing else gets past the general limit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from graphql_typed import SCHEMA as TYPES
from graphql_typed import as_rest, selection, without_nulls
from starlette.testclient import TestClient

from schema.importers import MAX_BYTES, import_text
from service.app import create_app
from service.settings import Settings

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GENERAL = 1_048_576
IMPORT_TYPE = TYPES.query_type.fields["importProfiles"].type
IMPORT_QUERY = (
    "query($content: String!) { importProfiles(content: $content) " + selection(IMPORT_TYPE) + " }"
)


def big_ktdash(size: int) -> bytes:
    """Our ktdash fixture with its operatives repeated (renamed) until the file passes
    `size` bytes, as real 1.5–3.8 MB exports do."""
    team = json.loads((FIXTURES / "import_ktdash.json").read_text())
    originals = team["opTypes"]
    copies, n = [], 0
    while len(json.dumps({**team, "opTypes": copies})) <= size:
        n += 1
        copies += [{**op, "opTypeName": f"{op['opTypeName']} {n}"} for op in originals]
    return json.dumps({**team, "opTypes": copies}).encode()


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    settings = Settings(redis_url=None, log_level="WARNING", max_body_bytes=GENERAL)
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture(scope="module")
def upload() -> bytes:
    content = big_ktdash(3 * GENERAL)
    assert GENERAL * 3 < len(content) < MAX_BYTES
    return content


def test_rest_import_above_the_general_limit(client: TestClient, upload: bytes) -> None:
    response = client.post("/v1/import", content=upload)
    assert response.status_code == 200, response.text[:300]
    assert response.json() == import_text(upload).as_json()
    assert len(response.json()["operatives"]) > 100


def test_graphql_import_above_the_general_limit(client: TestClient, upload: bytes) -> None:
    body = {"query": IMPORT_QUERY, "variables": {"content": upload.decode()}}
    response = client.post("/graphql", json=body)
    assert response.status_code == 200, response.text[:300]
    typed = as_rest(response.json()["data"]["importProfiles"], IMPORT_TYPE)
    assert typed == without_nulls(import_text(upload).as_json())


def _refused(response, limit: int) -> None:
    assert response.status_code == 413, response.text[:300]
    body = response.json()
    # REST's error body, or on /graphql the same members as a GraphQL error's extensions
    error = (
        body["errors"][0]["extensions"]
        if "data" not in body and "error" not in body
        else body["error"]
    )
    assert (error["code"], error["limit"]) == ("LIMIT_EXCEEDED", limit)


def test_everything_else_keeps_the_general_limit(client: TestClient, upload: bytes) -> None:
    padding = upload.decode()
    _refused(client.post("/v1/shoot", json={"attacker": {}, "pad": padding}), GENERAL)
    _refused(client.post("/v1/grid", content=upload), GENERAL)
    shoot = "query($p: String) { rulesets { name } }"
    _refused(client.post("/graphql", json={"query": shoot, "variables": {"p": padding}}), GENERAL)
    both = "query($c: String!) { importProfiles(content: $c) { format } rulesets { name } }"
    _refused(client.post("/graphql", json={"query": both, "variables": {"c": padding}}), GENERAL)
    named = "query A($c: String!) { importProfiles(content: $c) { format } } query B { rulesets { name } }"
    body = {"query": named, "operationName": "B", "variables": {"c": padding}}
    _refused(client.post("/graphql", json=body), GENERAL)
    body = {**body, "operationName": "A"}
    assert client.post("/graphql", json=body).status_code == 200
    long_document = "{ importProfiles(content: " + json.dumps(padding) + ") { format } }"
    _refused(client.post("/graphql", json={"query": long_document}), GENERAL)
    json_type = {"content-type": "application/json"}
    _refused(client.post("/graphql", content=b"[" + upload + b"]", headers=json_type), GENERAL)


def test_uploads_have_a_limit_of_their_own(upload: bytes) -> None:
    limit = 2 * GENERAL
    settings = Settings(redis_url=None, log_level="WARNING", max_import_bytes=limit)
    with TestClient(create_app(settings)) as client:
        _refused(client.post("/v1/import", content=upload), limit)
        body = {"query": IMPORT_QUERY, "variables": {"content": upload.decode()}}
        _refused(client.post("/graphql", json=body), limit)
        small = big_ktdash(GENERAL + 1000)
        assert client.post("/v1/import", content=small).status_code == 200


def test_a_game_system_uploaded_as_files_resolves_links_across_them(client: TestClient) -> None:
    """Our BattleScribe game system fixture (a .gst and two .cat files linking into each
    other) as multipart/form-data answers what `killmath import <directory>` prints."""
    from schema.importers import import_path

    system = FIXTURES / "battlescribe_system"
    paths = sorted(p for p in system.iterdir() if p.suffix in (".gst", ".cat"))
    ktdash = FIXTURES / "import_ktdash.json"
    files = [("files", (p.name, p.read_bytes())) for p in [*paths, ktdash]]
    response = client.post("/v1/import", files=files)
    assert response.status_code == 200, response.text[:300]
    sources = response.json()["sources"]
    (directory,) = import_path(system)
    (alone,) = import_path(ktdash)
    assert [s.pop("source") for s in sources] == [ktdash.name, ", ".join(p.name for p in paths)]
    assert sources == [alone.as_json(), directory.as_json()]
    empty = client.post("/v1/import", data={"note": "no file"}, files=[])
    assert empty.status_code == 400
    assert empty.json()["error"]["field"] == "file"
