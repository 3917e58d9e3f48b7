"""`POST /v1/team-matchup`: a kill team against another (service.team_matchup).

The cells are validated in the engine pool; then the answer's strong ETag is known (engine
revision, the cells' canonical keys, the sides, situations and representation:
`team_matchup.identity`) and a matching `If-None-Match` is answered 304 at no cost, before
any lookup. Otherwise the request is charged by its cells (`service.costs`: a shot 1, a fight
`FIGHT`), they are answered in one bulk pass through the cache (as a grid's) within the
request's time budget, and rendered as JSON, or as CSV on `Accept: text/csv`, with `ETag`,
`Cache-Control` and `Cache-Status` (the body has no `cachedCells`: GraphQL's has). With
`Prefer: return=minimal` the JSON cells leave out their `canonicalKey`, as `/v1/shoot` does
(`Preference-Applied` says so; CSV has no keys to leave out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from schema.answers.team_matchup import TeamMatchupAnswer
from schema.catalog import catalog
from schema.team_matchup import TeamMatchupRequest
from service import auth, costs, validators
from service import team_matchup as teams
from service.cache import ByteLRU
from service.compute import Job, Result
from service.http import answers_errors, computer, parsed_body
from service.openapi.catalog import examples
from service.openapi.document import Components, error_responses, operation
from service.openapi.document import json_body as json_request
from service.validators import ANSWER_CACHE_CONTROL

VARY = "Accept, Prefer"  # CSV or JSON; the JSON with or without its cells' canonicalKey


class Rendered:
    """Rendered team matchups by their strong ETag (`service.cache.ByteLRU`'s budget).

    The ETag digests everything the body is made of (`team_matchup.identity`), so a warm
    matchup is its cells' lookups (for `Cache-Status`) and these bytes: not assembled,
    compared and serialised again (a thousand cells, a megabyte of JSON)."""

    def __init__(self, budget: int) -> None:
        self.bodies = ByteLRU(budget)

    def get(self, tag: str, render: Callable[[], bytes]) -> bytes:
        found = self.bodies.get(tag)
        if found is None:
            found = render()
            self.bodies.put(tag, found)
        return found


RENDERED = Rendered(32 * 1024 * 1024)


@answers_errors
async def team_matchup(request: Request) -> Response:
    max_cells = request.app.state.settings.max_grid_cells
    plan = await parsed_body(request, lambda body: teams.parse(body, max_cells))
    csv = "text/csv" in request.headers.get("accept", "")
    minimal = not csv and validators.wants_minimal(request)
    tag = ""

    async def admit(jobs: Sequence[Job]) -> Response | None:
        nonlocal tag
        ceiling = request.app.state.settings.max_request_tokens
        estimate = costs.within(costs.of_jobs(jobs, "attackers"), ceiling)
        cells, rest = teams.identity(plan, jobs)
        media = "csv" if csv else "json"
        compact = ("minimal",) if minimal else ()  # the full answer's tag as it always was
        tag = validators.etag("team-matchup", cells, media, rest, *compact)
        matched = validators.matches(request, tag)
        if matched is not None:
            return validators.not_modified(matched, ANSWER_CACHE_CONTROL, VARY)
        await auth.charge(request.scope, estimate.tokens)
        return None

    def render(results: list[Result]) -> bytes:
        def fresh() -> bytes:
            answer = teams.answer(plan, results, minimal=minimal)
            return teams.to_csv(answer).encode() if csv else orjson.dumps(answer)

        return RENDERED.get(tag, fresh)

    answered = await teams.run(computer(request), plan, admit, render)
    if isinstance(answered, Response):
        return answered
    headers = validators.validator_headers(tag, ANSWER_CACHE_CONTROL, VARY)
    headers["cache-status"] = validators.cache_status(
        answered.tiers, redis=computer(request).cache.l2 is not None, bulk=True
    )
    if minimal:
        headers["preference-applied"] = validators.MINIMAL
    media = "text/csv" if csv else "application/json"
    return Response(answered.body, headers=headers, media_type=media)


def _example() -> tuple[dict[str, Any], dict[str, Any]] | tuple[None, None]:
    """A request of the served catalog's example operatives (`openapi_catalog.examples`) and
    its answer, computed cell by cell (no cache); none for a catalog without them."""
    found = examples(catalog())
    if found is None:
        return None, None
    profile, target = found
    body = {
        "attackers": {"operativeIds": [profile.operative_id]},
        "defenders": {"operativeIds": [target.id]},
    }
    plan = teams.parse(body, max_cells=100)
    jobs = teams.prepare_cells(plan)
    results = [Result(job.key, job.mode.evaluate(job.scenario), None, job.ignored) for job in jobs]
    return body, teams.answer(plan, results)


def openapi_paths(components: Components) -> dict[str, Any]:
    """`/v1/team-matchup`, its body and answer from their models."""
    body, answer = _example()
    post = operation(
        "teamMatchup",
        "a kill team against another: every profile × defender × situation, the best "
        "profile of each pair, melee on request (Accept: text/csv for CSV)",
        "matchups",
        components.ref(TeamMatchupAnswer),
        example=answer,
        errors=error_responses(components),
        requestBody=json_request(components.ref(TeamMatchupRequest, "validation"), body),
    )
    post["responses"]["200"]["content"]["text/csv"] = {"schema": {"type": "string"}}
    return {"/v1/team-matchup": {"post": post}}


routes = [Route("/v1/team-matchup", team_matchup, methods=["POST"])]
