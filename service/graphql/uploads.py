"""Which GraphQL bodies may be as large as an upload.

`/graphql` takes bodies up to the upload limit (`KILLMATH_MAX_IMPORT_BYTES`) because
`importProfiles(content)` carries a whole file, best sent in a variable. Every other operation
keeps the general limit (`KILLMATH_MAX_BODY_BYTES`): a body above it is served only when its
operation selects nothing but `importProfiles` (and `__typename`) at the root, and its
document, the part GraphQL parses and validates, is itself within the general limit. A body
that cannot be read as such is refused as too large rather than parsed twice.

The document is parsed here under the token limit (`KILLMATH_GRAPHQL_MAX_TOKENS`), as every
other document is: graphql-core's lexer stops at the first token past it. Unlimited, a
megabyte of `a1: __typename a2: ...` beside an `importProfiles` cost over a second of the
event loop before its refusal; a document past the limit raises the token error here
(`TooManyTokens`), which the endpoint answers as the parse error it is.
"""

from __future__ import annotations

import orjson
from graphql import FieldNode, GraphQLError, GraphQLSyntaxError, get_operation_ast, parse

UPLOAD_FIELDS = frozenset({"importProfiles", "__typename"})


TOKEN_ERROR = "Document contains more than"  # graphql-core's message for max_tokens


class TooManyTokens(Exception):
    """A large body's document has more tokens than the limit: `error` is graphql-core's."""

    def __init__(self, error: GraphQLSyntaxError) -> None:
        super().__init__(error.message)
        self.error = error


def only_uploads(body: bytes, max_document: int, max_tokens: int) -> bool:
    """True when the body is a JSON GraphQL request whose operation only imports files;
    TooManyTokens when its document has more than `max_tokens` tokens."""
    if b"importProfiles" not in body:  # a scan, not a parse: other big bodies refused fast
        return False
    try:
        request = orjson.loads(body)
    except orjson.JSONDecodeError:
        return False
    if not isinstance(request, dict):
        return False
    query, name = request.get("query"), request.get("operationName")
    if not isinstance(query, str) or len(query) > max_document:
        return False
    try:
        document = parse(query, max_tokens=max_tokens)
    except GraphQLSyntaxError as exc:
        if TOKEN_ERROR in exc.message:
            raise TooManyTokens(exc) from None
        return False
    except GraphQLError:
        return False
    try:
        operation = get_operation_ast(document, name if isinstance(name, str) else None)
    except GraphQLError:
        return False
    if operation is None:
        return False
    selections = operation.selection_set.selections
    return all(isinstance(s, FieldNode) and s.name.value in UPLOAD_FIELDS for s in selections)
