"""Cancel a request's work when its client goes away (issue 34: at most 1 s more CPU).

Starlette runs a handler to its end whether or not anyone still reads the answer, so a client
that leaves mid-computation would keep the engine busy for nothing. This pure-ASGI middleware
is the only reader of the server's receive channel: it pumps the request's messages to the
application one at a time (the body's backpressure is kept) and, once the body is in, keeps
listening. An `http.disconnect` before the answer is sent cancels the application's task; the
cancellation reaches `Computer.results`, which stops every flight nobody else waits on
(`service.compute`). The request is then logged at INFO and counted with status 499 (client
closed request), never as a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.logs import REQUEST_ID

CLIENT_GONE = 499
"""The status a request is counted and logged with when its client left before it could be
answered (nginx's "client closed request"): nothing is sent, and it is no server error."""
log = logging.getLogger("killmath.disconnect")


def client_gone(**detail: object) -> None:
    """The one line a client gone before its answer leaves: INFO, with the request id, while
    its body was read (`ServiceMiddleware`) or while its work ran (`Disconnect`)."""
    log.info("client gone", extra={"requestId": REQUEST_ID.get(""), **detail})


class Disconnect:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        inbox: asyncio.Queue[Message | BaseException] = asyncio.Queue(maxsize=1)
        started = finished = False

        async def app_receive() -> Message:
            item = await inbox.get()
            if isinstance(item, BaseException):
                raise item
            return item

        async def watched_send(message: Message) -> None:
            nonlocal started, finished
            if message["type"] == "http.response.start":
                started = True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                finished = True
            await send(message)

        async def pump() -> bool:
            """Forward messages until the client leaves (True) or receiving fails (False)."""
            while True:
                try:
                    message = await receive()
                except Exception as exc:  # the body limit (`ServiceMiddleware`), for the app
                    await inbox.put(exc)
                    return False
                if message["type"] == "http.disconnect":
                    with contextlib.suppress(asyncio.QueueFull):
                        inbox.put_nowait(message)  # for an app that listens for it itself
                    return True
                await inbox.put(message)

        work = asyncio.create_task(self.app(scope, app_receive, watched_send))
        listening = asyncio.create_task(pump())
        try:
            await asyncio.wait({work, listening}, return_when=asyncio.FIRST_COMPLETED)
            if work.done() or not listening.result() or finished:
                await work
                return
            work.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await work
            client_gone(work="stopped")
            if not started:
                await send({"type": "http.response.start", "status": CLIENT_GONE, "headers": []})
                await send({"type": "http.response.body", "body": b""})
        finally:
            for task in (work, listening):
                task.cancel()
