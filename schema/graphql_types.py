"""GraphQL output types: the §10 output shape with GraphQL's member names (the same names).

kt2024 shoot and fight answers are fully typed. Other rulesets' answers are carried as a JSON
scalar (`RulesetResult.result`): their outputs differ per mode and carry string-valued
distribution values ("outOfAction"), and the JSON is exactly what REST and the CLI return.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON


@strawberry.type(description="One value of a distribution with its probability")
class DistributionEntry:
    value: int
    probability: float
    exact: str | None = None


def entries(dist: list[dict[str, Any]]) -> list[DistributionEntry]:
    return [DistributionEntry(**e) for e in dist]


@strawberry.type(description="kt2024 shooting answer (kt2024.md §10)")
class ShootResult:
    damage_distribution: list[DistributionEntry]
    expected_damage: float
    expected_damage_exact: str | None
    kill_probability: float
    kill_probability_exact: str | None
    kill_probability_by_round: list[float]
    kill_probability_by_round_exact: list[str] | None
    canonical_key: str
    cached: bool
    ignored_rules: list[str] | None = strawberry.field(
        default=None,
        description="weapon rules left out under options.unknownRules IGNORE (null otherwise)",
    )

    @classmethod
    def of(
        cls, output: dict[str, Any], key: str, cached: bool, ignored: Sequence[str] | None = None
    ) -> ShootResult:
        return cls(
            damage_distribution=entries(output["damageDistribution"]),
            expected_damage=output["expectedDamage"],
            expected_damage_exact=output.get("expectedDamageExact"),
            kill_probability=output["killProbability"],
            kill_probability_exact=output.get("killProbabilityExact"),
            kill_probability_by_round=output["killProbabilityByRound"],
            kill_probability_by_round_exact=output.get("killProbabilityByRoundExact"),
            canonical_key=key,
            cached=cached,
            ignored_rules=None if ignored is None else list(ignored),
        )


@strawberry.type(description="One fighter's side of a kt2024 fight (kt2024.md §10)")
class FighterResult:
    remaining_wounds_distribution: list[DistributionEntry]
    incapacitated_probability: float
    incapacitated_probability_exact: str | None
    damage_dealt_distribution: list[DistributionEntry]
    expected_damage_dealt: float
    expected_damage_dealt_exact: str | None

    @classmethod
    def of(cls, side: dict[str, Any]) -> FighterResult:
        return cls(
            remaining_wounds_distribution=entries(side["remainingWoundsDistribution"]),
            incapacitated_probability=side["incapacitatedProbability"],
            incapacitated_probability_exact=side.get("incapacitatedProbabilityExact"),
            damage_dealt_distribution=entries(side["damageDealtDistribution"]),
            expected_damage_dealt=side["expectedDamageDealt"],
            expected_damage_dealt_exact=side.get("expectedDamageDealtExact"),
        )


@strawberry.type(description="kt2024 fight answer (kt2024.md §10)")
class FightResult:
    fighter_a: FighterResult = strawberry.field(name="fighterA")
    fighter_b: FighterResult = strawberry.field(name="fighterB")
    canonical_key: str
    cached: bool
    ignored_rules: list[str] | None = strawberry.field(
        default=None,
        description="weapon rules left out under options.unknownRules IGNORE (null otherwise)",
    )

    @classmethod
    def of(
        cls, output: dict[str, Any], key: str, cached: bool, ignored: Sequence[str] | None = None
    ) -> FightResult:
        return cls(
            fighter_a=FighterResult.of(output["fighterA"]),
            fighter_b=FighterResult.of(output["fighterB"]),
            canonical_key=key,
            cached=cached,
            ignored_rules=None if ignored is None else list(ignored),
        )


@strawberry.type(description="Any ruleset's answer, exactly as REST and the CLI return it")
class RulesetResult:
    result: JSON
    canonical_key: str
    cached: bool


@strawberry.type(description="A matchup that failed validation (kt2024.md §12)")
class MatchupError:
    code: str
    field: str
    message: str
    limit: int | None = None


MatchupResult = Annotated[
    ShootResult | FightResult | RulesetResult | MatchupError, strawberry.union("MatchupResult")
]


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
