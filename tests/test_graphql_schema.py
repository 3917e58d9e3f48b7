"""The published GraphQL schema: `schema.graphql` is what the code prints, everywhere.

The committed file, `killmath graphql-schema`, `strawberry export-schema service.graphql.schema:schema`
and `GET /graphql/schema.graphql` (introspection off, and API keys on: the schema is public
like /openapi.json) all give the same SDL. When this fails after a change to the schema, run
`killmath graphql-schema schema.graphql` and list the change in CHANGELOG.md.
"""

from __future__ import annotations

import subprocess
import sys

import httpx
from graphql import build_schema as parse_sdl
from service_harness import REPO, serving

from service.graphql.schema import sdl

PUBLISHED = REPO / "schema.graphql"


def test_the_committed_schema_is_what_the_code_prints():
    assert PUBLISHED.read_text(encoding="utf-8") == sdl(), (
        "schema.graphql drifted from the code: run `killmath graphql-schema schema.graphql`"
    )
    parse_sdl(sdl())  # valid SDL that graphql-core builds a schema from


def test_the_command_and_strawberry_print_it():
    printed = subprocess.run(
        [sys.executable, "-m", "service.cli", "graphql-schema"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert printed == PUBLISHED.read_text(encoding="utf-8")
    exported = subprocess.run(
        [sys.executable, "-m", "strawberry", "export-schema", "service.graphql.schema:schema"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert exported == printed


def test_the_server_serves_it_without_introspection_and_without_a_key():
    with serving(graphql_introspection="false", api_keys="sekrit-key-0123456789") as server:
        response = httpx.get(server.url + "/graphql/schema.graphql")
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/plain; charset=utf-8"
        assert response.text == PUBLISHED.read_text(encoding="utf-8")
        introspection = httpx.post(
            server.url + "/graphql",
            json={"query": "{ __schema { types { name } } }"},
            headers={"authorization": "Bearer sekrit-key-0123456789"},
        )
        assert "data" not in introspection.json()
        assert "introspection" in introspection.json()["errors"][0]["message"]
