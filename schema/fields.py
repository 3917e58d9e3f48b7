"""Annotated field types that encode the two kinds of bound of spec §12, and absent members.

A *limit* (a count, damage, wounds or rounds maximum) is a tractability cap: exceeding it is
LIMIT_EXCEEDED. A *rule range* (hit 2–6, FNP 4–6, ...) is what the game allows: leaving it is
INVALID_INPUT. Both are expressed as pydantic constraints so the error mapping in
`schema.errors` can tell them apart by the error type alone.

*Null means absent* where null stands for the member's default: a REST member declared
`Absent(...)` (its default is null, so the OpenAPI document advertises null and a client may
send it back), and a GraphQL `versus` cell's situation and options members (`given`; GraphQL
types every input member nullable). Elsewhere null is a value where a schema allows it
(kt2018's `save: null`: no save) and refused, naming the member, where it does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    StrictBool,
    StrictInt,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from engine.dice_expr import DiceExpr
from engine.errors import InputError

__all__ = [
    "Absent",
    "Count",
    "Dice",
    "ExactOptions",
    "RuleRange",
    "StrictBool",
    "StrictInt",
    "StrictModel",
    "given",
]


def Absent(annotation: object) -> object:
    """A member that may be left out or sent as null, both absent: None to the engine."""
    return Annotated[annotation | None, Field(default=None)]  # type: ignore[operator]


def given(members: Mapping[str, Any]) -> dict[str, Any]:
    """The members given a value: a member that is null is absent."""
    return {name: value for name, value in members.items() if value is not None}


class StrictModel(BaseModel):
    """A request body: unknown members rejected, JSON types taken strictly (no "3" for 3),
    immutable once validated, so a parsed request can be shared and keyed safely."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ExactOptions(StrictModel):
    """`options` of a ruleset whose only option is exact (rational) output."""

    exact: StrictBool = False


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


class DiceMember:
    """`Annotated` metadata of a member holding a dice expression (`2`, `"D3"`): GraphQL
    types it with the `Dice` scalar (`service.graphql.scalars`), whoever parses it."""


DICE = DiceMember()
DiceText = Annotated[
    Any,
    DICE,
    WithJsonSchema(
        {
            "anyOf": [{"type": "integer"}, {"type": "string", "examples": ["2d12+1", "d6"]}],
            "description": "a dice expression: an integer, or text such as `2d12+1`",
        }
    ),
]
"""A dice expression its mode parses itself (threshold's grammar, `parse_dice`)."""

ROLE = "x-killmath-role"
"""The JSON Schema keyword of a `Role` member, resolved by the OpenAPI document."""


def Role(mode: str, member: str) -> Any:
    """A member holding what a kt2024 `mode` envelope's `member` holds (a grid's attacker
    profile, a situation's defender overrides, the shoot options): a plain object here,
    validated with each cell it makes (`service.grid`), after catalog references are
    expanded. Its JSON Schema names the role, and the OpenAPI document types it as that
    envelope member (`service.openapi.document`), so the contract has one type per role."""
    return Annotated[
        dict[str, Any], WithJsonSchema({"type": "object", ROLE: f"kt2024.{mode}.{member}"})
    ]


Ignored = Annotated[
    Any,
    WithJsonSchema(
        {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "accepted, ignored"}
    ),
]
"""A member a mode accepts for its callers' convenience and does not read."""


@dataclass(frozen=True)
class Choices:
    """`Annotated` metadata of a member whose values are a few of mixed types (`"auto"` or
    2..6): GraphQL types it as the enum `name` of these values (its name → the API value)."""

    name: str
    values: tuple[tuple[str, object], ...]


def Dice(maximum: int) -> object:
    """A DiceExpr field (kt2018 §1.1, also kt2013) whose largest value may be `maximum`.

    Reaching beyond `maximum` is a limit (LIMIT_EXCEEDED).

    Errors are re-raised as pydantic errors so they carry the field's location; an exceeded
    maximum uses pydantic's own `less_than_equal` type, which `schema.errors` maps to
    LIMIT_EXCEEDED with the limit.
    """

    def parse(raw: object) -> DiceExpr:
        try:
            expr = DiceExpr.parse(raw, "")
        except InputError as exc:
            raise PydanticCustomError("dice_expr", exc.message) from None
        if expr.maximum > maximum:
            raise PydanticCustomError(
                "less_than_equal",
                "can reach {reach}; at most {le}",
                {"le": maximum, "reach": expr.maximum},
            )
        return expr

    schema = {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string"}]}
    return Annotated[DiceExpr, PlainValidator(parse), WithJsonSchema(schema), DICE]
