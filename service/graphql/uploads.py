"""Which GraphQL bodies may be as large as an upload.

`/graphql` takes bodies up to the upload limit (`KILLMATH_MAX_IMPORT_BYTES`) because
`importProfiles(content)` carries a whole file, best sent in a variable. Every other operation
keeps the general limit (`KILLMATH_MAX_BODY_BYTES`): a body above it is served only when its
operation selects nothing but `importProfiles` (and `__typename`) at the root, and its
document, the part GraphQL parses and validates, is itself within the general limit. A body
that cannot be read as such is refused as too large rather than parsed twice.
"""

from __future__ import annotations

import orjson
from graphql import FieldNode, GraphQLError, get_operation_ast, parse

UPLOAD_FIELDS = frozenset({"importProfiles", "__typename"})


def only_uploads(body: bytes, max_document: int) -> bool:
    """True when the body is a JSON GraphQL request whose operation only imports files."""
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
        operation = get_operation_ast(parse(query), name if isinstance(name, str) else None)
    except GraphQLError:
        return False
    if operation is None:
        return False
    selections = operation.selection_set.selections
    return all(isinstance(s, FieldNode) and s.name.value in UPLOAD_FIELDS for s in selections)
