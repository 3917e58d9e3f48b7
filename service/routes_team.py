"""`POST /v1/team-matchup`: a kill team against another (service.team_matchup).

The cells are validated in the engine pool, answered in one bulk pass through the cache (as a
grid's) within the request's time budget, and rendered as JSON, or as CSV on
`Accept: text/csv`.
"""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import models_json_schema
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from engine.errors import InputError
from schema.answers.team_matchup import TeamMatchupAnswer
from service import team_matchup as teams
from service.compute import Computer, Result
from service.http import JSONResponse, answers_errors, computer, json_body
from service.openapi import REF, error_responses


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


def _paths() -> dict[str, Any]:
    keyed, defs = models_json_schema(
        [(teams.TeamMatchupRequest, "validation"), (TeamMatchupAnswer, "serialization")],
        ref_template=REF,
    )
    body = keyed[(teams.TeamMatchupRequest, "validation")]
    ok = keyed[(TeamMatchupAnswer, "serialization")]
    return {
        "/v1/team-matchup": {
            "post": {
                "summary": "a kill team against another: every profile × defender × situation,"
                " the best profile of each pair, melee on request (Accept: text/csv for CSV)",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": body}},
                },
                "responses": {
                    "200": {
                        "description": "OK",
                        "content": {
                            "application/json": {"schema": ok},
                            "text/csv": {"schema": {"type": "string"}},
                        },
                    },
                    **error_responses(),
                },
            }
        }
    }, defs.get("$defs", {})


openapi_paths, openapi_schemas = _paths()

routes = [Route("/v1/team-matchup", team_matchup, methods=["POST"])]
