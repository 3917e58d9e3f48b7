"""OpenAPI path items of the catalog routes (`service.routes_catalog.openapi_paths`).

The answers are the catalog's `as_json` views rather than pydantic models, so their schemas
are written here; the service tests validate real answers against them, which keeps the two
from drifting apart. Members a client may rely on are `required`; the views may grow.
"""

from __future__ import annotations

from typing import Any

from schema.catalog.query import DEFAULT_PAGE, MAX_PAGE
from schema.importers import FORMATS, MAX_BYTES
from service.openapi import error_responses

STRINGS = {"type": "array", "items": {"type": "string"}}
OBJECT = {"type": "object"}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": list(properties), "properties": properties}


WEAPON_RULES = _object(
    {
        "fields": {**OBJECT, "description": "engine attacker/fighter fields"},
        "noNumericEffect": STRINGS,
        "unknown": STRINGS,
        "malformed": {
            "type": "array",
            "items": _object(
                {
                    "text": {"type": "string"},
                    "rule": {"type": "string"},
                    "message": {"type": "string"},
                }
            ),
        },
    }
)
PROFILE = _object(
    {
        "id": {"type": "string"},
        "operativeId": {"type": "string"},
        "name": {"type": "string"},
        "type": {"enum": ["ranged", "melee"]},
        "ATK": {"type": "integer"},
        "HIT": {"type": "string"},
        "DMG": {"type": "string"},
        "WR": {"type": "string"},
        "fields": {**OBJECT, "description": "engine attacker (ranged) or fighter (melee) fields"},
        "noNumericEffect": STRINGS,
        "unknown": {**STRINGS, "description": "rules not understood (a kill team's own)"},
    }
)
OPERATIVE = _object(
    {
        "id": {"type": "string"},
        "killTeamId": {"type": "string"},
        "name": {"type": "string"},
        "keywords": STRINGS,
        "APL": {"type": "integer"},
        "MOVE": {"type": "string"},
        "SAVE": {"type": "string"},
        "WOUNDS": {"type": "integer"},
        "defensiveRules": {
            "type": "array",
            "items": _object({"name": {"type": "string"}, "effect": OBJECT}),
        },
        "weapons": {
            "type": "array",
            "items": _object(
                {
                    "name": {"type": "string"},
                    "type": {"enum": ["ranged", "melee"]},
                    "profiles": {"type": "array", "items": PROFILE},
                }
            ),
        },
    }
)
VERSION = {"catalogVersion": {"type": "string"}}
KILL_TEAMS = _object(
    {
        **VERSION,
        "killTeams": {
            "type": "array",
            "items": _object(
                {
                    "id": {"type": "string"},
                    "name": {"type": "string"},
                    "faction": {"type": "string"},
                    "source": {"type": "string"},
                    "operativeIds": STRINGS,
                }
            ),
        },
    }
)
OPERATIVE_PAGE = _object(
    {
        **VERSION,
        "totalCount": {"type": "integer"},
        "operatives": {"type": "array", "items": OPERATIVE},
        "pageInfo": _object(
            {"hasNextPage": {"type": "boolean"}, "endCursor": {"type": ["string", "null"]}}
        ),
    }
)
PROBLEM = _object(
    {
        "kind": {
            "enum": [
                "UNREADABLE_STATLINE",
                "UNKNOWN_RULE",
                "UNKNOWN_WEAPON_TYPE",
                "UNRESOLVED_LINK",
                "UNREACHED",
                "EMPTY",
            ]
        },
        "where": {"type": "string"},
        "message": {"type": "string"},
    }
)
COUNTS = _object(
    {
        k: {"type": "integer"}
        for k in ("profilesFound", "importedClean", "withTeamRules", "problems")
    }
)
IMPORTED = _object(
    {
        "format": {"enum": list(FORMATS)},
        "name": {"type": "string"},
        "operatives": {
            "type": "array",
            "items": _object(
                {
                    "name": {"type": "string"},
                    "keywords": STRINGS,
                    "profiles": {"type": "array", "items": OBJECT},
                }
            ),
        },
        "counts": COUNTS,
        "problemKinds": {"type": "object", "additionalProperties": {"type": "integer"}},
        "problems": {"type": "array", "items": PROBLEM},
    }
)
CATALOG = _object(
    {
        "ruleset": {"type": "string"},
        **VERSION,
        "digest": {"type": "string", "description": "SHA-256 of the catalog's content"},
        "sources": {
            "type": "array",
            "items": _object(
                {
                    "path": {"type": "string"},
                    "format": {"type": "string"},
                    "name": {"type": "string"},
                }
            ),
        },
        "counts": _object(
            {
                k: {"type": "integer"}
                for k in ("killTeams", "operatives", "weaponProfiles", "problems")
            }
        ),
        "problems": {
            "type": "array",
            "items": {
                **PROBLEM,
                "required": ["source", *PROBLEM["required"]],
                "properties": {"source": {"type": "string"}, **PROBLEM["properties"]},
            },
        },
    }
)

UPLOADED = _object(
    {
        "sources": {
            "type": "array",
            "items": {"allOf": [IMPORTED, _object({"source": {"type": "string"}})]},
        }
    }
)


def _query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": schema, "description": description}


ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}


def _get(summary: str, ok: dict[str, Any], *errors: str, **extra: Any) -> dict[str, Any]:
    content = {"application/json": {"schema": ok}}
    responses = {"200": {"description": "OK", "content": content}, **error_responses(*errors)}
    return {"get": {"summary": summary, **extra, "responses": responses}}


PATHS: dict[str, Any] = {
    "/v1/weapon-rules": _get(
        "weapon-rule text as engine fields (the `killmath rules` JSON)",
        WEAPON_RULES,
        "400",
        "422",
        parameters=[{**_query("text", {"type": "string"}, "weapon rules"), "required": True}],
    ),
    "/v1/catalog": _get(
        "the catalog served: version (a digest of its content), sources, counts, problems",
        CATALOG,
    ),
    "/v1/kill-teams": _get("the catalog's kill teams", KILL_TEAMS),
    "/v1/operatives": _get(
        "a page of operatives",
        OPERATIVE_PAGE,
        "400",
        "422",
        parameters=[
            _query("killTeam", {"type": "string"}, "kill team id"),
            _query("keyword", {"type": "string"}, "a keyword, any case"),
            _query("name", {"type": "string"}, "part of the name, any case"),
            _query(
                "first",
                {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": DEFAULT_PAGE},
                "page size",
            ),
            _query("after", {"type": "string"}, "the endCursor of the page before"),
        ],
    ),
    "/v1/operatives/{id}": _get("one operative", OPERATIVE, "404", parameters=[ID]),
    "/v1/weapon-profiles/{id}": _get("one weapon profile", PROFILE, "404", parameters=[ID]),
    "/v1/import": {
        "post": {
            "summary": "import one file (the body) or several (multipart/form-data)",
            "description": "One ktdash, killteamjson or BattleScribe file as the body answers "
            "its import; several files as multipart/form-data (a BattleScribe game system's "
            ".gst and .cat files, links resolved across them) answer {sources: [...]}, one per "
            f"JSON file and per game system. A file holds at most {MAX_BYTES} bytes. The body "
            "limit is KILLMATH_MAX_IMPORT_BYTES (default 16 MiB), not the general "
            "KILLMATH_MAX_BODY_BYTES; GraphQL importProfiles (its content in a variable) has "
            "it too.",
            "parameters": [_query("format", {"enum": list(FORMATS)}, "default: detected")],
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": {}},
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
            "responses": {
                "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"anyOf": [IMPORTED, UPLOADED]}}},
                },
                **error_responses("400", "413", "422"),
            },
        }
    },
}
