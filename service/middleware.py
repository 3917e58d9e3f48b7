"""One pure-ASGI middleware for what every request needs: a request id, the engine revision
header, a body size limit, metrics (the body bytes counted as sent: it is the outermost
middleware, so after compression) and an access log line.

Every response says `Killmath-Engine-Revision`: the revision that salts every answer's ETag
and cache key, so a client can tell an engine fix changed the numbers it stored.

The body limit is enforced twice: a declared `Content-Length` above it is refused before the
body is read, and a streamed body is counted as it arrives, so a chunked upload cannot slip
past. Either way the client gets 413 with the §12 error shape. Uploads have a limit of their
own (`path_limits`, by path: `/v1/import` and `/graphql`, whose `importProfiles` carries a file
in a variable; `service.graphql.routes` holds any other operation to the general limit).

A client that leaves while its body is read (Starlette's ClientDisconnect) is no error: one
INFO line, "client gone", with the request id, no response, and status 499 in the metrics
and the access line, never a 500 nor a traceback. A body `service.protocol` cut for coming
too slowly is counted as the 408 that answered it.
"""

from __future__ import annotations

import itertools
import secrets
import time

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine import REVISION
from service import metrics
from service.disconnect import CLIENT_GONE, client_gone
from service.http import SLOW_CLIENT_CUT, refusal
from service.logs import ACCESS, REQUEST_ID

# request ids: a random per-process prefix and a counter (unique across replicas, and far
# cheaper than a uuid4 per request)
_IDS = (f"{secrets.token_hex(6)}-{n:x}" for n in itertools.count(1))
_REVISION = (b"killmath-engine-revision", str(REVISION).encode())


class BodyTooLarge(Exception):
    pass


class ServiceMiddleware:
    def __init__(
        self, app: ASGIApp, *, max_body_bytes: int, path_limits: dict[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.path_limits = path_limits or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers = dict(scope["headers"])
        request_id = headers.get(b"x-request-id", b"").decode("latin-1")[:64] or next(_IDS)
        token = REQUEST_ID.set(request_id)
        status = 500
        response_started = False
        received = 0
        sent = 0
        limit = self.path_limits.get(scope["path"], self.max_body_bytes)

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        async def tagged_send(message: Message) -> None:
            nonlocal status, response_started, sent
            if message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            elif message["type"] == "http.response.start":
                status = message["status"]
                response_started = True
                message["headers"] = [
                    *message["headers"],
                    (b"x-request-id", request_id.encode()),
                    _REVISION,
                ]
            await send(message)

        try:
            declared = headers.get(b"content-length")
            too_long = declared is not None and (not declared.isdigit() or int(declared) > limit)
            if too_long:
                raise BodyTooLarge
            await self.app(scope, counted_receive, tagged_send)
        except BodyTooLarge:
            if response_started:
                raise
            refused = refusal(
                413, "LIMIT_EXCEEDED", f"the request body exceeds {limit} bytes", limit=limit
            )
            await refused(scope, receive, tagged_send)
        except ClientDisconnect:
            # the connection closed while the body was read: nobody is left to answer
            if SLOW_CLIENT_CUT in scope:
                status = 408  # service.protocol cut a slow body and answered 408 itself
            else:
                status = CLIENT_GONE
                client_gone(received=received)
        finally:
            elapsed = time.perf_counter() - started
            route = getattr(scope.get("route"), "path", "unmatched")
            metrics.observe_request(route, scope["method"], status, elapsed, sent)
            if ACCESS.enabled():
                ACCESS.write(
                    f"{scope['method']} {scope['path']} {status}",
                    {"status": status, "route": route, "durationMs": round(elapsed * 1e3, 3)},
                )
            REQUEST_ID.reset(token)
