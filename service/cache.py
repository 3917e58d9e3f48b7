"""Two cache tiers behind one interface: an in-process LRU and an optional shared Redis.

Keys are the engines' canonical cache keys, which carry the spec version, so an upgraded
engine never reads an older engine's answers; in Redis, shared across deployments, they are
also salted with `engine.REVISION`, so a fixed engine never reads what the unfixed one stored.
An entry is stored under a short digest of that salted key; its value is a MAC followed by
orjson that repeats the full key. Whoever can write to Redis is not trusted to write answers:
the MAC is a keyed blake2b under `KILLMATH_CACHE_KEY` (`Signer`), a secret the replicas share
(a process without one draws its own, so its entries are its own). A read whose MAC does not
match (a truncated, altered or forged entry), whose bytes do not parse, whose key does not
match (a colliding or misplaced entry), or whose answer is not of its mode's shape (`fits`,
given by the caller) is a miss: the answer is recomputed and overwrites the bad entry, never
served and never kept in L1.

Redis is an optimisation, never a dependency: every call has a hard time limit, and after a
few consecutive failures a circuit breaker stops asking until a cool-down has passed, then
lets one probe call at a time decide. A failed or skipped Redis call reads as a miss and
writes are dropped. An error *answer* (a full Redis refusing writes under `noeviction`) is no
outage: it drops that write but leaves the breaker closed, so reads go on.

With `KILLMATH_REDIS_CLUSTER` the URL is one seed node of a Redis Cluster: redis-py's cluster
client learns the slot map from it, sends each key to the master owning its slot, splits a
bulk read by slot (`mget_nonatomic`: one pipelined round trip per node) and a bulk write by
node (its cluster pipeline), and follows MOVED replies. A dead master's calls fail like a dead
Redis (a miss, a dropped write, one breaker for the whole cluster); the failure also has the
slot map read again, in the background, so calls reach the promoted replica once it has taken
over. Nothing here waits for a failover, nor for a slot map.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import sys
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import orjson
from redis.asyncio import Redis, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import MaxConnectionsError, ResponseError
from redis.maint_notifications import MaintNotificationsConfig

from engine import REVISION
from service import metrics

log = logging.getLogger("killmath.cache")

Output = dict[str, Any]
Tier = Literal["lru", "redis"]
"""Where a cached answer was found: the process's LRU or the shared Redis."""
T = TypeVar("T")


def redis_key(cache_key: str) -> str:
    """The Redis key of a canonical key: short, fixed length, stable across processes of one
    engine revision."""
    salted = f"{REVISION}:{cache_key}".encode()
    return "killmath:" + hashlib.blake2b(salted, digest_size=20).hexdigest()


MAC = 32  # hex characters of the keyed blake2b digest that starts every stored value


class Signer:
    """Entries signed and checked with a keyed MAC (blake2b's keyed mode): an entry is only
    ever read back if a process holding the same secret wrote it. The secret is hashed into
    blake2b's 64-byte key space, so a secret of any length serves."""

    def __init__(self, secret: bytes) -> None:
        self._key = hashlib.blake2b(secret, digest_size=64, person=b"killmath-cache").digest()

    def mac(self, payload: bytes) -> bytes:
        return hashlib.blake2b(payload, digest_size=MAC // 2, key=self._key).hexdigest().encode()

    def encode(self, cache_key: str, output: Output) -> bytes:
        payload = orjson.dumps({"k": cache_key, "v": output})
        return self.mac(payload) + payload

    def decode(self, cache_key: str, raw: bytes | None) -> Output | None:
        """The stored output, or None if absent, damaged, unsigned, unreadable or stored for
        another key."""
        if raw is None:
            return None
        value = self._checked(cache_key, raw)
        if value is None:
            metrics.REDIS_REFUSED.labels(kind="entry").inc()
        return value

    def _checked(self, cache_key: str, raw: bytes) -> Output | None:
        payload = raw[MAC:]
        if not hmac.compare_digest(raw[:MAC], self.mac(payload)):
            return None
        try:
            entry = orjson.loads(payload)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(entry, dict) or entry.get("k") != cache_key:
            return None
        value = entry.get("v")
        return value if isinstance(value, dict) else None


Fits = Callable[[str, Output], bool]
"""Whether an answer read back for a canonical key has the shape of that key's answers."""


class LRU:
    """The L1 tier: a bounded in-process mapping, least recently used evicted first."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self._data: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable) -> Any:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: Hashable, value: Any) -> None:
        if self.entries == 0:
            return
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.entries:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


class SizedLRU:
    """Values kept by key within a byte budget (the key's length and the value's stated size
    both count), least recently used evicted first; a pair above `largest` (an eighth of the
    budget unless said) is not kept, so one huge entry cannot flush every other. Thread-safe:
    grids and team
    matchups are prepared and rendered in pool threads. Keys are digests or canonical keys,
    never request bytes: a memo keyed by raw bodies would hold every body it saw."""

    def __init__(self, budget: int, largest: int | None = None) -> None:
        self.budget = budget
        self.largest = budget // 8 if largest is None else largest
        self.size = 0
        self._data: OrderedDict[bytes | str, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: bytes | str) -> Any:
        with self._lock:
            found = self._data.get(key)
            if found is None:
                return None
            self._data.move_to_end(key)
            return found[0]

    def keep(self, key: bytes | str, value: Any, size: int) -> None:
        """Keep `value` under `key`, counted as `size` bytes plus the key's length."""
        cost = len(key) + size
        if cost > self.largest:
            return
        with self._lock:
            if key in self._data:
                return
            self._data[key] = (value, cost)
            self.size += cost
            while self.size > self.budget:
                _, (_, old) = self._data.popitem(last=False)
                self.size -= old

    def __len__(self) -> int:
        return len(self._data)

    def held(self) -> list[bytes | str]:
        """The keys held, oldest first."""
        with self._lock:
            return list(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.size = 0


class ByteLRU(SizedLRU):
    """Encoded answers kept by key within a byte budget (key and value both count): GraphQL
    replies and rendered team matchups."""

    def get(self, key: bytes | str) -> bytes | None:
        found: bytes | None = super().get(key)
        return found

    def put(self, key: bytes | str, value: bytes) -> None:
        self.keep(key, value, len(value))


def digest(*parts: bytes | str) -> bytes:
    """A memo key for request bytes: 16 bytes of blake2b over the parts, each one's length
    first (so parts cannot run into each other)."""
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.digest()


_ATOMS = (int, float, bool, type(None), bytes, str)


def footprint(value: object, _seen: set[int] | None = None) -> int:
    """The bytes `value` holds (sys.getsizeof over its containers, dataclasses and
    namedtuples, each object once): what a memo entry costs against its byte budget."""
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, _ATOMS):
        return size
    if isinstance(value, dict):
        return size + sum(footprint(k, seen) + footprint(v, seen) for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return size + sum(footprint(item, seen) for item in value)
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return size + sum(footprint(getattr(value, name, None), seen) for name in fields)
    return size


class Breaker:
    """Opens after `failures` consecutive failures. Each time `cooldown` seconds have passed
    since it opened (or since the last probe), one call goes through as a probe: a success
    closes the breaker, a failure keeps it open. A Redis that still hangs thus costs one
    request one time limit per cool-down, not every request that arrives while it is tried
    again; and a probe that never reports (its request was cancelled) cannot keep the breaker
    open, as the next cool-down lets another probe through."""

    def __init__(self, failures: int, cooldown: float) -> None:
        self.failures = failures
        self.cooldown = cooldown
        self._consecutive = 0
        self._opened_at: float | None = None

    def waiting(self) -> bool:
        """Whether calls are being skipped now (open, its cool-down not over); unlike
        `allows`, asking never takes the probe."""
        return self._opened_at is not None and time.monotonic() - self._opened_at < self.cooldown

    def allows(self) -> bool:
        if self._opened_at is None:
            return True
        now = time.monotonic()
        if now - self._opened_at < self.cooldown:
            return False
        self._opened_at = now  # this call is the probe; the others wait for the next turn
        return True

    def succeeded(self) -> None:
        if self._opened_at is not None:
            log.info("redis circuit closed")
        self._consecutive = 0
        self._opened_at = None

    def failed(self) -> None:
        self._consecutive += 1
        if self._consecutive < self.failures:
            return
        if self._opened_at is None:
            log.warning("redis circuit opened", extra={"cooldown": self.cooldown})
        self._opened_at = time.monotonic()


Client = Redis | RedisCluster


def connect(url: str, *, cluster: bool, timeout: float, pool_size: int) -> Client:
    """A client for a Redis that must never hold a request up: short socket timeouts, no
    retries (the breaker decides when to try again), a bounded pool (per node, in a cluster).
    With `cluster` the URL is a seed node of a Redis Cluster."""
    factory = RedisCluster if cluster else Redis
    return factory.from_url(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
        max_connections=pool_size,
        # With maintenance notifications on ("auto", redis-py 8.1's default) the pool hands
        # out connections the server closed (a restart) without checking them, and the next
        # call fails (redis-py #4252). A plain Redis sends no such notifications anyway.
        maint_notifications_config=MaintNotificationsConfig(enabled=False),
    )


SLOT_MAP_LIMIT = 2.0  # seconds a cluster client may take to read the slot map, off requests

_slot_maps: weakref.WeakKeyDictionary[RedisCluster, asyncio.Task[None] | bool] = (
    weakref.WeakKeyDictionary()
)


async def _read_slot_map(client: RedisCluster) -> None:
    try:
        async with asyncio.timeout(SLOT_MAP_LIMIT):
            await client.initialize()
    except Exception as exc:  # the next call starts another read
        metrics.REDIS_ERRORS.labels(kind=type(exc).__name__).inc()
        log.warning("redis cluster slot map not read: %r", exc)
        return
    _slot_maps[client] = True


def slot_map_ready(client: Client) -> bool:
    """Whether a cluster client has its slot map; if not, a read of it is started in the
    background and the caller skips Redis this time (a miss, no breaker failure).

    Reading the map (CLUSTER SLOTS from a node, then COMMAND, a reply of some hundred kB that
    redis-py parses) can take longer than one call's time limit on a loaded machine; inside
    the call it would time out every time, and a process would stay without its L2 for as
    long as the load lasts. A plain Redis is always ready."""
    if not isinstance(client, RedisCluster):
        return True
    state = _slot_maps.get(client)
    if state is True:
        return True
    if state is None or state.done():
        _slot_maps[client] = asyncio.get_running_loop().create_task(_read_slot_map(client))
    return False


async def forget_slot_map(client: Client) -> None:
    """After a failed call to a Redis Cluster, have the slot map read again (in the
    background, `slot_map_ready`) before the next call.

    redis-py's cluster client does so itself after a failed single command, but its pipeline
    (bulk writes, `mget_nonatomic`) re-reads the map only when it may retry, and it may not
    here: without this a client would keep sending a dead master's slots to the dead master
    long after its replica took over. Closing the client's connections is what the pipeline
    does before a retry; the read that follows connects with the current map.

    Only a refused or broken connection (a node gone or restarted) does this: a time-out is
    more often a loaded machine than a moved slot. A node that hangs is noticed by the next
    single command (a readiness PING, the rate-limit script), after which redis-py re-reads
    the map itself."""
    if isinstance(client, RedisCluster):
        await client.aclose()
        if _slot_maps.get(client) is True:
            del _slot_maps[client]


async def guarded(
    breaker: Breaker,
    timeout: float,
    what: str,
    operation: Callable[[], Awaitable[T]],
    client: Client | None = None,
) -> T | None:
    """Run a coroutine factory under `breaker` and the time limit; None when it is skipped or
    fails. Every Redis call of the service (cache tier, shared rate limit) goes through here,
    so they all count, log and trip their breaker the same way. Through a cluster `client`,
    a call waits for nothing while the slot map is read (`slot_map_ready`), and a failed
    call drops the map (`forget_slot_map`)."""
    if client is not None and not slot_map_ready(client):
        metrics.REDIS_ERRORS.labels(kind="slot_map_reading").inc()
        return None
    if not breaker.allows():
        metrics.REDIS_ERRORS.labels(kind="circuit_open").inc()
        return None
    try:
        async with asyncio.timeout(timeout):
            result = await operation()
    except ResponseError as exc:  # Redis answered, with an error (e.g. OOM): reachable
        breaker.succeeded()
        metrics.REDIS_ERRORS.labels(kind=type(exc).__name__).inc()
        log.warning("redis %s refused: %s", what, exc)
        return None
    except Exception as exc:  # any other Redis trouble (timeouts included) is a failure
        breaker.failed()
        metrics.REDIS_ERRORS.labels(kind=type(exc).__name__).inc()
        log.warning("redis %s failed: %r", what, exc)
        lost = isinstance(exc, RedisConnectionError) and not isinstance(exc, MaxConnectionsError)
        if client is not None and lost:  # not a full pool: that is this process's own limit
            await forget_slot_map(client)
        return None
    breaker.succeeded()
    return result


class RedisTier:
    """The L2 tier: MGET and pipelined SET with a TTL, each call bounded by `timeout`."""

    BATCH = 256  # keys per MGET (answers are a few kB each)

    def __init__(
        self,
        url: str,
        *,
        ttl: int,
        timeout: float,
        pool_size: int,
        breaker: Breaker,
        signer: Signer,
        cluster: bool = False,
    ) -> None:
        self.ttl = ttl
        self.signer = signer
        self.timeout = timeout
        self.breaker = breaker
        self.client = connect(url, cluster=cluster, timeout=timeout, pool_size=pool_size)

    def _mget(self, names: list[str]) -> Awaitable[list[bytes | None]]:
        """MGET, split by slot in a cluster (a plain MGET of keys in several slots is a
        CROSSSLOT error there)."""
        if isinstance(self.client, RedisCluster):
            return self.client.mget_nonatomic(names)
        return self.client.mget(names)

    async def get_many(self, keys: Sequence[str]) -> list[Output | None]:
        """One MGET per `BATCH` keys, so a big grid's read fits the per-call time limit; an
        entry that is not signed (`Signer.decode`) reads as a miss."""
        found: list[Output | None] = []
        for start in range(0, len(keys), self.BATCH):
            part = keys[start : start + self.BATCH]
            names = [redis_key(k) for k in part]
            raws = await guarded(
                self.breaker,
                self.timeout,
                "mget",
                lambda names=names: self._mget(names),
                self.client,
            )
            if raws is None:
                found.extend([None] * len(part))
            else:
                found.extend(self.signer.decode(k, raw) for k, raw in zip(part, raws, strict=True))
        return found

    async def put_many(self, items: Mapping[str, Output]) -> None:
        """One pipelined SET per answer. Answers are encoded first, outside the breaker: an
        answer that cannot be written as JSON is an engine bug, not a Redis failure. While
        the breaker waits nothing is encoded at all (a grid's 10,000 misses would be)."""
        if self.breaker.waiting():
            metrics.REDIS_ERRORS.labels(kind="circuit_open").inc()
            return
        entries: dict[str, bytes] = {}
        for key, value in items.items():
            try:
                entries[redis_key(key)] = self.signer.encode(key, value)
            except orjson.JSONEncodeError:
                log.exception("answer not stored: it cannot be written as JSON")
        if not entries:
            return

        async def write() -> None:
            async with self.client.pipeline(transaction=False) as pipe:
                for name, raw in entries.items():
                    pipe.set(name, raw, ex=self.ttl)
                await pipe.execute()

        await guarded(self.breaker, self.timeout, "set", write, self.client)

    async def ping(self) -> bool:
        return bool(
            await guarded(self.breaker, self.timeout, "ping", self.client.ping, self.client)
        )

    async def close(self) -> None:
        await self.client.aclose()


class Cache:
    """L1 then L2 lookup; writes go to both. Counts hits and misses per tier."""

    def __init__(self, l1: LRU, l2: RedisTier | None) -> None:
        self.l1 = l1
        self.l2 = l2

    async def get_many(self, keys: Iterable[str], fits: Fits) -> dict[str, tuple[Output, Tier]]:
        """The cached outputs among `keys`, each with the tier that had it (absent keys are
        misses). An answer read from Redis that does not `fits` its key is a miss too, and
        is not kept in L1: only what this process computed or checked is ever there."""
        found: dict[str, tuple[Output, Tier]] = {}
        missing: list[str] = []
        for key in keys:
            value = self.l1.get(key)
            if value is None:
                missing.append(key)
            else:
                found[key] = (value, "lru")
        metrics.L1_HIT.inc(len(found))
        metrics.L1_MISS.inc(len(missing))
        if missing and self.l2 is not None:
            values = await self.l2.get_many(missing)
            hits = 0
            for key, value in zip(missing, values, strict=True):
                if value is not None and not fits(key, value):
                    metrics.REDIS_REFUSED.labels(kind="shape").inc()
                    log.warning("a signed redis entry not of its answer's shape was ignored")
                    continue
                if value is not None:
                    found[key] = (value, "redis")
                    self.l1.put(key, value)
                    hits += 1
            metrics.L2_HIT.inc(hits)
            metrics.L2_MISS.inc(len(missing) - hits)
        return found

    async def put_many(self, items: Mapping[str, Output]) -> None:
        for key, value in items.items():
            self.l1.put(key, value)
        if items and self.l2 is not None:
            await self.l2.put_many(items)

    async def ready(self) -> bool:
        """True when there is no L2, or it answers a PING."""
        return self.l2 is None or await self.l2.ping()

    async def close(self) -> None:
        if self.l2 is not None:
            await self.l2.close()
