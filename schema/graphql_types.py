"""GraphQL output types of the matchup grid and of a refused matchup.

Every mode's answer type is derived from its answer model (`schema.graphql_outputs`).
"""

from __future__ import annotations

from typing import Any

import strawberry


@strawberry.type(description="A matchup that failed validation (kt2024.md §12)")
class MatchupError:
    code: str
    field: str
    message: str
    limit: int | None = None


@strawberry.type(description="P(damage ≥ k)")
class DamageAtLeast:
    k: int
    probability: float
    exact: str | None = None


@strawberry.type(description="One attacker × defender × situation cell of a grid")
class GridCell:
    attacker: int
    defender: int
    situation: int
    expected_damage: float
    expected_damage_exact: str | None
    kill_probability: float
    kill_probability_exact: str | None
    damage_at_least: list[DamageAtLeast]
    ignored_rules: list[str] | None = strawberry.field(
        default=None,
        description="weapon rules left out under options.unknownRules IGNORE (null otherwise)",
    )

    @classmethod
    def of(cls, row: dict[str, Any]) -> GridCell:
        return cls(
            attacker=row["attacker"],
            defender=row["defender"],
            situation=row["situation"],
            expected_damage=row["expectedDamage"],
            expected_damage_exact=row.get("expectedDamageExact"),
            kill_probability=row["killProbability"],
            kill_probability_exact=row.get("killProbabilityExact"),
            damage_at_least=[DamageAtLeast(**e) for e in row["damageAtLeast"]],
            ignored_rules=row.get("ignoredRules"),
        )


@strawberry.type(description="A matchup grid (cells in attacker, defender, situation order)")
class MatchupGrid:
    at_least: list[int]
    cached_cells: int
    cells: list[GridCell]
