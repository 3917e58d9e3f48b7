"""GraphQL input types derived from the pydantic request models, field by field.

Why not strawberry's pydantic integration: it cannot express the models' `Literal` enums
(schema construction fails on them), it fills every absent field with its default, and it
validates with its own error format. Here every input field is optional and left UNSET when
absent, so `to_body` gives back exactly the JSON body the client meant; that body then goes
through the same `registry.resolve` as REST and the CLI. One validation path means the same
§12 errors, the same canonical key and the same cache entry whichever door a request used.

Mapping: int → Int, bool → Boolean, str → String, `X | None` → nullable X, `Literal[...]` of
strings → a GraphQL enum (one per distinct value set, named after the field, its values in
SCREAMING_SNAKE like kt2024's: `rapidFire` is RAPID_FIRE, sent to the model as `rapidFire`;
a String if a value is not a GraphQL name), `Literal` booleans → Boolean, a dice expression
(`schema.fields.DICE`) → the `Dice` scalar, nested models → nested input types, a union of
models (kt2013's model or vehicle target) → one input type with the members of each (the
model's discriminator picks), `list[X]` → [X!]. A member typed `Any` (accepted and
ignored, like a mortal-wound target's toughness) is left out; any other type is a
programming error, so no JSON scalar can creep in.

A type may carry String members its model lacks (`extra`): members the service consumes
before validation, such as the catalog references that `schema.references.expand` turns into
inline profiles. `nested` names them for the nested types, by member (`attacker` → ...).
"""

from __future__ import annotations

import enum
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import strawberry
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from strawberry.types.unset import UNSET

from engine.dice_expr import DiceExpr
from schema.fields import Choices, DiceMember
from service.graphql.scalars import Dice

_NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]*")
_ENUMS: dict[tuple[str, ...], type[enum.Enum]] = {}
_ENUM_NAMES: set[str] = set()

# a nested member's name -> the extra String members of its input type, with descriptions
Nested = Callable[[str], Mapping[str, str]]


def _pascal(name: str) -> str:
    return name[:1].upper() + name[1:]


def screaming(value: str) -> str:
    """An API value as a GraphQL enum value: `rapidFire` → RAPID_FIRE, `ONE_D6` unchanged."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", value).upper()


def enum_for(field: str, values: tuple[str, ...]) -> type[enum.Enum]:
    """One GraphQL enum per set of values, named after the first field that uses it; its
    values SCREAMING_SNAKE, each standing for the API value (its Python value)."""
    if values not in _ENUMS:
        name = _pascal(field)
        while name in _ENUM_NAMES:
            name += "Choice"
        _ENUM_NAMES.add(name)
        members = {screaming(v): v for v in values}
        assert len(members) == len(values), f"{name}: values that differ only in case"
        _ENUMS[values] = strawberry.enum(enum.Enum(name, members))  # type: ignore[misc]
    return _ENUMS[values]


def choices_enum(choices: Choices) -> type[enum.Enum]:
    """The GraphQL enum of a `Choices` member (its values sent to the model as they are)."""
    key = (choices.name, *choices.values)
    if key not in _ENUMS:
        assert choices.name not in _ENUM_NAMES, f"two enums named {choices.name}"
        _ENUM_NAMES.add(choices.name)
        _ENUMS[key] = strawberry.enum(enum.Enum(choices.name, dict(choices.values)))  # type: ignore[misc]
    return _ENUMS[key]


_SKIP = object()  # a member left out of the input type


def _graphql_type(annotation: Any, field: str, prefix: str, nested: Nested | None) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is DiceExpr:
        return Dice
    if origin is typing.Annotated:
        hinted = _hinted(annotation.__metadata__)
        return hinted or _graphql_type(args[0], field, prefix, nested)
    if origin in (typing.Union, types.UnionType):
        present = [a for a in args if a is not type(None)]
        if len(present) == 1:
            return _graphql_type(present[0], field, prefix, nested) | None
        models = [_model_of(a) for a in present]
        assert all(models), f"{prefix}.{field}: a union GraphQL cannot type"
        extra = nested(field) if nested else None
        return merged_input_type(models, prefix + _pascal(field), extra)
    if origin is typing.Literal and all(isinstance(a, bool) for a in args):
        return bool
    if origin is typing.Literal and all(isinstance(a, str) for a in args):
        # a value GraphQL cannot name ("2+") makes the field a String, checked by pydantic
        return enum_for(field, args) if all(map(_NAME.fullmatch, args)) else str
    if origin is list and len(args) == 1:
        return list[_graphql_type(args[0], field, prefix, nested)]  # type: ignore[misc]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return input_type(annotation, prefix + _pascal(field), nested(field) if nested else None)
    if annotation in (int, bool, str, float):
        return annotation
    assert annotation is Any, f"{prefix}.{field}: no GraphQL input type for {annotation!r}"
    return _SKIP


def _hinted(metadata: Iterable[object]) -> Any:
    """The type a member's metadata asks for (`DICE`, `Choices`), if any."""
    for hint in metadata:
        if isinstance(hint, DiceMember):
            return Dice
        if isinstance(hint, Choices):
            return choices_enum(hint)
    return None


def member_type(info: FieldInfo, member: str, prefix: str, nested: Nested | None) -> Any:
    """The GraphQL type of a model member (pydantic keeps `Annotated` hints in `metadata`)."""
    return _hinted(info.metadata) or _graphql_type(info.annotation, member, prefix, nested)


def _model_of(annotation: Any) -> type[BaseModel] | None:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    is_model = isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return annotation if is_model else None


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
    return merged_input_type([model], name, extra, nested)


def merged_input_type(
    models: list[type[BaseModel]],
    name: str,
    extra: Mapping[str, str] | None = None,
    nested: Nested | None = None,
) -> type:
    """`input_type` of the members of several models (a union the body's discriminator
    resolves), each member once, described by the first model that has it."""
    if name in _INPUTS:
        return _INPUTS[name]
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {}
    for model in models:
        for python_name, info in model.model_fields.items():
            member = info.alias or python_name
            if python_name in annotations:
                continue
            graphql = member_type(info, member, name, nested)
            if graphql is _SKIP:
                continue
            annotations[python_name] = graphql | None
            namespace[python_name] = strawberry.field(
                default=UNSET, name=member, description=info.description
            )
    for member, description in (extra or {}).items():
        assert member not in namespace, f"{name}.{member} is already a member of the model"
        annotations[member] = str | None
        namespace[member] = strawberry.field(default=UNSET, name=member, description=description)
    namespace["__annotations__"] = annotations
    docs = [(m.__doc__ or "").strip() for m in models]
    namespace["__doc__"] = " Or: ".join(d for d in docs if d) or f"{name} (every member optional)"
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
