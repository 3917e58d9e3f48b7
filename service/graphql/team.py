"""GraphQL `teamMatchup`: a kill team against another, as `POST /v1/team-matchup` answers it.

The arguments are the REST body's members, typed: each side a `TeamSideInput` (a kill team or
operative ids), the grid's `SituationInput` and shooting options, and `TeamMeleeInput` to ask
for fights. The resolver hands the plain body to the service (`context["service"]`), which
validates, computes and caches exactly as for REST, and whose answer dict is served as is:
the types are derived from the answer models (`schema.answers.team_matchup.TeamMatchup`,
with `cachedCells`) by `service.graphql.outputs`, as the grid's are.

(No `from __future__ import annotations`: strawberry reads these annotations itself.)
"""

import enum
from typing import Any

import strawberry
from strawberry.types import Info
from strawberry.types.unset import UNSET

from schema import registry
from schema.answers import team_matchup as answers
from service.graphql.inputs import input_type, to_body
from service.graphql.kt2024 import RULESET, shoot_inputs
from service.graphql.outputs import output_type


@strawberry.enum(description="the fight strategies a team matchup plays (OPTIMAL is a search)")
class HeuristicStrategy(enum.Enum):
    MAX_DAMAGE = "MAX_DAMAGE"
    MIN_DAMAGE_TO_SELF = "MIN_DAMAGE_TO_SELF"
    STRIKE = "STRIKE"
    PARRY = "PARRY"


@strawberry.input(description="One side: every operative of a kill team, or operatives by id")
class TeamSideInput:
    killTeamId: str | None = UNSET
    operativeIds: list[str] | None = UNSET


_, _, SHOOT_OPTIONS, SITUATION = shoot_inputs()
FIGHT_OPTIONS = input_type(
    registry.modes(RULESET)["fight"].model.model_fields["options"].annotation,
    "Kt2024FightOptions",
)


@strawberry.input(description="Ask for melee: each melee profile against each defender's")
class TeamMeleeInput:
    strategy: HeuristicStrategy | None = UNSET
    defenderStrategy: HeuristicStrategy | None = UNSET
    options: FIGHT_OPTIONS | None = UNSET


TeamMatchup = output_type(answers.TeamMatchup)


@strawberry.type
class TeamMatchupQuery:
    @strawberry.field(description="a kill team against another (`POST /v1/team-matchup`)")
    async def team_matchup(
        self,
        info: Info,
        attackers: TeamSideInput,
        defenders: TeamSideInput,
        situations: list[SITUATION] | None = UNSET,
        options: SHOOT_OPTIONS | None = UNSET,
        melee: TeamMeleeInput | None = UNSET,
    ) -> TeamMatchup:
        body: dict[str, Any] = {"attackers": to_body(attackers), "defenders": to_body(defenders)}
        if situations:
            body["situations"] = [to_body(s) for s in situations]
        if options:
            body["options"] = to_body(options)
        if melee is not UNSET and melee is not None:
            body["melee"] = to_body(melee)
        return await info.context["service"].team_matchup(body)
