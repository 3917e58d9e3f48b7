"""Bulk GraphQL arguments counted before they are coerced, and refused when too many.

graphql-core coerces every variable, and strawberry converts every input object, before a
resolver runs — on the event loop, at some 100 µs per attacker profile. A 1000 × 1000
`matchupGrid` would spend 200 ms being built only to be refused by its resolver, and 300 KB of
`[{}, {}, ...]` in any list argument blocks every other request for seconds. So before
execution this extension counts, from the document and the raw variables:

* the bulk limits the resolvers enforce — `matchups(inputs)` at most `max_matchups`,
  `matchupGrid` at most `max_grid_cells` attackers × defenders × situations — refused with
  the very error the resolver would raise;
* the list items of every field's arguments (a variable counted at each use, as each field
  converts it anew), at most `max_grid_cells + max_matchups`: the largest legitimate
  operation, a grid at its cell limit, fits.

The limits are the service's settings, found as the resolvers find the service
(`context["service"].settings`); an execution without a service (a test's `execute_sync`)
is not checked.

Validation has a cost of its own: graphql-core's OverlappingFieldsCanBeMergedRule compares
every pair of fields that share a response name, so 300 copies of `rulesets { name }` (5 KB)
took 0.85 s of the event loop. graphql-core bounds that work by a budget it lets us lower
(`MAX_COMPLEXITY_BUDGET`, 500,000 units, some 2 s); this module sets it, on import, to
VALIDATION_BUDGET, which the documents real clients send — GraphiQL's introspection,
matchups with fragments on every result type — do not come near (they spend under 10).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    ListValueNode,
    Node,
    NullValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    ValidationContext,
    ValidationRule,
    ValueNode,
    VariableNode,
    get_operation_ast,
)
from graphql.validation.rules import overlapping_fields_can_be_merged
from strawberry.extensions import ParserCache, SchemaExtension, ValidationCache

from engine.errors import InputError
from schema.limits import grid_too_large, too_many_matchups

VALIDATION_BUDGET = 10_000  # field comparisons, about 40 ms at most
# graphql-core reads its budget for comparing fields as each validation starts
overlapping_fields_can_be_merged.MAX_COMPLEXITY_BUDGET = VALIDATION_BUDGET

# Parsed documents cost some 100 bytes of AST per byte of text (a 430 KB document of 96,000
# tokens kept 45 MB), and strawberry's caches kept 1024 of them whatever their size: distinct
# big documents grew the process by 45 MB each. Documents above this are parsed and
# validated afresh, like the request bodies `service.compute` does not memoise; with 256
# cached documents (`service.graphql.schema`) the caches hold at most about 100 MB.
CACHED_DOCUMENT_CHARS = 4096


def _json_items(value: Any, cap: int) -> int:
    """List items anywhere in a raw JSON value, counted until past `cap` (iteratively:
    variables nest up to 1024 deep)."""
    count, stack = 0, [value]
    while stack and count <= cap:
        item = stack.pop()
        if isinstance(item, list):
            count += len(item)
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return count


class _Arguments:
    """Sizes of argument values, literal or from the request's variables."""

    def __init__(
        self, operation: OperationDefinitionNode, variables: Mapping[str, Any], cap: int
    ) -> None:
        self.cap = cap
        self.values = dict(variables)
        for definition in operation.variable_definitions or ():
            name = definition.variable.name.value
            if name not in self.values and definition.default_value is not None:
                self.values[name] = definition.default_value
        self._items: dict[str, int] = {}

    def _variable(self, node: VariableNode) -> Any:
        return self.values.get(node.name.value)

    def length(self, node: ValueNode | None) -> int | None:
        """The length of a list argument (None when absent or null; a single value is 1)."""
        if node is None or isinstance(node, NullValueNode):
            return None
        value: Any = self._variable(node) if isinstance(node, VariableNode) else node
        if value is None or isinstance(value, NullValueNode):
            return None
        if isinstance(value, ListValueNode):
            return len(value.values)
        return len(value) if isinstance(value, list) else 1

    def items(self, node: ValueNode) -> int:
        """List items anywhere in an argument value, counted until past the cap."""
        count, stack = 0, [node]
        while stack and count <= self.cap:
            item = stack.pop()
            if isinstance(item, VariableNode):
                name = item.name.value
                if name not in self._items:
                    value = self._variable(item)
                    self._items[name] = (
                        self.items(value)
                        if isinstance(value, Node)
                        else _json_items(value, self.cap)
                    )
                count += self._items[name]
            elif isinstance(item, ListValueNode):
                count += len(item.values)
                stack.extend(item.values)
            elif isinstance(item, ObjectValueNode):
                stack.extend(field.value for field in item.fields)
        return count


def _fields(
    operation: OperationDefinitionNode, fragments: Mapping[str, FragmentDefinitionNode]
) -> Iterator[tuple[FieldNode, bool]]:
    """Every field the operation selects (fragments followed), and whether it is a root field."""
    stack: list[tuple[Node, bool]] = [(s, True) for s in operation.selection_set.selections]
    while stack:
        node, root = stack.pop()
        if isinstance(node, FieldNode):
            yield node, root
            if node.selection_set is not None:
                stack.extend((s, False) for s in node.selection_set.selections)
        elif isinstance(node, InlineFragmentNode):
            stack.extend((s, root) for s in node.selection_set.selections)
        elif isinstance(node, FragmentSpreadNode) and node.name.value in fragments:
            spread = fragments[node.name.value].selection_set.selections
            stack.extend((s, root) for s in spread)


def _bulk_error(field: FieldNode, arguments: _Arguments, settings: Any) -> InputError | None:
    """The error `matchups` or `matchupGrid` would raise for its size, if any."""
    given = {argument.name.value: argument.value for argument in field.arguments or ()}
    if field.name.value == "matchups":
        count = arguments.length(given.get("inputs")) or 0
        if count > settings.max_matchups:
            return too_many_matchups(count, settings.max_matchups)
    elif field.name.value == "matchupGrid":
        cells = 1
        for name in ("attackers", "defenders", "situations"):
            length = arguments.length(given.get(name))
            cells *= 1 if length is None and name == "situations" else length or 0
        if cells > settings.max_grid_cells:
            return grid_too_large(cells, settings.max_grid_cells)
    return None


def refusal(
    document: DocumentNode, operation_name: str | None, variables: Mapping[str, Any], settings: Any
) -> GraphQLError | None:
    """Why the operation is refused before it runs, or None."""
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        return None  # graphql-core names the operation problem itself
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    budget = settings.max_grid_cells + settings.max_matchups
    arguments = _Arguments(operation, variables, budget)
    total = 0
    for field, root in _fields(operation, fragments):
        error = _bulk_error(field, arguments, settings) if root else None
        total += sum(arguments.items(argument.value) for argument in field.arguments or ())
        if error is None and total > budget:
            message = f"the arguments hold more than {budget} list items"
            error = InputError("LIMIT_EXCEEDED", "", message, budget)
        if error is not None:
            key = field.alias.value if field.alias else field.name.value
            return GraphQLError(
                error.message, nodes=[field], path=[key] if root else None,
                extensions=error.as_json(),
            )  # fmt: skip
    return None


class BulkLimits(SchemaExtension):
    """Refuse an oversized bulk operation before its variables are coerced."""

    def on_execute(self) -> Iterator[None]:
        context = self.execution_context
        service = context.context.get("service") if isinstance(context.context, dict) else None
        if service is not None and context.graphql_document is not None:
            error = refusal(
                context.graphql_document,
                context.operation_name,
                context.variables or {},
                service.settings,
            )
            if error is not None:
                context.result = ExecutionResult(data=None, errors=[error])
        yield


def _cached(context: Any) -> bool:
    return len(context.query or "") <= CACHED_DOCUMENT_CHARS


class SmallParserCache(ParserCache):
    """strawberry's ParserCache for documents up to CACHED_DOCUMENT_CHARS."""

    def on_parse(self) -> Iterator[None]:
        if _cached(self.execution_context):
            yield from super().on_parse()
        else:
            yield  # strawberry parses it


class SmallValidationCache(ValidationCache):
    """strawberry's ValidationCache for documents up to CACHED_DOCUMENT_CHARS (and for
    documents not refused already by AliasCount)."""

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if context.pre_execution_errors is None and _cached(context):
            yield from super().on_validate()
        else:
            yield  # refused already, or strawberry validates it


# Fields an operation may select once its fragments are spread. graphql-core executes a
# fragment spread twice in one selection once, but strawberry's depth and alias limiters and
# `_fields` above walk every spread: 22 fragments each spreading the next twice (a 700-byte
# document) made them walk 4 million fields, 30 s of the event loop. GraphiQL's introspection
# query, the largest real document, spreads to 220 fields, 3 fragments deep.
MAX_SPREAD_FIELDS = 5_000
# Fragments spread within fragments: strawberry's depth limiter recurses twice a level, so a
# chain of 500 spreads (5 KB) ended it in a RecursionError.
MAX_SPREAD_DEPTH = 100

Spread = tuple[int, int, int]  # aliases, fields, fragments deep


def _local_counts(owner: Node) -> tuple[int, int, dict[str, int]]:
    """Aliases and fields under `owner` without following its spreads, and how often it
    spreads each fragment."""
    aliases = fields = 0
    spreads: dict[str, int] = {}
    stack: list[Node] = list(owner.selection_set.selections)  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if isinstance(node, FieldNode):
            fields += 1
            aliases += node.alias is not None
        elif isinstance(node, FragmentSpreadNode):
            spreads[node.name.value] = spreads.get(node.name.value, 0) + 1
        selections = getattr(node, "selection_set", None)
        if selections is not None:
            stack.extend(selections.selections)
    return aliases, fields, spreads


def _spread(local: tuple[int, int, dict[str, int]], spread: Mapping[str, Spread]) -> Spread:
    """A definition's counts with the fragments it spreads added (those in `spread`)."""
    cap = MAX_SPREAD_FIELDS + 1
    aliases, fields, spreads = local
    depth = 0
    for name, times in spreads.items():
        if name in spread:
            inner_aliases, inner_fields, inner_depth = spread[name]
            aliases = min(cap, aliases + times * inner_aliases)
            fields = min(cap, fields + times * inner_fields)
            depth = max(depth, inner_depth + 1)
    return aliases, fields, depth


def spread_counts(document: DocumentNode) -> Spread:
    """Aliases and fields of the document's operations with every fragment spread where it
    is spread, as strawberry's MaxAliasesLimiter counts them, and how deep fragments spread
    fragments; each fragment counted once, and iteratively. Counts saturate just past
    MAX_SPREAD_FIELDS. A spread of an unknown fragment, or of one already being spread
    (a cycle, which validation refuses), counts nothing, as in strawberry."""
    local = {
        d.name.value: _local_counts(d)
        for d in document.definitions
        if isinstance(d, FragmentDefinitionNode)
    }
    spread: dict[str, Spread] = {}
    for root in local:
        if root in spread:
            continue
        path, open_ = [(root, iter(local[root][2]))], {root}
        while path:
            name, spreads_left = path[-1]
            after = next((g for g in spreads_left if g in local and g not in spread), None)
            if after is not None and after not in open_:
                path.append((after, iter(local[after][2])))
                open_.add(after)
            elif after is None:
                path.pop()
                open_.discard(name)
                spread[name] = _spread(local[name], spread)
    totals = [
        _spread(_local_counts(d), spread)
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode)
    ]
    cap = MAX_SPREAD_FIELDS + 1
    return (
        min(cap, sum(t[0] for t in totals)),
        min(cap, sum(t[1] for t in totals)),
        max((t[2] for t in totals), default=0),
    )


class AliasCount(SchemaExtension):
    """Refuse a document with too many aliases, or too many fields or too deep a chain once
    its fragments are spread, before it is validated.

    This is strawberry's MaxAliasesLimiter (same count, same message) moved before
    validation: as a validation rule it reported only once every other rule had walked the
    whole document (1,000 aliases: 30 ms on a quiet machine, 120 ms on a busy one), and it
    walked each fragment again at every spread. Listed before SmallValidationCache, whose
    validation it then spares.
    """

    def __init__(self, max_aliases: int) -> None:
        super().__init__()
        self.max_aliases = max_aliases

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if context.graphql_document is not None and context.pre_execution_errors is None:
            aliases, fields, depth = spread_counts(context.graphql_document)
            if depth > MAX_SPREAD_DEPTH:
                message = f"fragments spread more than {MAX_SPREAD_DEPTH} deep"
                context.pre_execution_errors = [GraphQLError(message)]
            elif fields > MAX_SPREAD_FIELDS:
                message = (
                    f"the document selects more than {MAX_SPREAD_FIELDS} fields"
                    " once its fragments are spread"
                )
                context.pre_execution_errors = [GraphQLError(message)]
            elif aliases > self.max_aliases:
                message = f"{aliases} aliases found. Allowed: {self.max_aliases}"
                context.pre_execution_errors = [GraphQLError(message)]
        yield


INTROSPECTION_ROOTS = frozenset({"__schema", "__type"})


class OneIntrospection(ValidationRule):
    """At most one introspection root field (`__schema` or `__type`) in a document.

    Aliases and tokens bound a document, not its answer: each `__schema` answers the whole
    schema, some 23 KB, so 49 aliased copies made a 1.1 MB reply of 0.42 s for one token of
    cost. A client introspects with one `__schema` (GraphiQL's query) or one `__type`; a
    second in the same document can only repeat it. Each written field is counted once, in
    operations and fragments alike: a root fragment spread twice merges into one field, so
    the count bounds what can execute."""

    def __init__(self, context: ValidationContext) -> None:
        super().__init__(context)
        self.seen = 0

    def enter_field(self, node: FieldNode, *_: Any) -> None:
        if node.name.value in INTROSPECTION_ROOTS:
            self.seen += 1
            if self.seen == 2:
                message = "a document may select one introspection field (__schema or __type)"
                self.report_error(GraphQLError(message, node))
