"""`GET /openapi.json`: an OpenAPI 3.1 document generated from the pydantic models.

Request bodies are the registered modes' request models (each mode's `model`), extended with
the envelope members `ruleset` and `mode`; answers are the answer models of `schema.answers`
(each mode's `results`, the grid's, the catalog's, the error body), the same models every
answer is rendered through, so the document cannot describe a shape the service does not
send. pydantic's JSON Schema (draft 2020-12) is what OpenAPI 3.1 uses, so the models' schemas
are copied in unchanged: request models in validation mode, answers in serialization mode.

Every operation has an `operationId`, tags, and a request and answer example; the examples
of the computations are computed by the engines when the document is built (once per app, at
its start: `startup`), so they are real answers. A route module of another area adds its own
operations by exposing `openapi_paths(components)`, which returns OpenAPI path items and asks
`components.ref(model)` for the schema of each model it answers with. The role objects that
may name catalog ids (`schema.references`) document those members too.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engine import REVISION
from engine.errors import InputError
from schema import references, registry
from schema.answers.base import answer_model
from schema.answers.errors import Error
from schema.answers.grid import GridAnswer
from schema.answers.operations import Health, Readiness, Rulesets
from schema.errors import error_body
from schema.fields import ROLE
from schema.grid import GridRequest
from service import grid as grids
from service.auth import document_security
from service.http import JSONResponse, started
from service.openapi.http import declare_conditional, declare_revision, mode_operation

VERSION = "3.0.0"
"""The API's version: its major part changes with every shape change (CHANGELOG.md)."""

REF = "#/components/schemas/{model}"
Mode = Literal["validation", "serialization"]

TAGS = [
    {"name": "matchups", "description": "exact answers of one or many matchups"},
    {"name": "catalog", "description": "kill teams, operatives, weapon profiles, imports"},
    {"name": "operations", "description": "liveness, readiness, the ruleset list"},
]

ERROR_STATUSES = {
    "400": "INVALID_INPUT: a member of the wrong type or outside its rule range, bad JSON",
    "404": "NOT_FOUND: no such path or catalog id",
    "405": "METHOD_NOT_ALLOWED (the `Allow` header lists the methods)",
    "413": "LIMIT_EXCEEDED: the body is over the size limit",
    "422": "LIMIT_EXCEEDED: a count above its tractability limit (with `limit`)",
    "503": "TIMEOUT: the time budget was exceeded",
}
COMPUTATION_ERRORS = ("400", "405", "413", "422", "503")

SHOOT_EXAMPLE = {
    "attacker": {"attacks": 4, "hit": 3, "normalDamage": 3, "criticalDamage": 4, "lethal": 5},
    "defender": {"save": 3, "wounds": 8},
    "options": {"exact": True},
}
FIGHT_EXAMPLE = {
    "fighterA": {"attacks": 4, "hit": 3, "wounds": 10, "strategy": "OPTIMAL"},
    "fighterB": {"attacks": 3, "hit": 4, "wounds": 8},
}
BATCH_EXAMPLE = [
    {"mode": "shoot", "attacker": {"attacks": 5, "piercing": 1}},
    {"ruleset": "kt2018", "mode": "nerveTest", "leadership": 7, "modifier": 1},
    {"mode": "shoot", "attacker": {"eliteModerate": True, "eliteExtreme": True}},
]
MODE_EXAMPLES: dict[tuple[str, str], dict[str, Any]] = {
    ("kt2024", "shoot"): SHOOT_EXAMPLE,
    ("kt2024", "fight"): FIGHT_EXAMPLE,
    ("threshold", "attack"): {
        "attack": {"skillBonus": 2, "dc": 7, "damage": "2d12"},
        "target": {"minorThreshold": 8, "majorThreshold": 14, "currentHP": 5},
    },
    ("threshold", "deadlyDemise"): {
        "x": 1, "units": [{"minorThreshold": 4, "majorThreshold": 6, "currentHP": 3}],
    },
    ("threshold", "heal"): {
        "startingModels": 3, "hpPerModel": 2, "currentHP": 3, "amount": "d6",
        "canReturnModels": False,
    },
    ("kt2013", "shooting"): {
        "attacker": {"ballisticSkill": 4}, "weapon": {"attacks": 2, "strength": 4, "ap": 5},
        "target": {"toughness": 3, "save": 5, "wounds": 1},
    },
    ("kt2013", "fight"): {
        "attacker": {"weaponSkill": 4}, "weapon": {"attacks": 3, "strength": 3, "fleshbane": True},
        "target": {"toughness": 5, "weaponSkill": 4, "save": 4, "wounds": 2},
    },
    ("kt2018", "shooting"): {
        "attacker": {"ballisticSkill": 3},
        "weapons": [{"type": "rapidFire", "attacks": 1, "strength": 4, "ap": 0, "damage": 1}],
        "target": {"toughness": 3, "save": 5, "wounds": 1},
    },
    ("kt2018", "fight"): {
        "attacker": {"weaponSkill": 3},
        "weapons": [{"type": "melee", "attacks": 2, "strength": 4, "ap": 0, "damage": 1}],
        "target": {"toughness": 4, "save": 3, "wounds": 2},
    },
    ("kt2018", "psybolt"): {"psyker": {"wounds": 2}, "target": {"wounds": 2}},
    ("kt2018", "mortalWounds"): {"amount": "D3", "source": "fight", "target": {"wounds": 2}},
    ("kt2018", "nerveTest"): {"leadership": 6, "otherFriendlyShakenOrOutOfAction": 2},
    ("kt2018", "breakCheck"): {"models": 5, "modelsDown": 3, "highestLeadership": 7},
}  # fmt: skip
"""An example body of each mode's own route (`/v1/<ruleset>/<mode>`), from the specs'
worked examples."""
GRID_EXAMPLE = {
    "attackers": [{"attacks": 4}, {"attacks": 5, "piercing": 1}],
    "defenders": [{"save": 3, "wounds": 8}],
    "situations": [{"name": "open"}, {"name": "cover", "defender": {"coverSaves": 1}}],
    "atLeast": [3, 6],
}


class Components:
    """The models a document answers and is asked with, turned into its `components`.

    `ref` hands out a `$ref` object at once and fills it in once every model is known:
    pydantic names the schemas only when it generates them all together (a name two models
    share is disambiguated then)."""

    def __init__(self) -> None:
        self._refs: dict[tuple[type[BaseModel], Mode], list[dict[str, Any]]] = {}

    def ref(self, model: type[BaseModel], mode: Mode = "serialization") -> dict[str, Any]:
        placeholder: dict[str, Any] = {}
        self._refs.setdefault((model, mode), []).append(placeholder)
        return placeholder

    def schemas(self) -> dict[str, Any]:
        keyed, defs = models_json_schema(list(self._refs), ref_template=REF, by_alias=True)
        for key, placeholders in self._refs.items():
            for placeholder in placeholders:
                placeholder.update(keyed[key])
        return dict(defs.get("$defs", {}))


def error_responses(components: Components, *statuses: str) -> dict[str, Any]:
    """Response objects of the error body for the given statuses (default: a computation's)."""
    return {
        status: {
            "description": ERROR_STATUSES[status],
            "content": {"application/json": {"schema": components.ref(Error)}},
        }
        for status in statuses or COMPUTATION_ERRORS
    }


def _envelope(
    mode: registry.Mode, schema: dict[str, Any], *, routed: bool = False
) -> dict[str, Any]:
    """The mode's body schema with `ruleset` and `mode` members added; `routed`, for the
    mode's own route, whose path says the ruleset (the member may be left out)."""
    envelope = copy.deepcopy(schema)
    envelope["title"] = f"{mode.ruleset}.{mode.name} " + ("body" if routed else "envelope")
    properties = envelope.setdefault("properties", {})
    ruleset: dict[str, Any] = {"const": mode.ruleset}
    if routed or mode.ruleset == registry.DEFAULT_RULESET:
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


def _type_roles(schemas: dict[str, Any], bodies: dict[tuple[str, str], dict[str, Any]]) -> None:
    """Type every `schema.fields.Role` member (a grid's profiles, a situation's overrides,
    options) as the envelope member it holds: `kt2024.shoot.attacker` becomes the schema of
    a kt2024 shoot's `attacker`, catalog references included."""

    def typed(node: Any) -> Any:
        if isinstance(node, dict):
            if ROLE in node:
                mode, member = node[ROLE].rsplit(".", 1)
                ruleset, name = mode.split(".")
                body = schemas[bodies[ruleset, name]["$ref"].rsplit("/", 1)[1]]
                said = {k: v for k, v in node.items() if k in ("title", "description")}
                return {**copy.deepcopy(body["properties"][member]), **said}
            return {key: typed(value) for key, value in node.items()}
        if isinstance(node, list):
            return [typed(value) for value in node]
        return node

    for name, schema in schemas.items():
        schemas[name] = typed(schema)


def operation(
    operation_id: str,
    summary: str,
    tag: str,
    ok: dict[str, Any],
    *,
    example: Any = None,
    errors: dict[str, Any] | None = None,
    **members: Any,
) -> dict[str, Any]:
    """An operation object whose 200 answer is `ok` (a schema), with its example."""
    content: dict[str, Any] = {"schema": ok}
    if example is not None:
        content["example"] = example
    return {
        "operationId": operation_id,
        "summary": summary,
        "tags": [tag],
        **members,
        "responses": {
            "200": {"description": "OK", "content": {"application/json": content}},
            **(errors or {}),
        },
    }


def json_body(schema: dict[str, Any], example: Any) -> dict[str, Any]:
    content = {"schema": schema} if example is None else {"schema": schema, "example": example}
    return {"required": True, "content": {"application/json": content}}


def _answer_of(envelope: dict[str, Any], mode: str | None = None) -> dict[str, Any]:
    """The REST answer of an example envelope, computed (no cache)."""
    handler, scenario = registry.resolve(envelope, mode)
    return {**handler.evaluate(scenario), "canonicalKey": handler.cache_key(scenario)}


def _batch_line(envelope: dict[str, Any]) -> dict[str, Any]:
    try:
        return registry.run(envelope)
    except InputError as exc:
        return error_body(exc)


def _grid_answer(body: dict[str, Any]) -> dict[str, Any]:
    """The JSON answer of an example grid, computed cell by cell (no cache)."""
    grid = grids.parse(body, max_cells=len(body["attackers"]) * len(body["situations"]))
    jobs = grids.prepare_cells(grid)
    thresholds = tuple(grid.thresholds(job.scenario.defender.wounds for job in jobs))
    cells = [
        grids.cell(index, job.key, job.mode.evaluate(job.scenario), thresholds)
        for index, job in zip(grids.indices(grid), jobs, strict=True)
    ]
    return {"atLeast": list(thresholds), "cells": cells}


Bodies = list[tuple[registry.Mode, dict[str, Any]]]


def _computations(components: Components) -> tuple[dict[str, Any], Bodies]:
    """The matchup operations (one per mode name with a route of its own, batch, grid) and
    each mode's body schema, which becomes its envelope once the schemas are generated."""
    names = list(registry.rulesets())
    modes = [m for name in names for m in registry.modes(name).values() if m.model is not None]
    bodies = {mode: components.ref(mode.model, "validation") for mode in modes}
    envelopes: dict[str, list[dict[str, Any]]] = {}
    for mode in modes:
        envelopes.setdefault(mode.name, []).append({"$ref": REF.format(model=_name(mode))})
    answers: dict[str, list[dict[str, Any]]] = {}
    lines: list[dict[str, Any]] = []
    for mode in modes:
        answers.setdefault(mode.name, []).extend(
            components.ref(answer_model(result)) for result in mode.results
        )
        lines.extend(components.ref(result) for result in mode.results)
    paths: dict[str, Any] = {}
    examples = {"shoot": SHOOT_EXAMPLE, "fight": FIGHT_EXAMPLE}
    for name, example in examples.items():
        ok = _one_of(answers[name])
        paths[f"/v1/{name}"] = {
            "post": operation(
                name,
                f"one {name} (any ruleset with a `{name}` mode; kt2024 by default)",
                "matchups",
                ok,
                example=_answer_of(example, name),
                errors=error_responses(components),
                requestBody=json_body(_one_of(envelopes[name]), example),
            )
        }
    for mode in modes:
        example = MODE_EXAMPLES[mode.ruleset, mode.name]
        answer = _answer_of({**example, "ruleset": mode.ruleset}, mode.name)
        paths[f"/v1/{mode.ruleset}/{mode.name}"] = {
            "post": operation(
                mode_operation(mode.ruleset, mode.name),
                f"one {mode.ruleset} {mode.name}: the answer of `/v1/{mode.name}` for this "
                "ruleset, typed as this mode's alone (`ruleset` may be left out)",
                "matchups",
                _one_of([components.ref(answer_model(result)) for result in mode.results]),
                example=answer,
                errors=error_responses(components),
                requestBody=json_body({"$ref": REF.format(model=_name(mode, "Body"))}, example),
            )
        }
    every = [ref for refs in envelopes.values() for ref in refs]
    paths["/v1/batch"] = {
        "post": operation(
            "batch",
            "many envelopes of any ruleset, answered in order (a bad one gets its error "
            "body in place, the others are still answered)",
            "matchups",
            {"type": "array", "items": {"anyOf": [*lines, components.ref(Error)]}},
            example=[_batch_line(envelope) for envelope in BATCH_EXAMPLE],
            errors=error_responses(components),
            requestBody=json_body({"type": "array", "items": {"anyOf": every}}, BATCH_EXAMPLE),
        )
    }
    grid = operation(
        "grid",
        "attackers × defenders × situations of kt2024 shooting (Accept: text/csv for CSV)",
        "matchups",
        components.ref(GridAnswer),
        example=_grid_answer(GRID_EXAMPLE),
        errors=error_responses(components),
        requestBody=json_body(components.ref(GridRequest, "validation"), GRID_EXAMPLE),
    )
    grid["responses"]["200"]["content"]["text/csv"] = {"schema": {"type": "string"}}
    paths["/v1/grid"] = {"post": grid}
    paths["/v1/rulesets"] = {
        "get": operation(
            "listRulesets",
            "every ruleset with its modes, and the engine revision",
            "operations",
            components.ref(Rulesets),
            example={"engineRevision": REVISION, "rulesets": registry.rulesets()},
        )
    }
    return paths, [(mode, bodies[mode]) for mode in modes]


def _name(mode: registry.Mode, kind: str = "Envelope") -> str:
    return f"{kind}_{mode.ruleset}_{mode.name}"


def _one_of(refs: list[dict[str, Any]]) -> dict[str, Any]:
    return refs[0] if len(refs) == 1 else {"anyOf": refs}


def _operations(components: Components) -> dict[str, Any]:
    return {
        "/healthz": {
            "get": operation(
                "liveness",
                "liveness",
                "operations",
                components.ref(Health),
                example={"status": "ok"},
            )
        },
        "/readyz": {
            "get": operation(
                "readiness",
                "readiness, with the Redis state (never failed by Redis)",
                "operations",
                components.ref(Readiness),
                example={"status": "ready", "redis": "ok"},
            )
        },
    }


def document(
    extra: list[Callable[[Components], dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """The whole document; `extra` are other route modules' `openapi_paths`."""
    components = Components()
    paths, bodies = _computations(components)
    paths.update(_operations(components))
    for paths_of in extra or []:
        paths.update(paths_of(components))
    schemas = components.schemas()
    for mode, body in bodies:
        body_schema = schemas[body["$ref"].rsplit("/", 1)[1]]
        _add_references(mode, body_schema, schemas)
        schemas[_name(mode)] = _envelope(mode, body_schema)
        schemas[_name(mode, "Body")] = _envelope(mode, body_schema, routed=True)
    _type_roles(schemas, {(m.ruleset, m.name): b for m, b in bodies})
    return {
        "openapi": "3.1.0",
        "info": {"title": "killmath", "version": VERSION, "description": __doc__.splitlines()[0]},
        "tags": TAGS,
        "paths": paths,
        "components": {"schemas": schemas},
    }


def startup(state: Any) -> None:
    """Build the document at the app's start (its examples run the engines: tens of
    milliseconds that no client's first `/openapi.json` should wait for, nor two build)."""
    extra = [m.openapi_paths for m in state.route_modules if hasattr(m, "openapi_paths")]
    described = document_security(declare_conditional(document(extra)), state.settings)
    state.openapi = declare_revision(described)


async def openapi(request: Request) -> Response:
    state = request.app.state
    await started(state)
    if getattr(state, "openapi", None) is None:  # an app run without its lifespan
        startup(state)
    return JSONResponse(state.openapi)


routes = [Route("/openapi.json", openapi, methods=["GET"])]
