"""The answer of `POST /v1/team-matchup` (and GraphQL `teamMatchup`), as pydantic models.

The service builds the answer as plain dicts (it is hot: a thousand cells); these models are
its documented shape, copied into `/openapi.json` and checked against real answers by the
tests. A `...Exact` member (a "p/q" string) is present when the request asked for exact output.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Numbers(Answer):
    expectedDamage: float
    expectedDamageExact: str | None = None
    killProbability: float
    killProbabilityExact: str | None = None
    ignoredRules: list[str] | None = Field(
        None, description='rules the cell was computed without (unknownRules: "IGNORE")'
    )


class FightNumbers(Numbers):
    expectedDamageTaken: float = Field(description="what the defender deals back")
    expectedDamageTakenExact: str | None = None
    attackerIncapacitatedProbability: float
    attackerIncapacitatedProbabilityExact: str | None = None


class ShotCell(Numbers):
    """One attacking operative's ranged profile against one defender in one situation."""

    attacker: str = Field(description="attacking operative id")
    weaponProfile: str = Field(description="its ranged weapon profile id")
    defender: str = Field(description="defending operative id")
    situation: int = Field(description="index into the request's situations")
    canonicalKey: str = Field(description="the cell's cache key: that of the same /v1/shoot")


class BestShot(Numbers):
    """The best ranged profile of one attacker against one defender in one situation."""

    attacker: str
    defender: str
    situation: int
    weaponProfile: str


class FightCell(FightNumbers):
    """One attacking operative's melee profile fighting one defender's melee profile."""

    attacker: str
    weaponProfile: str
    defender: str
    defenderWeaponProfile: str
    canonicalKey: str = Field(description="the cell's cache key: that of the same /v1/fight")


class BestFight(FightNumbers):
    """The attacker's maximin melee profile and the defender's answer to it."""

    attacker: str
    defender: str
    weaponProfile: str
    defenderWeaponProfile: str


class MeleeAnswer(Answer):
    cells: list[FightCell]
    best: list[BestFight]


class TeamMatchupAnswer(Answer):
    """Every cell, ranged then melee, with the best profile of each operative pair."""

    catalogVersion: str
    attackers: list[str] = Field(description="attacking operative ids, in order")
    defenders: list[str] = Field(description="defending operative ids, in order")
    situations: list[str | None] = Field(description="the situations' names")
    cells: list[ShotCell]
    best: list[BestShot]
    melee: MeleeAnswer | None = Field(None, description="present when the request asked")
    cachedCells: int = Field(description="cells answered from the cache")


class VersusCell(Numbers):
    """GraphQL `versus`: one ranged profile shooting one operative (a `/v1/shoot`)."""

    weaponProfile: str
    defender: str
    canonicalKey: str
    cached: bool
