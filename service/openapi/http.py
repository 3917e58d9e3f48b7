"""What the HTTP layer does around an operation, said in the OpenAPI document (issue 19).

The answer models give each body its schema (`service.openapi.document`); the routes and the
middleware add headers and statuses no model knows of. They are declared here, operation by
operation (`LAYER`, by `operationId`), so a generated client sees them:

* every response carries `Killmath-Engine-Revision` (the middleware's);
* a *conditional* operation (its answer fixed by canonical keys or the catalog version,
  `service.validators`) takes `If-None-Match`, answers 200 with `ETag` and `Cache-Control`,
  and 304 Not Modified (no body, no cost) with the same validators;
* a computation answered through the cache says `Cache-Status` (RFC 9211);
* shoot, fight and team matchups take `Prefer: return=minimal` and say `Preference-Applied`;
* `Vary` names the request headers that pick the representation.

The keyed responses' `RateLimit`, `RateLimit-Policy` and the 429's `Retry-After` depend on
the server's settings: `service.auth.document_security` declares them.
tests/test_service_contract.py sends every operation and holds each response to what is
declared here, both ways.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schema import registry
from service.validators import ANSWER_CACHE_CONTROL, CATALOG_CACHE_CONTROL, REVISION_HEADER


def _header(description: str, required: bool = True, **schema: Any) -> dict[str, Any]:
    schema = {"type": "string", **schema}
    return {"description": description, "required": required, "schema": schema}


REVISION = _header(
    "the engine revision: it salts every answer's ETag and cache key (also in /v1/rulesets)",
    pattern=r"^[0-9]+$",
)
ETAG = _header(
    "strong validator of this answer: the engine revision and the canonical key(s), plus the "
    "coding (`-br`, `-gzip`, `-zstd`) of a compressed body; send it back in If-None-Match"
)
CACHE_STATUS = _header(
    "RFC 9211: the cache tiers the request went through, e.g. `killmath-lru; hit` or "
    '`killmath-redis; hit, killmath-lru; fwd=miss` (a bulk answer adds detail="<hits>/<lookups>")'
)
PREFERENCE_APPLIED = _header("`return=minimal` when the compact answer was sent", required=False)


def _cache_control(value: str) -> dict[str, Any]:
    return _header(f"`{value}`", const=value)


def _vary(names: str) -> dict[str, Any]:
    return _header(f"the request headers that pick the representation: {names}", required=False)


IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": "an ETag this client holds: a match is answered 304, without work or cost",
    "schema": {"type": "string"},
}
PREFER = {
    "name": "Prefer",
    "in": "header",
    "required": False,
    "description": "`return=minimal` (RFC 7240): the answer without its canonicalKey",
    "schema": {"type": "string", "examples": ["return=minimal"]},
}


@dataclass(frozen=True)
class Layer:
    """What the HTTP layer adds to one conditional operation."""

    cache_control: str
    vary: str = ""  # besides Accept-Encoding, which compression adds to a compressed answer
    cache_status: bool = False  # always sent on its 200
    bulk_cache_status: bool = False  # sent when any lookup was made (a batch of errors: none)
    prefer: bool = False


def mode_operation(ruleset: str, mode: str) -> str:
    """The operationId of a mode's own route, `/v1/<ruleset>/<mode>`: `kt2024Fight`."""
    return ruleset + mode[0].upper() + mode[1:]


ANSWER = ANSWER_CACHE_CONTROL
CATALOG = Layer(CATALOG_CACHE_CONTROL)
SINGLE = Layer(ANSWER, "Prefer", cache_status=True, prefer=True)
LAYER: dict[str, Layer] = {
    "shoot": SINGLE,
    "fight": SINGLE,
    **{mode_operation(r, m): SINGLE for r in registry.rulesets() for m in registry.modes(r)},
    "batch": Layer(ANSWER, bulk_cache_status=True),
    "grid": Layer(ANSWER, "Accept", cache_status=True),
    "teamMatchup": Layer(ANSWER, "Accept, Prefer", cache_status=True, prefer=True),
    "getCatalog": CATALOG,
    "listKillTeams": CATALOG,
    "listOperatives": CATALOG,
    "getOperative": CATALOG,
    "getWeaponProfile": CATALOG,
}


def _conditional(operation: dict[str, Any], layer: Layer) -> None:
    parameters = operation.setdefault("parameters", [])
    parameters.append(IF_NONE_MATCH)
    if layer.prefer:
        parameters.append(PREFER)
    validators = {"ETag": ETAG, "Cache-Control": _cache_control(layer.cache_control)}
    vary = ", ".join(filter(None, (layer.vary, "Accept-Encoding")))
    ok = operation["responses"]["200"].setdefault("headers", {})
    ok.update(validators)
    ok["Vary"] = _vary(vary)
    if layer.cache_status or layer.bulk_cache_status:
        ok["Cache-Status"] = {**CACHE_STATUS, "required": layer.cache_status}
    if layer.prefer:
        ok["Preference-Applied"] = PREFERENCE_APPLIED
    not_modified = {**validators}
    if layer.vary:
        not_modified["Vary"] = _vary(layer.vary)
    operation["responses"]["304"] = {
        "description": "Not Modified: If-None-Match holds this answer's ETag (no body, no cost)",
        "headers": not_modified,
    }


def declare_conditional(document: dict[str, Any]) -> dict[str, Any]:
    """Add the validators, `If-None-Match`, `Prefer` and the 304 of every conditional
    operation (the rest of the document unchanged)."""
    for item in document["paths"].values():
        for operation in item.values():
            layer = LAYER.get(operation["operationId"])
            if layer is not None:
                _conditional(operation, layer)
    return document


def declare_revision(document: dict[str, Any]) -> dict[str, Any]:
    """`Killmath-Engine-Revision` on every response of every operation (run last, once the
    refusals of `service.auth.document_security` are in)."""
    name = "-".join(part.capitalize() for part in REVISION_HEADER.split("-"))
    for item in document["paths"].values():
        for operation in item.values():
            for response in operation["responses"].values():
                response.setdefault("headers", {})[name] = REVISION
    return document
