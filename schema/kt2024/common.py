"""What kt2024 shoot and fight requests share (kt2024.md §2, §12).

Request models are derived from the engine's dataclasses (`schema.models.engine_model`): the
engine holds the one list of members, defaults and enum `Literal`s; this layer adds only the
§12 bounds.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from engine.errors import InputError
from schema.fields import Count, RuleRange
from schema.models import ApiModel


class RuleOptions(ApiModel):
    """The options member every kt2024 request shares beyond the engine's own. It is read
    (and taken out) by `schema.references.expand_rules` before validation, so it never
    reaches the engine or the canonical key; it is declared here so that REST, OpenAPI and
    GraphQL show it like any other option."""

    unknown_rules: Literal["REFUSE", "IGNORE"] = Field(
        "REFUSE",
        description="weapon rules not understood (a kill team's own, in weaponRules text or "
        "a catalog profile): REFUSE answers INVALID_INPUT naming them; IGNORE computes "
        "without them and lists them in ignoredRules",
    )


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
