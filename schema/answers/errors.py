"""The error body of every refusal (kt2024.md §12), REST and batch lines alike.

`error` is the first problem, where clients have always read it; `errors` lists every
problem found (a form with three bad fields learns of all three at once), the first
included. Batch lines and CLI lines of a bad envelope carry the same body.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from schema.answers.base import Omitted, Result

ErrorCode = Literal[
    "INVALID_INPUT",
    "LIMIT_EXCEEDED",
    "NOT_FOUND",
    "METHOD_NOT_ALLOWED",
    "TIMEOUT",
    "REQUEST_TIMEOUT",
    "UNAUTHORIZED",
    "RATE_LIMITED",
    "INTERNAL",
]
"""INVALID_INPUT 400 (also a wrong content type or body), LIMIT_EXCEEDED 422 (413 for a
body over the size limit), NOT_FOUND 404 (an unknown path or catalog id), METHOD_NOT_ALLOWED
405, TIMEOUT 503, REQUEST_TIMEOUT 408 (a request's headers or body arrived too slowly: the
connection is closed), UNAUTHORIZED 401 and RATE_LIMITED 429 (access control on), INTERNAL 500."""


class FieldError(Result):
    """One problem: its code, the dotted request member it is about, and why."""

    code: ErrorCode
    field: str = Field(description="dotted path (`attacker.attacks`, `units.0.dc`); '' = the body")
    message: str
    limit: int | None = Omitted("the maximum the field may take (LIMIT_EXCEEDED)")


class Error(Result):
    """A refusal: the first problem in `error`, every problem in `errors` (the first of them
    within 64 KiB, and then `omitted`, the count of the rest)."""

    error: FieldError
    errors: list[FieldError] = Field(
        min_length=1, description="every problem, `error` first, as many as fit in 64 KiB"
    )
    omitted: int | None = Omitted(
        "problems found beyond those listed: an error reply holds at most 64 KiB, so only "
        "the first problems are listed (each text cut at 1,000 characters); absent when "
        "every problem is"
    )
