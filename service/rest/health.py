"""Operational routes: liveness, readiness and Prometheus metrics.

`/metrics` is Prometheus, all workers' counts together.

Readiness answers 200 whenever this process can serve, and reports Redis separately: the
service computes without Redis (every lookup is then a miss), so a Redis outage must not
take every replica out of the load balancer at once. `redis` is "ok", "unavailable" or
"disabled" (no KILLMATH_REDIS_URL).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service import metrics
from service.http import JSONResponse, computer, refusal


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    cache = computer(request).cache
    redis = "disabled" if cache.l2 is None else "ok" if await cache.l2.ping() else "unavailable"
    return JSONResponse({"status": "ready", "redis": redis})


async def prometheus(request: Request) -> Response:
    """Every worker's metrics (`service.metrics`); not found here when `KILLMATH_METRICS_PORT`
    serves them on a port of their own, away from the API's."""
    if request.app.state.settings.metrics_port is not None:
        return refusal(404, "INVALID_INPUT", "metrics are served on KILLMATH_METRICS_PORT")
    body, media_type = metrics.exposition()
    return Response(body, media_type=media_type)


routes = [
    Route("/healthz", healthz, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
    Route("/metrics", prometheus, methods=["GET"]),
]
