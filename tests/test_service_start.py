"""The app's start (issue 20): a new pod serves fights as soon as the fight's loops are
loaded. The older rulesets, the GraphQL schema and the pages are built meanwhile in a thread
of their own (`service.app.start_the_rest`); GraphQL waits for them, REST does not, and the
garbage collector, kept out while starting, is back once they are built.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from service.app import create_app
from service.graphql import routes as routes_graphql
from service.settings import Settings

FIGHT = {"fighterA": {"attacks": 3, "strategy": "MAX_DAMAGE"}, "fighterB": {"wounds": 7}}
QUERY = {"query": "{ rulesets { name } }"}


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """The schema's build, held until the test releases it: (building, release)."""
    building, release = threading.Event(), threading.Event()
    real = routes_graphql.build_schema

    def build_schema(**limits):
        building.set()
        release.wait(60)  # never raise here: a start that fails stops the process
        return real(**limits)

    monkeypatch.setattr(routes_graphql, "build_schema", build_schema)
    yield building, release
    release.set()


def test_rest_answers_while_graphql_is_built_and_graphql_waits_for_it(held) -> None:
    building, release = held
    app = create_app(Settings(redis_url=None, log_level="WARNING", rate_limit=0))
    with TestClient(app) as client:
        assert building.wait(60)
        assert not gc.isenabled()  # still starting
        fight = client.post("/v1/fight", json=FIGHT)
        assert fight.status_code == 200, fight.text
        assert set(fight.json()) >= {"fighterA", "fighterB"}
        assert client.get("/readyz").status_code == 200
        assert not app.state.started.done()

        answers: list = []
        asking = threading.Thread(
            target=lambda: answers.append(client.post("/graphql", json=QUERY))
        )
        asking.start()
        asking.join(0.5)
        assert asking.is_alive() and not answers  # waiting for the schema, not refused
        release.set()
        asking.join(60)
        assert answers and answers[0].status_code == 200, answers
        names = {ruleset["name"] for ruleset in answers[0].json()["data"]["rulesets"]}
        assert {"kt2024", "kt2018", "kt2013", "threshold"} <= names
        assert app.state.started.done() and app.state.started.exception() is None
        assert gc.isenabled()


def test_an_app_run_without_its_lifespan_builds_the_schema_on_first_use() -> None:
    client = TestClient(create_app(Settings(redis_url=None, log_level="WARNING")))
    schema = client.get("/graphql/schema.graphql")
    assert schema.status_code == 200 and "type Query" in schema.text


def test_the_openapi_document_is_built_at_start_with_its_computed_examples(held) -> None:
    building, release = held
    app = create_app(Settings(redis_url=None, log_level="WARNING", rate_limit=0))
    with TestClient(app) as client:
        assert building.wait(60)
        assert getattr(app.state, "openapi", None) is None  # not yet: the start holds it
        release.set()
        document = client.get("/openapi.json")  # waits for the start, then answers its build
        assert document.status_code == 200
        built = app.state.openapi
        assert document.json() == built
        shoot = built["paths"]["/v1/shoot"]["post"]["responses"]["200"]["content"]
        assert "expectedDamageExact" in shoot["application/json"]["example"]  # computed
        assert client.get("/openapi.json").status_code == 200
        assert app.state.openapi is built  # built once


def test_an_app_run_without_its_lifespan_builds_the_openapi_document_on_first_use() -> None:
    client = TestClient(create_app(Settings(redis_url=None, log_level="WARNING")))
    document = client.get("/openapi.json")
    assert document.status_code == 200 and document.json()["openapi"] == "3.1.0"
