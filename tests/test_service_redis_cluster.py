"""The L2 cache and the shared rate limit on a real six-node Redis Cluster
(`KILLMATH_REDIS_CLUSTER=true`, `KILLMATH_REDIS_URL` a seed node).

A master killed mid-load fails no request and answers are stored again once its replica has
taken over; a hung cluster costs a request at most a few time limits, as a hung Redis does
(the same bounds as test_service_faults); three processes sharing the cluster serve each
other's answers; a key's rate-limit bucket lives in the slot of its hash tag. Every test
prints what it measured (`pytest -s` shows it): the numbers of the report.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import ExitStack

import httpx
import pytest
from redis.cluster import key_slot
from redis_cluster import Cluster, redis_cluster
from service_harness import Server, serving
from test_service_faults import (
    COOLDOWN,
    FAULTY,
    LATENCY_BOUND,
    PAUSE,
    Load,
    caching_resumes,
    errors,
    eventually,
    expected,
    scenario,
    shoot,
)

from service import auth
from service.auth import key_id
from service.cache import redis_key, slot_map_ready
from service.compute import prepare
from service.settings import Settings

CLUSTERED = {**FAULTY, "redis_cluster": "true", "log_level": "WARNING"}


@pytest.fixture(scope="module")
def cluster():
    with redis_cluster() as running:
        yield running


def l2_ready(server: Server) -> None:
    """Wait until the server has read the cluster's slot map (in the background, after its
    first Redis call): /readyz says redis ok."""

    def ok() -> bool:
        return httpx.get(server.url + "/readyz", timeout=10).json()["redis"] == "ok"

    assert eventually(ok, 30), "the server never read the cluster's slot map"


def answered_keys(load: Load, after: float) -> list[str]:
    """The Redis keys of the single-shoot answers the load computed after `after`."""
    return [
        redis_key(o.body["canonicalKey"])
        for o in load.outcomes
        if o.started > after and len(o.scenarios) == 1 and "hit" not in o.cache_status
    ]


def test_a_master_killed_mid_load_fails_no_request():
    """The seed node itself is the master killed: the client has learnt the other nodes
    from it, and the service never needs the seed again."""
    # the default time limit: 50 ms (FAULTY's) drops writes on a busy two-core machine
    settings = CLUSTERED | {"redis_timeout": 0.1}
    with redis_cluster() as cluster, serving(redis_url=cluster.url, **settings) as server:
        seed = cluster.nodes[0]
        assert seed.port in cluster.masters()
        l2_ready(server)
        shoot(server, 0)
        with cluster.client() as client, Load(server.url) as load:
            time.sleep(1.5)
            before = client.dbsize()
            seed.kill()
            killed = time.monotonic()
            failover = cluster.wait_healthy()
            healed = time.monotonic()
            time.sleep(COOLDOWN + 2.0)
        load.check()
        assert seed.port not in cluster.masters()  # its replica took over
        refused = errors(server, "ConnectionError") + errors(server, "TimeoutError")
        assert refused > 0  # the dead master was seen, and survived
        after = answered_keys(load, healed + COOLDOWN + 0.2)
        assert after, "the load computed nothing after the failover"
        kept = cluster.stored(after)  # reported: a busy machine's time-outs drop some writes
        # every slot is writable again: without forget_slot_map the dead master's third of
        # them stayed unwritable (about 20 of 30 stored); one-by-one misses after the load
        fresh = [shoot(server, 20_000 + i) for i in range(30)]
        names = [redis_key(body["canonicalKey"]) for body in fresh]
        assert eventually(lambda: cluster.stored(names) >= 27), cluster.stored(names)
        during = [o for o in load.outcomes if killed <= o.started <= healed]
        print(
            f"\nfailover: {len(load.outcomes)} requests, 0 failed, {len(during)} during the "
            f"{failover:.2f} s failover; redis errors {refused:.0f}, skipped by the open "
            f"breaker {errors(server, 'circuit_open'):.0f}; {kept} of {len(after)} "
            f"answers computed under load after it stored, {cluster.stored(names)} of 30 one by "
            f"one; {before} keys in the cluster at the kill"
        )


def test_a_hung_cluster_costs_a_request_at_most_a_few_timeouts():
    """Every node stopped (SIGSTOP): the same latency bound and breaker as one hung Redis."""
    with redis_cluster() as cluster, serving(redis_url=cluster.url, **CLUSTERED) as server:
        l2_ready(server)
        shoot(server, 0)
        with Load(server.url) as load:
            time.sleep(1.0)
            for node in cluster.nodes:
                node.pause()
            paused = time.monotonic()
            time.sleep(PAUSE)
            for node in cluster.nodes:
                node.resume()
            resumed = time.monotonic()
            cluster.wait_healthy()
            time.sleep(COOLDOWN + 1.0)
        load.check()
        slowest = load.slowest_during(paused, resumed)
        assert len(slowest) > 20  # the load went on during the pause
        assert slowest[0].seconds <= LATENCY_BOUND, slowest[:3]
        assert errors(server, "TimeoutError") > 0
        assert errors(server, "circuit_open") > 0
        with cluster.client() as client:
            caching_resumes(server, client, 10_000)
        print(f"\nhung cluster: slowest request {slowest[0].seconds:.3f} s of {len(slowest)}")


def batch(server: Server, ns: range) -> list[dict]:
    envelopes = [{"mode": "shoot", **scenario(n)} for n in ns]
    response = httpx.post(server.url + "/v1/batch", json=envelopes, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def test_three_processes_serve_each_others_answers(cluster: Cluster):
    """300 scenarios, each process computing a third: every process then answers all 300,
    its own from L1 and the other 200 from the cluster, none computed twice."""
    per, count = 100, 3
    names = [redis_key(prepare(scenario(n), "shoot").key) for n in range(count * per)]
    assert len(set(names)) == count * per
    # spread over the three masters: a client of one node alone would find about a third
    with cluster.client() as client:
        assert len({client.get_node_from_key(name).port for name in names}) == 3
        client.flushall()  # the module's cluster: start from an empty L2
    with ExitStack() as stack:
        servers = [
            stack.enter_context(serving(redis_url=cluster.url, redis_cluster="true"))
            for _ in range(count)
        ]
        for server in servers:
            l2_ready(server)
        for i, server in enumerate(servers):
            batch(server, range(i * per, (i + 1) * per))
        assert eventually(lambda: cluster.stored(names) == count * per)
        answers = [expected(n) for n in range(count * per)]
        for i, server in enumerate(servers):
            assert batch(server, range(count * per)) == answers
            hits = server.metric("killmath_cache_lookups_total", tier="l2", result="hit")
            misses = server.metric("killmath_cache_lookups_total", tier="l2", result="miss")
            computed = server.metric(
                "killmath_engine_compute_seconds_count", ruleset="kt2024", mode="shoot"
            )
            assert (hits, misses, computed) == ((count - 1) * per, per, per)
            print(
                f"\nprocess {i}: L2 hits {hits:.0f} of {hits + misses:.0f} lookups "
                f"({hits / (hits + misses):.3f}); of the others' answers {hits:.0f} of "
                f"{(count - 1) * per} found; computed {computed:.0f}"
            )


def test_a_keys_bucket_is_shared_through_the_cluster(cluster: Cluster):
    """Two replicas' limiters draw from one bucket, which sits in its hash tag's slot."""
    settings = Settings(
        redis_url=cluster.url,
        redis_cluster=True,
        api_keys="secret",
        rate_limit=0.01,
        rate_limit_burst=3,
        redis_timeout=1.0,
    )
    name = key_id("secret")

    async def draw() -> list[float]:
        first, second = auth.limiter(settings), auth.limiter(settings)
        assert isinstance(first, auth.SharedBuckets) and isinstance(second, auth.SharedBuckets)
        # a new client reads the slot map in the background; until then the local bucket
        # decides (these draws are another key's)
        for attempt in range(600):
            if all(slot_map_ready(limiter.client) for limiter in (first, second)):
                break
            await first.take(f"warm-up {attempt}")
            await second.take(f"warm-up {attempt}")
            await asyncio.sleep(0.05)
        waits = [await first.take(name), await second.take(name), await first.take(name)]
        waits.append(await second.take(name))
        await first.close()
        await second.close()
        return waits

    with cluster.client() as client:
        client.delete(f"killmath:rate:{{{name}}}")
        waits = asyncio.run(draw())
        assert [allowance.wait for allowance in waits[:3]] == [0.0, 0.0, 0.0]
        assert waits[3].wait > 0  # the fourth draw, by either replica, finds the bucket empty
        bucket = f"killmath:rate:{{{name}}}"
        assert key_slot(bucket.encode()) == key_slot(name.encode())
        assert client.exists(bucket) == 1
