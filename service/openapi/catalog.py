"""OpenAPI path items of the catalog routes (`service.rest.catalog.openapi_paths`).

Answers are the catalog answer models (`schema.answers.catalog`), which the routes validate
every answer through; examples are read from the catalog being served (`examples`), so they
are real answers of this server.
"""

from __future__ import annotations

from typing import Any

import orjson

from schema.answers.catalog import (
    CatalogReport,
    ImportResult,
    KillTeamsResult,
    OperativePageResult,
    OperativeResult,
    UploadResult,
    WeaponProfileResult,
    WeaponRulesResult,
)
from schema.catalog import catalog
from schema.catalog.model import Catalog, Operative, WeaponProfile
from schema.catalog.query import DEFAULT_PAGE, MAX_PAGE, cursor
from schema.importers import FORMATS, MAX_BYTES, import_text
from schema.weapon_rules import parse_rules
from service.openapi.document import Components, error_responses, operation

EXAMPLE_PROFILE = "kasrkin.gunner.meltagun"
EXAMPLE_TARGET = "kommandos.boy"
EXAMPLE_RULES = "Lethal 5+, Prc1, Hot"
EXAMPLE_IMPORT = {
    "name": "Kommandos",
    "operatives": [
        {
            "name": "Boy",
            "SAVE": "5+",
            "WOUNDS": 10,
            "weapons": [{"name": "Slugga", "ATK": 4, "HIT": "4+", "DMG": "3/4", "WR": "Rng 6"}],
        }
    ],
}


def _query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": schema, "description": description}


OPERATIVE_QUERY: list[dict[str, Any]] = [
    _query("killTeamId", {"type": "string"}, "kill team id (GraphQL's name)"),
    _query("keyword", {"type": "string"}, "a keyword, any case"),
    _query("nameContains", {"type": "string"}, "part of the name, any case"),
    {
        **_query("killTeam", {"type": "string"}, "older name of killTeamId"),
        "deprecated": True,
    },
    {
        **_query("name", {"type": "string"}, "older name of nameContains"),
        "deprecated": True,
    },
    _query(
        "first",
        {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_PAGE,
            "default": DEFAULT_PAGE,
        },
        "page size",
    ),
    _query("after", {"type": "string"}, "the endCursor of the page before"),
]
"""`GET /v1/operatives`' query parameters: GraphQL's filter names, paging, and the older REST
aliases. The route reads these and refuses any other (`service.rest.catalog.takes`)."""


def _id(example: str | None) -> dict[str, Any]:
    parameter = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    return parameter if example is None else {**parameter, "example": example}


def examples(cat: Catalog) -> tuple[WeaponProfile, Operative] | None:
    """The examples' shooting profile and its target: the bundled catalog's Kasrkin gunner's
    meltagun and a Kommando boy; serving a catalog of the user's (`KILLMATH_CATALOG`), its
    first ranged profile and the first operative of another kill team (of its own if it has
    but one), so that no example names an id this server would answer 404. None for a
    catalog without a ranged profile: its examples are then left out."""
    profile = cat.profiles.get(EXAMPLE_PROFILE) or next(
        (p for p in cat.profiles.values() if p.type == "ranged"), None
    )
    if profile is None:
        return None
    shooter = cat.operatives[profile.operative_id]
    target = cat.operatives.get(EXAMPLE_TARGET) or next(
        (o for o in cat.operatives.values() if o.kill_team_id != shooter.kill_team_id), shooter
    )
    return profile, target


def openapi_paths(components: Components) -> dict[str, Any]:
    cat = catalog()
    found = examples(cat)
    profile = found[0] if found else None
    operative = cat.operatives[profile.operative_id] if profile else None
    version = {"catalogVersion": cat.version}
    return {
        "/v1/weapon-rules": {
            "get": operation(
                "parseWeaponRules",
                "weapon-rule text as engine fields (the `killmath rules` JSON)",
                "catalog",
                components.ref(WeaponRulesResult),
                example=parse_rules(EXAMPLE_RULES).as_json(),
                errors=error_responses(components, "400", "422"),
                parameters=[
                    {
                        **_query("text", {"type": "string"}, "weapon rules"),
                        "required": True,
                        "example": EXAMPLE_RULES,
                    }
                ],
            )
        },
        "/v1/kill-teams": {
            "get": operation(
                "listKillTeams",
                "the catalog's kill teams",
                "catalog",
                components.ref(KillTeamsResult),
                example={**version, "killTeams": [t.as_json() for t in cat.kill_teams[:1]]},
            )
        },
        "/v1/operatives": {
            "get": operation(
                "listOperatives",
                "a page of operatives",
                "catalog",
                components.ref(OperativePageResult),
                example=operative
                and {
                    **version,
                    "totalCount": len(cat.operatives),
                    "operatives": [operative.as_json()],
                    "pageInfo": {"hasNextPage": True, "endCursor": cursor(operative)},
                },
                errors=error_responses(components, "400", "422"),
                parameters=list(OPERATIVE_QUERY),  # the document adds its own to the list
            )
        },
        "/v1/operatives/{id}": {
            "get": operation(
                "getOperative",
                "one operative",
                "catalog",
                components.ref(OperativeResult),
                example=operative and {**operative.as_json(), **version},
                errors=error_responses(components, "404"),
                parameters=[_id(operative and operative.id)],
            )
        },
        "/v1/weapon-profiles/{id}": {
            "get": operation(
                "getWeaponProfile",
                "one weapon profile",
                "catalog",
                components.ref(WeaponProfileResult),
                example=profile and {**profile.as_json(), **version},
                errors=error_responses(components, "404"),
                parameters=[_id(profile and profile.id)],
            )
        },
        "/v1/import": {
            "post": operation(
                "importProfiles",
                "import one file (the body) or several (multipart/form-data)",
                "catalog",
                {"anyOf": [components.ref(ImportResult), components.ref(UploadResult)]},
                example=import_text(orjson.dumps(EXAMPLE_IMPORT)).as_json(),
                errors=error_responses(components, "400", "413", "422"),
                parameters=[_query("format", {"enum": list(FORMATS)}, "default: detected")],
                requestBody={
                    "required": True,
                    "content": {
                        "application/json": {"schema": {}, "example": EXAMPLE_IMPORT},
                        "application/xml": {"schema": {"type": "string"}},
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "additionalProperties": {
                                    "type": "string",
                                    "contentMediaType": "application/octet-stream",
                                },
                            }
                        },
                    },
                },
                description="One ktdash, killteamjson or BattleScribe file as the body answers "
                "its import; several files as multipart/form-data (a BattleScribe game system's "
                ".gst and .cat files, links resolved across them) answer `UploadResult`, one "
                f"result per JSON file and per game system. A file holds at most {MAX_BYTES} "
                "bytes; the body limit is KILLMATH_MAX_IMPORT_BYTES (default 16 MiB), not "
                "KILLMATH_MAX_BODY_BYTES; GraphQL importProfiles has it too.",
            )
        },
        "/v1/catalog": {
            "get": operation(
                "getCatalog",
                "the catalog served: version (a digest of its content), sources, counts, problems",
                "catalog",
                components.ref(CatalogReport),
                example=catalog().report(),
            )
        },
    }
