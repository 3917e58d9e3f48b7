"""Response compression: zstd, Brotli or gzip (starlette-compress), above a size threshold.

starlette-compress picks the coding from `Accept-Encoding` (zstd, then br, then gzip, among
those the client accepts), leaves bodies under `minimum_size` alone (a small shoot answer
would only grow) and adds `Vary: Accept-Encoding`. CSV is added to its compressible types: a
grid's CSV compresses as well as its JSON.

An encoded body is another representation of the same answer, so its strong ETag must
differ (RFC 9110 §8.8.3): `Compression` appends the coding (`"2-ab12…-br"`), and
`service.validators` strips it again when it compares an `If-None-Match`, so a client that
stored the compressed answer revalidates it with a 304 like any other.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette_compress import CompressMiddleware, add_compress_type

add_compress_type("text/csv")

LEVELS = {"zstd_level": 4, "brotli_quality": 4, "gzip_level": 6}
"""Mid levels: on a 640-cell grid they keep compression under a few ms (benchmarks/
bench_compression.py) while staying within a few per cent of the best ratio."""


class Compression:
    """starlette-compress around `app`, and the coding appended to an encoded response's
    ETag (this wrapper sees the headers the compressor set)."""

    def __init__(self, app: ASGIApp, *, minimum_size: int) -> None:
        self.app = CompressMiddleware(app, minimum_size=minimum_size, **LEVELS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def tagged(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message["headers"])
                headers = MutableHeaders(raw=message["headers"])
                coding = headers.get("content-encoding")
                etag = headers.get("etag")
                if coding and etag and etag.endswith('"'):
                    headers["etag"] = f'{etag[:-1]}-{coding}"'
            await send(message)

        await self.app(scope, receive, tagged)
