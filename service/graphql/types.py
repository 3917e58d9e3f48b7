"""GraphQL output types of the matchup grid and of a refused matchup.

Every answer type is derived from its answer model (`service.graphql.outputs`): the grid's
from `schema.answers.grid.MatchupGrid` (its cells, `GridCell`, and their `DamageAtLeast`).
A refused matchup is the §12 error members, which GraphQL's bulk `matchups` returns in the
failed matchup's place.
"""

from __future__ import annotations

import strawberry

from schema.answers.grid import MatchupGrid as MatchupGridModel
from service.graphql.outputs import output_type


@strawberry.type(description="A matchup that failed validation (kt2024.md §12)")
class MatchupError:
    code: str
    field: str
    message: str
    limit: int | None = None


MatchupGrid = output_type(MatchupGridModel)
