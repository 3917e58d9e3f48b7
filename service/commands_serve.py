"""`killmath serve`: run the HTTP service under uvicorn.

Settings come from `KILLMATH_*` environment variables (see `service.settings`); the flags only
choose where to listen and how many worker processes to run. Each worker builds its own app
through the `service.app:create_app` factory.

With more than one worker (or with `PROMETHEUS_MULTIPROC_DIR` already set), metrics run in
prometheus-client's multiprocess mode, so `/metrics` counts every worker's requests whichever
worker answers the scrape: the directory (`PROMETHEUS_MULTIPROC_DIR`, else a fresh temporary
one, removed on exit) is emptied first, before any worker starts. With `KILLMATH_METRICS_PORT`
this process serves the metrics on that port (same host) and the API port answers 404 for
`/metrics`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile

from service.settings import from_environment


def serve(args: argparse.Namespace) -> int:
    settings = from_environment()
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
        import uvicorn  # here, not at the top: every other command starts without the server

        uvicorn.run(
            "service.app:create_app",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            access_log=False,  # the service logs each request itself, as JSON
            log_config=None,  # keep the service's JSON logging
            proxy_headers=True,
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
    parser.set_defaults(run=serve)
