"""GraphQL at /graphql (strawberry's ASGI app; GraphiQL on GET from a browser).

Resolvers reach the service through `info.context["service"]`, a thin adapter over the
process's Computer that turns its errors into GraphQL errors whose `extensions` carry the §12
members (code, field, message, limit) — and TIMEOUT when the time budget runs out.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import orjson
from cross_web import HTTPException
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send
from strawberry.asgi import GraphQL

from engine.errors import InputError
from schema.graphql import build_schema
from schema.limits import too_many_matchups, versus_too_large
from service import grid as grids
from service import metrics, pages, versus
from service import team_matchup as teams
from service.compute import BudgetExceeded, Computer, Result, encode
from service.graphql_uploads import only_uploads
from service.http import refusal
from service.routes_compute import run_grid
from service.routes_team import run_team_matchup
from service.settings import Settings


def graphql_error(error: InputError | BudgetExceeded) -> GraphQLError:
    return GraphQLError(str(error.as_json()["message"]), extensions=error.as_json())


class Service:
    """What resolvers may ask of the service; every failure is a GraphQLError."""

    def __init__(self, computer: Computer, settings: Settings) -> None:
        self.computer = computer
        self.settings = settings

    async def one(self, body: Any, ruleset: str, mode: str) -> Result:
        envelope = {**body, "ruleset": ruleset, "mode": mode} if isinstance(body, dict) else body
        try:
            return await self.computer.one(encode(envelope), mode)
        except (InputError, BudgetExceeded) as exc:
            raise graphql_error(exc) from None

    async def many(self, envelopes: list[Any]) -> list[Result | dict[str, Any]]:
        limit = self.settings.max_matchups
        if len(envelopes) > limit:
            raise graphql_error(too_many_matchups(len(envelopes), limit))
        try:
            answers = await self.computer.many(envelopes)
        except BudgetExceeded as exc:
            raise graphql_error(exc) from None
        return [a if isinstance(a, Result) else a.as_json() for a in answers]

    async def grid(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            spec = grids.parse(body, self.settings.max_grid_cells)
            return await run_grid(self.computer, spec)
        except (InputError, BudgetExceeded) as exc:
            raise graphql_error(exc) from None

    async def versus(self, cells: list[versus.Cell]) -> list[dict[str, Any] | GraphQLError]:
        """The shoot summaries of many catalog cells, one cache round trip for all of them
        (GraphQL `versus` fields, batched per query level by a DataLoader); a bad cell gets
        its error in place. The cells of one batch count against the grid cell limit."""
        limit = self.settings.max_grid_cells
        if len(cells) > limit:
            raise graphql_error(versus_too_large(len(cells), limit))
        try:
            answers = await self.computer.many([versus.envelope(cell) for cell in cells])
        except BudgetExceeded as exc:
            raise graphql_error(exc) from None
        return [
            versus.row(cell, a) if isinstance(a, Result) else graphql_error(a)
            for cell, a in zip(cells, answers, strict=True)
        ]

    async def team_matchup(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            plan = teams.parse(body, self.settings.max_grid_cells)
            return await run_team_matchup(self.computer, plan)
        except (InputError, BudgetExceeded) as exc:
            raise graphql_error(exc) from None


class KillmathGraphQL(GraphQL):
    async def get_context(self, request: Any, response: Any) -> dict[str, Any]:
        app = request.app
        return {
            "request": request,
            "response": response,
            "service": Service(app.state.computer, app.state.settings),
        }

    async def render_graphql_ide(self, request: Request) -> Response:
        """The service's own GraphiQL page, its assets served locally (service.pages)."""
        return pages.graphiql(request)

    def encode_json(self, data: object) -> bytes:
        return orjson.dumps(data)

    def decode_json(self, data: str | bytes) -> object:
        # orjson's error subclasses json's, which strawberry answers with 400; it also refuses
        # pathological nesting instead of overflowing the recursion limit
        return orjson.loads(data)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Strawberry's app, with its HTTP refusals (a body that is not JSON, no query, a
        method it does not serve) in the service's error body instead of plain text."""
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope, receive))
        except HTTPException as exc:
            response = refusal(exc.status_code, "INVALID_INPUT", exc.reason)
        await response(scope, receive, send)


REPLY_HIT = metrics.CACHE.labels(tier="reply", result="hit")
REPLY_MISS = metrics.CACHE.labels(tier="reply", result="miss")


class Replies:
    """Whole GraphQL replies, kept by request body, for documents that answer from cache.

    GraphQL execution costs milliseconds where the cached answer costs microseconds, so a
    repeated request (same document, same variables) is answered with the bytes of an
    earlier reply. Only a reply without errors and without `"cached":false` is kept: such a
    reply says exactly what re-executing would say, `cached: true` included. Bodies and
    replies count against a byte budget, least recently used evicted first; a pair above an
    eighth of the budget (a big grid) is not kept — its cells are cached one by one anyway.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.size = 0
        self._entries: OrderedDict[bytes, bytes] = OrderedDict()

    def get(self, body: bytes) -> bytes | None:
        reply = self._entries.get(body)
        if reply is None:
            REPLY_MISS.inc()
            return None
        REPLY_HIT.inc()
        self._entries.move_to_end(body)
        return reply

    def offer(self, body: bytes, status: int, reply: bytes) -> None:
        cost = len(body) + len(reply)
        if status != 200 or cost > self.budget // 8 or b'"cached":false' in reply:
            return
        try:
            answer = orjson.loads(reply)
        except orjson.JSONDecodeError:
            return
        if not isinstance(answer, dict) or "errors" in answer or not answer.get("data"):
            return
        if body in self._entries:
            return
        self._entries[body] = reply
        self.size += cost
        while self.size > self.budget:
            old_body, old_reply = self._entries.popitem(last=False)
            self.size -= len(old_body) + len(old_reply)


async def _read(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def startup(state: Any) -> None:
    """Build the schema and the reply cache of one app, with that app's limits. Without
    introspection GraphiQL goes too: it cannot work without it."""
    settings: Settings = state.settings
    schema = build_schema(
        max_depth=settings.graphql_max_depth,
        max_aliases=settings.graphql_max_aliases,
        max_tokens=settings.graphql_max_tokens,
        introspection=settings.graphql_introspection,
    )
    ide = "graphiql" if settings.graphql_introspection else None
    state.graphql = KillmathGraphQL(schema, graphql_ide=ide)
    state.graphql_replies = Replies(settings.graphql_reply_cache_bytes)


class LazyGraphQL:
    """Strawberry's app (built by `startup`, or on first use), behind the reply cache for
    POSTed documents; a POSTed body above the general limit must be an upload
    (`service.graphql_uploads`)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope["app"].state
        if getattr(state, "graphql", None) is None:
            startup(state)
        replies: Replies = state.graphql_replies
        if scope["method"] != "POST":
            await state.graphql(scope, receive, send)
            return
        body = await _read(receive)
        limit = state.settings.max_body_bytes
        if len(body) > limit and not only_uploads(body, limit):
            message = f"the request body exceeds {limit} bytes (only importProfiles may be larger)"
            await refusal(413, "LIMIT_EXCEEDED", message, limit=limit)(scope, receive, send)
            return
        reply = replies.get(body) if replies.budget else None
        if reply is not None:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(reply)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": reply})
            return
        await self._execute(state.graphql, scope, body, receive, send, replies)

    async def _execute(
        self,
        app: KillmathGraphQL,
        scope: Scope,
        body: bytes,
        receive: Receive,
        send: Send,
        replies: Replies,
    ) -> None:
        replayed = False
        status = 0
        parts: list[bytes] = []

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def capture(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))
            await send(message)

        await app(scope, replay, capture)
        replies.offer(body, status, b"".join(parts))


routes = [Route("/graphql", LazyGraphQL(), methods=["GET", "POST"])]
