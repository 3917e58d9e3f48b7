"""`POST /v1/team-matchup`: a kill team against another (service.team_matchup).

The cells are validated in the engine pool, answered in one bulk pass through the cache (as a
grid's) within the request's time budget, and rendered as JSON, or as CSV on
`Accept: text/csv`.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from engine.errors import InputError
from schema.answers.team_matchup import TeamMatchupAnswer
from service import team_matchup as teams
from service.compute import Computer, Result
from service.http import JSONResponse, answers_errors, computer, json_body
from service.openapi import Components, error_responses, operation
from service.openapi import json_body as json_request


async def run_team_matchup(service: Computer, plan: teams.Plan) -> dict[str, Any]:
    """Every cell of a team matchup through the cache, then the answer."""

    async def work() -> dict[str, Any]:
        jobs = await service.in_pool(teams.prepare_cells, plan)
        answers = await service.results(jobs)
        results: list[Result] = []
        for found in answers:
            if isinstance(found, InputError):  # a cross-field rule only the engine checks
                raise found
            results.append(found)
        return await service.in_pool(teams.answer, plan, results)

    return await service.within_budget(work())


@answers_errors
async def team_matchup(request: Request) -> Response:
    plan = teams.parse(await json_body(request), request.app.state.settings.max_grid_cells)
    answer = await run_team_matchup(computer(request), plan)
    if "text/csv" in request.headers.get("accept", ""):
        return PlainTextResponse(teams.to_csv(answer), media_type="text/csv")
    return JSONResponse(answer)


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
