"""Request models derived from the engines' dataclasses.

Every engine holds the one list of its request members, their defaults and their enum
`Literal`s as frozen dataclasses; `engine_model` turns such a dataclass into the pydantic model
the API validates with, and this layer adds only what the engine cannot know: the bounds of
the specs' Limits sections, camelCase member names, strict JSON types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, fields
from typing import Any, get_args, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.alias_generators import to_camel

from schema.errors import from_validation_error
from schema.fields import StrictModel


class ApiModel(StrictModel):
    """A StrictModel whose members are snake_case in Python and camelCase in JSON."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


def engine_model(
    cls: type,
    limits: Mapping[str, object],
    doc: str,
    *,
    base: type[ApiModel] = ApiModel,
    prefix: str | None = None,
    name: str | None = None,
) -> type[ApiModel]:
    """The request model of an engine dataclass: same members, defaults and types, so the
    engine stays the one list of fields; `limits` gives the bound of every integer member
    (a `Count` limit or a `RuleRange`) or any other replacement type. An integer member
    without a bound is a programming error, caught at import: every count the API takes must
    be capped. `base` may add members the engine does not hold (a union's tag).

    The model is named `name` (the dataclass's name unless given) after the ruleset's
    `prefix` ("Kt2013"), which keeps rulesets whose dataclasses share a name apart in the
    OpenAPI document; without a prefix (kt2024, named first) it is `<name>Model`."""
    hints = get_type_hints(cls)
    members = {f.name: (limits.get(f.name, hints[f.name]), _default(f)) for f in fields(cls)}
    unbounded = [
        f.name for f in fields(cls) if f.name not in limits and int in _kinds(hints[f.name])
    ]
    if unbounded:
        raise TypeError(f"{cls.__name__}: integer members without a limit: {unbounded}")
    own = name or cls.__name__
    model_name = f"{prefix}{own}" if prefix else f"{own}Model"
    return create_model(model_name, __base__=base, __doc__=doc, **members)


def engine_value(cls: type, model: BaseModel, **members: Any) -> Any:
    """The engine dataclass of a validated `engine_model`, its members replaced by `members`
    (nested values the caller converts itself); members the engine lacks are left out."""
    names = {f.name for f in fields(cls)}
    values = {name: getattr(model, name) for name in names if name not in members}
    return cls(**values, **members)


def _default(member: Any) -> Any:
    if member.default is not MISSING:
        return member.default
    if member.default_factory is not MISSING:
        return Field(default_factory=member.default_factory)
    return ...


def _kinds(annotation: object) -> tuple[object, ...]:
    return get_args(annotation) if get_args(annotation) else (annotation,)


def validate(model: type[BaseModel], body: Any) -> Any:
    """Validate a request body, turning pydantic errors into §12 errors."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise from_validation_error(exc) from None
