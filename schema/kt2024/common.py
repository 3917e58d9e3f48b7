"""Pydantic models shared by kt2024 shoot and fight requests (kt2024.md §2, §12).

Request models are derived from the engine's dataclasses (`engine_model`): the engine holds the
one list of members, defaults and enum `Literal`s; this layer adds only the §12 bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, get_args, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic.alias_generators import to_camel

from engine.errors import InputError
from schema.errors import from_validation_error
from schema.fields import Count, RuleRange


class ApiModel(BaseModel):
    """camelCase members, unknown members rejected, JSON types taken strictly."""

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, alias_generator=to_camel, populate_by_name=True
    )


def engine_model(cls: type, limits: Mapping[str, object], doc: str) -> type[ApiModel]:
    """The request model of an engine dataclass: same members, defaults and types, so the
    engine stays the one list of fields; `limits` gives the §12 bound of every integer member
    (a `Count` limit or a `RuleRange`). An integer member without a bound is a programming
    error, caught at import: every count the API takes must be capped."""
    hints = get_type_hints(cls)
    members = {f.name: (limits.get(f.name, hints[f.name]), f.default) for f in fields(cls)}
    unbounded = [
        f.name for f in fields(cls) if f.name not in limits and int in _kinds(hints[f.name])
    ]
    if unbounded:
        raise TypeError(f"{cls.__name__}: integer members without a limit: {unbounded}")
    return create_model(f"{cls.__name__}Model", __base__=ApiModel, __doc__=doc, **members)


def _kinds(annotation: object) -> tuple[object, ...]:
    return get_args(annotation) if get_args(annotation) else (annotation,)


def attack_dice_limits(count: int) -> dict[str, object]:
    """§12 bounds of the attack-dice fields; shooting allows 20 dice, a fight 8."""
    return {
        "attacks": Count(count),
        "hit": RuleRange(2, 6),
        "normal_damage": Count(20),
        "critical_damage": Count(20),
        "lethal": RuleRange(2, 6),
        "accurate": Count(count),
        "auto_crits": Count(count),
        "fails_to_norms": Count(count),
        "norms_to_crits": Count(count),
    }


def check_elite(dice: Any, path: str) -> None:
    """Cross-field rule of §2.2: the two Kasrkin elite options exclude each other."""
    if dice.elite_moderate and dice.elite_extreme:
        raise InputError(
            "INVALID_INPUT",
            f"{path}.eliteExtreme",
            "eliteModerate and eliteExtreme exclude each other",
        )


def validate(model: type[BaseModel], body: Any) -> Any:
    """Validate a request body, turning pydantic errors into §12 errors."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise from_validation_error(exc) from None
