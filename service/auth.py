"""Access control: API keys on the API and a token bucket per key (off unless keys are set).

With `KILLMATH_API_KEYS` set, every request needs `Authorization: Bearer <key>` except the
PUBLIC paths: probes (`/healthz`, `/readyz`), `/metrics` (scraped inside the cluster, guarded
by the NetworkPolicy) and `/openapi.json` (the API's description is no secret, and clients
and tools fetch it before they have a key), the published GraphQL schema
(`/graphql/schema.graphql`, and its `Dice` scalar's `/graphql/scalars/Dice`) for the same
reason, and the pages a person opens (`/`, `/docs`, `/explore`, `/readme`, `/favicon.ico`,
their `/static/` assets, and GraphiQL: a browser's GET of `/graphql` with no query string,
which can only render the page, never run a document): they are static, carry no data, and a
browser cannot send a key before a page has loaded; the API calls they make need the key.
Public is an allow-list, so a route added later is
protected without anyone remembering to protect it; an unknown path without a key is 401, not
404, which also tells a scanner nothing about which routes exist.

Keys are secrets: they are compared as SHA-256 digests with `hmac.compare_digest` against
every configured key (no early exit), so timing reveals neither a key nor which one matched.
Logs, metrics and Redis name a key only by its id, the first 12 hex digits of that digest.

Each key has a token bucket (`KILLMATH_RATE_LIMIT` tokens per second, `_BURST` deep). A
request costs the engine work it asks for (`service.costs`: a shoot 1, a fight more, a grid a
token per cell), charged by the route once the request is validated and before any work
(`charge`); a route that charges nothing costs 1 when it answers, and a 304 costs nothing. One
request costs at most the whole bucket: a full bucket admits any request the size limits
allow. A bucket without the tokens answers 429 `RATE_LIMITED` with `Retry-After`, in whole
seconds rounded up. Every response to a known key says where its bucket stands, in the IETF
httpapi draft's `RateLimit-Policy` (`"tokens";q=<burst>;w=<seconds to refill from empty>`)
and `RateLimit` (`"tokens";r=<tokens left>;t=<seconds until full>`) fields. With
`KILLMATH_REDIS_URL` the buckets live in Redis, so every replica draws from the same bucket:
one Lua script reads, refills and takes atomically, on the Redis server's clock (replicas'
clocks never meet, so their skew cannot matter), and a bucket expires once it would be full
again anyway. Redis is
never a dependency: each call goes through the cache's `guarded` (`KILLMATH_REDIS_TIMEOUT`
and a circuit breaker), and on any failure, or an error answer such as a full Redis refusing
the script's writes, the request is limited by this process's own bucket instead.
In a Redis Cluster (`KILLMATH_REDIS_CLUSTER`) the key id is the bucket key's hash tag
(`killmath:rate:{id}`), so every key the script touches for one API key sits in one slot, as
a script's keys must.
During an outage a key may thus get up to one burst per replica — availability over precision;
and a call that timed out may still take its token when a stalled Redis wakes up (strict,
never lenient, by that one token).
Without keys there is no identity to limit by, so rate limiting needs keys.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import logging
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service import costs, metrics
from service.cache import Breaker, connect, guarded
from service.http import RateLimited, refusal
from service.settings import Settings

log = logging.getLogger("killmath.auth")

PUBLIC = frozenset(
    {
        "/healthz",
        "/readyz",
        "/metrics",
        "/openapi.json",
        "/",
        "/docs",
        "/explore",
        "/readme",
        "/favicon.ico",
        "/graphql/schema.graphql",
        "/graphql/scalars/Dice",
    }
)
ASSETS = "/static/"
REALM = 'Bearer realm="killmath"'


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def key_id(key: str) -> str:
    """The name a key goes by wherever it may be seen: a SHA-256 prefix, not reversible."""
    return _digest(key).hex()[:12]


class Keys:
    """The configured API keys, held as digests."""

    def __init__(self, keys: Iterable[str]) -> None:
        self._known = [(_digest(key), key_id(key)) for key in keys]

    def identify(self, presented: str) -> str | None:
        """The id of the key presented, or None; constant time in the key presented."""
        digest = _digest(presented)
        found = None
        for known, name in self._known:
            if hmac.compare_digest(digest, known):
                found = name
        return found


def sane(tokens: float, at: float, now: float, burst: int) -> tuple[float, float]:
    """A bucket's state as a take reads it: a state no take could have left — tokens not
    finite or below 0, a time not finite or after `now` — is a full bucket now, so a
    damaged state costs a key one burst at most, never every later request (an infinite
    wait has no Retry-After). Tokens above `burst` (the setting was lowered) are clamped by
    the take as before. The Lua script `TAKE` applies the same rule."""
    ok = math.isfinite(tokens) and math.isfinite(at) and tokens >= 0 and at <= now
    return (float(tokens), float(at)) if ok else (float(burst), now)


@dataclass(frozen=True)
class Allowance:
    """A bucket's answer to one take: the seconds to wait for the tokens asked (0: taken)
    and the tokens left."""

    wait: float
    remaining: float


class Buckets:
    """In-process token buckets by key id, on the monotonic clock. Bounded by the number of
    configured keys, since only a known key ever gets a bucket."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._state: dict[str, tuple[float, float]] = {}

    async def take(self, name: str, cost: int = 1) -> Allowance:
        """Take `cost` tokens if the bucket has them (cost 0 only reads it)."""
        now = time.monotonic()
        tokens, at = sane(*self._state.get(name, (self.burst, now)), now, self.burst)
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        wait = 0.0
        if tokens >= cost:
            tokens -= cost
        else:
            wait = (cost - tokens) / self.rate
        self._state[name] = (tokens, now)
        return Allowance(wait, tokens)


# KEYS[1] the bucket; ARGV rate (tokens/s), burst, cost. Returns {wait, tokens left, reset}:
# wait "0" when the tokens were taken, else the seconds until they will be there (strings:
# Redis would truncate a Lua number to an integer); reset 1 when the stored state was out of
# range (`sane`: a field missing or not a number, NaN, infinite, tokens below 0, a time after
# the server's clock) and was read as a full bucket (as no bucket at all is). The
# bucket expires when it would be full again; at absurdly low rates after 30 days at most (a
# bucket that old is as good as full).
TAKE = """
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
local reset = 0
if not state[1] and not state[2] then
  tokens = burst
  at = now
elseif not tokens or not at or tokens ~= tokens or at ~= at
    or tokens < 0 or tokens == math.huge or at < 0 or at > now then
  tokens = burst
  at = now
  reset = 1
end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= cost then
  tokens = tokens - cost
else
  wait = (cost - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.min(math.ceil(burst / rate * 1000) + 1000, 2592000000))
return {tostring(wait), tostring(tokens), reset}
"""


class SharedBuckets:
    """Token buckets in Redis (shared by every replica), falling back to `local`."""

    def __init__(self, url: str, local: Buckets, settings: Settings) -> None:
        self.local = local
        self.timeout = settings.redis_timeout
        self.breaker = Breaker(settings.breaker_failures, settings.breaker_cooldown)
        # the cache's client: short timeouts, no retries, safe across Redis restarts
        self.client = connect(
            url,
            cluster=settings.redis_cluster,
            timeout=self.timeout,
            pool_size=settings.redis_pool_size,
        )
        self._take = self.client.register_script(TAKE)

    @property
    def rate(self) -> float:
        return self.local.rate

    @property
    def burst(self) -> int:
        return self.local.burst

    async def take(self, name: str, cost: int = 1) -> Allowance:
        answer = await guarded(
            self.breaker,
            self.timeout,
            "rate limit",
            lambda: self._take(
                keys=[f"killmath:rate:{{{name}}}"],
                args=[self.local.rate, self.local.burst, cost],
            ),
            self.client,
        )
        allowance = None if answer is None else self._read(answer)
        if allowance is None:  # any Redis trouble: this process's bucket decides
            return await self.local.take(name, cost)
        return allowance

    def _read(self, answer: Any) -> Allowance | None:
        """The script's answer, or None for one out of range (the script resets a bad
        state, so that would be a script of another version: the local bucket decides)."""
        try:
            wait, remaining, reset = float(answer[0]), float(answer[1]), int(answer[2])
        except (TypeError, ValueError, IndexError):
            wait, remaining, reset = math.nan, math.nan, 0
        if reset:
            metrics.REDIS_REFUSED.labels(kind="bucket").inc()
            log.warning("a rate-limit bucket out of range in redis was reset to full")
        if not (math.isfinite(wait) and wait >= 0 and 0 <= remaining <= self.burst):
            metrics.REDIS_REFUSED.labels(kind="bucket").inc()
            return None
        return Allowance(wait, remaining)

    async def close(self) -> None:
        await self.client.aclose()


Limiter = Buckets | SharedBuckets


def limiter(settings: Settings) -> Limiter | None:
    """The buckets the settings ask for: none without keys or with a rate of 0."""
    if not settings.api_keys or settings.rate_limit == 0:
        return None
    local = Buckets(settings.rate_limit, settings.rate_limit_burst)
    if settings.redis_url:
        return SharedBuckets(settings.redis_url, local, settings)
    return local


POLICY = "tokens"
METER = "killmath.meter"


class Meter:
    """One request's account with its key's bucket: what it has been charged and where the
    bucket stands (for the RateLimit fields). GraphQL charges once per field that computes,
    so a document may be charged several times."""

    def __init__(self, limiter: Limiter, name: str) -> None:
        self.limiter = limiter
        self.name = name
        self.spent = 0
        self.allowance: Allowance | None = None

    async def charge(self, cost: int) -> None:
        """Take `cost` tokens (at most the bucket's depth), or raise RateLimited."""
        cost = min(cost, self.limiter.burst)
        found = await self.limiter.take(self.name, cost)
        # GraphQL's fields charge concurrently and their takes may come back in any order:
        # the bucket stands where the lowest answer says (refills within a request are tiny)
        if self.allowance is None or found.wait > 0 or found.remaining < self.allowance.remaining:
            self.allowance = found
        if found.wait > 0:
            metrics.RATE_LIMITED.labels(key=self.name).inc()
            raise RateLimited(self.allowance.wait)
        self.spent += cost

    @property
    def remaining(self) -> int:
        return 0 if self.allowance is None else math.floor(self.allowance.remaining)

    def headers(self) -> list[tuple[bytes, bytes]]:
        """`RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers)."""
        rate, burst = self.limiter.rate, self.limiter.burst
        left = self.allowance.remaining if self.allowance is not None else burst
        policy = f'"{POLICY}";q={burst};w={math.ceil(burst / rate)}'
        state = f'"{POLICY}";r={math.floor(left)};t={math.ceil((burst - left) / rate)}'
        return [(b"ratelimit-policy", policy.encode()), (b"ratelimit", state.encode())]


def meter(scope: Scope) -> Meter | None:
    """The request's meter; None when rate limiting is off."""
    return scope.get("state", {}).get(METER)


async def charge(scope: Scope, cost: int) -> None:
    """Charge the request `cost` tokens before doing its work (raises RateLimited)."""
    account = meter(scope)
    if account is not None:
        await account.charge(cost)


def _public(scope: Scope) -> bool:
    path = scope["path"]
    if path in PUBLIC or path.startswith(ASSETS):
        return True
    return (
        path == "/graphql"
        and scope["method"] == "GET"
        and not scope["query_string"]
        and any(name == b"accept" and b"text/html" in value for name, value in scope["headers"])
    )


def _bearer(scope: Scope) -> str | None:
    """The token of an `Authorization: Bearer <token>` header (scheme in any case)."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return None
    return None


def private(send: Send) -> Send:
    """`send` with a keyed response's caching made private: `Cache-Control: public` (the
    answers' and the catalog's) becomes `private`, and `Vary` gains `Authorization`.

    A shared cache never stores the answer to a request with `Authorization` unless the
    response says `public` (RFC 9111 §3.5): with `public` it would hand one key's answer to
    a caller with no key, past access control. The client's own cache keeps the answer as
    long as before (same max-age, immutable), and revalidates it with its ETag. Done here,
    where the key is known, so that a route added later cannot forget it."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = _private_headers(message["headers"])
        await send(message)

    return sending


def private_directives(value: bytes) -> bytes:
    """A `Cache-Control` value with `public` made `private`."""
    directives = [d.strip() for d in value.split(b",")]
    return b", ".join(b"private" if d.lower() == b"public" else d for d in directives)


def _private_headers(raw: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    headers = list(raw)
    control = [i for i, (name, _) in enumerate(headers) if name.lower() == b"cache-control"]
    if not control:
        return headers
    for i in control:
        headers[i] = (headers[i][0], private_directives(headers[i][1]))
    vary = next((i for i, (name, _) in enumerate(headers) if name.lower() == b"vary"), None)
    if vary is None:
        headers.append((b"vary", b"Authorization"))
    elif b"authorization" not in headers[vary][1].lower():
        headers[vary] = (headers[vary][0], headers[vary][1] + b", Authorization")
    return headers


class AccessControl:
    """Pure-ASGI middleware: 401 without a known key, 429 when its bucket is empty.

    It sits inside CORSMiddleware, so a browser's preflight (which never carries the
    Authorization header) is answered before keys are checked, and a 401 or 429 still
    carries the CORS headers a browser needs to let the page read it. The app has no
    websocket routes; anything but HTTP passes through.
    """

    def __init__(self, app: ASGIApp, *, keys: Keys, limiter: Limiter | None) -> None:
        self.app = app
        self.keys = keys
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _public(scope):
            await self.app(scope, receive, send)
            return
        token = _bearer(scope)
        name = None if token is None else self.keys.identify(token)
        if name is None:
            reason = "missing" if token is None else "invalid"
            metrics.AUTH_FAILURES.labels(reason=reason).inc()
            message = (
                "an Authorization: Bearer <API key> header is required"
                if token is None
                else "the API key is not valid"
            )
            challenge = REALM if token is None else REALM + ', error="invalid_token"'
            refused = refusal(
                401,
                "UNAUTHORIZED",
                message,
                field="Authorization",
                headers={"www-authenticate": challenge},
            )
            await refused(scope, receive, send)
            return
        send = private(send)
        if self.limiter is None:
            await self.app(scope, receive, send)
            return
        await self._metered(scope, receive, send, Meter(self.limiter, name))

    async def _metered(self, scope: Scope, receive: Receive, send: Send, account: Meter) -> None:
        """Run the app with the request's meter; a response the route did not charge for
        costs `costs.REQUEST` when it starts (nothing if it is a 304), and if the bucket
        cannot pay that — or the request was refused everything it asked for, as a GraphQL
        document whose every charge failed — a 429 goes out instead of it."""
        scope.setdefault("state", {})[METER] = account
        refused = False

        async def metered(message: Message) -> None:
            nonlocal refused
            if refused:
                return  # the app's own response, replaced by the 429
            if message["type"] == "http.response.start":
                refusal = None
                if account.allowance is None:
                    try:
                        await account.charge(0 if message["status"] == 304 else costs.REQUEST)
                    except RateLimited as exc:
                        refusal = exc
                elif account.spent == 0 and account.allowance.wait > 0:
                    # refused all it asked (a GraphQL document): the whole request is a 429
                    refusal = RateLimited(account.allowance.wait)
                if refusal is not None and message["status"] != 429:
                    refused = True
                    await refusal.response()(scope, receive, metered_refusal)
                    return
                message["headers"] = [*message["headers"], *account.headers()]
            await send(message)

        async def metered_refusal(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message["headers"], *account.headers()]
            await send(message)

        await self.app(scope, receive, metered)


def describe(settings: Settings) -> None:
    """One start-up line saying what is enforced, naming keys by id only."""
    if not settings.api_keys:
        log.info("access control off: no KILLMATH_API_KEYS")
        return
    where = "off" if settings.rate_limit == 0 else "redis" if settings.redis_url else "process"
    log.info(
        "access control on",
        extra={
            "keys": [key_id(key.get_secret_value()) for key in settings.api_keys],
            "rateLimit": settings.rate_limit,
            "burst": settings.rate_limit_burst,
            "buckets": where,
        },
    )


RATE_LIMIT_HEADERS: dict[str, Any] = {
    "RateLimit-Policy": {
        "description": '"tokens";q=<bucket depth>;w=<seconds to refill from empty>',
        "required": True,
        "schema": {"type": "string"},
    },
    "RateLimit": {
        "description": '"tokens";r=<tokens left>;t=<seconds until the bucket is full>',
        "required": True,
        "schema": {"type": "string"},
    },
}


def document_security(document: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """Say in the OpenAPI document what this server enforces: the bearer scheme on every
    operation but the public ones, with their 401 (and 429 when rate limited) answers (the
    `Error` schema lists every code the service has), and, when rate limited, `RateLimit`
    and `RateLimit-Policy` on every other response of a keyed operation (the 304s included:
    the middleware adds them to whatever a known key is answered). Without keys the document
    is returned unchanged: it describes this server, which then never answers either."""
    if not settings.api_keys:
        return document
    content = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    refusals: dict[str, Any] = {
        "401": {
            "description": "UNAUTHORIZED: no or unknown API key",
            "headers": {"WWW-Authenticate": {"schema": {"type": "string"}}},
            "content": content,
        }
    }
    metered = settings.rate_limit > 0
    if metered:
        refusals["429"] = {
            "description": "RATE_LIMITED: this key's token bucket lacks the request's cost",
            "headers": {
                "Retry-After": {
                    "description": "whole seconds",
                    "required": True,
                    "schema": {"type": "integer"},
                }
            },
            "content": content,
        }
    document["components"]["securitySchemes"] = {
        "apiKey": {"type": "http", "scheme": "bearer", "description": "KILLMATH_API_KEYS"}
    }
    document["security"] = [{"apiKey": []}]
    for path, item in document["paths"].items():
        for operation in item.values():
            if path in PUBLIC:
                operation["security"] = []
                continue
            operation["responses"].update(copy.deepcopy(refusals))
            for status, response in operation["responses"].items():
                if metered and status != "401":
                    response.setdefault("headers", {}).update(RATE_LIMIT_HEADERS)
                _document_private(response.get("headers", {}))
    return document


def _document_private(headers: dict[str, Any]) -> None:
    """A keyed response's `Cache-Control` and `Vary` as `private` sends them."""
    control = headers.get("Cache-Control")
    if control is None or "const" not in control["schema"]:
        return
    value = private_directives(control["schema"]["const"].encode()).decode()
    schema = {**control["schema"], "const": value}
    headers["Cache-Control"] = {**control, "description": f"`{value}`", "schema": schema}
    vary = headers.get("Vary", {"required": False, "schema": {"type": "string"}})
    described = vary.get("description", "the request headers that pick the representation: ")
    headers["Vary"] = {**vary, "description": described.rstrip(": ") + ", Authorization"}
