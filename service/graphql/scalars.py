"""The `Dice` scalar: a dice expression, an integer (`2`) or dice text (`"D3"`, `"2d12+3"`).

GraphQL takes it as written, Int or String literal or JSON value, and the ruleset's own
parser validates it with the rest of the body, so a bad expression is an INVALID_INPUT naming
its field (`weapons.0.damage`) and a too large one LIMIT_EXCEEDED, exactly as over REST. Its
grammar (`SPECIFICATION`) is served at `SPECIFIED_BY`, the scalar's `@specifiedBy` URL, a
path on the server that publishes the schema.
"""

from __future__ import annotations

from typing import Any, NewType

import strawberry
from graphql import IntValueNode, StringValueNode, ValueNode

SPECIFIED_BY = "/graphql/scalars/Dice"

SPECIFICATION = """\
Dice: a dice expression, given as a JSON integer or a string.

kt2018 and kt2013 (attacks, damage, mortal wound amounts; kt2018.md §1.1):
  an integer >= 1, or [k]D3 or [k]D6 with an optional +m: "D3", "2D6", "D6+1", "3".
  Case and surrounding spaces are ignored; at most 4 dice and +6.

threshold (damage, heal amounts; threshold.md §1.1):
  an integer, or a sum and difference of dice and constants: "d12+2", "2d6-1", "1d20".
  Dice of 2, 3, 4, 6, 8, 10, 12 or 20 sides; at most 6 dice, constants up to 100.

Each field's own maximum is checked as a limit (LIMIT_EXCEEDED with `limit`).
"""


def _parse_value(value: Any) -> int | str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError('a dice expression is an integer or a string such as "D3"')
    return value


def _parse_literal(node: ValueNode, variables: Any = None) -> int | str:
    if isinstance(node, IntValueNode):
        return int(node.value)
    if isinstance(node, StringValueNode):
        return node.value
    raise ValueError('a dice expression is an integer or a string such as "D3"')


Dice = NewType("Dice", object)

SCALARS = {
    Dice: strawberry.scalar(
        name="Dice",
        description='A dice expression: an integer (2) or dice text ("D3", "2d12+3")',
        specified_by_url=SPECIFIED_BY,
        serialize=_parse_value,
        parse_value=_parse_value,
        parse_literal=_parse_literal,
    )
}
"""The schema's `scalar_map` (`schema.graphql.CONFIG`)."""
