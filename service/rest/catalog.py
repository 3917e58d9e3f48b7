"""REST routes of the catalog under /v1: weapon-rule parsing, operatives, profiles, imports.

* `GET /v1/weapon-rules?text=...` — the `killmath rules` JSON;
* `GET /v1/catalog` — the catalog served: version, digest, sources, counts, problems;
* `GET /v1/kill-teams` — the catalog's kill teams and its version;
* `GET /v1/operatives?killTeam=&keyword=&name=&first=&after=` — a page of operatives;
* `GET /v1/operatives/{id}`, `GET /v1/weapon-profiles/{id}` — one of each (404 if unknown);
* `POST /v1/import?format=` — the body is one file the importer reads (ktdash, killteamjson,
  BattleScribe), answered with its import JSON; or `multipart/form-data` with several files
  (a BattleScribe game system), answered `{"sources": [...]}` as `killmath import` prints a
  directory. The body limit is `KILLMATH_MAX_IMPORT_BYTES`, not the general one. Parsing
  runs in the engine pool, off the event loop.

Catalog answers carry `catalogVersion`, so a client can tell when its stored ids may have
moved. Errors are the §12 body; an unknown id is a 404 with code NOT_FOUND. The routes'
OpenAPI path items are in `service.openapi.catalog`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engine.errors import InputError
from schema.answers.base import Result
from schema.answers.catalog import (
    CatalogOperative,
    CatalogReport,
    CatalogWeaponProfile,
    ImportResult,
    KillTeamsResult,
    PageInfo,
    UploadResult,
    WeaponRulesResult,
)
from schema.catalog import Catalog, Operative, WeaponProfile, catalog
from schema.catalog.query import DEFAULT_PAGE, OperativeFilter, find, index
from schema.errors import gathered
from schema.importers import import_documents, import_text
from schema.limits import rules_text
from schema.weapon_rules import parse_rules
from service import auth, costs, validators
from service.http import (
    Endpoint,
    JSONResponse,
    answers_errors,
    computer,
    error_response,
    refusal,
)
from service.openapi import catalog as openapi_catalog

# Load and validate the bundled catalog when the app is built, so bad data stops the
# service at start-up instead of failing the first request that touches it.
catalog()


class Views:
    """Catalog answers rendered through their answer models once per catalog version and
    kept: the catalog never changes while it is served, so a read is a lookup, not a
    validation of every operative and profile it shows (a page of 20 operatives is some
    300 profile fields). Views of at most `VERSIONS` catalogs are kept (the bundled one and
    the one installed); a view is read only."""

    VERSIONS = 2

    def __init__(self) -> None:
        self._by_version: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}

    def get(self, cat: Catalog, kind: str, key: str, render: Callable[[], Result]) -> Any:
        views = self._by_version.get(cat.version)
        if views is None:
            while len(self._by_version) >= self.VERSIONS:
                del self._by_version[next(iter(self._by_version))]
            views = self._by_version[cat.version] = {}
        found = views.get((kind, key))
        if found is None:
            found = views[kind, key] = render().as_json()
        return found

    def operative(self, cat: Catalog, op: Operative) -> dict[str, Any]:
        return self.get(
            cat, "operative", op.id, lambda: CatalogOperative.model_validate(op.as_json())
        )

    def profile(self, cat: Catalog, profile: WeaponProfile) -> dict[str, Any]:
        return self.get(
            cat,
            "profile",
            profile.id,
            lambda: CatalogWeaponProfile.model_validate(profile.as_json()),
        )


views = Views()


def startup(state: Any) -> None:
    """Index the catalog served before the first query (`schema.catalog.query.Index`)."""
    index(catalog())


def _not_found(field: str, what: str) -> JSONResponse:
    return refusal(404, "NOT_FOUND", f"unknown {what}", field=field)


def _int_param(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise InputError("INVALID_INPUT", name, "must be an integer") from None


async def _pay(request: Request, estimate: costs.Estimate) -> None:
    """Charge the request its estimate before the work (LIMIT_EXCEEDED above the ceiling)."""
    ceiling = request.app.state.settings.max_request_tokens
    await auth.charge(request.scope, costs.within(estimate, ceiling).tokens)


@answers_errors
async def weapon_rules(request: Request) -> Response:
    text = request.query_params.get("text")
    if text is None:
        raise InputError("INVALID_INPUT", "text", "the query parameter text is required")
    checked = rules_text(text, "text")
    await _pay(request, costs.of_bytes(len(text.encode()), "text", costs.RULE_BYTE_MS))
    return JSONResponse(answer(WeaponRulesResult, parse_rules(checked).as_json()).as_json())


async def catalog_report(request: Request) -> Response:
    cat = catalog()
    return JSONResponse(views.get(cat, "report", "", lambda: answer(CatalogReport, cat.report())))


async def kill_teams(request: Request) -> Response:
    cat = catalog()

    def render() -> Result:
        teams = [t.as_json() for t in cat.kill_teams]
        return answer(KillTeamsResult, {"catalogVersion": cat.version, "killTeams": teams})

    return JSONResponse(views.get(cat, "kill-teams", "", render))


@answers_errors
async def operatives(request: Request) -> Response:
    """A page of operatives: each rendered through its model once (`Views`), the page's own
    members through theirs."""
    params = request.query_params
    where = OperativeFilter(
        _either(params, "killTeamId", "killTeam"),
        params.get("keyword"),
        _either(params, "nameContains", "name"),
    )
    cat = catalog()
    page = find(cat, where, _int_param(request, "first", DEFAULT_PAGE), params.get("after"))
    body: dict[str, Any] = {
        "catalogVersion": cat.version,
        "totalCount": page.total_count,
        "operatives": [views.operative(cat, op) for op in page.operatives],
        "pageInfo": PageInfo(
            has_next_page=page.has_next_page, end_cursor=page.end_cursor
        ).as_json(),
    }
    return JSONResponse(body)


def _either(params: Mapping[str, str], name: str, alias: str) -> str | None:
    """A filter by its name (GraphQL's: `killTeamId`) or its older REST alias (`killTeam`);
    both, disagreeing, is the client's error."""
    value, old = params.get(name), params.get(alias)
    if value is not None and old is not None and value != old:
        raise InputError("INVALID_INPUT", alias, f"the same filter as {name}, another value")
    return value if value is not None else old


def takes(*names: str) -> Callable[[Endpoint], Endpoint]:
    """A GET route that refuses query parameters it does not read: a misspelt filter would
    otherwise answer everything, silently (`?killTeamId=` once answered all 13 operatives)."""
    allowed = frozenset(names)
    listing = ", ".join(names) or "none"

    def wrap(endpoint: Endpoint) -> Endpoint:
        @functools.wraps(endpoint)
        async def checked(request: Request) -> Response:
            unknown = sorted(set(request.query_params) - allowed)
            if unknown:
                message = f"unknown query parameter; this route takes: {listing}"
                refused = [InputError("INVALID_INPUT", name, message) for name in unknown]
                return error_response(gathered(refused))
            return await endpoint(request)

        return checked

    return wrap


def answer(model: type[Result], view: dict[str, Any]) -> Result:
    """A catalog view sent through its answer model: a view that drifts from the declared
    shape fails here (a fault, 500) rather than reaching a client undeclared."""
    return model.model_validate(view)


def by_id(
    table: Callable[[Catalog], Mapping[str, Operative | WeaponProfile]],
    what: str,
    view: Callable[[Catalog, Any], dict[str, Any]],
) -> Endpoint:
    """`GET .../{id}`: one catalog object with the catalog version, or a 404."""

    async def endpoint(request: Request) -> Response:
        cat = catalog()
        found = table(cat).get(request.path_params["id"])
        if found is None:
            return _not_found("id", what)
        return JSONResponse({**view(cat, found), "catalogVersion": cat.version})

    return endpoint


MAX_UPLOAD_FILES = 200  # a whole BattleScribe game system is some 60 files


async def _uploads(request: Request) -> list[tuple[str, bytes]]:
    """The files of a multipart/form-data upload, in order, each with its file name."""
    limit = request.app.state.settings.max_import_bytes
    try:
        form = await request.form(
            max_files=MAX_UPLOAD_FILES, max_fields=MAX_UPLOAD_FILES, max_part_size=limit
        )
    except HTTPException as exc:  # Starlette's refusal of a malformed or oversized form
        raise InputError("INVALID_INPUT", "file", str(exc.detail)) from None
    documents = []
    try:
        for _, part in form.multi_items():
            if isinstance(part, UploadFile):
                documents.append((part.filename or f"file{len(documents) + 1}", await part.read()))
    finally:
        await form.close()
    if not documents:
        raise InputError("INVALID_INPUT", "file", "the form carries no file")
    return documents


@answers_errors
async def import_file(request: Request) -> Response:
    """One file as the body (its import result), or several as multipart/form-data (a
    BattleScribe game system's `.gst` and `.cat` files, links resolved across them):
    `{"sources": [{"source", ...result}]}`, as `killmath import` prints a directory."""
    format = request.query_params.get("format")
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        documents = await _uploads(request)
        size = sum(len(text) for _, text in documents)
        await _pay(request, costs.of_bytes(size, "file", costs.IMPORT_BYTE_MS))
        found = await computer(request).in_pool(import_documents, documents, format)
        sources = [{"source": source, **result.as_json()} for source, result in found]
        return JSONResponse(answer(UploadResult, {"sources": sources}).as_json())
    content = await request.body()
    await _pay(request, costs.of_bytes(len(content), "", costs.IMPORT_BYTE_MS))
    result = await computer(request).in_pool(import_text, content, format)
    return JSONResponse(answer(ImportResult, result.as_json()).as_json())


openapi_paths = openapi_catalog.openapi_paths

# a catalog read is fixed by the catalog version and the URL (its path and query): two reads
# that answer different bodies never share a tag, even if a client sends one's to the other
catalog_read = validators.conditional(
    lambda request: validators.etag(
        "catalog", [catalog().version], request.url.path, request.url.query
    ),
    validators.CATALOG_CACHE_CONTROL,
)

routes: list[Route] = [
    Route("/v1/weapon-rules", takes("text")(weapon_rules), methods=["GET"]),
    Route("/v1/catalog", takes()(catalog_read(catalog_report)), methods=["GET"]),
    Route("/v1/kill-teams", takes()(catalog_read(kill_teams)), methods=["GET"]),
    Route(
        "/v1/operatives",
        takes(*(p["name"] for p in openapi_catalog.OPERATIVE_QUERY))(catalog_read(operatives)),
        methods=["GET"],
    ),
    Route(
        "/v1/operatives/{id}",
        takes()(catalog_read(by_id(lambda c: c.operatives, "operative", views.operative))),
        methods=["GET"],
    ),
    Route(
        "/v1/weapon-profiles/{id}",
        takes()(catalog_read(by_id(lambda c: c.profiles, "weapon profile", views.profile))),
        methods=["GET"],
    ),
    Route("/v1/import", takes("format")(import_file), methods=["POST"]),
]
