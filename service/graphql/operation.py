"""Which operation of a document runs (the one `operationName` names, or the only one), and
the parsed document kept for the reply.

The GraphQL specification (§6.1, GetOperation) makes a document of several operations
without `operationName` a request error; strawberry picks the first operation instead, so a
client that forgot the name would get an answer to a question it may not have meant. This
extension refuses it before validation, as graphql-core's own executor would.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphql import GraphQLError, OperationDefinitionNode
from strawberry.extensions import SchemaExtension

MESSAGE = "Must provide operation name if query contains multiple operations."


class NamedOperation(SchemaExtension):
    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if (
            document is not None
            and context._provided_operation_name is None  # `operation_name` guesses the first
            and context.pre_execution_errors is None
            and sum(isinstance(d, OperationDefinitionNode) for d in document.definitions) > 1
        ):
            context.pre_execution_errors = [GraphQLError(MESSAGE)]
        yield


DOCUMENT = "document"
"""The request context's key of the parsed document (`KeepDocument`)."""


class KeepDocument(SchemaExtension):
    """Keep the parsed document in the request's context: the reply names a variable's bad
    value by the argument it is passed to (`graphql.http.variable_arguments`), which only
    the document says, and strawberry's result does not carry it."""

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if isinstance(context.context, dict):
            context.context[DOCUMENT] = context.graphql_document
        yield
