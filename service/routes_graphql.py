"""GraphQL at /graphql (strawberry's ASGI app; GraphiQL on GET from a browser).

Resolvers reach the service through `info.context["service"]`, a thin adapter over the
process's Computer that turns its errors into GraphQL errors whose `extensions` carry the §12
members (code, field, message, limit) — and TIMEOUT when the time budget runs out.
"""

from __future__ import annotations

from typing import Any

import orjson
from graphql import GraphQLError
from starlette.routing import Route
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL

from engine.errors import InputError
from schema.graphql import build_schema
from service import grid as grids
from service.compute import BudgetExceeded, Computer, Result
from service.routes_compute import run_grid
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
            return await self.computer.one(envelope, mode)
        except (InputError, BudgetExceeded) as exc:
            raise graphql_error(exc) from None

    async def many(self, envelopes: list[Any]) -> list[Result | dict[str, Any]]:
        limit = self.settings.max_matchups
        if len(envelopes) > limit:
            error = InputError("LIMIT_EXCEEDED", "inputs", f"at most {limit} matchups", limit)
            raise graphql_error(error)
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


class KillmathGraphQL(GraphQL):
    async def get_context(self, request: Any, response: Any) -> dict[str, Any]:
        app = request.app
        return {
            "request": request,
            "response": response,
            "service": Service(app.state.computer, app.state.settings),
        }

    def encode_json(self, data: object) -> bytes:
        return orjson.dumps(data)


class LazyGraphQL:
    """Strawberry's app, built on first use per Starlette app, with that app's limits."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope["app"].state
        if getattr(state, "graphql", None) is None:
            settings: Settings = state.settings
            schema = build_schema(
                max_depth=settings.graphql_max_depth,
                max_aliases=settings.graphql_max_aliases,
                max_tokens=settings.graphql_max_tokens,
            )
            state.graphql = KillmathGraphQL(schema)
        await state.graphql(scope, receive, send)


routes = [Route("/graphql", LazyGraphQL(), methods=["GET", "POST"])]
