"""Request and response helpers shared by the routes and the middleware.

Bodies are parsed and responses rendered with orjson (the service's hot path); every failure
a client can cause maps to the §12 error body with its status, never to a 500.
"""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from engine.errors import InputError
from schema.errors import HTTP_STATUS, REPLY_BYTES, error_body, within_reply
from service.compute import LOOP_BODY_BYTES, BudgetExceeded, Computer, loads

T = TypeVar("T")


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


async def json_body(request: Request) -> Any:
    """The parsed JSON body, or INVALID_INPUT naming what is wrong with it."""
    return loads(await request.body())


async def parsed_body(request: Request, parse: Callable[[Any], T] = lambda body: body) -> T:
    """`parse` of the JSON body: on the loop for a small body, in the engine pool above
    `LOOP_BODY_BYTES`, so that a megabyte of JSON and its validation never hold the loop."""
    raw = await request.body()
    if len(raw) <= LOOP_BODY_BYTES:
        return parse(loads(raw))
    return await computer(request).in_pool(lambda: parse(loads(raw)))


GRAPHQL_PATH = "/graphql"
GRAPHQL_MEDIA = "application/json; charset=utf-8"

SLOW_CLIENT_CUT = "killmath.slow_client_cut"
"""The scope key `service.protocol` sets on a request whose body came too slowly, once it
has answered 408: the app then reads a disconnect, which is that cut, not a client gone."""


def listed(errors: list[dict[str, Any]], omitted: int = 0) -> list[dict[str, Any]]:
    """A GraphQL reply's errors within 64 KiB (`schema.errors.within_reply`): the first that
    fit, then, if any were left out (or `omitted` were already), a final error saying how
    many in `extensions.omitted`, as the REST body's `omitted` does."""
    kept, left = within_reply(errors, REPLY_BYTES - 256)
    left += omitted
    if not left:
        return kept
    message = f"{left} more errors not listed: an error reply holds at most {REPLY_BYTES} bytes"
    return [*kept, {"message": message, "extensions": {"omitted": left}}]


def graphql_errors(details: list[dict[str, Any]], omitted: int = 0) -> dict[str, Any]:
    """GraphQL's response to a refused request, `{"errors": [{"message", "extensions"}]}`:
    one entry per problem, its §12 members (`code`, `field`, `message`, `limit`) as the
    extensions, within 64 KiB (`listed`; `omitted` more were left out already). The one
    home of that shape: the endpoint's refusals (`Refused`) and the middleware's on
    /graphql paths (413, 401, 429) both render through it."""
    entries = [{"message": d["message"], "extensions": d} for d in details]
    return {"errors": listed(entries, omitted)}


class Refusal(JSONResponse):
    """The §12 error body `{"error": {...}, "errors": [...]}`; on /graphql, GraphQL's
    (`graphql_errors`) with the same members, so a GraphQL client reads the middleware's
    refusals as it reads the endpoint's own."""

    def __init__(
        self, status: int, body: dict[str, Any], headers: Mapping[str, str] | None
    ) -> None:
        self.details: list[dict[str, Any]] = body["errors"]
        self.omitted: int = body.get("omitted", 0)
        self.given_headers = headers
        super().__init__(body, status_code=status, headers=headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(GRAPHQL_PATH):
            graphql = Response(
                orjson.dumps(graphql_errors(self.details, self.omitted)),
                self.status_code,
                headers=self.given_headers,
                media_type=GRAPHQL_MEDIA,
            )
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
    """The §12 error body of one problem (`schema.answers.errors.ErrorBody`): the
    middleware's refusals (413, 401, 429), Starlette's and strawberry's own (404, 405, 400), a
    fault (500). Also an ASGI app, so a middleware answers with
    `await refusal(...)(scope, receive, send)`."""
    body = error_body(InputError(code, field, message, limit))  # type: ignore[arg-type]
    return Refusal(status, body, headers)


class RateLimited(Exception):
    """The key's bucket lacks the tokens this request costs (HTTP 429, code RATE_LIMITED)."""

    def __init__(self, wait: float) -> None:
        self.retry_after = max(1, math.ceil(wait))
        super().__init__(f"rate limit of this API key exceeded; retry in {self.retry_after} s")

    def as_json(self) -> dict[str, object]:
        return {"code": "RATE_LIMITED", "field": "", "message": str(self)}

    def response(self) -> JSONResponse:
        return refusal(
            429, "RATE_LIMITED", str(self), headers={"retry-after": str(self.retry_after)}
        )


def error_response(error: InputError | BudgetExceeded | RateLimited) -> JSONResponse:
    """The refusal of a client's error, naming every problem it stands for."""
    if isinstance(error, RateLimited):
        return error.response()
    status = 503 if isinstance(error, BudgetExceeded) else HTTP_STATUS[error.code]
    return Refusal(status, error_body(error), None)


async def started(state: Any) -> None:
    """Wait until the app's start has run the route modules' `startup`s, in its background
    thread (`service.app.start_the_rest`); an app run without its lifespan has none."""
    start = getattr(state, "started", None)
    if start is not None:
        await asyncio.shield(start)  # one request given up must not cancel it for the rest


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
        except (InputError, BudgetExceeded, RateLimited) as exc:
            return error_response(exc)

    return wrapped
