"""Prometheus metrics of one process, in a registry of their own (`/metrics` serves it).

Route labels are route templates (`/v1/shoot`), never raw paths, so a scan of random URLs
cannot grow the label set.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

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
REDIS_ERRORS = Counter(
    "killmath_redis_errors",
    "Redis calls that failed or were skipped by the open circuit, by kind",
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

L1_HIT = CACHE.labels(tier="l1", result="hit")
L1_MISS = CACHE.labels(tier="l1", result="miss")
L2_HIT = CACHE.labels(tier="l2", result="hit")
L2_MISS = CACHE.labels(tier="l2", result="miss")

_ROUTE_METRICS: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}


def observe_request(route: str, method: str, status: int, seconds: float) -> None:
    """Count one request and its latency (label children memoised: routes are few)."""
    children = _ROUTE_METRICS.get((route, method, status))
    if children is None:
        children = (REQUESTS.labels(route, method, str(status)), LATENCY.labels(route))
        _ROUTE_METRICS[(route, method, status)] = children
    children[0].inc()
    children[1].observe(seconds)
