"""`POST /v1/team-matchup`: a kill team against another (service.team_matchup).

The cells are validated in the engine pool; then the answer's strong ETag is known (engine
revision, the cells' canonical keys, the sides, situations and representation:
`team_matchup.identity`) and a matching `If-None-Match` is answered 304 at no cost, before
any lookup. Otherwise the request is charged by its cells (`service.costs`: a shot 1, a fight
`FIGHT`), they are answered in one bulk pass through the cache (as a grid's) within the
request's time budget, and rendered as JSON, or as CSV on `Accept: text/csv`, with `ETag`,
`Cache-Control` and `Cache-Status` (the body has no `cachedCells`: GraphQL's has).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from engine.errors import InputError
from schema.answers.team_matchup import TeamMatchupAnswer
from service import auth, costs, validators
from service import team_matchup as teams
from service.compute import Computer, Job, Result
from service.http import JSONResponse, answers_errors, computer, json_body
from service.openapi import Components, error_responses, operation
from service.openapi import json_body as json_request
from service.validators import ANSWER_CACHE_CONTROL

Admit = Callable[[Sequence[Job]], Awaitable[Response | None]]


async def run_team_matchup(
    service: Computer, plan: teams.Plan, admit: Admit
) -> dict[str, Any] | Response:
    """Every cell of a team matchup through the cache, then the answer.

    `admit` sees the cells' jobs before any lookup (it charges them) and may answer instead
    (a 304). The answer has `cachedCells` (GraphQL's `teamMatchup` reports it) and `tiers`,
    each cell's cache tier, which REST turns into `Cache-Status`."""

    async def work() -> dict[str, Any] | Response:
        jobs = await service.in_pool(teams.prepare_cells, plan)
        early = await admit(jobs)
        if early is not None:
            return early
        answers = await service.results(jobs)
        results: list[Result] = []
        for found in answers:
            if isinstance(found, InputError):  # a cross-field rule only the engine checks
                raise found
            results.append(found)
        body = await service.in_pool(teams.answer, plan, results)
        tiers = [r.tier for r in results]
        cached = sum(1 for tier in tiers if tier is not None)
        return {**body, "cachedCells": cached, "tiers": tiers}

    return await service.within_budget(work())


@answers_errors
async def team_matchup(request: Request) -> Response:
    plan = teams.parse(await json_body(request), request.app.state.settings.max_grid_cells)
    csv = "text/csv" in request.headers.get("accept", "")
    tag = ""

    async def admit(jobs: Sequence[Job]) -> Response | None:
        nonlocal tag
        cells, rest = teams.identity(plan, jobs)
        tag = validators.etag("team-matchup", cells, "csv" if csv else "json", rest)
        matched = validators.matches(request, tag)
        if matched is not None:
            return validators.not_modified(matched, ANSWER_CACHE_CONTROL, "Accept")
        await auth.charge(request.scope, costs.of_jobs(jobs))
        return None

    answer = await run_team_matchup(computer(request), plan, admit)
    if isinstance(answer, Response):
        return answer
    headers = validators.validator_headers(tag, ANSWER_CACHE_CONTROL, "Accept")
    headers["cache-status"] = validators.cache_status(
        answer.pop("tiers"), redis=computer(request).cache.l2 is not None, bulk=True
    )
    del answer["cachedCells"]
    if csv:
        return PlainTextResponse(teams.to_csv(answer), media_type="text/csv", headers=headers)
    return JSONResponse(answer, headers=headers)


EXAMPLE = {
    "attackers": {"operativeIds": ["kasrkin.gunner"]},
    "defenders": {"operativeIds": ["kommandos.boy"]},
}


def _example() -> dict[str, Any]:
    """The answer of the example, computed cell by cell (no cache)."""
    plan = teams.parse(EXAMPLE, max_cells=100)
    jobs = teams.prepare_cells(plan)
    results = [Result(job.key, job.mode.evaluate(job.scenario), None, job.ignored) for job in jobs]
    return teams.answer(plan, results)


def openapi_paths(components: Components) -> dict[str, Any]:
    """`/v1/team-matchup`, its body and answer from their models."""
    post = operation(
        "teamMatchup",
        "a kill team against another: every profile × defender × situation, the best "
        "profile of each pair, melee on request (Accept: text/csv for CSV)",
        "matchups",
        components.ref(TeamMatchupAnswer),
        example=_example(),
        errors=error_responses(components),
        requestBody=json_request(components.ref(teams.TeamMatchupRequest, "validation"), EXAMPLE),
    )
    post["responses"]["200"]["content"]["text/csv"] = {"schema": {"type": "string"}}
    return {"/v1/team-matchup": {"post": post}}


routes = [Route("/v1/team-matchup", team_matchup, methods=["POST"])]
