"""`GET /openapi.json`: an OpenAPI 3.1 document generated from the pydantic request models.

Request bodies are the registered modes' models (each mode's `model`), extended with the
envelope members `ruleset` and `mode`; pydantic's JSON Schema (draft 2020-12) is what OpenAPI
3.1 uses, so the models' schemas are copied in unchanged. The document is built once per
process, on first request, after every ruleset has registered. A route module of another
area adds its own operations by exposing `openapi_paths` (OpenAPI path items by path) and
the component schemas they refer to as `openapi_schemas`.
The role objects that may name catalog ids (`schema.references`) document those members too.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic.json_schema import models_json_schema
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from schema import references, registry
from service.auth import document_security
from service.grid import GridRequest
from service.http import JSONResponse

REF = "#/components/schemas/{model}"

ERROR = {
    "type": "object",
    "required": ["error"],
    "additionalProperties": False,
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "field", "message"],
            "additionalProperties": False,
            "properties": {
                "code": {"enum": ["INVALID_INPUT", "LIMIT_EXCEEDED", "TIMEOUT"]},
                "field": {"type": "string", "description": "dotted path, '' for the body"},
                "message": {"type": "string"},
                "limit": {"type": "integer", "description": "the maximum (LIMIT_EXCEEDED)"},
            },
        }
    },
}
RESULT = {
    "type": "object",
    "description": "the output of kt2024.md §10 for the mode, plus canonicalKey and cached",
    "properties": {"canonicalKey": {"type": "string"}, "cached": {"type": "boolean"}},
}


ERROR_STATUSES = {
    "400": "INVALID_INPUT",
    "404": "unknown id (INVALID_INPUT)",
    "413": "body too large (LIMIT_EXCEEDED)",
    "422": "LIMIT_EXCEEDED",
    "503": "TIMEOUT: the time budget was exceeded",
}


def error_responses(*statuses: str) -> dict[str, Any]:
    """Response objects of the error body for the given statuses (default: a computation's)."""
    ref = {"$ref": "#/components/schemas/Error"}
    content = {"application/json": {"schema": ref}}
    return {
        status: {"description": ERROR_STATUSES[status], "content": content}
        for status in statuses or ("400", "413", "422", "503")
    }


def _envelope(mode: registry.Mode, schema: dict[str, Any]) -> dict[str, Any]:
    """The mode's body schema with `ruleset` and `mode` members added."""
    envelope = copy.deepcopy(schema)
    envelope["title"] = f"{mode.ruleset}.{mode.name}"
    properties = envelope.setdefault("properties", {})
    ruleset: dict[str, Any] = {"const": mode.ruleset}
    if mode.ruleset == registry.DEFAULT_RULESET:
        ruleset["default"] = mode.ruleset
    else:
        envelope.setdefault("required", []).append("ruleset")
    properties["ruleset"] = ruleset
    properties["mode"] = {"const": mode.name}
    return envelope


def _add_references(mode: registry.Mode, body: dict[str, Any], schemas: dict[str, Any]) -> None:
    """Document the catalog references a mode's role objects accept (expanded before
    validation, so the pydantic models do not know them)."""
    if mode.ruleset not in references.RULESETS:
        return
    for role, member in body.get("properties", {}).items():
        extra = references.role_members(role)
        if extra and "$ref" in member:
            role_schema = schemas[member["$ref"].rsplit("/", 1)[1]]
            role_schema["properties"].update(
                {name: {"type": "string", "description": text} for name, text in extra.items()}
            )


def _operation(summary: str, body: dict[str, Any], ok: dict[str, Any]) -> dict[str, Any]:
    return {
        "summary": summary,
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
        "responses": {
            "200": {"description": "OK", "content": {"application/json": {"schema": ok}}},
            **error_responses(),
        },
    }


def document(
    extra_paths: dict[str, Any] | None = None, extra_schemas: dict[str, Any] | None = None
) -> dict[str, Any]:
    names = list(registry.rulesets())
    modes = [m for name in names for m in registry.modes(name).values() if m.model is not None]
    models = [*list(dict.fromkeys(m.model for m in modes)), GridRequest]
    keyed, defs = models_json_schema(
        [(model, "validation") for model in models], ref_template=REF, by_alias=True
    )
    schemas: dict[str, Any] = {**(extra_schemas or {}), **defs.get("$defs", {})}
    schemas["Error"] = ERROR
    schemas["Result"] = RESULT
    envelopes: dict[str, list[dict[str, Any]]] = {}
    for mode in modes:
        name = f"Envelope_{mode.ruleset}_{mode.name}"
        body = schemas[keyed[(mode.model, "validation")]["$ref"].rsplit("/", 1)[1]]
        _add_references(mode, body, schemas)
        schemas[name] = _envelope(mode, body)
        envelopes.setdefault(mode.name, []).append({"$ref": f"#/components/schemas/{name}"})
    every = [ref for refs in envelopes.values() for ref in refs]
    result = {"$ref": "#/components/schemas/Result"}
    paths: dict[str, Any] = {}
    for mode_name in ("shoot", "fight"):
        if mode_name in envelopes:
            paths[f"/v1/{mode_name}"] = {
                "post": _operation(f"one {mode_name}", {"anyOf": envelopes[mode_name]}, result)
            }
    paths["/v1/batch"] = {
        "post": _operation(
            "many envelopes, answered in order (a bad one gets its error in place)",
            {"type": "array", "items": {"anyOf": every}},
            {"type": "array", "items": {"type": "object"}},
        )
    }
    paths["/v1/grid"] = {
        "post": _operation(
            "attackers × defenders × situations (Accept: text/csv for CSV)",
            keyed[(GridRequest, "validation")],
            {"type": "object"},
        )
    }
    for path, what in (
        ("/v1/rulesets", "every ruleset with its modes"),
        ("/healthz", "liveness"),
        ("/readyz", "readiness, with the Redis state"),
    ):
        paths[path] = {"get": {"summary": what, "responses": {"200": {"description": "OK"}}}}
    paths.update(extra_paths or {})
    return {
        "openapi": "3.1.0",
        "info": {"title": "killmath", "version": "1", "description": __doc__.splitlines()[0]},
        "paths": paths,
        "components": {"schemas": schemas},
    }


async def openapi(request: Request) -> Response:
    state = request.app.state
    if getattr(state, "openapi", None) is None:
        extra: dict[str, Any] = {}
        schemas: dict[str, Any] = {}
        for module in state.route_modules:
            extra.update(getattr(module, "openapi_paths", {}))
            schemas.update(getattr(module, "openapi_schemas", {}))
        state.openapi = document_security(document(extra, schemas), state.settings)
    return JSONResponse(state.openapi)


routes = [Route("/openapi.json", openapi, methods=["GET"])]
