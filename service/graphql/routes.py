"""GraphQL at /graphql: GraphQL over HTTP (`service.graphql.http`), strawberry's schema
executing, GraphiQL for a browser, and a cache of whole replies.

Resolvers reach the service through `info.context["service"]`, a thin adapter over the
process's Computer that turns its errors into GraphQL errors whose `extensions` carry the §12
members (code, field, message, limit) — and TIMEOUT when the time budget runs out.

`Endpoint.execute` is the one place an operation runs: it takes the parameters, the
negotiated media type and the request, and gives back the status and the body (a response's
`extensions` come from the schema's extensions' `get_results`, as strawberry has them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.types.execution import PreExecutionError
from strawberry.types.graphql import OperationType

from engine.errors import InputError
from schema.limits import too_many_matchups, versus_too_large
from service import auth, costs, metrics, pages, versus
from service import grid as grids
from service import team_matchup as teams
from service.cache import ByteLRU, Tier
from service.compute import (
    BudgetExceeded,
    Computer,
    Job,
    Result,
    encode,
    prepare_each,
)
from service.graphql import http as graphql_http
from service.graphql import scalars
from service.graphql.cost import CONTEXT_KEY, GraphQLHTTP, Tally
from service.graphql.http import ALLOW, Params, Refused
from service.graphql.operation import DOCUMENT
from service.graphql.schema import build_schema
from service.graphql.uploads import TooManyTokens, only_uploads
from service.http import RateLimited, refusal, started
from service.rest.compute import run_grid
from service.settings import Settings


def graphql_error(error: InputError | BudgetExceeded | RateLimited) -> GraphQLError:
    """The GraphQL error of a refusal; an InputError of several problems rides along as the
    original error, listed one error per problem in the reply (`graphql.http.response`)."""
    return GraphQLError(
        str(error.as_json()["message"]), extensions=error.as_json(), original_error=error
    )


class Service:
    """What resolvers may ask of the service; every failure is a GraphQLError."""

    def __init__(self, computer: Computer, settings: Settings, tally: Tally) -> None:
        self.computer = computer
        self.settings = settings
        self.tally = tally
        self.computed = False
        """Whether any answer of this request was computed for it, not found in a cache: such
        a reply (`cached: false`, a `cachedCells` short of all) is not replayed (`Replies`)."""

    def _found(self, tiers: Iterable[Tier | None]) -> None:
        self.computed |= any(tier is None for tier in tiers)

    async def one(self, body: Any, ruleset: str, mode: str) -> Result:
        envelope = {**body, "ruleset": ruleset, "mode": mode} if isinstance(body, dict) else body
        try:
            job = await self.computer.prepare(encode(envelope), mode)
            await self.tally.pay(costs.of_job(job))
            result = await self.computer.answer(job)
        except (InputError, BudgetExceeded, RateLimited) as exc:
            raise graphql_error(exc) from None
        self._found([result.tier])
        return result

    async def pay_bytes(self, size: int, field: str, per_byte: float) -> None:
        """Charge text or a file by its bytes before it is read (`weaponRules(text)`,
        `importProfiles`), as REST's `/v1/weapon-rules` and `/v1/import` are charged."""
        try:
            await self.tally.pay(costs.of_bytes(size, field, per_byte))
        except (InputError, RateLimited) as exc:
            raise graphql_error(exc) from None

    async def many(self, envelopes: list[Any]) -> list[Result | dict[str, Any]]:
        limit = self.settings.max_matchups
        if len(envelopes) > limit:
            raise graphql_error(too_many_matchups(len(envelopes), limit))
        computer = self.computer

        async def work() -> list[Result | InputError]:
            prepared = await computer.in_pool(prepare_each, envelopes)
            await self.tally.pay(costs.of_jobs(prepared, "inputs"))
            return await computer.answer_many(prepared)

        try:
            answers = await computer.within_budget(work())
        except (InputError, BudgetExceeded, RateLimited) as exc:
            raise graphql_error(exc) from None
        self._found(a.tier for a in answers if isinstance(a, Result))
        return [a if isinstance(a, Result) else a.as_json() for a in answers]

    async def grid(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            spec = grids.parse(body, self.settings.max_grid_cells)

            async def admit(jobs: Sequence[Job], _: Sequence[int]) -> None:
                await self.tally.pay(costs.of_jobs(jobs, "attackers"))

            answer = await run_grid(self.computer, spec, admit)
        except (InputError, BudgetExceeded, RateLimited) as exc:
            raise graphql_error(exc) from None
        assert isinstance(answer, dict)
        self._found(answer["tiers"])
        return answer

    async def versus(self, cells: list[versus.Cell]) -> list[dict[str, Any] | GraphQLError]:
        """The shoot summaries of many catalog cells, one cache round trip for all of them
        (GraphQL `versus` fields, batched per query level by a DataLoader); a bad cell gets
        its error in place. The cells of one batch count against the grid cell limit."""
        limit = self.settings.max_grid_cells
        if len(cells) > limit:
            raise graphql_error(versus_too_large(len(cells), limit))
        computer = self.computer

        async def work() -> list[Result | InputError]:
            envelopes = [versus.envelope(cell) for cell in cells]
            prepared = await computer.in_pool(prepare_each, envelopes)
            await self.tally.pay(costs.of_jobs(prepared, "operativeIds"))
            return await computer.answer_many(prepared)

        try:
            answers = await computer.within_budget(work())
        except (InputError, BudgetExceeded, RateLimited) as exc:
            raise graphql_error(exc) from None
        self._found(a.tier for a in answers if isinstance(a, Result))
        return [
            versus.row(cell, a) if isinstance(a, Result) else graphql_error(a)
            for cell, a in zip(cells, answers, strict=True)
        ]

    async def team_matchup(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            plan = teams.parse(body, self.settings.max_grid_cells)

            async def charge(jobs: Sequence[Job]) -> None:
                await self.tally.pay(costs.of_jobs(jobs, "attackers"))

            answered = await teams.run(
                self.computer, plan, charge, lambda results: teams.answer(plan, results)
            )
        except (InputError, BudgetExceeded, RateLimited) as exc:
            raise graphql_error(exc) from None
        assert not isinstance(answered, Response)
        self._found(answered.tiers)
        return {**answered.body, "cachedCells": answered.cached_cells}


class GraphiQL(GraphQL):
    """Strawberry's view, asked only to render GraphiQL (a browser's GET without a query)."""

    async def render_graphql_ide(self, request: Request) -> Response:
        """The service's own GraphiQL page, its assets served locally (service.pages)."""
        return pages.graphiql(request)


REPLY_HIT = metrics.CACHE.labels(tier="reply", result="hit")
REPLY_MISS = metrics.CACHE.labels(tier="reply", result="miss")


class Replies:
    """Whole GraphQL replies, kept by request body, for documents that answer from cache.

    GraphQL execution costs milliseconds where the cached answer costs microseconds, so a
    repeated request (same document, same variables) is answered with the bytes of an
    earlier reply. Only a reply without errors, every answer of which came from a cache
    (`Service.computed` is false), is kept: such a reply says exactly what re-executing
    would say, `cached: true` and a `cachedCells` of every cell included. Bodies and
    replies count against a byte budget (`service.cache.ByteLRU`): a pair above an eighth of
    it (a big grid) is not kept — its cells are cached one by one anyway.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._entries = ByteLRU(budget)

    def get(self, key: bytes) -> bytes | None:
        reply = self._entries.get(key)
        (REPLY_MISS if reply is None else REPLY_HIT).inc()
        return reply

    def offer(
        self, key: bytes, status: int, answer: dict[str, Any], reply: bytes, computed: bool
    ) -> None:
        """Keep `reply` (the encoded `answer`) for `key` if it may be replayed."""
        if status != 200 or computed:
            return
        if "errors" in answer or not answer.get("data"):
            return
        self._entries.put(key, reply)


def startup(state: Any) -> None:
    """Build the schema and the reply cache of one app, with that app's limits. Without
    introspection GraphiQL goes too: it cannot work without it."""
    settings: Settings = state.settings
    state.graphql_schema = build_schema(
        max_depth=settings.graphql_max_depth,
        max_aliases=settings.graphql_max_aliases,
        max_tokens=settings.graphql_max_tokens,
        introspection=settings.graphql_introspection,
    )
    ide = settings.graphql_introspection
    state.graphql_schema.extensions = (*state.graphql_schema.extensions, GraphQLHTTP)
    state.graphiql = GraphiQL(state.graphql_schema, graphql_ide="graphiql") if ide else None
    state.graphql_replies = Replies(settings.graphql_reply_cache_bytes)
    state.graphql_sdl = (state.graphql_schema.as_str() + "\n").encode()


async def built(state: Any) -> None:
    """Wait until this app's schema is built: by the app's start, in its background thread
    (`service.app.start_the_rest`), or here for an app run without its lifespan."""
    await started(state)
    if getattr(state, "graphql_schema", None) is None:
        startup(state)


SCHEMA_PATH = "/graphql/schema.graphql"


def _response(status: int, body: bytes, media: str, headers: Any = None) -> Response:
    return Response(body, status, headers=headers, media_type=f"{media}; charset=utf-8")


class Endpoint:
    """/graphql: GraphiQL for a browser, else one operation (from the reply cache when a
    POSTed body was answered before)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope["app"].state
        await built(state)
        request = Request(scope, receive)
        try:
            response = await self.respond(request, state)
        except Refused as refused:
            response = refused.response()
        if response is None:
            await state.graphiql(scope, receive, send)
        else:
            await response(scope, receive, send)

    async def respond(self, request: Request, state: Any) -> Response | None:
        """The answer, or None for GraphiQL."""
        method = request.method
        if method not in ("GET", "POST"):
            raise Refused(
                405,
                "METHOD_NOT_ALLOWED",
                "",
                f"/graphql answers GET and POST, not {method}",
                {"allow": ALLOW},
            )
        accept = request.headers.get("accept")
        if (
            method == "GET"
            and "query" not in request.query_params
            and graphql_http.wants_html(accept)
        ):
            if state.graphiql is None:
                message = f"GraphiQL is off with introspection; the schema is at {SCHEMA_PATH}"
                raise Refused(404, "NOT_FOUND", "", message)
            return None
        media = graphql_http.negotiate(accept)
        if method == "GET":
            params = graphql_http.params_from_query_string(request.query_params)
            status, body, _ = await self.execute(params, media, request, state)
            return _response(status, orjson.dumps(body), media)
        graphql_http.check_content_type(request.headers.get("content-type"))
        raw = await request.body()
        limit = state.settings.max_body_bytes
        if len(raw) > limit:
            try:
                uploads = only_uploads(raw, limit, state.settings.graphql_max_tokens)
            except TooManyTokens as exc:
                refused = PreExecutionError(data=None, errors=[exc.error])
                status, body = graphql_http.response(refused, media)
                return _response(status, orjson.dumps(body), media)
            if not uploads:
                message = (
                    f"the request body exceeds {limit} bytes (only importProfiles may be larger)"
                )
                return refusal(413, "LIMIT_EXCEEDED", message, limit=limit)
        replies: Replies = state.graphql_replies
        # a metered request runs every time: its reply says the key's budget as it is now
        cached = replies.budget > 0 and auth.meter(request.scope) is None
        key = media.encode() + b"\n" + raw
        reply = replies.get(key) if cached else None
        if reply is not None:
            return _response(200, reply, media)
        params = graphql_http.params_from_body(raw)
        status, body, service = await self.execute(params, media, request, state)
        encoded = orjson.dumps(body)
        if cached:
            replies.offer(key, status, body, encoded, service.computed)
        return _response(status, encoded, media)

    async def execute(
        self, params: Params, media: str, request: Request, state: Any
    ) -> tuple[int, dict[str, Any], Service]:
        """Run one operation: queries over GET, queries and mutations over POST. The status,
        the body, and the service the resolvers used (what it computed)."""
        allowed = {OperationType.QUERY}
        if request.method == "POST":
            allowed.add(OperationType.MUTATION)
        tally = Tally(auth.meter(request.scope), state.settings.max_request_tokens)
        service = Service(state.computer, state.settings, tally)
        context = {"request": request, "service": service, CONTEXT_KEY: tally}
        try:
            result = await state.graphql_schema.execute(
                params.query,
                variable_values=params.variables,
                context_value=context,
                operation_name=params.operation_name,
                allowed_operation_types=allowed,
                operation_extensions=params.extensions,
            )
        except InvalidOperationTypeError as exc:
            if request.method == "GET" and exc.operation_type == OperationType.MUTATION:
                message = "a mutation is sent by POST, never by GET"
                allow = {"allow": "POST"}
                raise Refused(405, "METHOD_NOT_ALLOWED", "query", message, allow) from None
            error = GraphQLError(exc.as_http_error_reason(request.method))
            result = PreExecutionError(data=None, errors=[error])
        except CannotGetOperationTypeError as exc:
            result = PreExecutionError(data=None, errors=[GraphQLError(exc.as_http_error_reason())])
        return (*graphql_http.response(result, media, context.get(DOCUMENT)), service)


async def published_schema(request: Request) -> Response:
    """The schema as SDL (`service.graphql.schema`), for clients of a server without
    introspection."""
    state = request.app.state
    await built(state)
    return Response(state.graphql_sdl, media_type="text/plain; charset=utf-8")


async def dice_specification(request: Request) -> Response:
    """What the `Dice` scalar's `@specifiedBy` URL points at: its grammar."""
    return Response(scalars.SPECIFICATION, media_type="text/plain; charset=utf-8")


routes = [
    Route("/graphql", Endpoint()),
    Route(SCHEMA_PATH, published_schema, methods=["GET"]),
    Route(scalars.SPECIFIED_BY, dice_specification, methods=["GET"]),
]
