"""End-to-end with Redis as the shared L2 cache, and without it when it is unreachable."""

from __future__ import annotations

import httpx
import orjson
import redis
from service_harness import (
    SIGNER,
    cache_tier,
    free_port,
    rest,
    serving,
    without_service_members,
)

from engine import REVISION
from service import cache
from service.cache import MAC, redis_key

# the same scenario written three ways: defaults spelled out, snake_case names, and counts
# above what they are capped by (kt2024.md §11 CS2, CS5) — one canonical key
PLAIN = {"attacker": {"attacks": 4, "accurate": 4}, "defender": {"coverSaves": 3}}
SPELLED = {
    "ruleset": "kt2024",
    "mode": "shoot",
    "attacker": {"attacks": 4, "accurate": 9, "hit": 3, "normal_damage": 3},
    "defender": {"defenceDice": 3, "coverSaves": 7, "wounds": 12},
    "options": {"rounds": 1, "exact": False},
}


def keys(url: str) -> list[bytes]:
    with redis.Redis.from_url(url) as client:
        return sorted(client.keys("*"))


def test_equivalent_inputs_share_one_redis_entry(redis_url):
    with serving(redis_url=redis_url) as first:
        computed = httpx.post(first.url + "/v1/shoot", json=PLAIN)
        assert cache_tier(computed) is None
        assert (
            computed.headers["cache-status"] == "killmath-redis; fwd=miss, killmath-lru; fwd=miss"
        )
        a = computed.json()
        assert keys(redis_url) == [redis_key(a["canonicalKey"]).encode()]
    # a second process has an empty L1: its answer must come from that one Redis entry
    with serving(redis_url=redis_url) as second:
        found = httpx.post(second.url + "/v1/shoot", json=SPELLED)
        assert found.headers["cache-status"] == "killmath-redis; hit, killmath-lru; fwd=miss"
        assert found.content == computed.content  # byte-identical, wherever it came from
        assert found.headers["etag"] == computed.headers["etag"]
        assert second.metric("killmath_cache_lookups_total", tier="l2", result="hit") == 1
    assert len(keys(redis_url)) == 1
    with redis.Redis.from_url(redis_url) as client:
        stored = orjson.loads(client.get(redis_key(a["canonicalKey"]))[MAC:])
        assert 0 < client.ttl(redis_key(a["canonicalKey"])) <= 7 * 24 * 3600
    assert stored == {
        "k": a["canonicalKey"],
        "v": without_service_members(a),
    }


def test_bulk_requests_fill_and_read_redis_in_bulk(redis_url):
    envelopes = [{"mode": "shoot", "attacker": {"attacks": n}} for n in range(1, 9)]
    envelopes.append({"mode": "shoot", "attacker": {"attacks": 99}})
    with serving(redis_url=redis_url) as first:
        cold = httpx.post(first.url + "/v1/batch", json=envelopes).json()
    assert len(keys(redis_url)) == 8
    with serving(redis_url=redis_url) as second:
        warm = httpx.post(second.url + "/v1/batch", json=envelopes).json()
        assert second.metric("killmath_cache_lookups_total", tier="l2", result="hit") == 8
        assert (
            second.metric("killmath_engine_compute_seconds_count", ruleset="kt2024", mode="shoot")
            == 0
        )
    assert warm == cold
    assert warm[-1]["error"]["code"] == "LIMIT_EXCEEDED"


def test_a_corrupted_entry_is_recomputed_not_served(redis_url):
    with serving(redis_url=redis_url) as first:
        good = rest(first.url, "/v1/shoot", PLAIN)
    key = redis_key(good["canonicalKey"])
    with redis.Redis.from_url(redis_url) as client:
        raw = client.get(key)
        for damaged in (
            raw[: len(raw) // 2],
            b"\x00garbage",
            orjson.dumps({"k": "other", "v": {}}),
        ):
            client.set(key, damaged)
            with serving(redis_url=redis_url) as server:
                again = rest(server.url, "/v1/shoot", PLAIN)
            assert again == good
        assert client.get(key) == raw  # the recomputed answer replaced the damaged entry


def test_an_older_engine_revisions_entry_is_never_served(redis_url, monkeypatch):
    """An entry a previous engine revision stored (same canonical key, different numbers, as
    a fixed bug would leave behind) sits under another Redis key: it is recomputed."""
    with serving(redis_url=redis_url) as first:
        good = rest(first.url, "/v1/shoot", PLAIN)
    stale = without_service_members(good) | {"expectedDamage": 0.0}
    current = redis_key(good["canonicalKey"])
    monkeypatch.setattr(cache, "REVISION", REVISION - 1)
    older = redis_key(good["canonicalKey"])
    assert older != current
    with redis.Redis.from_url(redis_url) as client:
        client.delete(current)
        client.set(older, SIGNER.encode(good["canonicalKey"], stale))
        with serving(redis_url=redis_url) as server:
            again = rest(server.url, "/v1/shoot", PLAIN)
        assert again == good
        assert client.exists(current) == 1


def test_unreachable_redis_never_fails_a_request():
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    with serving(redis_url=dead, redis_timeout=0.05) as server:
        shoot = httpx.post(server.url + "/v1/shoot", json=PLAIN)
        assert shoot.status_code == 200
        assert cache_tier(shoot) is None
        again = httpx.post(server.url + "/v1/shoot", json=SPELLED)
        assert cache_tier(again) == "lru"  # L1 still works
        batch = httpx.post(server.url + "/v1/batch", json=[{"mode": "fight"}, {"mode": "shoot"}])
        assert batch.status_code == 200 and "error" not in batch.json()[0]
        grid = httpx.post(server.url + "/v1/grid", json={"attackers": [{}], "defenders": [{}, {}]})
        assert grid.status_code == 200
        answer = httpx.post(
            server.url + "/graphql", json={"query": "{ shoot(input: {}) { expectedDamage } }"}
        )
        assert answer.json()["data"]["shoot"]["expectedDamage"] > 0
        assert httpx.get(server.url + "/readyz").json() == {
            "status": "ready",
            "redis": "unavailable",
        }
        # the breaker opened after the first failures: later lookups skip Redis altogether
        assert server.metric("killmath_redis_errors_total", kind="circuit_open") > 0
