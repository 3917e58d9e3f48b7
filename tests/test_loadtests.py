"""The load tests send only valid requests, and their summary computes what it claims.

A load test whose scenarios the service rejects would measure error handling, not the engine;
these tests validate every pooled scenario, every grid cell and a sample of fresh ones
through the real request schema. `loadtests/scenarios.py` is imported by path: it is a script
directory, not a package, and importing Locust here would monkey-patch the test process.
"""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from prometheus_client import CollectorRegistry, Counter, generate_latest
from service_harness import load_loadtests_module

from schema import registry

LOADTESTS = Path(__file__).resolve().parents[1] / "loadtests"


scenarios = load_loadtests_module("scenarios")
summary = load_loadtests_module("summary")


def _valid(envelope: dict, mode: str) -> None:
    registry.resolve(envelope, mode)  # raises InputError naming the bad field


def test_popular_pools_are_valid_and_repeat():
    for envelope in scenarios.POPULAR_SHOOTS.items:
        _valid(envelope, "shoot")
    for envelope in scenarios.POPULAR_FIGHTS.items:
        _valid(envelope, "fight")
    draws = [
        json.dumps(scenarios.POPULAR_SHOOTS.draw(random.Random(i)), sort_keys=True)
        for i in range(500)
    ]
    # Zipf-like weights: the most popular scenario is drawn far more often than uniformly.
    top = max(draws.count(d) for d in set(draws))
    assert top > 3 * 500 / len(scenarios.POPULAR_SHOOTS.items)


def test_every_roster_grid_cell_is_valid():
    for attacker in scenarios.ROSTER_ATTACKERS:
        for defender in scenarios.ROSTER_DEFENDERS:
            for situation in scenarios.SITUATIONS:
                envelope = {
                    "attacker": {**attacker, **situation.get("attacker", {})},
                    "defender": {**defender, **situation.get("defender", {})},
                    "options": {},
                }
                _valid(envelope, "shoot")


@pytest.mark.parametrize("seed", range(5))
def test_fresh_scenarios_are_valid(seed):
    rng = random.Random(seed)
    for _ in range(100):
        _valid(scenarios.shoot(rng), "shoot")
    for _ in range(20):
        _valid(scenarios.fight(rng), "fight")


def _metrics(
    l1_hit: float, l1_miss: float, l2_hit: float, l2_miss: float, timeouts: float = 0, replies=0
) -> str:
    """`/metrics` text as prometheus-client renders the service's cache counters."""
    registry = CollectorRegistry()
    lookups = Counter("killmath_cache_lookups", "", ["tier", "result"], registry=registry)
    errors = Counter("killmath_redis_errors", "", ["kind"], registry=registry)
    errors.labels("TimeoutError").inc(timeouts)
    for (tier, result), value in {
        ("l1", "hit"): l1_hit,
        ("l1", "miss"): l1_miss,
        ("l2", "hit"): l2_hit,
        ("l2", "miss"): l2_miss,
        ("reply", "hit"): replies,
        ("reply", "miss"): replies,
    }.items():
        lookups.labels(tier, result).inc(value)
    return generate_latest(registry).decode()


def test_cache_summary_counts_only_the_run():
    before = _metrics(10, 5, 1, 4, timeouts=2)
    after = _metrics(10 + 70, 5 + 30, 1 + 20, 4 + 10, timeouts=2 + 3, replies=4)
    assert summary.cache_summary(before, after) == {
        "lookups": 100,
        "l1Hits": 70,
        "l2Hits": 20,
        "misses": 10,
        "hitRatio": 0.9,
        "l2HitRatio": 0.6667,
        "graphqlReplyHitRatio": 0.5,
        "redisErrors": 3,
        "redisErrorsByKind": {"TimeoutError": 3},
    }
    assert summary.cache_summary(before, before)["hitRatio"] is None


def test_summary_reads_locust_csv(tmp_path, capsys):
    columns = ["Type", "Name", "Request Count", "Failure Count", "Max Response Time"]
    columns += ["Requests/s", "50%", "95%", "99%"]
    with (tmp_path / "run_stats.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        writer.writerow(["POST", "/v1/shoot", 90, 0, 40.5, 9.0, 3, 20, 30])
        writer.writerow(["", "Aggregated", 100, 1, 80.25, 10.0, 4, 25, 60])
    (tmp_path / "before").write_text(_metrics(0, 0, 0, 0))
    (tmp_path / "after").write_text(_metrics(3, 1, 0, 1))
    args = [str(tmp_path / n) for n in ("run_stats.csv", "before", "after")]
    assert summary.main([*args, "--users", "5", "--peak-rss-kib", "204800"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"] == {
        "requests": 100,
        "failures": 1,
        "reqPerSec": 10.0,
        "p50Ms": 4.0,
        "p95Ms": 25.0,
        "p99Ms": 60.0,
        "maxMs": 80.2,
    }
    assert list(out["byRequest"]) == ["POST /v1/shoot"]
    assert out["cache"]["hitRatio"] == 0.75
    assert out["users"] == 5
    assert out["serverPeakRssMiB"] == 200.0


RUN_SH = LOADTESTS / "run.sh"


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["--redis-restarts", "2"], "--redis-restarts and --redis-down need --soak"),
        (["--redis-down", "5"], "--redis-restarts and --redis-down need --soak"),
        (["--soak", "--redis-down", "soon"], "--redis-down takes seconds"),
        (["--soak", "--redis-restarts", "two"], "--redis-restarts takes a count"),
        (["--soaked"], "unknown argument --soaked"),
    ],
)
def test_run_sh_refuses_bad_soak_arguments_before_starting_anything(args, complaint):
    done = subprocess.run(["bash", RUN_SH, *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert complaint in done.stderr
    assert "--soak" in done.stdout  # the usage, which documents the flag


def test_soak_redis_restarts_on_schedule_and_is_always_stopped(tmp_path):
    """The soak's Redis driver: a URL file, restarts counted from SIGUSR1, gone after TERM."""
    if shutil.which("redis-server") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true and no redis-server binary")
        pytest.skip("no redis-server binary")
    url_file = tmp_path / "url"
    schedule = ["--restart-at", "0.2", "--restart-at", "0.4", "--down", "0.1"]
    driver = subprocess.Popen(
        [sys.executable, LOADTESTS / "redis_process.py", "--url-file", url_file, *schedule],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 15
        while not url_file.exists():
            assert driver.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        client = redis.Redis.from_url(url_file.read_text().strip())
        client.set("before", 1)
        time.sleep(0.6)
        assert client.get("before") == b"1"  # the clock waits for SIGUSR1
        driver.send_signal(signal.SIGUSR1)
        time.sleep(1.0)
        assert client.get("before") is None  # restarted, empty, on the same port
    finally:
        driver.terminate()
        out, _ = driver.communicate(timeout=15)
    assert driver.returncode == 128 + signal.SIGTERM
    first, second = summary.restarts(out)  # seconds after SIGUSR1, each once done
    assert 0.3 <= first < second and second >= 0.5  # each down 0.1 s
    with pytest.raises(redis.ConnectionError):
        client.ping()  # nothing left listening
    client.close()


def _wire_metrics(ok: int, not_modified: int, sent: int | None) -> str:
    """`/metrics` text with the request and (unless None) response-byte counters."""
    registry = CollectorRegistry()
    requests = Counter(
        "killmath_http_requests", "", ["route", "method", "status"], registry=registry
    )
    requests.labels("/v1/shoot", "POST", "200").inc(ok)
    requests.labels("/v1/shoot", "POST", "304").inc(not_modified)
    if sent is not None:
        Counter("killmath_http_response_bytes", "", ["route"], registry=registry).labels(
            "/v1/shoot"
        ).inc(sent)
    return generate_latest(registry).decode()


def test_wire_summary_counts_304s_and_bytes_sent():
    before, after = _wire_metrics(10, 0, 5000), _wire_metrics(70, 40, 35000)
    assert summary.wire_summary(before, after, []) == {
        "notModifiedRatio": 0.4,
        "responseBytes": 30000,
        "bytesPerRequest": 300.0,
    }
    # a server that counts no bytes (it compressed nothing): Locust's decoded sizes
    rows = [{"Name": "/v1/shoot", "Average Content Size": "250", "Request Count": "100"}]
    old = _wire_metrics(100, 0, None)
    assert summary.wire_summary(_wire_metrics(0, 0, None), old, rows)["responseBytes"] == 25000
