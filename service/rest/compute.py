"""REST computation routes under /v1: shoot, fight, batch, grid and the ruleset list.

`/v1/shoot` and `/v1/fight` take the engine envelope with or without `mode` (the route implies
it) and answer the §10 output plus `canonicalKey` (left out with `Prefer: return=minimal`).
`/v1/<ruleset>/<mode>` (every registered mode: `/v1/kt2024/fight`, `/v1/kt2018/nerveTest`)
answers the same for one ruleset's mode, its OpenAPI answer that mode's alone.
`/v1/batch` takes an array of envelopes exactly as `killmath batch` takes lines and answers an
array of the CLI's lines.

Each route validates and keys its request first; then its ETag is known (`service.validators`)
and a matching `If-None-Match` is answered 304 at no cost; otherwise the request is charged its
cost (`service.costs`) and answered, with `ETag`, `Cache-Control` and `Cache-Status`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from engine import REVISION
from engine.errors import InputError
from schema import registry
from schema.errors import error_body
from schema.grid import GridRequest
from service import auth, costs, validators
from service import grid as grids
from service.compute import (
    LOOP_BODY_BYTES,
    Computer,
    Job,
    Result,
    encode,
    loads,
    prepare_each,
    result_body,
)
from service.http import Endpoint, JSONResponse, answers_errors, computer, parsed_body
from service.validators import ANSWER_CACHE_CONTROL


def _ceiling(request: Request) -> int:
    return request.app.state.settings.max_request_tokens


def _redis(request: Request) -> bool:
    return computer(request).cache.l2 is not None


def in_ruleset(raw: bytes, ruleset: str) -> bytes:
    """The body of a ruleset's own route as an envelope of that ruleset: `ruleset` may be
    left out (the path says it) or repeat the path's; another is the client's error."""
    envelope = loads(raw)
    if not isinstance(envelope, dict):
        raise InputError("INVALID_INPUT", "", "the body is a JSON object (an envelope)")
    given = envelope.setdefault("ruleset", ruleset)
    if given != ruleset:
        message = f"this route answers {ruleset!r}; leave ruleset out or say {ruleset!r}"
        raise InputError("INVALID_INPUT", "ruleset", message)
    return encode(envelope)


def single(mode: str, ruleset: str | None = None) -> Endpoint:
    """`/v1/<mode>` (any ruleset with that mode, kt2024 by default), or with `ruleset`
    `/v1/<ruleset>/<mode>`: the same answer, from a route whose OpenAPI answer is that one
    mode's, so a generated client reads it typed without narrowing a union."""

    @answers_errors
    async def endpoint(request: Request) -> Response:
        raw = await request.body()
        if ruleset is not None:  # a big body's JSON is read in the pool, as `prepare` reads it
            small = len(raw) <= LOOP_BODY_BYTES
            raw = in_ruleset(raw, ruleset) if small else await computer(request).in_pool(
                in_ruleset, raw, ruleset)  # fmt: skip
        job = await computer(request).prepare(raw, mode)
        estimate = costs.within(costs.of_job(job), _ceiling(request))
        minimal = validators.wants_minimal(request)
        cell = validators.cell(job.key, job.ignored)
        tag = validators.etag(mode, [cell], "minimal" if minimal else "full")
        matched = validators.matches(request, tag)
        if matched is not None:
            return validators.not_modified(matched, ANSWER_CACHE_CONTROL, "Prefer")
        await auth.charge(request.scope, estimate.tokens)
        result = await computer(request).answer(job)
        headers = validators.validator_headers(tag, ANSWER_CACHE_CONTROL, "Prefer")
        headers["cache-status"] = validators.cache_status(
            [result.tier], redis=_redis(request), bulk=False
        )
        if minimal:
            headers["preference-applied"] = validators.MINIMAL
        return JSONResponse(result_body(result, minimal=minimal), headers=headers)

    endpoint.__name__ = mode if ruleset is None else f"{ruleset}_{mode}"
    return endpoint


def _identity(item: Job | InputError) -> str:
    """What fixes one batch line: its canonical key and rules ignored (`validators.cell`),
    or its error (a key never starts '{')."""
    if isinstance(item, Job):
        return validators.cell(item.key, item.ignored)
    return orjson.dumps(item.as_json()).decode()


@answers_errors
async def batch(request: Request) -> Response:
    envelopes = await parsed_body(request)
    if not isinstance(envelopes, list):
        raise InputError("INVALID_INPUT", "", "a batch is a JSON array of envelopes")
    limit = request.app.state.settings.max_batch
    if len(envelopes) > limit:
        raise InputError("LIMIT_EXCEEDED", "", f"a batch holds at most {limit} envelopes", limit)
    service = computer(request)

    async def work() -> Response:
        prepared = await service.in_pool(prepare_each, envelopes)
        estimate = costs.within(costs.of_jobs(prepared), _ceiling(request))
        tag = validators.etag("batch", map(_identity, prepared))
        matched = validators.matches(request, tag)
        if matched is not None:
            return validators.not_modified(matched, ANSWER_CACHE_CONTROL)
        await auth.charge(request.scope, estimate.tokens)
        answers = await service.answer_many(prepared)
        headers = validators.validator_headers(tag, ANSWER_CACHE_CONTROL)
        tiers = [a.tier for a in answers if isinstance(a, Result)]
        if tiers:
            headers["cache-status"] = validators.cache_status(
                tiers, redis=_redis(request), bulk=True
            )
        body = [a.body() if isinstance(a, Result) else error_body(a) for a in answers]
        return JSONResponse(body, headers=headers)

    return await service.within_budget(work())


Admit = Callable[[Sequence[Job], Sequence[int]], Awaitable[Response | None]]


async def run_grid(
    service: Computer, grid: GridRequest, admit: Admit | None = None
) -> dict[str, Any] | Response:
    """Every cell of a grid, validated in the pool, answered through the cache.

    `admit` sees the cells' jobs and thresholds before any lookup: a response it returns (a
    304) is the answer instead. The answer has `cachedCells` (GraphQL's `matchupGrid` reports
    it) and `tiers`, each cell's cache tier, which REST turns into `Cache-Status`."""

    async def work() -> dict[str, Any] | Response:
        jobs = await service.in_pool(grids.prepare_cells, grid)
        thresholds = tuple(grid.thresholds(job.scenario.defender.wounds for job in jobs))
        if admit is not None:
            early = await admit(jobs, thresholds)
            if early is not None:
                return early
        answers = await service.results(jobs)
        cells = await service.in_pool(grids.rows, grid, answers, thresholds)
        tiers = [a.tier for a in answers if isinstance(a, Result)]
        cached = sum(1 for tier in tiers if tier is not None)
        return {"atLeast": list(thresholds), "cells": cells, "cachedCells": cached, "tiers": tiers}

    return await service.within_budget(work())


@answers_errors
async def grid(request: Request) -> Response:
    """A grid as JSON `{atLeast, cells}` or, for `Accept: text/csv`, CSV. The REST body has no
    `cachedCells` (it would differ between calls): `Cache-Status` counts the cells each tier
    answered."""
    max_cells = request.app.state.settings.max_grid_cells
    spec = await parsed_body(request, lambda body: grids.parse(body, max_cells))
    csv = "text/csv" in request.headers.get("accept", "")
    tag = ""

    async def admit(jobs: Sequence[Job], thresholds: Sequence[int]) -> Response | None:
        nonlocal tag
        estimate = costs.within(costs.of_jobs(jobs, "attackers"), _ceiling(request))
        # the CSV has no ignoredRules column; the cells' indices follow from the shape
        cells = (job.key if csv else validators.cell(job.key, job.ignored) for job in jobs)
        shape = repr((len(spec.attackers), len(spec.defenders), len(spec.situations)))
        media = "csv" if csv else "json"
        tag = validators.etag("grid", cells, media, repr(tuple(thresholds)), shape)
        matched = validators.matches(request, tag)
        if matched is not None:
            return validators.not_modified(matched, ANSWER_CACHE_CONTROL, "Accept")
        await auth.charge(request.scope, estimate.tokens)
        return None

    answer = await run_grid(computer(request), spec, admit)
    if isinstance(answer, Response):
        return answer
    headers = validators.validator_headers(tag, ANSWER_CACHE_CONTROL, "Accept")
    headers["cache-status"] = validators.cache_status(
        answer["tiers"], redis=_redis(request), bulk=True
    )
    if csv:
        return PlainTextResponse(
            grids.to_csv(answer["cells"], answer["atLeast"]), media_type="text/csv", headers=headers
        )
    return JSONResponse({"atLeast": answer["atLeast"], "cells": answer["cells"]}, headers=headers)


async def rulesets(request: Request) -> Response:
    """The rulesets and their modes, with the engine revision that salts every answer's ETag
    (the same as the `Killmath-Engine-Revision` header of every response)."""
    return JSONResponse({"engineRevision": REVISION, "rulesets": registry.rulesets()})


routes = [
    Route("/v1/shoot", single("shoot"), methods=["POST"]),
    Route("/v1/fight", single("fight"), methods=["POST"]),
    Route("/v1/batch", batch, methods=["POST"]),
    Route("/v1/grid", grid, methods=["POST"]),
    Route("/v1/rulesets", rulesets, methods=["GET"]),
    *(
        Route(f"/v1/{ruleset}/{mode}", single(mode, ruleset), methods=["POST"])
        for ruleset in registry.rulesets()
        for mode in registry.modes(ruleset)
    ),
]
