"""The matchup grid's answer (`POST /v1/grid`, JSON): one summary per cell."""

from __future__ import annotations

from pydantic import Field

from schema.answers.base import IGNORED_RULES, Omitted, Probability, Ratio, Result


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

    expected_damage: float
    expected_damage_exact: Ratio | None = Omitted()
    kill_probability: Probability
    kill_probability_exact: Ratio | None = Omitted()
    damage_at_least: list[DamageAtLeast]


class GridCell(GridSummary, GridPlace):
    """One attacker × defender × situation cell."""

    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


class GridAnswer(Result):
    """Every cell in attacker, defender, situation order, and the k of `damageAtLeast`.
    Tolerates members not declared here, like the other answers."""

    model_config = Result.model_config | {"extra": "allow"}

    at_least: list[int]
    cells: list[GridCell]
    cached_cells: int | None = Omitted("cells answered from the cache")
