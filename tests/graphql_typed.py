"""Helpers for asking the typed GraphQL schema for everything: a selection of every member
of a type (unions: every member type), request bodies turned into GraphQL variables (enum
values by their GraphQL names), and GraphQL answers turned back into the REST JSON, so the
two can be compared exactly."""

from __future__ import annotations

from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    GraphQLUnionType,
    get_named_type,
    get_nullable_type,
)

from service.graphql.schema import published

SCHEMA: GraphQLSchema = published()._schema
SERVICE_MEMBERS = ("canonicalKey", "cached")


def selection(kind: GraphQLOutputType) -> str:
    """`{ ... }` selecting every member of an object type, or of each member of a union."""
    named = get_named_type(kind)
    if isinstance(named, GraphQLUnionType):
        return (
            "{ __typename "
            + " ".join(f"... on {t.name} {selection(t)}" for t in named.types)
            + " }"
        )
    assert isinstance(named, GraphQLObjectType), named
    members = []
    for name, field in named.fields.items():
        inner = get_named_type(field.type)
        composite = isinstance(inner, GraphQLObjectType | GraphQLUnionType)
        members.append(f"{name} {selection(field.type)}" if composite else name)
    return "{ " + " ".join(members) + " }"


def query_of(field: str) -> tuple[str, str]:
    """A document asking `field(input: $i)` for everything, and the input type's name."""
    root = SCHEMA.query_type.fields[field]
    input_name = get_named_type(root.args["input"].type).name
    document = f"query($i: {input_name}!) {{ {field}(input: $i) {selection(root.type)} }}"
    return document, input_name


def variables(value: Any, kind: GraphQLInputType) -> Any:
    """A JSON body as the GraphQL input of `kind`: enum values by their GraphQL names."""
    kind = get_nullable_type(kind)
    if value is None:
        return None
    if isinstance(kind, GraphQLList):
        return [variables(v, kind.of_type) for v in value]
    if isinstance(kind, GraphQLInputObjectType):
        return {k: variables(v, kind.fields[k].type) for k, v in value.items()}
    if isinstance(kind, GraphQLEnumType):
        (name,) = [n for n, e in kind.values.items() if e.value == value]
        return name
    return value


def as_rest(answer: Any, kind: GraphQLOutputType | None = None) -> Any:
    """A GraphQL answer (of type `kind`, when known) as the REST JSON: members that are null
    left out (REST leaves absent members out), `__typename` dropped, enum names back to the
    API values, `{value, outOfAction}` back to one `value`."""
    named = get_named_type(kind) if kind is not None else None
    if isinstance(answer, list):
        return [as_rest(a, kind) for a in answer]
    if isinstance(named, GraphQLEnumType) and answer is not None:
        return named.values[answer].value
    if not isinstance(answer, dict):
        return answer
    if isinstance(named, GraphQLUnionType):
        named = SCHEMA.type_map[answer["__typename"]]
    fields = named.fields if isinstance(named, GraphQLObjectType) else {}
    out = {
        k: as_rest(v, fields[k].type if k in fields else None)
        for k, v in answer.items()
        if v is not None and k != "__typename"
    }
    if "outOfAction" in out:
        out["value"] = "outOfAction" if out.pop("outOfAction") else out["value"]
    return out


def without_nulls(value: Any) -> Any:
    """REST JSON with null members left out (to compare with `as_rest`)."""
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    return value
