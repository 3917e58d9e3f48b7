"""Fault injection: a Redis that dies, hangs, comes back empty, fills up or holds bad entries.

Each test runs the real server against a `redis-server` of its own (never the machine's
shared one) and breaks it while client threads send a stream of new and repeated scenarios.
Redis is an optimisation, so whatever happens to it every request must answer 200 with the
engine's own answer; a hung Redis may cost a request at most a few Redis time limits (the
one timed assertion of these tests, which the issue asks for); and once Redis is back, new
answers are stored in it again.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import pytest
import redis
from service_harness import (
    SIGNER,
    Server,
    cache_tier,
    controlled_redis,
    serving,
    without_service_members,
)

from service.cache import MAC, Breaker, RedisTier, redis_key
from service.compute import prepare

REDIS_TIMEOUT = 0.05  # seconds per Redis call (KILLMATH_REDIS_TIMEOUT)
COOLDOWN = 0.5  # seconds the breaker stays open before a probe (KILLMATH_BREAKER_COOLDOWN)
FAULTY = {
    "redis_timeout": REDIS_TIMEOUT,
    "breaker_failures": 3,
    "breaker_cooldown": COOLDOWN,
    "log_level": "ERROR",  # the expected Redis warnings would only fill the log file
}
# The slowest any request may be while Redis hangs: a shoot of this file computes in
# milliseconds, a miss makes one MGET (at most one time limit) before computing, and the
# write happens after the answer is sent. The allowance is for a loaded two-core CI machine;
# a request that waited for the paused Redis would take the whole pause (PAUSE seconds).
COMPUTE_ALLOWANCE = 0.75
LATENCY_BOUND = COMPUTE_ALLOWANCE + 3 * REDIS_TIMEOUT
PAUSE = 3.0
POPULAR = 20  # scenarios 0..19 are asked again and again; later ones once each


def scenario(n: int) -> dict[str, Any]:
    """The n-th of 12,000 distinct shooting scenarios."""
    attacks, n = 1 + n % 6, n // 6
    hit, n = 2 + n % 5, n // 5
    normal, n = 1 + n % 5, n // 5
    save, n = 2 + n % 5, n // 5
    return {
        "attacker": {
            "attacks": attacks,
            "hit": hit,
            "normalDamage": normal,
            "criticalDamage": normal + 1,
        },
        "defender": {"save": save, "wounds": 5 + n % 16},
    }


def expected(n: int) -> dict[str, Any]:
    """Scenario n's answer as the engine computes it in this process, as JSON reads it."""
    job = prepare(scenario(n), "shoot")
    return orjson.loads(orjson.dumps(job.mode.evaluate(job.scenario)))


@dataclass(frozen=True)
class Outcome:
    scenarios: tuple[int, ...]  # one for /v1/shoot, several for /v1/batch
    started: float
    seconds: float
    status: int
    body: Any
    cache_status: str = ""  # the answer's Cache-Status header: which tier had it, if any


class Load:
    """Client threads sending, until stopped, a mix of new scenarios (cache misses), popular
    ones (repeats) and small batches of both; every outcome is kept for checking after."""

    def __init__(self, url: str, threads: int = 3) -> None:
        self.url = url
        self.outcomes: list[Outcome] = []
        self._next = POPULAR
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._run, args=(seed,), daemon=True) for seed in range(threads)
        ]

    def new(self) -> int:
        with self._lock:
            self._next += 1
            return self._next - 1

    def _run(self, seed: int) -> None:
        rng = random.Random(seed)
        with httpx.Client(base_url=self.url, timeout=30) as client:
            while not self._stop.is_set():
                draw = rng.random()
                if draw < 0.5:
                    ns: tuple[int, ...] = (self.new(),)
                elif draw < 0.85:
                    ns = (rng.randrange(POPULAR),)
                else:
                    ns = (self.new(), self.new(), self.new(), rng.randrange(POPULAR))
                started = time.monotonic()
                if len(ns) == 1:
                    response = client.post("/v1/shoot", json=scenario(ns[0]))
                else:
                    batch = [{"mode": "shoot", **scenario(n)} for n in ns]
                    response = client.post("/v1/batch", json=batch)
                seconds = time.monotonic() - started
                body = response.json() if response.status_code == 200 else response.text
                cache_status = response.headers.get("cache-status", "")
                self.outcomes.append(
                    Outcome(ns, started, seconds, response.status_code, body, cache_status)
                )
                time.sleep(0.01)

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)

    def check(self) -> None:
        """Every request answered 200 with the engine's answer."""
        assert self.outcomes, "the load sent nothing"
        failed = [o for o in self.outcomes if o.status != 200]
        assert not failed, f"{len(failed)} of {len(self.outcomes)} failed, e.g. {failed[0]}"
        answers: dict[int, dict[str, Any]] = {}
        for outcome in self.outcomes:
            bodies = (
                [without_service_members(outcome.body)]
                if len(outcome.scenarios) == 1
                else outcome.body
            )
            for n, body in zip(outcome.scenarios, bodies, strict=True):
                if n not in answers:
                    answers[n] = expected(n)
                assert body == answers[n], f"scenario {n} answered {body}"

    def slowest_during(self, start: float, end: float) -> list[Outcome]:
        """The requests that overlapped [start, end], slowest first."""
        overlapping = [
            o for o in self.outcomes if o.started < end and o.started + o.seconds > start
        ]
        return sorted(overlapping, key=lambda o: o.seconds, reverse=True)


def shoot_response(server: Server, n: int) -> httpx.Response:
    response = httpx.post(server.url + "/v1/shoot", json=scenario(n), timeout=30)
    assert response.status_code == 200, response.text
    assert without_service_members(response.json()) == expected(n)
    return response


def shoot(server: Server, n: int) -> dict[str, Any]:
    return shoot_response(server, n).json()


def eventually(condition: Callable[[], bool], seconds: float = 3.0) -> bool:
    """Poll: writes to Redis happen just after the answer is sent."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def stored(client: redis.Redis, body: dict[str, Any]) -> bool:
    return client.exists(redis_key(body["canonicalKey"])) == 1


def caching_resumes(server: Server, client: redis.Redis, first: int) -> None:
    """After recovery (and the breaker's cool-down) new misses are written to Redis again."""
    time.sleep(COOLDOWN + 0.1)
    responses = [shoot_response(server, first + i) for i in range(3)]
    assert all(cache_tier(response) is None for response in responses)
    bodies = [response.json() for response in responses]
    assert eventually(lambda: all(stored(client, body) for body in bodies))


def errors(server: Server, kind: str) -> float:
    return server.metric("killmath_redis_errors_total", kind=kind)


@contextmanager
def faulty_server(redis_url: str, **settings: str | int | float) -> Iterator[Server]:
    with serving(redis_url=redis_url, **FAULTY, **settings) as server:
        shoot(server, 0)  # warm: engine tables and the Redis pool
        yield server


def test_redis_killed_mid_load_then_restarted():
    with controlled_redis() as rp, faulty_server(rp.url) as server:
        client = redis.Redis.from_url(rp.url)
        with Load(server.url) as load:
            time.sleep(1.0)
            rp.kill()
            killed = time.monotonic()
            time.sleep(1.5)
            rp.restart()  # empty, on the same port
            restarted = time.monotonic()
            time.sleep(COOLDOWN + 1.0)
        load.check()
        assert errors(server, "ConnectionError") > 0  # the outage was seen, and survived
        slowest = load.slowest_during(killed, restarted)
        assert slowest and slowest[0].seconds <= LATENCY_BOUND, slowest[:3]
        assert client.dbsize() > 0  # answers computed after the restart were stored
        caching_resumes(server, client, 10_000)

        # a restart while idle leaves every pooled connection stale: the next call must
        # notice and reconnect, with no failed Redis call and no open circuit
        before = {kind: errors(server, kind) for kind in ("ConnectionError", "circuit_open")}
        rp.restart()
        body = shoot(server, 11_000)
        assert eventually(lambda: stored(client, body))
        assert {kind: errors(server, kind) for kind in before} == before
        client.close()


def test_paused_redis_costs_a_request_at_most_a_few_timeouts():
    with controlled_redis() as rp, faulty_server(rp.url) as server:
        client = redis.Redis.from_url(rp.url)
        with Load(server.url) as load:
            time.sleep(1.0)
            rp.pause()  # SIGSTOP: connections are accepted, nothing is answered
            paused = time.monotonic()
            time.sleep(PAUSE / 2)
            ready = httpx.get(server.url + "/readyz", timeout=30)  # a probe's view
            time.sleep(PAUSE / 2)
            rp.resume()
            resumed = time.monotonic()
            time.sleep(COOLDOWN + 1.0)
        load.check()
        slowest = load.slowest_during(paused, resumed)
        assert len(slowest) > 20  # the load went on during the pause
        assert slowest[0].seconds <= LATENCY_BOUND, slowest[:3]
        assert errors(server, "TimeoutError") > 0
        assert errors(server, "circuit_open") > 0  # the breaker spared most requests the wait
        # still ready (Redis is optional), saying Redis is unavailable, and within the bound
        assert ready.json() == {"status": "ready", "redis": "unavailable"}
        assert ready.elapsed.total_seconds() <= LATENCY_BOUND
        caching_resumes(server, client, 10_000)
        client.close()


def fill(client: redis.Redis) -> int:
    """Write filler until Redis refuses it, then lower the limit by a margin: client buffers
    come and go by tens of kB, which would let a few writes through a limit met exactly.
    Returns the number of filler keys."""
    filler = 0
    while True:
        try:
            client.set(f"filler:{filler}", b"x" * 65_536)
        except redis.exceptions.OutOfMemoryError:
            break
        filler += 1
    client.config_set("maxmemory", client.info("memory")["used_memory"] - 256 * 1024)
    return filler


def test_full_redis_refuses_writes_while_reads_and_requests_go_on():
    policy = ("--maxmemory", "2mb", "--maxmemory-policy", "noeviction")
    # no L1: every repeat below must be read from Redis
    with controlled_redis(*policy) as rp, faulty_server(rp.url, cache_entries=0) as server:
        client = redis.Redis.from_url(rp.url)
        early = [shoot(server, n) for n in range(1, 6)]
        assert eventually(lambda: all(stored(client, body) for body in early))
        filler = fill(client)
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            client.set("one more", b"x" * 1024)  # an answer's size
        late = [shoot_response(server, n) for n in range(100, 110)]  # writes refused
        assert all(cache_tier(response) is None for response in late)
        assert not any(stored(client, response.json()) for response in late)
        again = [shoot_response(server, n) for n in range(1, 6)]  # still read from full Redis
        assert all(cache_tier(response) is not None for response in again)
        assert errors(server, "OutOfMemoryError") >= len(late)
        assert errors(server, "circuit_open") == 0  # a full Redis is no outage

        client.delete(*(f"filler:{i}" for i in range(filler)))  # room again
        caching_resumes(server, client, 200)
        client.close()


def damaged_copies(raw: bytes, other: bytes) -> dict[str, bytes]:
    """Bad values for an entry whose good value is `raw`; `other` is another key's entry."""
    payload = raw[MAC:]
    digits = range(payload.index(b'"v":'), len(payload))  # in the answer, not in its key
    digit = next(i for i in digits if chr(payload[i]).isdigit() and payload[i] != ord("9"))
    altered = raw[:MAC] + payload[:digit] + bytes([payload[digit] + 1]) + payload[digit + 1 :]
    return {
        "half": raw[: len(raw) // 2],
        "one byte short": raw[:-1],
        "payload only": payload,  # the format before checksums
        "a digit altered": altered,  # same length, still valid JSON for the right key
        "garbage": b"\x00\xff garbage",
        "empty": b"",
        "another key's entry": other,
    }


def test_damaged_entries_are_recomputed_and_overwritten():
    with controlled_redis() as rp, faulty_server(rp.url, cache_entries=0) as server:
        client = redis.Redis.from_url(rp.url)
        good = shoot(server, 1)
        other = shoot(server, 2)
        key = redis_key(good["canonicalKey"])
        assert eventually(lambda: stored(client, good) and stored(client, other))
        raw = client.get(key)
        assert SIGNER.decode(good["canonicalKey"], raw) == without_service_members(good)
        # read back (no L1); on a loaded machine one read may outlast the short Redis time
        # limit and be a miss by design, so the read is retried, not the test
        assert eventually(lambda: cache_tier(shoot_response(server, 1)) == "redis")
        copies = damaged_copies(raw, client.get(redis_key(other["canonicalKey"])))
        assert SIGNER.decode(good["canonicalKey"], copies["a digit altered"]) is None
        assert orjson.loads(copies["a digit altered"][MAC:])["k"] == good["canonicalKey"]

        def recomputed(damage: str) -> None:
            again = shoot(server, 1)
            assert again == good, damage  # the right answer, not served from the bad entry
            assert eventually(lambda: client.get(key) == raw), f"{damage} was not overwritten"

        for damage, value in copies.items():
            client.set(key, value)
            recomputed(damage)
        for damage, write in {
            "a list": lambda: client.rpush(key, raw),
            "a hash": lambda: client.hset(key, "k", raw),
        }.items():
            client.delete(key)
            write()
            recomputed(damage)
        assert client.type(key) == b"string"
        assert SIGNER.encode(good["canonicalKey"], without_service_members(good)) == raw
        client.close()


def test_breaker_lets_one_probe_through_per_cooldown():
    breaker = Breaker(failures=2, cooldown=0.05)
    breaker.failed()
    breaker.failed()
    assert not breaker.allows()
    time.sleep(0.06)
    assert breaker.allows()  # the probe
    assert not breaker.allows()  # the others skip Redis while it runs
    time.sleep(0.06)
    assert breaker.allows()  # a probe that never reported (cancelled) keeps nothing open
    breaker.succeeded()
    assert breaker.allows() and breaker.allows()


def test_an_answer_json_cannot_write_is_no_redis_failure():
    """Only Redis's own failures count against it: the other answers are still stored and
    the breaker stays closed."""

    async def store() -> tuple[bool, list[dict[str, Any] | None]]:
        breaker = Breaker(failures=1, cooldown=60)
        tier = RedisTier(rp.url, ttl=60, timeout=1.0, pool_size=2, breaker=breaker, signer=SIGNER)
        await tier.put_many({"bad": {"x": object()}, "good": {"x": 1}})
        found = await tier.get_many(["bad", "good"])
        await tier.close()
        return breaker.allows(), found

    with controlled_redis() as rp:
        closed, found = asyncio.run(store())
    assert closed
    assert found == [None, {"x": 1}]
