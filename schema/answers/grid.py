"""The matchup grid's answers: `POST /v1/grid` (JSON) and GraphQL's `matchupGrid`, one
summary per cell."""

from pydantic import Field

from schema.answers.base import IGNORED_RULES, Exact, Omitted, Probability, Ratio, Result


class DamageAtLeast(Result):
    """P(damage ≥ k)."""

    k: int
    probability: Probability
    exact: Ratio | None = Omitted("the probability as p/q (exact output only)")


class GridPlace(Result):
    """Where a cell sits: the indexes of its attacker, defender and situation."""

    attacker: int = Field(ge=0)
    defender: int = Field(ge=0)
    situation: int = Field(ge=0)


class GridSummary(Result):
    """What a cell reports of its shooting answer (`Kt2024ShootResult`)."""

    expected_damage: Exact[float]
    kill_probability: Exact[Probability]
    damage_at_least: list[DamageAtLeast]


class GridCell(GridSummary, GridPlace):
    """One attacker × defender × situation cell."""

    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


class GridCells(Result):
    """Every cell in attacker, defender, situation order, and the k of `damageAtLeast`."""

    at_least: list[int]
    cells: list[GridCell]


class GridAnswer(GridCells):
    """`POST /v1/grid`'s JSON answer: the cells and the k of `damageAtLeast` (`Cache-Status`
    says which cells the cache answered). Closed, like every answer schema (`ServiceMembers`)."""


class MatchupGrid(GridCells):
    """A matchup grid (GraphQL's `matchupGrid`): cells in attacker, defender, situation
    order, and how many of them the cache answered (GraphQL has no `Cache-Status`)."""

    cached_cells: int = Field(ge=0, description="cells answered from the cache")
