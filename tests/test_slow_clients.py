"""Slow clients are cut off by `killmath serve` itself (issue 34, finding 10).

A real `killmath serve` with small timeouts (1 s), over raw sockets, once with each of
uvicorn's protocols (`service.protocol`'s httptools and h11 subclasses): headers that trickle
in get 408 and a closed connection, so does a body below the minimum rate; a normal keep-alive
exchange and a fast or steady large body are untouched, and an idle connection is closed
without a word. The tests wait for events (a closed socket, a counter), never for a time.
"""

from __future__ import annotations

import json
import select
import socket
import sys
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
from service_errors import ErrorShape
from service_harness import Server

SETTINGS = {
    "header_timeout": 1,
    "body_window": 1,
    "body_min_rate": 100,  # bytes/s: 100 bytes a window
    "keep_alive_timeout": 1,
    "log_level": "INFO",
}
GIVE_UP = 60.0  # seconds without the awaited event: the test fails (never a bound on time)
SHOOT = b'{"attacker": {"attacks": 4, "hit": 3, "normalDamage": 3, "criticalDamage": 4}}'


def serve_with(protocol: str) -> list[str]:
    """`killmath serve` with AutoProtocol set to one of service.protocol's classes."""
    script = (
        "import sys, service.protocol as p; "
        f"p.AutoProtocol = p.{protocol}; "
        "from service.cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    return [sys.executable, "-c", script, "serve"]


@pytest.fixture(scope="module", params=["HttpToolsCuts", "H11Cuts"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    server = Server(command=serve_with(request.param), **SETTINGS)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def shape(server: Server) -> ErrorShape:
    return ErrorShape(httpx.get(server.url + "/openapi.json").json())


def connect(server: Server) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", server.port))
    s.settimeout(GIVE_UP)
    return s


def until_closed(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while True:
        try:
            data = s.recv(65536)
        except ConnectionResetError:
            return received
        if not data:
            return received
        received += data


def trickle(s: socket.socket, piece: Callable[[int], bytes], every: float = 0.2) -> bytes:
    """Send `piece(n)` every `every` seconds until the server answers or closes; what it sent
    until it closed. Fails if it never does."""
    deadline = time.monotonic() + GIVE_UP
    n = 0
    while time.monotonic() < deadline:
        readable, _, _ = select.select([s], [], [], every)
        if readable:
            return until_closed(s)
        n += 1
        try:
            s.sendall(piece(n))
        except (BrokenPipeError, ConnectionResetError):
            return until_closed(s)
    pytest.fail(f"the server never cut the connection in {GIVE_UP:g} s")


def head_of(head: bytes) -> tuple[int, dict[str, str]]:
    """A response's status and headers (lower-case names)."""
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(": ")
        headers[name.lower()] = value
    return int(status_line.split()[1]), headers


def parsed(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 response: its status, headers and body."""
    head, _, body = raw.partition(b"\r\n\r\n")
    status, headers = head_of(head)
    return status, headers, body[: int(headers["content-length"])]


def waited_metric(server: Server, name: str, value: float, **labels: str) -> float:
    """The sample once it reaches `value` (the server counts a cut as it closes)."""
    deadline = time.monotonic() + GIVE_UP
    while (seen := server.metric(name, **labels)) < value and time.monotonic() < deadline:
        time.sleep(0.05)
    return seen


def no_500s(server: Server) -> bool:
    text = httpx.get(server.url + "/metrics").text
    return not any('status="500"' in line for line in text.splitlines())


def test_headers_that_trickle_get_408_and_a_closed_connection(
    server: Server, shape: ErrorShape
) -> None:
    cuts = server.metric("killmath_slow_clients_total", phase="headers")
    with connect(server) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n")
        raw = trickle(s, lambda n: b"X-Slow-%d: %d\r\n" % (n, n))
    status, headers, body = parsed(raw)
    assert status == 408
    assert headers["connection"] == "close"
    assert headers["content-type"] == "application/json"
    error = json.loads(body)
    assert shape.body_problems(error) == []
    assert error["error"]["code"] == "REQUEST_TIMEOUT"
    assert waited_metric(server, "killmath_slow_clients_total", cuts + 1, phase="headers") == (
        cuts + 1
    )


@pytest.mark.parametrize("path", ["/v1/shoot", "/graphql"])
def test_a_body_below_the_minimum_rate_gets_408_and_a_closed_connection(
    server: Server, shape: ErrorShape, path: str
) -> None:
    cuts = server.metric("killmath_slow_clients_total", phase="body")
    answered = server.metric(
        "killmath_http_requests_total", route=path, method="POST", status="408"
    )
    with connect(server) as s:
        s.sendall(
            f"POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            "Content-Length: 100000\r\n\r\n".encode()
        )
        raw = trickle(s, lambda n: b"     ")  # 25 bytes/s, a quarter of the minimum
    status, headers, body = parsed(raw)
    assert status == 408
    assert headers["connection"] == "close"
    error = json.loads(body)
    if path == "/graphql":  # GraphQL's error shape, the same members
        (only,) = error["errors"]
        assert shape.members_problems(only["extensions"]) == []
        assert only["extensions"]["code"] == "REQUEST_TIMEOUT"
    else:
        assert shape.body_problems(error) == []
        assert error["error"]["code"] == "REQUEST_TIMEOUT"
    assert waited_metric(server, "killmath_slow_clients_total", cuts + 1, phase="body") == cuts + 1
    # the app read the cut as a disconnect: counted as the 408 it was, no 500
    labels = {"route": path, "method": "POST", "status": "408"}
    assert waited_metric(server, "killmath_http_requests_total", answered + 1, **labels) == (
        answered + 1
    )
    assert no_500s(server)
    assert "Traceback" not in server.log_text()


def request(path: str, body: bytes = b"", *, close: bool = False) -> bytes:
    method = "POST" if body else "GET"
    head = f"{method} {path} HTTP/1.1\r\nHost: test\r\nContent-Length: {len(body)}\r\n"
    if body:
        head += "Content-Type: application/json\r\n"
    if close:
        head += "Connection: close\r\n"
    return head.encode() + b"\r\n" + body


def response(s: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """The next whole response on a kept-alive connection."""
    raw = b""
    while b"\r\n\r\n" not in raw:
        raw += s.recv(65536)
    head, _, body = raw.partition(b"\r\n\r\n")
    status, headers = head_of(head)
    while len(body) < int(headers["content-length"]):
        body += s.recv(65536)
    return status, headers, body


def test_a_keep_alive_connection_serves_requests_then_closes_when_idle(server: Server) -> None:
    with connect(server) as s:
        for _ in range(3):
            s.sendall(request("/healthz"))
            assert response(s)[0] == 200
        s.sendall(request("/v1/shoot", SHOOT))
        assert response(s)[0] == 200
        assert until_closed(s) == b""  # idle past the keep-alive timeout: closed, no 408


def test_a_new_connection_that_sends_nothing_is_closed(server: Server) -> None:
    with connect(server) as s:
        assert until_closed(s) == b""


def test_a_fast_large_body_is_not_cut(server: Server) -> None:
    body = SHOOT + b" " * 900_000  # under the 1 MiB body limit, in one go
    with connect(server) as s:
        s.sendall(request("/v1/shoot", body, close=True))
        status, _, answer = parsed(until_closed(s))
    assert status == 200
    assert json.loads(answer)["expectedDamage"] > 0


def test_a_steady_body_above_the_rate_is_not_cut(server: Server) -> None:
    """20 KB/s over several windows: each window brings far more than its 100 bytes."""
    body = SHOOT + b" " * 40_000
    with connect(server) as s:
        s.sendall(request("/v1/shoot", body, close=True)[: -len(body)])
        for start in range(0, len(body), 2000):
            s.sendall(body[start : start + 2000])
            time.sleep(0.1)
        status, _, answer = parsed(until_closed(s))
    assert status == 200
    assert json.loads(answer)["expectedDamage"] > 0


def test_blank_lines_between_requests_do_not_keep_a_connection_open(server: Server) -> None:
    """Empty lines begin no request (parsers skip them), yet they are bytes that stop
    uvicorn's idle timer: the connection must still be closed."""
    with connect(server) as s:
        s.sendall(request("/healthz"))
        assert response(s)[0] == 200
        trickle(s, lambda n: b"\r\n")


def test_auto_protocol_is_httptools_when_installed() -> None:
    """As uvicorn's own "auto": httptools here (a dependency of uvicorn[standard])."""
    import service.protocol as protocol

    assert protocol.AutoProtocol is protocol.HttpToolsCuts
