"""Single-flight, the time budget, and the cache building blocks."""

from __future__ import annotations

import asyncio
import time

import httpx
import orjson
from service_harness import serving

from service.cache import LRU, Breaker, Signer

HEAVY = {
    "attacker": {"attacks": 20, "reroll": "CEASELESS", "lethal": 5},
    "defender": {"feelNoPain": 5, "saintlyRelics": "TWO_D6"},
    "options": {"rounds": 4, "exact": True},
}


LONG_FIGHT = {
    "fighterA": {"attacks": 8, "wounds": 30},
    "fighterB": {"attacks": 8, "wounds": 30},
    "options": {"rounds": 5, "exact": True},
}
"""The §12-sized fight: about a second of engine work, so that every request of a burst is in
flight while the first is computed, however loaded the machine (HEAVY's shot, 0.1 s since
issue 17, could end before a loaded client had sent the burst's last requests)."""


def computed(server, mode: str = "shoot") -> float:
    return server.metric("killmath_engine_compute_seconds_count", ruleset="kt2024", mode=mode)


def test_concurrent_identical_misses_compute_once():
    # no L1, no Redis: only single-flight can spare the duplicates
    with serving(cache_entries=0, pool_size=4) as server:

        async def burst(n: int) -> list[dict]:
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
                responses = await asyncio.gather(
                    *(client.post("/v1/fight", json=LONG_FIGHT) for _ in range(n))
                )
            return [r.json() for r in responses]

        answers = asyncio.run(burst(16))
        assert computed(server, "fight") == 1
        assert all(a == answers[0] for a in answers)
        # the cache really is off: one more request, after the burst, computes again
        httpx.post(server.url + "/v1/fight", json=LONG_FIGHT, timeout=60)
        assert computed(server, "fight") == 2


def test_time_budget_answers_timeout_and_the_server_keeps_serving():
    with serving(time_budget=0.001) as server:
        response = httpx.post(server.url + "/v1/shoot", json=HEAVY, timeout=60)
        assert response.status_code == 503
        error = response.json()["error"]
        assert error["code"] == "TIMEOUT"
        assert httpx.get(server.url + "/healthz").status_code == 200
        # nobody waits for it any more: the computation was stopped (issue 34;
        # tests/test_service_stop.py)
        assert server.metric("killmath_engine_abandoned_total") == 1


def test_lru_evicts_the_least_recently_used():
    lru = LRU(2)
    lru.put("a", {"v": 1})
    lru.put("b", {"v": 2})
    assert lru.get("a") == {"v": 1}  # a is now the most recent
    lru.put("c", {"v": 3})
    assert lru.get("b") is None
    assert lru.get("a") == {"v": 1} and lru.get("c") == {"v": 3}
    off = LRU(0)
    off.put("a", {"v": 1})
    assert off.get("a") is None


def test_breaker_opens_after_consecutive_failures_and_half_opens():
    breaker = Breaker(failures=2, cooldown=0.05)
    breaker.failed()
    assert breaker.allows()
    breaker.succeeded()
    breaker.failed()
    assert breaker.allows()  # successes reset the count
    breaker.failed()
    assert not breaker.allows()
    time.sleep(0.06)
    assert breaker.allows()  # half-open: one trial call
    breaker.failed()
    assert not breaker.allows()  # the trial failed: open again at once


def test_stored_entries_are_checked_against_their_key_and_signature():
    output = {"expectedDamage": 1.5}
    signer = Signer(b"secret")
    raw = signer.encode("k1", output)
    assert signer.decode("k1", raw) == output
    assert signer.decode("k2", raw) is None  # another key's entry (a digest collision)
    assert signer.decode("k1", raw[:-3]) is None  # truncated
    assert signer.decode("k1", b"\xff\xfe") is None
    assert signer.decode("k1", orjson.dumps({"k": "k1", "v": [1]})) is None
    assert signer.decode("k1", None) is None
    assert Signer(b"another secret").decode("k1", raw) is None  # signed by another key
    assert Signer(b"secret").decode("k1", raw) == output  # the same secret: the same MAC


def test_json_logs_carry_the_request_id():
    with serving(log_level="INFO") as server:
        httpx.post(
            server.url + "/v1/shoot",
            json={"attacker": {"hit": 9}},
            headers={"x-request-id": "req-42"},
        )
        time.sleep(1.2)  # access lines are written in batches at most 0.5 s late
        lines = [
            orjson.loads(line) for line in server.log_text().splitlines() if line.startswith("{")
        ]
    (access,) = [line for line in lines if line.get("requestId") == "req-42"]
    assert access["logger"] == "killmath.access"
    assert (access["status"], access["route"]) == (400, "/v1/shoot")
    assert access["time"].endswith("Z") and access["durationMs"] >= 0
