"""A team matchup's request: two sides of catalog operatives, situations, melee or not.

The shapes only (`POST /v1/team-matchup`, GraphQL `teamMatchup`); what the cells are, and the
answer, is `service.team_matchup`'s planning.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from schema.fields import Role, StrictModel
from schema.grid import ShootOptions, Situation

FightOptions = Role("fight", "options")
Heuristic = Literal["MAX_DAMAGE", "MIN_DAMAGE_TO_SELF", "STRIKE", "PARRY"]

# options of the request that fights share with shots; the rest are shooting options
SHARED_OPTIONS = ("exact", "unknownRules")


class Side(StrictModel):
    """One side of a team matchup: a whole kill team, or operatives by id."""

    killTeamId: str | None = Field(None, description="every operative of this kill team")
    operativeIds: list[str] | None = Field(
        None, min_length=1, description="these operatives (a repeated id counts once)"
    )

    @model_validator(mode="after")
    def _one_of(self) -> Side:
        if (self.killTeamId is None) == (self.operativeIds is None):
            raise ValueError("give exactly one of killTeamId and operativeIds")
        return self


class Melee(StrictModel):
    """Ask for melee: every melee profile against every defender's melee profiles."""

    strategy: Heuristic = Field("MAX_DAMAGE", description="the attacking fighter's strategy")
    defenderStrategy: Heuristic = Field("MAX_DAMAGE", description="the defending fighter's")
    options: FightOptions = Field(
        default_factory=dict, description="fight options (`firstToAct`, `rounds`)"
    )


class TeamMatchupRequest(StrictModel):
    """`POST /v1/team-matchup` and GraphQL `teamMatchup`: a kill team against another."""

    attackers: Side
    defenders: Side
    situations: list[Situation] = Field(default_factory=lambda: [Situation()], min_length=1)
    options: ShootOptions = Field(default_factory=dict, description="shoot options, as in the grid")
    melee: Melee | None = Field(None, description="also fight, with heuristic strategies")
