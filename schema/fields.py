"""Annotated field types that encode the two kinds of bound of spec §12.

A *limit* (a count, damage, wounds or rounds maximum) is a tractability cap: exceeding it is
LIMIT_EXCEEDED. A *rule range* (hit 2–6, FNP 4–6, ...) is what the game allows: leaving it is
INVALID_INPUT. Both are expressed as pydantic constraints so the error mapping in
`schema.errors` can tell them apart by the error type alone.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, StrictBool, StrictInt
from pydantic_core import PydanticCustomError

__all__ = ["Count", "RuleRange", "StrictBool", "StrictInt"]


def Count(maximum: int, minimum: int = 0) -> object:
    """An integer in [minimum, maximum]; above the maximum is LIMIT_EXCEEDED (limit = maximum)."""
    return Annotated[StrictInt, Field(ge=minimum, le=maximum)]


def RuleRange(low: int, high: int) -> object:
    """An integer the game rules restrict to [low, high]; outside it is INVALID_INPUT."""

    def check(value: int) -> int:
        if not low <= value <= high:
            raise PydanticCustomError(
                "rule_range", "must be between {low} and {high}", {"low": low, "high": high}
            )
        return value

    return Annotated[StrictInt, AfterValidator(check)]
