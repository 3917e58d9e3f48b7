"""A matchup grid's request: attacker profiles × defender profiles × situations.

The shapes only (`POST /v1/grid`, GraphQL `matchupGrid`, the team matchup's situations); the
cells are validated one by one when the grid is prepared (`service.grid`), since each is a
whole kt2024 shoot.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import Field, StrictInt

from schema.fields import Role, StrictModel

MAX_THRESHOLD = 1000  # no kt2024 shoot can deal more (20 dice x 20 damage + devastating)
Profile = dict[str, Any]
"""A role object as sent, before its cell validates it."""
Attacker = Role("shoot", "attacker")
Defender = Role("shoot", "defender")
ShootOptions = Role("shoot", "options")


class Situation(StrictModel):
    """Overrides laid over every attacker/defender pair (later members win)."""

    name: str | None = None
    attacker: Attacker = Field(default_factory=dict)
    defender: Defender = Field(default_factory=dict)
    options: ShootOptions = Field(default_factory=dict)


class GridRequest(StrictModel):
    """`POST /v1/grid` and GraphQL `matchupGrid`: kt2024 shoot over profile lists."""

    ruleset: Literal["kt2024"] = "kt2024"
    mode: Literal["shoot"] = "shoot"
    attackers: list[Attacker] = Field(min_length=1)
    defenders: list[Defender] = Field(min_length=1)
    situations: list[Situation] = Field(default_factory=lambda: [Situation()], min_length=1)
    options: ShootOptions = Field(default_factory=dict)
    atLeast: list[Annotated[StrictInt, Field(ge=1, le=MAX_THRESHOLD)]] | None = Field(
        None, max_length=100, description="the k of P(damage ≥ k); default 1 … max wounds"
    )

    def cells(self) -> int:
        return len(self.attackers) * len(self.defenders) * len(self.situations)

    def thresholds(self, wounds: Iterable[int]) -> list[int]:
        """The k of P(damage ≥ k): those asked for, else 1 … the largest of the cells'
        defenders' `wounds` (as validated, so catalog operatives and overrides count)."""
        if self.atLeast is not None:
            return sorted(set(self.atLeast))
        top = max(wounds)
        return list(range(1, min(top, MAX_THRESHOLD) + 1))
