"""Prometheus metrics, in a registry of their own, right with one worker or several.

Route labels are route templates (`/v1/shoot`), never raw paths, so a scan of random URLs
cannot grow the label set.

With several workers (`killmath serve --workers N`) every worker is a process with counters of
its own, and a scrape reaches one of them. `killmath serve` then runs prometheus-client's
multiprocess mode: it points `PROMETHEUS_MULTIPROC_DIR` at an empty directory before any
worker starts, each worker writes its values to files there, and `exposition()` adds up every
worker's files (those of a worker that died included: its requests happened). Process figures
(`process_resident_memory_bytes`, CPU, open files) are per worker, with a `pid` label: the
library's ProcessCollector read for each live worker that has written metrics — its own
collector is the scraping process's alone, and RSS is what a Deployment's memory is sized
from. Garbage collections are counted by a `gc.callbacks` hook into ordinary counters (the
library's GCCollector reads `gc.get_stats()` of the scraping process only, and switches itself
off in multiprocess mode), with the time each one paused the worker.
"""

from __future__ import annotations

import gc
import os
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"

REGISTRY = CollectorRegistry(auto_describe=True)

REQUESTS = Counter(
    "killmath_http_requests",
    "HTTP requests by route, method and status",
    ["route", "method", "status"],
    registry=REGISTRY,
)
LATENCY = Histogram(
    "killmath_http_request_duration_seconds",
    "HTTP request latency by route",
    ["route"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
    registry=REGISTRY,
)
RESPONSE_BYTES = Counter(
    "killmath_http_response_bytes",
    "Response body bytes sent by route, as on the wire (after compression)",
    ["route"],
    registry=REGISTRY,
)
CACHE = Counter(
    "killmath_cache_lookups",
    "Cache lookups by tier (l1, l2, reply = whole GraphQL replies) and result (hit, miss)",
    ["tier", "result"],
    registry=REGISTRY,
)
COMPUTE = Histogram(
    "killmath_engine_compute_seconds",
    "Engine time per computed (uncached) scenario",
    ["ruleset", "mode"],
    buckets=(1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1, 0.5, 1, 5, 30),
    registry=REGISTRY,
)
ABANDONED = Counter(
    "killmath_engine_abandoned",
    "Computations stopped before they finished because no request waited on them any more "
    "(their clients left or their time budgets ran out)",
    registry=REGISTRY,
)
REDIS_ERRORS = Counter(
    "killmath_redis_errors",
    "Redis calls that failed or were skipped by the open circuit, by kind",
    ["kind"],
    registry=REGISTRY,
)
REDIS_REFUSED = Counter(
    "killmath_redis_refused",
    "What was read from Redis and not trusted: cache entries unsigned or damaged (entry), "
    "signed but not of their answer's shape (shape), rate-limit buckets out of range (bucket)",
    ["kind"],
    registry=REGISTRY,
)

AUTH_FAILURES = Counter(
    "killmath_auth_failures",
    "Requests refused 401 by reason (missing or invalid API key)",
    ["reason"],
    registry=REGISTRY,
)
RATE_LIMITED = Counter(
    "killmath_rate_limited",
    "Requests refused 429 by API key id (a hash prefix, never the key; one per configured key)",
    ["key"],
    registry=REGISTRY,
)

GRAPHQL_ERRORS = Counter(
    "killmath_graphql_errors",
    "Errors in GraphQL replies by code (the §12 code, GRAPHQL_VALIDATION_FAILED or "
    "INTERNAL_SERVER_ERROR)",
    ["code"],
    registry=REGISTRY,
)
SLOW_CLIENTS = Counter(
    "killmath_slow_clients",
    "Connections cut off for sending too slowly, by phase (headers: not complete within "
    "KILLMATH_HEADER_TIMEOUT; body: below KILLMATH_BODY_MIN_RATE)",
    ["phase"],
    registry=REGISTRY,
)
GC_COLLECTIONS = Counter(
    "killmath_gc_collections",
    "Garbage collections by generation",
    ["generation"],
    registry=REGISTRY,
)
GC_COLLECTED = Counter(
    "killmath_gc_collected_objects",
    "Objects freed by garbage collections, by generation",
    ["generation"],
    registry=REGISTRY,
)
GC_UNCOLLECTABLE = Counter(
    "killmath_gc_uncollectable_objects",
    "Uncollectable objects found by garbage collections, by generation",
    ["generation"],
    registry=REGISTRY,
)
GC_PAUSE = Histogram(
    "killmath_gc_pause_seconds",
    "Time a garbage collection held the worker, by generation",
    ["generation"],
    buckets=(1e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1, 0.5, 1),
    registry=REGISTRY,
)

L1_HIT = CACHE.labels(tier="l1", result="hit")
L1_MISS = CACHE.labels(tier="l1", result="miss")
L2_HIT = CACHE.labels(tier="l2", result="hit")
L2_MISS = CACHE.labels(tier="l2", result="miss")

_ROUTE_METRICS: dict[tuple[str, str, int], tuple[Counter, Histogram, Counter]] = {}


def observe_request(route: str, method: str, status: int, seconds: float, sent: int) -> None:
    """Count one request, its latency and its body bytes (label children memoised: routes
    are few)."""
    children = _ROUTE_METRICS.get((route, method, status))
    if children is None:
        children = (
            REQUESTS.labels(route, method, str(status)),
            LATENCY.labels(route),
            RESPONSE_BYTES.labels(route),
        )
        _ROUTE_METRICS[(route, method, status)] = children
    children[0].inc()
    children[1].observe(seconds)
    if sent:
        children[2].inc(sent)
    if _gc_done:
        flush_gc()


_gc_started = 0.0
_gc_done: deque[tuple[str, int, int, float]] = deque()


def _on_gc(phase: str, info: dict[str, int]) -> None:
    """Note a collection for `flush_gc`: a GC callback must not touch the metrics itself, as
    prometheus-client's value locks are not reentrant and the collection may have started
    inside one of them."""
    global _gc_started
    if phase == "start":
        _gc_started = time.perf_counter()
    else:
        pause = time.perf_counter() - _gc_started
        _gc_done.append((str(info["generation"]), info["collected"], info["uncollectable"], pause))


def flush_gc() -> None:
    """Count the collections noted since the last flush (at each request's end and scrape)."""
    while _gc_done:
        generation, collected, uncollectable, pause = _gc_done.popleft()
        GC_COLLECTIONS.labels(generation).inc()
        GC_COLLECTED.labels(generation).inc(collected)
        GC_UNCOLLECTABLE.labels(generation).inc(uncollectable)
        GC_PAUSE.labels(generation).observe(pause)


gc.callbacks.append(_on_gc)


class WorkerProcesses(Collector):
    """prometheus-client's ProcessCollector for each worker `pids` names, with a `pid` label."""

    def __init__(self, pids: Callable[[], Iterable[int]]) -> None:
        self.pids = pids

    def collect(self) -> Iterator[Metric]:
        families: dict[str, Metric] = {}
        for pid in self.pids():
            for family in ProcessCollector(pid=lambda pid=pid: pid, registry=None).collect():
                merged = families.setdefault(
                    family.name, Metric(family.name, family.documentation, family.type)
                )
                for sample in family.samples:
                    merged.add_sample(sample.name, {**sample.labels, "pid": str(pid)}, sample.value)
        yield from families.values()


_DB_FILE = re.compile(r"_(\d+)\.db$")


def _workers(directory: str) -> list[int]:
    """Live processes that wrote metrics to `directory` (its files end in `_<pid>.db`)."""
    pids = set()
    for path in Path(directory).glob("*.db"):
        found = _DB_FILE.search(path.name)
        if found and Path(f"/proc/{found.group(1)}").exists():
            pids.add(int(found.group(1)))
    return sorted(pids)


def collecting_registry() -> CollectorRegistry:
    """What a scrape reads: every worker's files in multiprocess mode, else this process."""
    directory = os.environ.get(MULTIPROC_DIR)
    if not directory:
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=directory)
    registry.register(WorkerProcesses(lambda: _workers(directory)))
    return registry


if not os.environ.get(MULTIPROC_DIR):
    REGISTRY.register(WorkerProcesses(lambda: [os.getpid()]))


def exposition() -> tuple[bytes, str]:
    """The `/metrics` body and its content type."""
    flush_gc()
    return generate_latest(collecting_registry()), CONTENT_TYPE_LATEST
