"""GraphQL output types derived from the answer models (`schema.answers`), member by member.

The answer model is the one declaration of an answer's shape; REST sends its JSON, and
GraphQL serves the very same JSON dict: each derived type's members have the JSON names, and
the schema's default resolver (`member`) reads a dict by them. So no second copy of any
shape is written here, and a member added to a model appears in GraphQL without an edit.

Mapping: int → Int, float → Float, str → String, bool → Boolean; a member that may be
absent (`Omitted`, the exact siblings of a float answer) → nullable; `list[X]` → [X!]; a
nested model → its own type; `Literal` strings → an enum (SCREAMING_SNAKE names, see
`service.graphql.inputs.enum_for`); engine members (`dict[str, int | bool | str]`: a
profile's fields, a rule's effect) → `Kt2024Fields`, every kt2024 attacker, defender and
fighter member, typed as the inputs are; and a distribution value that is a count or the
state `outOfAction` (kt2018) → `value: Int` (null for the state) beside `outOfAction:
Boolean!`, GraphQL having no union of scalars.

A type that answers a query (`service=True`) also has the service members `canonicalKey`
and `cached` (the GraphQL reply cache keeps only replies that say `cached: true`). Where a
mode answers in more than one shape (kt2013: a model or a vehicle target) the answer is a
union, and `tagged` names the member a dict belongs to.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Iterable
from typing import Any

import strawberry
from pydantic import BaseModel

from service.graphql.inputs import enum_for

SERVICE_MEMBERS = {
    "canonicalKey": (str, "the canonical key of the request: equal keys, equal answers"),
    "cached": (bool, "answered from the cache"),
}
TYPENAME = "__typename"

_OUTPUTS: dict[type[BaseModel], type] = {}
_SERVED: set[type[BaseModel]] = set()


def member(source: Any, name: str) -> Any:
    """The schema's default resolver: a dict (an answer's JSON) by its member name, any
    other object by attribute, as strawberry does."""
    if isinstance(source, dict):
        return source.get(name)
    return getattr(source, name)


def _is_engine_fields(annotation: Any) -> bool:
    return typing.get_origin(annotation) is dict


def _count_or_state(annotation: Any) -> str | None:
    """The state of an `int | Literal["<state>"]` member, else None."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType) or len(args) != 2:
        return None
    literal = next((a for a in args if typing.get_origin(a) is typing.Literal), None)
    if int in args and literal is not None and len(typing.get_args(literal)) == 1:
        return typing.get_args(literal)[0]
    return None


def _graphql_type(annotation: Any, member_name: str, owner: str) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _graphql_type(args[0], member_name, owner)
    if origin in (typing.Union, types.UnionType):
        present = [a for a in args if a is not type(None)]
        assert len(present) == 1, f"{owner}.{member_name}: a union GraphQL cannot type"
        return _graphql_type(present[0], member_name, owner) | None
    if origin is typing.Literal:
        # named after its owner, so that no input enum's name depends on which is built first
        return enum_for(owner + member_name[:1].upper() + member_name[1:], args)
    if origin is list:
        return list[_graphql_type(args[0], member_name, owner)]  # type: ignore[misc]
    if _is_engine_fields(annotation):
        return engine_fields()
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return output_type(annotation)
    assert annotation in (int, float, str, bool), f"{member_name}: {annotation!r}"
    return annotation


def _state_members(name: str, state: str, description: str | None) -> dict[str, Any]:
    """`value: Int` (null for the state) and `<state>: Boolean!` read from one member."""

    def value(root: Any) -> int | None:
        found = root[name]
        return found if isinstance(found, int) else None

    def flag(root: Any) -> bool:
        return root[name] == state

    return {
        name: strawberry.field(resolver=value, name=name, description=description),
        state: strawberry.field(resolver=flag, name=state, description=f"the value is {state}"),
    }


def _is_type_of(name: str) -> Any:
    def is_type_of(cls: type, obj: Any, info: Any) -> bool:
        """graphql-core asks of every value; a dict that names no type is what its field
        returns, one that does (`tagged`, in a union) is that type only."""
        return isinstance(obj, dict) and obj.get(TYPENAME, name) == name

    # what `service.graphql.execution` checks of a plain dict in place of calling this
    is_type_of.typename_only = True  # type: ignore[attr-defined]
    return classmethod(is_type_of)


def output_type(model: type[BaseModel], *, service: bool = False) -> type:
    """The GraphQL type of an answer model, named as the model; built once."""
    if model in _OUTPUTS:
        assert (model in _SERVED) == service, f"{model.__name__} both answers and nests"
        return _OUTPUTS[model]
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {}
    for python_name, info in model.model_fields.items():
        name = info.alias or python_name
        state = _count_or_state(info.annotation)
        if state is not None:
            namespace |= _state_members(name, state, info.description)
            continue
        graphql = _graphql_type(info.annotation, name, model.__name__)
        annotations[name] = graphql
        namespace[name] = strawberry.field(name=name, description=info.description)
    if service:
        for name, (kind, description) in SERVICE_MEMBERS.items():
            annotations[name] = kind
            namespace[name] = strawberry.field(name=name, description=description)
        _SERVED.add(model)
    namespace["__annotations__"] = annotations
    namespace["is_type_of"] = _is_type_of(model.__name__)
    description = inspect.cleandoc(model.__doc__ or "") or None  # as OpenAPI has it
    cls = type(model.__name__, (), namespace)
    _OUTPUTS[model] = strawberry.type(cls, name=model.__name__, description=description)
    return _OUTPUTS[model]


def answer_types(models: Iterable[type[BaseModel]]) -> list[type]:
    """The types of the models a query answers with."""
    return [output_type(m, service=True) for m in models]


def answer_type(models: Iterable[type[BaseModel]], union_name: str) -> Any:
    """The type a query answers with: one served model's type, or a union of them."""
    found = answer_types(models)
    if len(found) == 1:
        return found[0]
    return typing.Annotated[typing.Union[tuple(found)], strawberry.union(union_name)]  # noqa: UP007


def tagged(
    models: Iterable[type[BaseModel]], output: dict[str, Any], key: str, cached: bool
) -> dict[str, Any]:
    """A service answer as the root of its GraphQL type: the output, the service members,
    and (for a union) the model it is an instance of."""
    candidates = list(models)
    model = candidates[0]
    if len(candidates) > 1:
        model = next(m for m in candidates if _fits(m, output))
    return {**output, "canonicalKey": key, "cached": cached, TYPENAME: model.__name__}


def _fits(model: type[BaseModel], output: dict[str, Any]) -> bool:
    """Whether an answer the model built has the model's members: every required one, no
    other (the answer is not validated again: `Result.build`)."""
    names = {info.alias or name: info.is_required() for name, info in model.model_fields.items()}
    required = {name for name, needed in names.items() if needed}
    return required <= output.keys() <= names.keys()


_ENGINE_FIELDS: list[type] = []


def engine_fields() -> type:
    """`Kt2024Fields`: every member of the kt2024 shooting attacker and defender and of a
    fighter, nullable, typed as the inputs type them; a profile's `fields`, an operative's
    `defender` and a rule's `effect` are the members they set."""
    if _ENGINE_FIELDS:
        return _ENGINE_FIELDS[0]
    from schema import registry
    from service.graphql.inputs import member_type

    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {}
    modes = registry.modes("kt2024")
    shoot, fight = modes["shoot"].model, modes["fight"].model
    roles = [
        (shoot, "attacker"),
        (shoot, "defender"),
        (fight, "fighterA"),
    ]
    for model, role in roles:
        role_model = next(
            info.annotation
            for python_name, info in model.model_fields.items()
            if (info.alias or python_name) == role
        )
        for python_name, info in role_model.model_fields.items():
            name = info.alias or python_name
            if name not in annotations:
                annotations[name] = member_type(info, name, "Kt2024Fields", None) | None
                namespace[name] = strawberry.field(name=name, description=info.description)
    namespace["__annotations__"] = annotations
    description = "kt2024 engine members, ready to send as an attacker, defender or fighter"
    cls = type("Kt2024Fields", (), namespace)
    _ENGINE_FIELDS.append(strawberry.type(cls, name="Kt2024Fields", description=description))
    return _ENGINE_FIELDS[0]
