"""`killmath serve`: run the HTTP service under uvicorn.

Settings come from `KILLMATH_*` environment variables (see `service.settings`); the flags
choose where to listen, how many worker processes to run and (`--catalog`, the same as
`KILLMATH_CATALOG`) which catalog sources to serve; those are read once here first, so a
source that cannot be read stops the start with one message and exit status 2. Each worker
builds its own app through the `service.app:create_app` factory.

With more than one worker (or with `PROMETHEUS_MULTIPROC_DIR` already set), metrics run in
prometheus-client's multiprocess mode, so `/metrics` counts every worker's requests whichever
worker answers the scrape: the directory (`PROMETHEUS_MULTIPROC_DIR`, else a fresh temporary
one, removed on exit) is emptied first, before any worker starts. With `KILLMATH_METRICS_PORT`
this process serves the metrics on that port (same host) and the API port answers 404 for
`/metrics`. Without `KILLMATH_CACHE_KEY` the workers share one secret generated here, so they
read each other's Redis entries (`service.cache.Signer`).

The HTTP protocol is uvicorn's (httptools, else h11) with the read timeouts uvicorn lacks
(`service.protocol`): slow headers or a slow body get 408, idle connections are closed after
`KILLMATH_KEEP_ALIVE_TIMEOUT`.
"""

from __future__ import annotations

import argparse
import gc
import os
import secrets
import shutil
import sys
import tempfile

from service.settings import from_environment


def _check_catalog(sources: str | None) -> str | None:
    """Load the catalog sources once here, so a source that cannot be read stops the start
    with one clear line instead of a traceback per worker. The error message, or None."""
    if sources is None:
        return None
    from schema.catalog import install
    from schema.catalog.sources import SourceError, load_sources

    try:
        install(load_sources(sources))  # a single worker (this process) serves it as is
    except SourceError as exc:
        return str(exc)
    os.environ["KILLMATH_CATALOG"] = sources  # every worker reads its settings from here
    return None


def serve(args: argparse.Namespace) -> int:
    error = _check_catalog(args.catalog or os.environ.get("KILLMATH_CATALOG") or None)
    if error is not None:
        print(f"killmath serve: catalog: {error}", file=sys.stderr)
        return 2
    settings = from_environment()
    if settings.redis_url and settings.cache_key is None and args.workers > 1:
        # one generated secret for every worker, so that they read each other's entries
        os.environ["KILLMATH_CACHE_KEY"] = secrets.token_hex(32)
    owned = None
    if args.workers > 1 or os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or tempfile.mkdtemp(
            prefix="killmath-metrics-"
        )
        owned = None if os.environ.get("PROMETHEUS_MULTIPROC_DIR") else directory
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
        _empty(directory)
    try:
        if settings.metrics_port is not None:
            from prometheus_client import start_http_server

            from service import metrics

            start_http_server(
                settings.metrics_port, addr=args.host, registry=metrics.collecting_registry()
            )
        if args.workers == 1:
            gc.disable()  # the app's start enables it again (service.app.start_the_rest)
        import uvicorn  # here, not at the top: every other command starts without the server

        from service.protocol import AutoProtocol

        uvicorn.run(
            "service.app:create_app",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            access_log=False,  # the service logs each request itself, as JSON
            log_config=None,  # keep the service's JSON logging
            proxy_headers=True,
            # uvicorn's protocol with header and body read timeouts (service.protocol); the
            # class itself: uvicorn 0.30 (the floor) takes only its own names as strings
            http=AutoProtocol,
            timeout_keep_alive=settings.keep_alive_timeout,  # type: ignore[arg-type]
        )
    finally:
        if owned is not None:
            shutil.rmtree(owned, ignore_errors=True)
    return 0


def _empty(directory: str) -> None:
    """Remove an earlier run's metric files: the multiprocess collector would add them in."""
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        if name.endswith(".db"):
            os.unlink(os.path.join(directory, name))


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("serve", help="run the HTTP service (REST + GraphQL)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--catalog",
        help="comma-separated catalog sources: BattleScribe directories, ktdash or "
        "killteamjson .json files (sets KILLMATH_CATALOG; default: the bundled catalog)",
    )
    parser.set_defaults(run=serve)
