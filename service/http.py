"""Request and response helpers shared by the routes and the middleware.

Bodies are parsed and responses rendered with orjson (the service's hot path); every failure
a client can cause maps to the §12 error body with its status, never to a 500.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from engine.errors import HTTP_STATUS, InputError
from service.compute import BudgetExceeded, Computer


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


async def json_body(request: Request) -> Any:
    """The parsed JSON body, or INVALID_INPUT naming what is wrong with it."""
    raw = await request.body()
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError("INVALID_INPUT", "", f"the body is not valid JSON: {exc}") from None


GRAPHQL_PATH = "/graphql"


class Refusal(JSONResponse):
    """The §12 error body `{"error": {...}}`; on /graphql, GraphQL's `{"errors": [{"message",
    "extensions": {...}}]}` with the same members, so a GraphQL client reads the middleware's
    refusals (413, 401, 429) as it reads the endpoint's own."""

    def __init__(
        self, status: int, error: dict[str, object], headers: Mapping[str, str] | None
    ) -> None:
        self.error = error
        self.given_headers = headers
        super().__init__({"error": error}, status_code=status, headers=headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(GRAPHQL_PATH):
            body = {"errors": [{"message": self.error["message"], "extensions": self.error}]}
            graphql = JSONResponse(body, status_code=self.status_code, headers=self.given_headers)
            await graphql(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def refusal(
    status: int,
    code: str,
    message: str,
    *,
    field: str = "",
    limit: int | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """The §12 error body: for an InputError or BudgetExceeded (via `error_response`), the
    middleware's refusals (413, 401, 429), Starlette's own (404, 405), a fault (500). Also an
    ASGI app, so a middleware answers with `await refusal(...)(scope, receive, send)`."""
    error: dict[str, object] = {"code": code, "field": field, "message": message}
    if limit is not None:
        error["limit"] = limit
    return Refusal(status, error, headers)


def error_response(error: InputError | BudgetExceeded) -> JSONResponse:
    status = 503 if isinstance(error, BudgetExceeded) else HTTP_STATUS[error.code]
    return refusal(status, **error.as_json())  # type: ignore[arg-type]


def computer(request: Request) -> Computer:
    return request.app.state.computer


Endpoint = Callable[[Request], Awaitable[Response]]


def answers_errors(endpoint: Endpoint) -> Endpoint:
    """Turn the client's errors into their §12 responses, right at the route: what a client
    can cause is answered where it happens, and only true faults reach the app's handler."""

    @functools.wraps(endpoint)
    async def wrapped(request: Request) -> Response:
        try:
            return await endpoint(request)
        except (InputError, BudgetExceeded) as exc:
            return error_response(exc)

    return wrapped
