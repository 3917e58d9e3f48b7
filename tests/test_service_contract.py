"""The REST contract integrators generate clients from (issue 15): `/openapi.json` is valid
OpenAPI 3.1 (openapi-spec-validator), every operation is named, tagged and exemplified, every
answer is held to its typed response schema, and every refusal names all of its problems.

In process (Starlette's TestClient): the document and the answers are the app's own; the
generated-client test (`test_generated_client.py`) and the fuzz test use a real server.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator
from pydantic import ValidationError
from service_errors import ErrorShape
from starlette.testclient import TestClient

from schema import registry
from schema.answers.base import answer_model
from service.app import create_app
from service.openapi.document import VERSION
from service.settings import Settings

# one envelope per registered mode (kt2013 twice: its model and vehicle answers differ)
ENVELOPES: list[dict[str, Any]] = [
    {"mode": "shoot", "attacker": {"attacks": 4, "lethal": 5}, "options": {"exact": True}},
    {"mode": "fight", "fighterA": {"attacks": 3}, "fighterB": {"wounds": 6}},
    {
        "ruleset": "kt2018",
        "mode": "shooting",
        "attacker": {"ballisticSkill": 3},
        "weapons": [{"type": "rapidFire", "attacks": 1, "strength": 4}],
        "target": {"toughness": 3, "save": 5, "wounds": 1},
        "options": {"exact": True},
    },
    {
        "ruleset": "kt2018",
        "mode": "fight",
        "attacker": {"weaponSkill": 3},
        "weapons": [{"attacks": 2, "strength": 4}],
        "target": {"toughness": 4, "save": 4, "wounds": 2},
    },
    {
        "ruleset": "kt2018",
        "mode": "psybolt",
        "psyker": {"wounds": 2},
        "target": {"wounds": 1},
        "options": {"exact": True},
    },
    {
        "ruleset": "kt2018",
        "mode": "mortalWounds",
        "amount": "D3",
        "source": "psychic",
        "target": {"wounds": 2},
    },
    {"ruleset": "kt2018", "mode": "nerveTest", "leadership": 7},
    {
        "ruleset": "kt2018",
        "mode": "breakCheck",
        "models": 5,
        "modelsDown": 3,
        "highestLeadership": 7,
    },
    {
        "ruleset": "kt2013",
        "mode": "shooting",
        "attacker": {"ballisticSkill": 4},
        "weapon": {"attacks": 2, "strength": 4, "ap": 5},
        "target": {"toughness": 4, "save": 3, "wounds": 1},
        "options": {"exact": True},
    },
    {
        "ruleset": "kt2013",
        "mode": "fight",
        "attacker": {"weaponSkill": 4},
        "weapon": {"attacks": 3, "strength": 6},
        "target": {"vehicle": True, "armourValue": 10, "hullPoints": 2, "meleeHitOn": 4},
    },
    {
        "ruleset": "threshold",
        "mode": "attack",
        "attack": {"attacks": 3, "dc": 6, "damage": "d12+2"},
        "target": {
            "minorThreshold": 5,
            "majorThreshold": 9,
            "currentHP": 4,
            "hpPerModel": 2,
            "startingModels": 2,
        },
        "options": {"exact": True},
    },
    {
        "ruleset": "threshold",
        "mode": "deadlyDemise",
        "x": 2,
        "units": [{"name": "A", "minorThreshold": 8, "majorThreshold": 12, "currentHP": 6}],
    },
    {
        "ruleset": "threshold",
        "mode": "heal",
        "startingModels": 3,
        "hpPerModel": 2,
        "currentHP": 3,
        "amount": "d6",
    },
]


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(redis_url=None, log_level="WARNING"))) as c:
        yield c


@pytest.fixture(scope="module")
def document(client: TestClient) -> dict[str, Any]:
    return client.get("/openapi.json").json()


def validator(document: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Validator:
    """A JSON Schema validator of `schema`, its `$ref`s resolved inside the document."""
    return jsonschema.Draft202012Validator({**schema, "components": document["components"]})


def problems(document: dict[str, Any], schema: dict[str, Any], value: Any) -> list[str]:
    return [error.message for error in validator(document, schema).iter_errors(value)]


def ok_schema(document: dict[str, Any], path: str, method: str = "post") -> dict[str, Any]:
    responses = document["paths"][path][method]["responses"]
    return responses["200"]["content"]["application/json"]["schema"]


def test_the_document_passes_openapi_spec_validator(document: dict[str, Any]) -> None:
    errors = [
        f"{list(e.path)}: {e.message}" for e in OpenAPIV31SpecValidator(document).iter_errors()
    ]
    assert not errors, errors[:10]
    assert document["info"]["version"] == VERSION


def test_every_operation_is_named_tagged_and_exemplified(document: dict[str, Any]) -> None:
    """operationIds are unique; each example (request and answer) is valid by its schema."""
    ids = []
    tags = {tag["name"] for tag in document["tags"]}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            where = f"{method.upper()} {path}"
            ids.append(operation["operationId"])
            assert operation["tags"] and set(operation["tags"]) <= tags, where
            ok = operation["responses"]["200"]["content"]["application/json"]
            assert "example" in ok, where
            assert not problems(document, ok["schema"], ok["example"]), where
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is not None:
                assert "example" in body, where
                assert not problems(document, body["schema"], body["example"]), where
    assert len(ids) == len(set(ids)), ids
    assert {"shoot", "fight", "batch", "grid", "getOperative", "listOperatives"} <= set(ids)


def test_no_answer_is_untyped(document: dict[str, Any]) -> None:
    """Every 200 answer is a declared schema: no bare `{"type": "object"}` left."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
            assert schema != {"type": "object"}, f"{method} {path}"
            assert schema.get("items") != {"type": "object"}, f"{method} {path}"


def test_every_mode_has_a_typed_answer() -> None:
    for ruleset in registry.rulesets():
        for mode in registry.modes(ruleset).values():
            assert mode.results, (ruleset, mode.name)


@pytest.mark.parametrize(
    "envelope", ENVELOPES, ids=lambda e: f"{e.get('ruleset', 'kt2024')}.{e['mode']}"
)
def test_batch_lines_are_their_modes_results(
    client: TestClient, document: dict[str, Any], envelope: dict[str, Any]
) -> None:
    """A batch line is valid by the batch schema and by exactly one of its mode's results,
    whose model rendered it (closed: no member the model does not declare)."""
    (line,) = client.post("/v1/batch", json=[envelope]).json()
    assert "error" not in line, line
    schema = ok_schema(document, "/v1/batch")
    assert not problems(document, schema, [line])
    handler, _ = registry.resolve(envelope)
    matching = [r for r in handler.results if not problems(document, {"$ref": ref(r)}, line)]
    assert len(matching) == 1, line
    assert matching[0].model_validate(line).as_json() == line


def ref(model: type) -> str:
    return f"#/components/schemas/{model.__name__}"


@pytest.mark.parametrize("envelope", [e for e in ENVELOPES if e["mode"] in ("shoot", "fight")])
def test_shoot_and_fight_answers_are_typed(
    client: TestClient, document: dict[str, Any], envelope: dict[str, Any]
) -> None:
    mode = envelope["mode"]
    answer = client.post(f"/v1/{mode}", json=envelope).json()
    assert not problems(document, ok_schema(document, f"/v1/{mode}"), answer)
    handler, scenario = registry.resolve(envelope)
    assert answer["canonicalKey"] == handler.cache_key(scenario)
    typed = []
    for result in handler.results:
        with contextlib.suppress(ValidationError):
            typed.append(answer_model(result).model_validate(answer))
    assert len(typed) == 1
    assert typed[0].canonical_key == answer["canonicalKey"]


def test_grid_catalog_and_operations_answers_are_typed(
    client: TestClient, document: dict[str, Any]
) -> None:
    grid = {
        "attackers": [{"attacks": 4}, {"weaponProfileId": "kasrkin.gunner.meltagun"}],
        "defenders": [{"operativeId": "kommandos.boy"}],
        "options": {"exact": True},
    }
    reads = [
        ("post", "/v1/grid", "/v1/grid", grid),
        ("get", "/v1/kill-teams", "/v1/kill-teams", None),
        ("get", "/v1/operatives?first=2", "/v1/operatives", None),
        ("get", "/v1/operatives/kasrkin.gunner", "/v1/operatives/{id}", None),
        ("get", "/v1/weapon-profiles/kasrkin.gunner.meltagun", "/v1/weapon-profiles/{id}", None),
        (
            "get",
            "/v1/weapon-rules?text=Lethal%205%2B%2C%20Hot%2C%20Nonsense",
            "/v1/weapon-rules",
            None,
        ),
        ("get", "/v1/rulesets", "/v1/rulesets", None),
        ("get", "/healthz", "/healthz", None),
        ("get", "/readyz", "/readyz", None),
    ]
    for method, url, path, body in reads:
        response = client.request(method, url, json=body)
        assert response.status_code == 200, (url, response.text)
        assert not problems(document, ok_schema(document, path, method), response.json()), url


# --- errors ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def errors(document: dict[str, Any]) -> ErrorShape:
    return ErrorShape(document)


def test_every_field_error_is_reported(client: TestClient, errors: ErrorShape) -> None:
    body = {
        "attacker": {"attacks": 99, "hit": 9, "colour": "red"},
        "defender": {"save": "3+"},
        "options": {"rounds": 0},
    }
    response = client.post("/v1/shoot", json=body)
    assert response.status_code == 422  # the first error is a limit: it sets the status
    answer = response.json()
    assert not errors.body_problems(answer)
    assert answer["error"] == {
        "code": "LIMIT_EXCEEDED",
        "field": "attacker.attacks",
        "message": "must be at most 20",
        "limit": 20,
    }
    assert [(e["code"], e["field"]) for e in answer["errors"]] == [
        ("LIMIT_EXCEEDED", "attacker.attacks"),
        ("INVALID_INPUT", "attacker.hit"),
        ("INVALID_INPUT", "attacker.colour"),
        ("INVALID_INPUT", "defender.save"),
        ("INVALID_INPUT", "options.rounds"),
    ]


def test_one_error_is_also_listed(client: TestClient, errors: ErrorShape) -> None:
    answer = client.post("/v1/shoot", json={"attacker": {"hit": 1}}).json()
    assert not errors.body_problems(answer)
    assert answer["errors"] == [answer["error"]]


def test_grid_errors_name_every_bad_profile_once(client: TestClient, errors: ErrorShape) -> None:
    """Each bad member is re-pointed at the profile it came from, and reported once however
    many cells meet it."""
    grid = {
        "attackers": [{"attacks": 4}, {"hit": 7}, {"lethal": 1}],
        "defenders": [{"save": 3}, {"save": 9}],
    }
    answer = client.post("/v1/grid", json=grid).json()
    assert not errors.body_problems(answer)
    assert [e["field"] for e in answer["errors"]] == [
        "defenders.1.save",
        "attackers.1.hit",
        "attackers.2.lethal",
    ]


def test_batch_lines_carry_every_error(client: TestClient, errors: ErrorShape) -> None:
    lines = client.post(
        "/v1/batch", json=[{"mode": "shoot", "attacker": {"hit": 1, "attacks": 21}}]
    ).json()
    assert not errors.body_problems(lines[0])
    assert [e["field"] for e in lines[0]["errors"]] == ["attacker.attacks", "attacker.hit"]


@pytest.mark.parametrize(
    ("method", "path", "status", "code", "field"),
    [
        ("get", "/v1/nothing-here", 404, "NOT_FOUND", ""),
        ("get", "/v1/operatives/kasrkin.nobody", 404, "NOT_FOUND", "id"),
        ("get", "/v1/weapon-profiles/nope", 404, "NOT_FOUND", "id"),
        ("get", "/v1/shoot", 405, "METHOD_NOT_ALLOWED", ""),
        ("delete", "/v1/operatives/kasrkin.gunner", 405, "METHOD_NOT_ALLOWED", ""),
    ],
)
def test_not_found_and_method_not_allowed(
    client: TestClient,
    errors: ErrorShape,
    method: str,
    path: str,
    status: int,
    code: str,
    field: str,
) -> None:
    response = client.request(method, path)
    assert response.status_code == status
    answer = response.json()
    assert not errors.body_problems(answer)
    assert (answer["error"]["code"], answer["error"]["field"]) == (code, field)
    if status == 405:
        assert response.headers["allow"]


def test_documented_error_statuses_are_the_errors_sent(document: dict[str, Any]) -> None:
    """Catalog lookups declare their 404, computations their 405 and limits."""
    by_id = document["paths"]["/v1/operatives/{id}"]["get"]["responses"]
    assert "404" in by_id
    shoot = document["paths"]["/v1/shoot"]["post"]["responses"]
    assert {"400", "405", "413", "422", "503"} <= shoot.keys()
    enum = document["components"]["schemas"]["FieldError"]["properties"]["code"]["enum"]
    assert {"NOT_FOUND", "METHOD_NOT_ALLOWED"} <= set(enum)


# the headers the HTTP layer sets around an answer (declared by service.openapi.http and
# service.auth.document_security)
LAYER_HEADERS = {
    "etag",
    "cache-control",
    "cache-status",
    "preference-applied",
    "ratelimit",
    "ratelimit-policy",
    "retry-after",
    "killmath-engine-revision",
}
API_KEY = "k" * 32


def _example_request(path: str, operation: dict[str, Any]) -> dict[str, Any]:
    """The operation's own example request: path and query parameters, JSON body."""
    query = {}
    for parameter in operation.get("parameters", []):
        if "example" in parameter and parameter["in"] == "path":
            path = path.replace("{" + parameter["name"] + "}", parameter["example"])
        elif "example" in parameter and parameter["in"] == "query":
            query[parameter["name"]] = parameter["example"]
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    return {"url": path, "params": query, "json": body.get("example")}


def _held_to(response: Any, declared: dict[str, Any], where: str) -> None:
    """Every required declared header is sent, and every layer header sent is declared."""
    names = {name.lower(): spec for name, spec in declared.items()}
    missing = [n for n, spec in names.items() if spec.get("required") and n not in response.headers]
    assert not missing, f"{where}: declared, not sent: {missing}"
    undeclared = [n for n in LAYER_HEADERS if n in response.headers and n not in names]
    assert not undeclared, f"{where}: sent, not declared: {undeclared}"
    for name, spec in names.items():
        if name in response.headers:
            value = response.headers[name]
            integer = spec["schema"].get("type") == "integer"
            jsonschema.validate(int(value) if integer else value, spec["schema"])


def test_the_http_layer_is_declared_on_every_operation() -> None:
    """Each operation's example request, with a key and a rate limit: the 200's headers are
    the declared ones; an operation answers 304 to its ETag exactly when it declares 304
    (with `If-None-Match`), with the declared headers; `Prefer: return=minimal` is honoured
    exactly where it is declared."""
    settings = Settings(redis_url=None, log_level="WARNING", api_keys=[API_KEY], rate_limit=50)
    auth = {"authorization": f"Bearer {API_KEY}"}
    with TestClient(create_app(settings), headers=auth) as client:
        described = client.get("/openapi.json").json()
        OpenAPIV31SpecValidator(described).validate()
        for path, item in described["paths"].items():
            for method, operation in item.items():
                if operation["operationId"] == "importProfiles":
                    continue  # not conditional, and its example is a file upload's
                where = f"{method.upper()} {path}"
                request = _example_request(path, operation)
                response = client.request(method.upper(), **request)
                assert response.status_code == 200, (where, response.text[:300])
                responses = operation["responses"]
                _held_to(response, responses["200"].get("headers", {}), where)
                parameters = {p["name"] for p in operation.get("parameters", [])}
                assert ("304" in responses) == ("etag" in response.headers), where
                assert ("304" in responses) == ("If-None-Match" in parameters), where
                if "304" in responses:
                    again = {"if-none-match": response.headers["etag"]}
                    cached = client.request(method.upper(), **request, headers=again)
                    assert cached.status_code == 304 and not cached.content, where
                    _held_to(cached, responses["304"]["headers"], f"{where} 304")
                minimal = client.request(
                    method.upper(), **request, headers={"prefer": "return=minimal"}
                )
                applied = minimal.headers.get("preference-applied") == "return=minimal"
                assert applied == ("Prefer" in parameters), where


def test_refusals_carry_the_declared_headers() -> None:
    """A 400 and a 429 of a keyed, rate-limited server, held to their declared headers."""
    settings = Settings(
        redis_url=None, log_level="WARNING", api_keys=[API_KEY], rate_limit=1, rate_limit_burst=2
    )
    auth = {"authorization": f"Bearer {API_KEY}"}
    with TestClient(create_app(settings), headers=auth) as client:
        responses = client.get("/openapi.json").json()["paths"]["/v1/shoot"]["post"]["responses"]
        bad = client.post("/v1/shoot", content=b"not json")
        assert bad.status_code == 400
        _held_to(bad, responses["400"]["headers"], "400")
        fight = {"fighterA": {"attacks": 3}, "fighterB": {"wounds": 6}}
        limited = client.post("/v1/fight", json=fight)  # a fight costs more than the burst
        assert limited.status_code == 429, limited.text
        _held_to(limited, responses["429"]["headers"], "429")
