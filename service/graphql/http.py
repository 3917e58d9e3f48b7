"""GraphQL over HTTP, as the GraphQL-over-HTTP specification has it.

Strawberry's view answers `application/json` whatever the client accepts, refuses in plain
text, and fails with a 500 on a JSON body that is not an object; so the request is read and
the answer written here, and strawberry only executes (`Schema.execute`) and renders GraphiQL.

* Media types: the `Accept` header picks `application/graphql-response+json` or
  `application/json` (no `Accept`, `*/*` and `application/*` mean `application/json`, the
  type every existing client reads); anything else is 406.
* A request is read from the query string (GET, queries only: a mutation is 405) or from an
  `application/json` POST body (any other content type is 415), and must be one object with
  a string `query`, optional string `operationName`, object `variables` and `extensions`
  (in a GET, `variables` and `extensions` are JSON text). A list of operations (batching) is
  refused: one operation per request keeps the cache, the limits and the status per answer.
* Every refusal is a GraphQL response, `{"errors": [{"message", "extensions": {"code",
  "field", "message"}}]}` (the §12 members, as the resolvers' errors carry them; built by
  `service.http.graphql_errors`, like the middleware's refusals), with a 4xx:
  INVALID_INPUT naming the member or header at fault (400; 406 `accept`, 415
  `content-type`), METHOD_NOT_ALLOWED (405, with `Allow`).
* A *request error* (the document does not parse or validate, the variables do not coerce,
  the operation cannot be chosen) has no `data` member, as the GraphQL specification says;
  it answers 400 with `application/graphql-response+json` and 200 with `application/json`
  (the spec's rule for the legacy type). A response with `data` — even `null`, from a field
  error on a non-null root field — answers 200.
* Errors graphql-core raises before execution carry no code; they get one here:
  GRAPHQL_PARSE_FAILED or GRAPHQL_VALIDATION_FAILED.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from graphql import GraphQLError, GraphQLSyntaxError
from starlette.responses import Response
from strawberry.types import ExecutionResult
from strawberry.types.execution import PreExecutionError

from service.http import listed, refusal

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
MEDIA_TYPES = (GRAPHQL_RESPONSE, JSON)
ALLOW = "GET, POST"


@dataclass
class Refused(Exception):
    """A request refused before any GraphQL work: its status and the §12 members."""

    status: int
    code: str
    field: str
    message: str
    headers: Mapping[str, str] | None = None

    def response(self) -> Response:
        """The refusal, in GraphQL's error shape on /graphql (`service.http.graphql_errors`)."""
        return refusal(self.status, self.code, self.message, field=self.field, headers=self.headers)


def _invalid(field: str, message: str) -> Refused:
    return Refused(400, "INVALID_INPUT", field, message)


def _media_ranges(accept: str) -> list[tuple[str, float]]:
    ranges = []
    for part in accept.split(","):
        media, *params = (p.strip() for p in part.split(";"))
        if not media:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        ranges.append((media.lower(), q))
    return ranges


def _quality(media: str, ranges: list[tuple[str, float]]) -> tuple[float, int]:
    """The quality the client gives `media` and how specifically (2 named, 1 `type/*`, 0
    `*/*`, -1 not at all), from the most specific range that matches (RFC 9110 §12.5.1)."""
    kind = media.split("/")[0]
    best = (0.0, -1)
    for given, q in ranges:
        specificity = {media: 2, f"{kind}/*": 1, "*/*": 0}.get(given, -1)
        if specificity > best[1]:
            best = (q, specificity)
    return best


def negotiate(accept: str | None) -> str:
    """The media type of the answer: `application/graphql-response+json` when the client
    names it at least as highly as `application/json`, else `application/json` if the client
    takes it (missing or empty `Accept`: it does); 406 when it takes neither."""
    if not accept or not accept.strip():
        return JSON
    ranges = _media_ranges(accept)
    q_new, named = _quality(GRAPHQL_RESPONSE, ranges)
    q_json, _ = _quality(JSON, ranges)
    if q_new > 0 and named == 2 and q_new >= q_json:
        return GRAPHQL_RESPONSE
    if q_json > 0:
        return JSON
    if q_new > 0:
        return GRAPHQL_RESPONSE
    raise Refused(
        406,
        "INVALID_INPUT",
        "accept",
        f"answers are {GRAPHQL_RESPONSE} or {JSON}; the Accept header takes neither",
    )


def wants_html(accept: str | None) -> bool:
    """A browser asking for a page (GraphiQL) rather than an answer."""
    return any(media == "text/html" and q > 0 for media, q in _media_ranges(accept or ""))


@dataclass(frozen=True)
class Params:
    """One GraphQL-over-HTTP request's parameters."""

    query: str
    operation_name: str | None
    variables: dict[str, Any] | None
    extensions: dict[str, Any] | None


def _object_or_null(value: Any, field: str) -> dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value
    raise _invalid(field, f"`{field}` must be an object or null")


def params(data: Any) -> Params:
    """The parameters of a decoded request, or 400 naming what is wrong."""
    if isinstance(data, list):
        raise _invalid("", "batching is not supported: send one operation per request")
    if not isinstance(data, dict):
        raise _invalid("", "the body must be a JSON object with a `query`")
    query = data.get("query")
    if query is None:
        raise _invalid("query", "no GraphQL document: `query` is required")
    if not isinstance(query, str):
        raise _invalid("query", "`query` must be a string")
    if not query.strip():
        raise _invalid("query", "`query` is empty")
    name = data.get("operationName")
    if name is not None and not isinstance(name, str):
        raise _invalid("operationName", "`operationName` must be a string or null")
    return Params(
        query=query,
        operation_name=name or None,
        variables=_object_or_null(data.get("variables"), "variables"),
        extensions=_object_or_null(data.get("extensions"), "extensions"),
    )


def _json_text(value: str | None, field: str) -> Any:
    if value is None:
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        raise _invalid(field, f"`{field}` is not valid JSON") from None


def params_from_query_string(query: Mapping[str, str]) -> Params:
    """A GET's parameters: `variables` and `extensions` are JSON text."""
    data: dict[str, Any] = {name: query.get(name) for name in ("query", "operationName")}
    for field in ("variables", "extensions"):
        data[field] = _json_text(query.get(field), field)
    return params(data)


def check_content_type(content_type: str | None) -> None:
    """A POST's body must be utf-8 JSON: 415 for anything else (a missing type included)."""
    media, *options = (p.strip().lower() for p in (content_type or "").split(";"))
    if media != JSON:
        message = f"a GraphQL POST body is {JSON}"
        raise Refused(415, "INVALID_INPUT", "content-type", message)
    charsets = {o.partition("=")[2].strip('"') for o in options if o.startswith("charset=")}
    if not charsets <= {"utf-8", "utf8"}:
        raise Refused(415, "INVALID_INPUT", "content-type", "the body must be utf-8")


def params_from_body(body: bytes) -> Params:
    """A POST's parameters from its JSON body (its content type checked already)."""
    if not body.strip():
        raise _invalid("", "the body is empty: it must be a JSON object with a `query`")
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise _invalid("", f"the body is not valid JSON: {exc}") from None
    return params(data)


def is_request_error(result: ExecutionResult) -> bool:
    """Whether the operation failed before it executed: parsing, validation, or variable
    coercion (graphql-core answers those with `data` None and errors that have no path)."""
    if isinstance(result, PreExecutionError):
        return True
    return result.data is None and bool(result.errors) and all(not e.path for e in result.errors)


def _formatted(error: GraphQLError, before_execution: bool) -> dict[str, Any]:
    formatted: dict[str, Any] = dict(error.formatted)
    extensions = dict(formatted.get("extensions") or {})
    if before_execution and "code" not in extensions:
        parse = isinstance(error, GraphQLSyntaxError)
        extensions["code"] = "GRAPHQL_PARSE_FAILED" if parse else "GRAPHQL_VALIDATION_FAILED"
    if extensions:
        formatted["extensions"] = extensions
    return formatted


def response(result: ExecutionResult, media: str) -> tuple[int, dict[str, Any]]:
    """The status and body of an executed (or refused) operation."""
    request_error = is_request_error(result)
    body: dict[str, Any] = {} if request_error else {"data": result.data}
    if result.errors:
        body["errors"] = listed([_formatted(e, request_error) for e in result.errors])
    if result.extensions:
        body["extensions"] = result.extensions
    status = 400 if request_error and media == GRAPHQL_RESPONSE else 200
    return status, body
