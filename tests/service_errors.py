"""The §12 error shape, checked against the service's own OpenAPI `Error` schema.

The fuzz and abuse tests judge every error they receive with the schema the service
publishes, so a body that drifts from the document fails there — and so does a document that
drifts from the contract in kt2024.md §12 and issue 15 (`ERROR_CODES`).
"""

from __future__ import annotations

from typing import Any

import jsonschema

ERROR_CODES = {
    "INVALID_INPUT",
    "LIMIT_EXCEEDED",
    "NOT_FOUND",
    "METHOD_NOT_ALLOWED",
    "TIMEOUT",
    "REQUEST_TIMEOUT",
    "UNAUTHORIZED",
    "RATE_LIMITED",
    "INTERNAL",
}


def _within(document: dict[str, Any], name: str) -> jsonschema.Draft202012Validator:
    """A validator of the component `name`, its `$ref`s resolved inside the document."""
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


class ErrorShape:
    """Validators of a REST error body and of a GraphQL error's `extensions`."""

    def __init__(self, document: dict[str, Any]) -> None:
        schemas = document["components"]["schemas"]
        assert set(schemas["FieldError"]["properties"]["code"]["enum"]) == ERROR_CODES
        assert schemas["Error"]["required"] == ["error", "errors"]
        self.body = _within(document, "Error")
        self.members = _within(document, "FieldError")

    def body_problems(self, body: Any) -> list[str]:
        """Why a REST error body is not `{"error": {...}, "errors": [...]}` of the schema, or
        why its `error` is not the first of `errors` (empty when it is)."""
        problems = [error.message for error in self.body.iter_errors(body)]
        if not problems and body["errors"][0] != body["error"]:
            problems.append("`error` is not the first of `errors`")
        return problems

    def members_problems(self, extensions: Any) -> list[str]:
        """Why a GraphQL error's `extensions` do not carry the §12 members."""
        return [error.message for error in self.members.iter_errors(extensions)]
