"""Pydantic models shared by kt2024 shoot and fight requests (kt2024.md §2, §12).

The enums are the engine's own `Literal` types: one list of re-roll modes, not two.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from engine.errors import InputError
from engine.kt2024.scenario import JustAScratch, Reroll, SaintlyRelics
from schema.errors import from_validation_error
from schema.fields import Count, RuleRange


class ApiModel(BaseModel):
    """camelCase members, unknown members rejected, JSON types taken strictly."""

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, alias_generator=to_camel, populate_by_name=True
    )


class AttackDiceModel(ApiModel):
    """The attack-dice fields of §2.1, shared by a shooting attacker and a fighter."""

    attacks: Count(20) = 4
    hit: RuleRange(2, 6) = 3
    normal_damage: Count(20) = 3
    critical_damage: Count(20) = 4
    lethal: RuleRange(2, 6) = 6
    accurate: Count(20) = 0
    auto_crits: Count(20) = 0
    reroll: Reroll = "NONE"
    fails_to_norms: Count(20) = 0
    norms_to_crits: Count(20) = 0
    punishing: bool = False
    rending: bool = False
    severe: bool = False
    close_assault: bool = False
    elite_moderate: bool = False
    elite_extreme: bool = False
    purity_seal: bool = False
    mystic_scry: bool = False
    curse_of_rot: bool = False


def check_elite(dice: AttackDiceModel, path: str) -> None:
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


__all__ = [
    "ApiModel",
    "AttackDiceModel",
    "JustAScratch",
    "Reroll",
    "SaintlyRelics",
    "check_elite",
    "validate",
]
