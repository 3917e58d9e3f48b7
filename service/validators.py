"""Cache validators for deterministic answers: ETag, If-None-Match, Cache-Control, Cache-Status.

An answer's body is a function of the engine revision, its canonical key(s), the rules each
cell was computed without (`ignoredRules`, which the key leaves out: they belong to the
request, not to the cached answer; `cell`) and what picks the representation (the route,
compact or full, JSON or CSV, the grid's shape and thresholds), so its strong ETag is a
digest of exactly those: every byte of the body is fixed by what the tag digests, and two
bodies that differ have different tags. The tag is known once the request is validated,
before any lookup or computation, and a matching `If-None-Match` is answered 304 without
either. The computing routes are POSTs that only read (safe, like the draft QUERY method):
they answer 304 as a GET would, not the 412 RFC 9110 §13.1.2 prescribes for methods that
change something. `If-None-Match` is compared weakly (RFC 9110 §13.1.2), and the coding suffix
`service.compression` appends to an encoded answer's tag is ignored, so a stored gzip or
Brotli body revalidates too.

`Cache-Status` (RFC 9211) names the tiers a request went through, the one nearest the engine
first: `killmath-lru; hit` (the process's LRU), `killmath-redis; hit, killmath-lru; fwd=miss`
(Redis), `…; fwd=miss` for a computed answer. A bulk answer (batch, grid) has
`detail="<hits>/<lookups>"` on each tier, and a tier says `hit` only if every lookup that
reached it hit. The header replaces the `cached` body member, so one input's body is the same
bytes on every call.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Awaitable, Callable, Iterable, Sequence

from starlette.requests import Request
from starlette.responses import Response

from engine import REVISION
from service.cache import Tier

REVISION_HEADER = "killmath-engine-revision"
ANSWER_CACHE_CONTROL = "public, max-age=86400, immutable"
"""A day: an answer never changes for one engine revision, and an engine fix (a new revision)
reaches a client that stopped revalidating within a day."""
CATALOG_CACHE_CONTROL = "public, max-age=300"
"""Catalog data changes only with a deploy; five minutes keeps a new catalog version prompt."""
CODINGS = ("-zstd", "-br", "-gzip")


def etag(kind: str, keys: Iterable[str], *variant: str) -> str:
    """The strong ETag of an answer: engine revision, representation and canonical keys.

    Also the helper for any other bulk route (team matchups): pass the route's name, its
    cells' canonical keys in answer order, and whatever else picks the representation."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (kind, *variant):
        digest.update(part.encode() + b"\x00")
    for key in keys:
        digest.update(key.encode() + b"\x1e")
    return f'"{REVISION}-{digest.hexdigest()}"'


def cell(key: str, ignored: tuple[str, ...] | None) -> str:
    """What fixes one answer (or one cell of a bulk answer), for `etag`: its canonical key
    and the rules left out of it under `unknownRules: IGNORE` (none, `()` or some: three
    bodies). A key never holds the separator."""
    return key if ignored is None else f"{key}\x1f{ignored!r}"


def _opaque(tag: str) -> str:
    """A tag as compared: weak prefix and coding suffix dropped."""
    tag = tag.strip().removeprefix("W/")
    for coding in CODINGS:
        if tag.endswith(coding + '"'):
            return tag[: -len(coding) - 1] + '"'
    return tag


def matches(request: Request, tag: str) -> str | None:
    """The tag of `If-None-Match` that matches `tag` (as the client sent it), or None."""
    header = request.headers.get("if-none-match")
    if not header:
        return None
    if header.strip() == "*":
        return tag
    for candidate in header.split(","):
        if _opaque(candidate) == tag:
            return candidate.strip()
    return None


def validator_headers(tag: str, cache_control: str, vary: str = "") -> dict[str, str]:
    headers = {"etag": tag, "cache-control": cache_control}
    if vary:
        headers["vary"] = vary
    return headers


def not_modified(matched: str, cache_control: str, vary: str = "") -> Response:
    """304 with the validators a 200 would carry; the ETag is the one the client holds (its
    coding suffix included), so it keeps matching the body it stored."""
    return Response(status_code=304, headers=validator_headers(matched, cache_control, vary))


Endpoint = Callable[[Request], Awaitable[Response]]


def conditional(
    tag_of: Callable[[Request], str], cache_control: str
) -> Callable[[Endpoint], Endpoint]:
    """For GET routes whose answer is fixed by what `tag_of` digests (catalog version, URL): a
    200 carries the validators, and is a 304 instead when `If-None-Match` matches. The
    endpoint runs first (a catalog lookup, no computation), so a request it refuses — a bad
    query parameter, an unknown id — is refused whatever `If-None-Match` says (`*` too)."""

    def decorate(endpoint: Endpoint) -> Endpoint:
        @functools.wraps(endpoint)
        async def wrapped(request: Request) -> Response:
            response = await endpoint(request)
            if response.status_code != 200:
                return response
            tag = tag_of(request)
            matched = matches(request, tag)
            if matched is not None:
                return not_modified(matched, cache_control)
            response.headers.update(validator_headers(tag, cache_control))
            return response

        return wrapped

    return decorate


def cache_status(tiers: Sequence[Tier | None], *, redis: bool, bulk: bool) -> str:
    """The `Cache-Status` of one answer or of a bulk answer's lookups (None = computed)."""
    lookups = len(tiers)
    lru = sum(1 for tier in tiers if tier == "lru")
    from_redis = sum(1 for tier in tiers if tier == "redis")

    def member(name: str, hits: int, reached: int) -> str:
        verdict = "hit" if hits == reached and reached else "fwd=miss"
        return f"killmath-{name}; {verdict}" + (f'; detail="{hits}/{reached}"' if bulk else "")

    members = []
    if redis and lru < lookups:
        members.append(member("redis", from_redis, lookups - lru))
    members.append(member("lru", lru, lookups))
    return ", ".join(members)


MINIMAL = "return=minimal"
"""The preference (RFC 7240) for the answer without its `canonicalKey`, and what
`Preference-Applied` says when it was honoured."""


def wants_minimal(request: Request) -> bool:
    """`Prefer: return=minimal` (RFC 7240): the answer without its `canonicalKey` (half of a
    shoot answer); the ETag stands for the key."""
    return any(
        part.strip().lower() == MINIMAL
        for value in request.headers.getlist("prefer")
        for part in value.split(",")
    )
