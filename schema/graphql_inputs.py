"""GraphQL input types derived from the pydantic request models, field by field.

Why not strawberry's pydantic integration: it cannot express the models' `Literal` enums
(schema construction fails on them), it fills every absent field with its default, and it
validates with its own error format. Here every input field is optional and left UNSET when
absent, so `to_body` gives back exactly the JSON body the client meant; that body then goes
through the same `registry.resolve` as REST and the CLI. One validation path means the same
§12 errors, the same canonical key and the same cache entry whichever door a request used.

Mapping: int → Int, bool → Boolean, str → String, `X | None` → nullable X, `Literal[...]` of
strings → a GraphQL enum (one per distinct value set, named after the field; a String if a
value is not a GraphQL name), nested models →
nested input types, `list[X]` → [X!], anything else → JSON.

A type may carry String members its model lacks (`extra`): members the service consumes
before validation, such as the catalog references that `schema.references.expand` turns into
inline profiles. `nested` names them for the nested types, by member (`attacker` → ...).
"""

from __future__ import annotations

import enum
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

import strawberry
from pydantic import BaseModel
from strawberry.scalars import JSON
from strawberry.types.unset import UNSET

_NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]*")
_ENUMS: dict[tuple[str, ...], type[enum.Enum]] = {}
_ENUM_NAMES: set[str] = set()

# a nested member's name -> the extra String members of its input type, with descriptions
Nested = Callable[[str], Mapping[str, str]]


def _pascal(name: str) -> str:
    return name[:1].upper() + name[1:]


def enum_for(field: str, values: tuple[str, ...]) -> type[enum.Enum]:
    """One GraphQL enum per set of values, named after the first field that uses it."""
    if values not in _ENUMS:
        name = _pascal(field)
        while name in _ENUM_NAMES:
            name += "Choice"
        _ENUM_NAMES.add(name)
        _ENUMS[values] = strawberry.enum(enum.Enum(name, {v: v for v in values}))  # type: ignore[misc]
    return _ENUMS[values]


def _graphql_type(annotation: Any, field: str, prefix: str, nested: Nested | None) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _graphql_type(args[0], field, prefix, nested)
    if origin in (typing.Union, types.UnionType):
        present = [a for a in args if a is not type(None)]
        if len(present) == 1:
            return _graphql_type(present[0], field, prefix, nested) | None
        return JSON
    if origin is typing.Literal and all(isinstance(a, str) for a in args):
        # a value GraphQL cannot name ("2+") makes the field a String, checked by pydantic
        return enum_for(field, args) if all(map(_NAME.fullmatch, args)) else str
    if origin is list and len(args) == 1:
        return list[_graphql_type(args[0], field, prefix, nested)]  # type: ignore[misc]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return input_type(annotation, prefix + _pascal(field), nested(field) if nested else None)
    if annotation in (int, bool, str, float):
        return annotation
    return JSON


_INPUTS: dict[str, type] = {}


def input_type(
    model: type[BaseModel],
    name: str,
    extra: Mapping[str, str] | None = None,
    nested: Nested | None = None,
) -> type:
    """The GraphQL input type `<name>Input` of a pydantic model; every field optional.

    `extra` adds optional String members (name → description) the model does not have.
    Types are built once per name: a later call with the same name gets the first one.
    """
    if name in _INPUTS:
        return _INPUTS[name]
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {}
    for python_name, info in model.model_fields.items():
        member = info.alias or python_name
        annotations[python_name] = _graphql_type(info.annotation, member, name, nested) | None
        namespace[python_name] = strawberry.field(
            default=UNSET, name=member, description=info.description
        )
    for member, description in (extra or {}).items():
        assert member not in namespace, f"{name}.{member} is already a member of the model"
        annotations[member] = str | None
        namespace[member] = strawberry.field(default=UNSET, name=member, description=description)
    namespace["__annotations__"] = annotations
    namespace["__doc__"] = (model.__doc__ or "").strip() or f"{name} (every member optional)"
    _INPUTS[name] = strawberry.input(type(f"{name}Input", (), namespace), name=f"{name}Input")
    return _INPUTS[name]


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "__strawberry_definition__"):
        return to_body(value)
    return value


def to_body(data: Any) -> dict[str, Any]:
    """The JSON body an input object stands for: members given, by their API names."""
    definition = data.__strawberry_definition__
    body: dict[str, Any] = {}
    for field in definition.fields:
        value = getattr(data, field.python_name)
        if value is not UNSET:
            body[field.graphql_name or field.python_name] = _plain(value)
    return body
