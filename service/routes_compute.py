"""REST computation routes under /v1: shoot, fight, batch, grid and the ruleset list.

`/v1/shoot` and `/v1/fight` take the engine envelope with or without `mode` (the route implies
it) and answer the §10 output plus `canonicalKey` and `cached`. `/v1/batch` takes an array of
envelopes exactly as `killmath batch` takes lines and answers an array of the CLI's lines.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from engine.errors import InputError
from schema import references, registry
from service import grid as grids
from service.compute import Computer, Result, result_body
from service.http import Endpoint, JSONResponse, answers_errors, computer, json_body


def single(mode: str) -> Endpoint:
    @answers_errors
    async def endpoint(request: Request) -> Response:
        result = await computer(request).one(await request.body(), mode)
        return JSONResponse(result_body(result))

    endpoint.__name__ = mode
    return endpoint


@answers_errors
async def batch(request: Request) -> Response:
    envelopes = await json_body(request)
    if not isinstance(envelopes, list):
        raise InputError("INVALID_INPUT", "", "a batch is a JSON array of envelopes")
    limit = request.app.state.settings.max_batch
    if len(envelopes) > limit:
        raise InputError("LIMIT_EXCEEDED", "", f"a batch holds at most {limit} envelopes", limit)
    answers = await computer(request).many(envelopes)
    return JSONResponse(
        [a.body() if isinstance(a, Result) else {"error": a.as_json()} for a in answers]
    )


async def run_grid(service: Computer, grid: grids.GridRequest) -> dict[str, Any]:
    """Every cell of a grid, validated in the pool, answered through the cache."""

    async def work() -> dict[str, Any]:
        jobs = await service.in_pool(grids.prepare_cells, grid)
        answers = await service.results(jobs)
        thresholds = tuple(grid.thresholds(jobs))

        def rows() -> list[dict[str, Any]]:
            out = []
            for index, answer in zip(grids.indices(grid), answers, strict=True):
                if isinstance(answer, InputError):
                    raise answer
                row = grids.cell(index, answer.key, answer.output, thresholds)
                out.append(references.with_ignored(row, answer.ignored))
            return out

        cells = await service.in_pool(rows)
        cached = sum(1 for a in answers if isinstance(a, Result) and a.cached)
        return {"atLeast": list(thresholds), "cells": cells, "cachedCells": cached}

    return await service.within_budget(work())


@answers_errors
async def grid(request: Request) -> Response:
    spec = grids.parse(await json_body(request), request.app.state.settings.max_grid_cells)
    answer = await run_grid(computer(request), spec)
    if "text/csv" in request.headers.get("accept", ""):
        return PlainTextResponse(
            grids.to_csv(answer["cells"], answer["atLeast"]), media_type="text/csv"
        )
    return JSONResponse(answer)


async def rulesets(request: Request) -> Response:
    return JSONResponse(registry.rulesets())


routes = [
    Route("/v1/shoot", single("shoot"), methods=["POST"]),
    Route("/v1/fight", single("fight"), methods=["POST"]),
    Route("/v1/batch", batch, methods=["POST"]),
    Route("/v1/grid", grid, methods=["POST"]),
    Route("/v1/rulesets", rulesets, methods=["GET"]),
]
