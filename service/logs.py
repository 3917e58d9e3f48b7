"""Structured JSON logs, one object per line, each carrying the current request id.

The request id comes from the client's `X-Request-ID` header or is generated; it is kept in a
context variable so log lines written anywhere while serving a request carry it.

Access lines (one per request) skip the logging module: building a LogRecord, finding its
caller and formatting it cost about a fifth of a cached request. They are rendered straight to
JSON, collected, and written to the same stderr in batches — at most `ACCESS_FLUSH` seconds
late, flushed when the app stops — under the logger name "killmath.access", and only when
that logger is enabled for INFO.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import sys
import time
from typing import Any

import orjson

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "killmath_request_id", default=None
)

# attributes every LogRecord has; anything else was passed with `extra=` and is logged too
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
    "color_message",  # uvicorn's ANSI-coloured duplicate of the message
}


class JSONFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = REQUEST_ID.get()
        if request_id is not None:
            entry["requestId"] = request_id
        for name, value in record.__dict__.items():
            if name not in _STANDARD and not name.startswith("_"):
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


def configure(level: str) -> None:
    """Route the killmath, uvicorn and root loggers to one JSON stream on stderr."""
    # we log none of these: skip collecting them for every record (logging's own advice)
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JSONFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    logging.getLogger("uvicorn.access").disabled = True  # our middleware logs requests


ACCESS_FLUSH = 0.5  # seconds an access line may wait for its batch


class AccessLog:
    """Per-request JSON lines, written to stderr in batches (see the module docstring)."""

    def __init__(self) -> None:
        self.logger = logging.getLogger("killmath.access")
        self._lines: list[bytes] = []
        self._flushed = time.monotonic()
        self._second = -1
        self._stamp = ""

    def enabled(self) -> bool:
        return self.logger.isEnabledFor(logging.INFO)

    def _time(self, now: float) -> str:
        second = int(now)
        if second != self._second:
            self._second = second
            self._stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._stamp}.{int((now - second) * 1000):03d}Z"

    def write(self, message: str, fields: dict[str, Any]) -> None:
        entry = {
            "time": self._time(time.time()),
            "level": "INFO",
            "logger": "killmath.access",
            "message": message,
            "requestId": REQUEST_ID.get(),
            **fields,
        }
        self._lines.append(orjson.dumps(entry))
        if len(self._lines) >= 256 or time.monotonic() - self._flushed >= ACCESS_FLUSH:
            self.flush()

    def flush(self) -> None:
        self._flushed = time.monotonic()
        if self._lines:
            lines, self._lines = self._lines, []
            # stderr closed or not a file: drop the lines, never fail a request
            with contextlib.suppress(OSError, ValueError):
                os.write(sys.stderr.fileno(), b"\n".join(lines) + b"\n")


ACCESS = AccessLog()
