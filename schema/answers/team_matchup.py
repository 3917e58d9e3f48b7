"""The answers of team matchups: `POST /v1/team-matchup` (JSON), GraphQL's `teamMatchup`, and
the catalog types' `versus` cells.

A cell's numbers are rendered through `ShotNumbers` (the grid's `GridSummary` members) or
`FightNumbers` once per canonical key (`service.team_matchup`), as the grid renders its cells'
summaries; the ids around them say where the cell sits. A `...Exact` member (a "p/q" string)
is present when the request asked for exact output, absent (never null) otherwise.

A cell's `canonicalKey` is typed `str` and declared `Omitted`: GraphQL always serves it
(`String!`), and a REST answer leaves it out under `Prefer: return=minimal`, as a shoot's.
"""

from pydantic import Field

from schema.answers.base import IGNORED_RULES, Exact, Omitted, Probability, Result

NO_MELEE = "the defender's melee profile; absent when it has none: fought, it cannot strike back"


class ShotNumbers(Result):
    """What a ranged cell reports of its shooting answer (`Kt2024ShootResult`)."""

    expected_damage: Exact[float]
    kill_probability: Exact[Probability]


class FightNumbers(ShotNumbers):
    """What a melee cell reports of its fight (`Kt2024FightResult`), from the attacker's side:
    the damage it deals and its chance to incapacitate the defender, and what it risks."""

    expected_damage_taken: Exact[float] = Field(description="what the defender deals back")
    attacker_incapacitated_probability: Exact[Probability]


class TeamShotCell(ShotNumbers):
    """One attacking operative's ranged profile against one defender in one situation."""

    attacker: str = Field(description="attacking operative id")
    weapon_profile: str = Field(description="its ranged weapon profile id")
    defender: str = Field(description="defending operative id")
    situation: int = Field(ge=0, description="index into the request's situations")
    canonical_key: str = Omitted("the cell's cache key: that of the same /v1/shoot")
    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


class TeamBestShot(ShotNumbers):
    """The best ranged profile of one attacker against one defender in one situation."""

    attacker: str
    defender: str
    situation: int = Field(ge=0)
    weapon_profile: str
    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


class TeamFightCell(FightNumbers):
    """One attacking operative's melee profile fighting one defender's melee profile."""

    attacker: str
    weapon_profile: str
    defender: str
    defender_weapon_profile: str | None = Omitted(NO_MELEE)
    canonical_key: str = Omitted("the cell's cache key: that of the same /v1/fight")
    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


class TeamBestFight(FightNumbers):
    """The attacker's maximin melee profile and the defender's answer to it."""

    attacker: str
    defender: str
    weapon_profile: str
    defender_weapon_profile: str | None = Omitted(NO_MELEE)
    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


class TeamMelee(Result):
    """The melee cells and the best melee profile of each operative pair."""

    cells: list[TeamFightCell]
    best: list[TeamBestFight]


class TeamOperative(Result):
    """An operative of either side as the catalog names it, so a client can label rows and
    columns without a second request."""

    id: str
    name: str
    kill_team_id: str
    wounds: int = Field(ge=1)


class TeamWeaponProfile(Result):
    """A weapon profile some cell uses, as the catalog names it."""

    id: str
    operative_id: str = Field(description="the operative carrying it")
    weapon: str = Field(description="the weapon's name")
    profile: str = Field(description="the profile's name; empty for a single-profile weapon")
    type: str = Field(description="ranged or melee, as the catalog's weapon profiles say")


class TeamMatchupCells(Result):
    """Every cell, ranged then melee, with the best profile of each operative pair."""

    catalog_version: str
    attackers: list[str] = Field(description="attacking operative ids, in order")
    defenders: list[str] = Field(description="defending operative ids, in order")
    operatives: list[TeamOperative] = Field(
        description="every operative of both sides, once: attackers, then the defenders "
        "not among them"
    )
    weapon_profiles: list[TeamWeaponProfile] = Field(
        description="every weapon profile a cell names, once, in the cells' order"
    )
    situations: list[str] = Field(
        description="the situations' names: a situation given none is `default` when it "
        "overrides nothing, else `situation N` (its 1-based place)"
    )
    cells: list[TeamShotCell]
    best: list[TeamBestShot]
    melee: TeamMelee | None = Omitted("present when the request asked for melee")


class TeamMatchupAnswer(TeamMatchupCells):
    """`POST /v1/team-matchup`'s JSON answer (`Cache-Status` says which cells the cache
    answered). Closed, like every answer schema (`ServiceMembers`)."""


class TeamMatchup(TeamMatchupCells):
    """A team matchup (GraphQL's `teamMatchup`), with how many of its cells the cache answered
    (GraphQL has no `Cache-Status`)."""

    cached_cells: int = Field(ge=0, description="cells answered from the cache")


class VersusCell(ShotNumbers):
    """GraphQL `versus`: one ranged profile shooting one operative (a `/v1/shoot`)."""

    weapon_profile: str
    defender: str
    canonical_key: str
    cached: bool
    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)
