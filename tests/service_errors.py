"""The §12 error shape, checked against the service's own OpenAPI `Error` schema.

The fuzz and abuse tests judge every error they receive with the schema the service
publishes, so a body that drifts from the document fails there — and so does a document that
drifts from the contract in kt2024.md §12 (`ERROR_CODES`).
"""

from __future__ import annotations

from typing import Any

import jsonschema

ERROR_CODES = {"INVALID_INPUT", "LIMIT_EXCEEDED", "TIMEOUT"}


class ErrorShape:
    """Validators of a REST error body and of a GraphQL error's `extensions`."""

    def __init__(self, document: dict[str, Any]) -> None:
        schema = document["components"]["schemas"]["Error"]
        assert set(schema["properties"]["error"]["properties"]["code"]["enum"]) == ERROR_CODES
        jsonschema.Draft202012Validator.check_schema(schema)
        self.body = jsonschema.Draft202012Validator(schema)
        self.members = jsonschema.Draft202012Validator(schema["properties"]["error"])

    def body_problems(self, body: Any) -> list[str]:
        """Why a REST error body is not `{"error": {...}}` of the schema (empty when it is)."""
        return [error.message for error in self.body.iter_errors(body)]

    def members_problems(self, extensions: Any) -> list[str]:
        """Why a GraphQL error's `extensions` do not carry the §12 members."""
        return [error.message for error in self.members.iter_errors(extensions)]
