"""uvicorn's HTTP/1.1 protocols with the read timeouts uvicorn lacks (issue 34, finding 10).

uvicorn closes a connection left idle after a response (`timeout_keep_alive`), but a client
that sends its headers or its body a few bytes at a time keeps its connection, and what the
server holds for it, as long as it likes: 30 clients sending a header line every 5 s were
all still connected after 45 s. `killmath serve` installs `AutoProtocol`, which adds:

- a header timeout: a request's headers must be complete within `KILLMATH_HEADER_TIMEOUT`
  of its first byte (a pipelined request's, once the response before it is complete);
- a minimum body rate: every `KILLMATH_BODY_WINDOW` seconds of a body must bring at least
  `KILLMATH_BODY_MIN_RATE` bytes a second. A window in which the server itself stopped
  reading (the app had not taken what came, uvicorn's flow control) or still owed the
  client its `100 Continue` is not held against the client: it starts a new one;
- the idle timeout (`KILLMATH_KEEP_ALIVE_TIMEOUT`, uvicorn's `timeout_keep_alive`) on a new
  connection too: uvicorn starts it only after a response, so a connection that never sent a
  byte stayed open forever; and bytes that begin no request (blank lines, which the parsers
  skip) do not restart it, as any byte did.

A cut answers 408 REQUEST_TIMEOUT with the service's error body (GraphQL's shape on
/graphql) and `Connection: close` when no response has started, then closes the connection;
the app reading the body sees a disconnect (`service.middleware` counts it as the 408).

Timers are set only when a read spans several chunks: a request that arrives in one chunk
(nearly all) costs a few attribute checks, no timer. Where each request stands is read after
every chunk: from the parser's callbacks (httptools) or the connection's state (h11).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final, Literal

import h11
import orjson
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.h11_impl import H11Protocol

from engine import REVISION
from engine.errors import InputError
from schema.errors import error_body
from service import metrics
from service.http import GRAPHQL_MEDIA, GRAPHQL_PATH, SLOW_CLIENT_CUT, graphql_errors
from service.settings import from_environment

log = logging.getLogger("killmath.http")

Phase = Literal["headers", "body"]
HEADERS: Final = "headers"
BODY: Final = "body"


class PauseAwareFlow(FlowControl):
    """uvicorn's flow control, remembering that it paused reading: meanwhile the client
    could not send, so that body window does not count against it."""

    paused = False  # since the body window began

    def pause_reading(self) -> None:
        self.paused = True
        super().pause_reading()


class SlowClientCuts:
    """The timeouts, over either of uvicorn's protocols (the subclass says, in `_reading`,
    whether the connection is amid a request's headers or its body)."""

    # what uvicorn's protocols have (for the type checker's sake: set by their __init__)
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    flow: FlowControl
    cycle: Any
    client: tuple[str, int] | None
    server_state: Any
    timeout_keep_alive: float
    timeout_keep_alive_task: asyncio.TimerHandle | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = from_environment()
        self._header_timeout = settings.header_timeout
        self._body_window = settings.body_window
        self._window_bytes_needed = settings.body_min_rate * settings.body_window
        self._timer: asyncio.TimerHandle | None = None
        self._watched: Phase | None = None
        self._window_bytes = 0
        self._idle_since = 0.0

    def _reading(self) -> Phase | None:
        raise NotImplementedError

    # the protocol's events
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # type: ignore[misc]
        self.flow = PauseAwareFlow(transport)
        self._idle()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)  # type: ignore[misc]
        self._disarm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)  # type: ignore[misc]
        phase = self._reading()
        if phase != self._watched:
            self._watch(phase)
        elif phase is None and self.timeout_keep_alive_task is None and self._owes_nothing():
            # bytes that began no request (blank lines): uvicorn stopped the idle timer on
            # them; it goes on from when the connection fell idle, or a client could trickle
            # them forever
            self._idle(self._idle_since)
        if phase == BODY:
            self._window_bytes += len(data)  # the chunk that ends the headers counts whole

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        self._idle_since = self.loop.time()  # uvicorn's idle timer starts now
        phase = self._reading()  # h11 reads a pipelined request now, without new data
        if phase != self._watched:
            self._watch(phase)

    # the timers
    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _watch(self, phase: Phase | None) -> None:
        """Time what the connection now waits for: headers, a body window, or (no request
        under way and no response owed) the idle timeout."""
        self._disarm()
        self._watched = phase
        if self.transport.is_closing():
            return
        if phase == HEADERS:
            self._timer = self.loop.call_later(self._header_timeout, self._headers_late)
        elif phase == BODY:
            if self._window_bytes_needed:
                self._window_bytes = 0
                self.flow.paused = False  # type: ignore[attr-defined]
                self._timer = self.loop.call_later(self._body_window, self._body_window_ends)
        elif self._owes_nothing():
            self._idle()

    def _owes_nothing(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _idle(self, since: float | None = None) -> None:
        """Start uvicorn's idle timer, or resume it, counting from `since`."""
        if self.timeout_keep_alive_task is None:
            now = self.loop.time()
            if since is None:
                self._idle_since = since = now
            self.timeout_keep_alive_task = self.loop.call_later(
                max(0.0, since + self.timeout_keep_alive - now),
                self.timeout_keep_alive_handler,  # type: ignore[attr-defined]
            )

    def _headers_late(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            # a pipelined request waits behind a response: its time starts once that is sent
            self._timer = self.loop.call_later(self._header_timeout, self._headers_late)
            return
        self._cut(HEADERS, f"the request headers took over {self._header_timeout:g} s", None)

    def _body_window_ends(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        flow: PauseAwareFlow = self.flow  # type: ignore[assignment]
        if (
            self._window_bytes >= self._window_bytes_needed
            or flow.paused
            or flow.read_paused
            or cycle.waiting_for_100_continue
        ):
            self._watch(BODY)  # the next window
            return
        rate = self._window_bytes_needed / self._body_window
        message = f"the request body came slower than {rate:g} bytes/s"
        self._cut(BODY, message, cycle)

    def _cut(self, phase: Phase, message: str, cycle: Any) -> None:
        """408 if no response has started, then close; the app reading the body (`cycle`'s)
        sees a disconnect, and anything it sends is dropped."""
        metrics.SLOW_CLIENTS.labels(phase).inc()
        client = f"{self.client[0]}:{self.client[1]}" if self.client else ""
        log.info("slow client cut: %s", message, extra={"phase": phase, "client": client})
        if cycle is None or not cycle.response_started:
            graphql = cycle is not None and cycle.scope["path"].startswith(GRAPHQL_PATH)
            self.transport.write(self._timeout_response(message, graphql))
            if cycle is not None:
                cycle.scope[SLOW_CLIENT_CUT] = phase
        if cycle is not None:
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()

    def _timeout_response(self, message: str, graphql: bool) -> bytes:
        body = error_body(InputError("REQUEST_TIMEOUT", "", message))
        content = orjson.dumps(graphql_errors(body["errors"]) if graphql else body)
        media = GRAPHQL_MEDIA if graphql else "application/json"
        head = [b"HTTP/1.1 408 Request Timeout"]
        head += [name + b": " + value for name, value in self.server_state.default_headers]
        head += [
            b"content-type: " + media.encode(),
            b"content-length: %d" % len(content),
            b"connection: close",
            b"killmath-engine-revision: %d" % REVISION,
        ]
        return b"\r\n".join(head) + b"\r\n\r\n" + content


class H11Cuts(SlowClientCuts, H11Protocol):
    """uvicorn's h11 protocol with the cuts."""

    def _reading(self) -> Phase | None:
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            return BODY
        if state is h11.IDLE and self.conn.trailing_data[0]:
            return HEADERS  # bytes of a request whose headers are not complete
        return None


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is not installed: h11 it is
    AutoProtocol: type[SlowClientCuts] = H11Cuts
else:

    class HttpToolsCuts(SlowClientCuts, HttpToolsProtocol):
        """uvicorn's httptools protocol with the cuts: the parser's callbacks say where the
        request stands."""

        _phase: Phase | None = None

        def _reading(self) -> Phase | None:
            return self._phase

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._phase = HEADERS

        def on_headers_complete(self) -> None:
            super().on_headers_complete()
            self._phase = BODY

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._phase = None

    AutoProtocol = HttpToolsCuts
