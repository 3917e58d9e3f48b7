"""The Starlette application: routes from `service.routes_*` modules, middleware, errors.

Route modules each expose `routes: list[Route]` and are listed in ROUTE_MODULES, so another
area (the catalog) adds its routes without touching this file's logic; a module may also
expose `startup(state)`, run once when the app starts, in a thread of its own
(`app.state.started` is that run's future: a route needing what a `startup` built awaits
it), and `openapi_paths(components)` for `/openapi.json` (`service.openapi.document`). `create_app`
is also the uvicorn factory (`service.app:create_app`), so every worker builds its own app,
cache connection and engine pool from the environment.

Middleware, outermost first: ServiceMiddleware (request id, engine revision, body limit,
metrics, access log: it must see every answer, refusals included), then Disconnect (a client
gone before its answer cancels the request's work, `service.disconnect`), then compression (above
`KILLMATH_COMPRESS_MIN_BYTES`), then CORS when `KILLMATH_CORS_ORIGINS` is set
(a preflight carries no credentials, so it is answered before keys are checked, and CORS
headers reach a 401 or 429 too), then access control when `KILLMATH_API_KEYS` is set.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import os
import secrets
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import ModuleType
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response

from engine.kt2024 import flat
from schema import registry
from service import auth, logs
from service.admission import Admission
from service.cache import LRU, Breaker, Cache, RedisTier, Signer
from service.compression import Compression
from service.compute import Computer
from service.disconnect import Disconnect
from service.http import refusal
from service.middleware import ServiceMiddleware
from service.settings import Settings, from_environment

ROUTE_MODULES: list[str] = [
    "service.rest.compute",
    "service.rest.team",
    "service.graphql.routes",
    "service.rest.health",
    "service.rest.catalog",
    "service.openapi.document",
    "service.pages",
]

log = logging.getLogger("killmath.app")


def cache_secret(settings: Settings) -> bytes:
    """`KILLMATH_CACHE_KEY`, or a random secret of this process's own: its Redis entries are
    then unreadable to every other process (correct, but nothing is shared), hence the
    warning when a Redis is configured."""
    if settings.cache_key is not None:
        return settings.cache_key.get_secret_value().encode()
    if settings.redis_url:
        log.warning("KILLMATH_CACHE_KEY unset: Redis entries are signed with a random key")
    return secrets.token_bytes(32)


def build_cache(settings: Settings) -> Cache:
    l2 = None
    if settings.redis_url:
        l2 = RedisTier(
            settings.redis_url,
            ttl=settings.cache_ttl,
            timeout=settings.redis_timeout,
            pool_size=settings.redis_pool_size,
            breaker=Breaker(settings.breaker_failures, settings.breaker_cooldown),
            signer=Signer(cache_secret(settings)),
            cluster=settings.redis_cluster,
        )
    return Cache(LRU(settings.cache_entries), l2)


HTTP_CODES = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals in the service's error shape: an unknown path is NOT_FOUND, a
    known path asked with another method METHOD_NOT_ALLOWED (with Starlette's `Allow`)."""
    assert isinstance(exc, HTTPException)
    code = HTTP_CODES.get(exc.status_code, "INVALID_INPUT")
    return refusal(exc.status_code, code, exc.detail, headers=exc.headers)


async def unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error")
    return refusal(500, "INTERNAL", "internal error")


def middleware(settings: Settings, limiter: auth.Limiter | None) -> list[Middleware]:
    uploads = {path: settings.max_import_bytes for path in ("/v1/import", "/graphql")}
    stack = [
        Middleware(ServiceMiddleware, max_body_bytes=settings.max_body_bytes, path_limits=uploads),
        Middleware(Disconnect),
    ]
    if settings.compress_min_bytes:
        stack.append(Middleware(Compression, minimum_size=settings.compress_min_bytes))
    if settings.cors_origins:
        # no credentials mode: the API key travels in a header the page sets, not a cookie
        stack.append(
            Middleware(
                CORSMiddleware,
                allow_origins=settings.cors_origins,
                allow_methods=["GET", "POST"],
                allow_headers=[
                    "Authorization",
                    "Content-Type",
                    "X-Request-ID",
                    "If-None-Match",
                    "Prefer",
                ],
                expose_headers=[
                    "Retry-After",
                    "X-Request-ID",
                    "ETag",
                    "Cache-Status",
                    "Killmath-Engine-Revision",
                    "Preference-Applied",
                    "RateLimit",
                    "RateLimit-Policy",
                ],
                max_age=600,
            )
        )
    if settings.api_keys:
        keys = auth.Keys(key.get_secret_value() for key in settings.api_keys)
        stack.append(Middleware(auth.AccessControl, keys=keys, limiter=limiter))
    return stack


async def flush_access_log() -> None:
    """Write batched access lines even when no new request comes to push them out."""
    while True:
        await asyncio.sleep(logs.ACCESS_FLUSH)
        logs.ACCESS.flush()


def install_catalog(settings: Settings) -> None:
    """Load, validate and serve the `KILLMATH_CATALOG` sources (once, before any request).
    Raises schema.catalog.sources.SourceError naming a source that cannot be read."""
    if settings.catalog:
        from schema.catalog import catalog, install
        from schema.catalog.sources import load_sources, paths

        if list(dict.fromkeys(s.path for s in catalog().sources)) == paths(settings.catalog):
            return  # `killmath serve` loaded it in this very process
        cat = load_sources(settings.catalog)
        install(cat)
        log.info("catalog %s: %d kill teams, %d operatives, %d weapon profiles, %d problems",
                 cat.version, len(cat.kill_teams), len(cat.operatives), len(cat.profiles),
                 len(cat.problems))  # fmt: skip


def start_the_rest(state: Any, modules: list[ModuleType]) -> None:
    """Import every ruleset and run the route modules' `startup`s, then let the garbage
    collector back in. It is kept out while the app starts (the lifespan, and `killmath
    serve` before it imports the app): those seconds build only objects that live as long
    as the process, so collecting finds nothing and costs about a fifth of the start.
    Everything built then is frozen, out of every later collection, or each full collection
    would walk the whole schema and engine tables."""
    try:
        registry.rulesets()
        for module in modules:
            if hasattr(module, "startup"):
                module.startup(state)
    except BaseException:
        # as a start that failed before answering anything would: the process stops
        log.exception("the app's start failed: stopping")
        os.kill(os.getpid(), signal.SIGTERM)
        raise
    finally:
        gc.collect()
        gc.freeze()
        gc.enable()


def create_app(settings: Settings | None = None) -> Starlette:
    settings = settings or from_environment()
    logs.configure(settings.log_level)
    install_catalog(settings)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.computer = Computer(
            build_cache(settings),
            pool_size=settings.pool_size,
            time_budget=settings.time_budget,
            admission=Admission(settings.admitted_bytes),
        )
        gc.disable()  # until start_the_rest: nothing built while starting is garbage
        flat.warm_up()  # the fight's loops, compiled or from numba's cache: fights answer now
        # The rest (the older rulesets, the GraphQL schema, the pages) is built in a thread
        # while the app already answers: a new pod serves REST fights within about a second,
        # and GraphQL waits for `started` (`service.graphql.routes`).
        app.state.started = asyncio.get_running_loop().run_in_executor(
            None, start_the_rest, app.state, modules
        )
        flusher = asyncio.create_task(flush_access_log())
        try:
            yield
        finally:
            flusher.cancel()
            logs.ACCESS.flush()
            await app.state.computer.close()
            if isinstance(limiter, auth.SharedBuckets):
                await limiter.close()

    limiter = auth.limiter(settings)
    auth.describe(settings)
    modules = [importlib.import_module(m) for m in ROUTE_MODULES]
    routes = [route for module in modules for route in module.routes]
    app = Starlette(
        routes=routes,
        middleware=middleware(settings, limiter),
        exception_handlers={
            HTTPException: http_error,
            Exception: unexpected,
        },
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.route_modules = modules
    app.state.openapi = None
    return app
