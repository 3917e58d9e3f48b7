"""`killmath graphql-schema [file]`: the published GraphQL schema as SDL.

The file `service.graphql.schema` at the repository root is this command's output, committed so that
clients (graphql-codegen, the production overlay without introspection) have the schema
without a running server; tests/test_graphql_schema.py fails when the two drift. With a file
argument the SDL is written there (`killmath graphql-schema schema.graphql` refreshes it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from service.graphql.schema import sdl


def _print_schema(args: argparse.Namespace) -> int:
    text = sdl()
    if args.file:
        Path(args.file).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("graphql-schema", help="print the published GraphQL schema (SDL)")
    p.add_argument("file", nargs="?", help="write it to this file instead of stdout")
    p.set_defaults(run=_print_schema)
