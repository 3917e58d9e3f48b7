"""`killmath serve`: run the HTTP service under uvicorn.

Settings come from `KILLMATH_*` environment variables (see `service.settings`); the flags only
choose where to listen and how many worker processes to run. Each worker builds its own app
through the `service.app:create_app` factory.
"""

from __future__ import annotations

import argparse


def serve(args: argparse.Namespace) -> int:
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
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("serve", help="run the HTTP service (REST + GraphQL)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.set_defaults(run=serve)
