"""The GraphQL schema: one `Query` merged from the query classes of each area.

QUERY_CLASSES names them as "module:attribute" and they are imported when the schema is
built, so an area adds its queries with one line here (the catalog adds its CatalogQuery).
Lists of answers are completed as projections of their JSON dicts
(`service.graphql.execution`). Document-level protections are strawberry extensions: parsed
and validated documents are cached (256 documents of up to 4 KB), depth, aliases and tokens
are bounded before any resolver runs, and list arguments are counted before they are
coerced (the last and the caches: `service.graphql.limits`). With `introspection=False`
(production) a document selecting `__schema` or `__type` fails validation (graphql-core's
NoSchemaIntrospectionCustomRule); `__typename` stays, clients need it. With it on, a
document may select one of them (`OneIntrospection`): each answers the whole schema.

The published schema, `service.graphql.schema` at the repository root, is `sdl()`: the SDL of the
same types without the service's extensions (they change what a document may do, not the
schema). `killmath graphql-schema` prints it, `GET /graphql/schema.graphql` serves it (with
introspection off too) and `strawberry export-schema service.graphql.schema:schema` reaches it.
"""

from __future__ import annotations

import copy
import importlib

import strawberry
from graphql import GraphQLError, NoSchemaIntrospectionCustomRule
from strawberry.extensions import (
    AddValidationRules,
    MaxTokensLimiter,
    QueryDepthLimiter,
)
from strawberry.schema.config import StrawberryConfig
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from service.graphql.execution import Projecting
from service.graphql.limits import (
    AliasCount,
    BulkLimits,
    OneIntrospection,
    SmallParserCache,
    SmallValidationCache,
)
from service.graphql.operation import NamedOperation
from service.graphql.outputs import member
from service.graphql.scalars import SCALARS

# answers are served as their JSON dicts (service.graphql.outputs), read by member name
CONFIG = StrawberryConfig(default_resolver=member, scalar_map=SCALARS)

QUERY_CLASSES: list[str] = [
    "service.graphql.kt2024:Kt2024Query",
    "service.graphql.rulesets:RulesetQuery",
    "service.graphql.catalog:CatalogQuery",
    "service.graphql.team:TeamMatchupQuery",
]


def query_type() -> type:
    classes = []
    for path in QUERY_CLASSES:
        module, _, attribute = path.partition(":")
        classes.append(getattr(importlib.import_module(module), attribute))
    return merge_types("Query", tuple(classes))


class Schema(strawberry.Schema):
    """Logs only errors the server caused: a client's bad document or input is its answer,
    not a server fault (strawberry would log each with a traceback at ERROR)."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        faults = [
            e
            for e in errors
            if e.original_error is not None and not isinstance(e.original_error, GraphQLError)
        ]
        if faults:
            super().process_errors(faults, execution_context)


def build_schema(
    *, max_depth: int, max_aliases: int, max_tokens: int, introspection: bool = True
) -> strawberry.Schema:
    # strawberry wants a factory per extension so each request gets fresh instances. The two
    # caches live at module level in strawberry (keyed by size), so they persist anyway. The
    # depth limiter is copied from one instance: a fresh limiter would build a fresh rule
    # class, and the ValidationCache, keyed by the rules, would then never hit. Aliases are
    # counted by AliasCount, before validation, in place of strawberry's MaxAliasesLimiter.
    depth = QueryDepthLimiter(max_depth=max_depth)
    extensions = [
        lambda: SmallParserCache(maxsize=256),
        NamedOperation,
        lambda: AliasCount(max_aliases),
        lambda: SmallValidationCache(maxsize=256),
        lambda: copy.copy(depth),
        lambda: MaxTokensLimiter(max_token_count=max_tokens),
        BulkLimits,
    ]
    if introspection:
        extensions.append(lambda: AddValidationRules([OneIntrospection]))
    else:
        extensions.append(lambda: AddValidationRules([NoSchemaIntrospectionCustomRule]))
    return Schema(
        query=query_type(),
        extensions=extensions,
        config=CONFIG,
        execution_context_class=Projecting,
    )


def published() -> strawberry.Schema:
    """The schema's types alone, as clients and `strawberry export-schema` see them."""
    return Schema(query=query_type(), config=CONFIG)


def sdl() -> str:
    """The published schema as SDL, ending in a newline (the file `service.graphql.schema`)."""
    return published().as_str() + "\n"


def __getattr__(name: str) -> strawberry.Schema:
    """`service.graphql.schema:schema` for `strawberry export-schema`, built when first asked."""
    if name == "schema":
        globals()["schema"] = built = published()
        return built
    raise AttributeError(name)
