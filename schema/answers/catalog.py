"""Catalog answers (`/v1/kill-teams`, `/v1/operatives[/{id}]`, `/v1/weapon-profiles/{id}`,
`/v1/weapon-rules`, `/v1/import`).

The catalog's views (`as_json`) are validated through these models before they are sent, so
a view cannot drift from its declared shape. Datacard characteristics keep the names printed
on a datacard (`ATK`, `HIT`, `DMG`, `WR`, `APL`, `MOVE`, `SAVE`, `WOUNDS`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from schema.answers.base import Omitted, Result
from schema.catalog.model import WeaponType

EngineFields = Annotated[
    dict[str, int | bool | str],
    Field(
        description="kt2024 engine members, ready to send: a shooting `attacker` for a ranged "
        "profile, a fight's `fighterA` for a melee one",
        examples=[{"attacks": 4, "hit": 3, "normalDamage": 3, "criticalDamage": 4, "lethal": 5}],
    ),
]
CATALOG_VERSION = Field(description="the catalog version the ids belong to", examples=["2026.1"])


class MalformedRule(Result):
    """A known weapon rule with a value that cannot be used, and why."""

    text: str
    rule: str
    message: str


class WeaponRulesResult(Result):
    """Weapon-rule text as engine fields: what was understood, what has no effect on one
    matchup, what was not understood (`killmath rules`)."""

    fields: EngineFields
    no_numeric_effect: list[str]
    unknown: list[str]
    malformed: list[MalformedRule]


class Datacard(Result):
    """A weapon profile's line as printed: ATK, HIT "3+", DMG "4/5", WR text."""

    atk: int = Field(alias="ATK")
    hit: str = Field(alias="HIT", examples=["3+"])
    dmg: str = Field(alias="DMG", examples=["4/5"])
    wr: str = Field(alias="WR", examples=["Lethal 5+, Piercing 1"])


class CatalogWeaponProfile(Datacard):
    """One weapon profile of the catalog (a weapon with several profiles has one each)."""

    id: str = Field(examples=["kasrkin.gunner.plasma-gun.supercharge"])
    operative_id: str
    name: str
    weapon: str
    profile: str
    type: WeaponType
    fields: EngineFields
    no_numeric_effect: list[str]
    unknown: list[str] = Field(
        description="rules not understood (a kill team's own): a matchup naming this profile "
        "is refused, or computed without them under `options.unknownRules: IGNORE`"
    )


class CatalogWeapon(Result):
    name: str
    type: WeaponType
    profiles: list[CatalogWeaponProfile]


class DefensiveRule(Result):
    """A defensive rule and the engine defender/fighter members it sets."""

    name: str
    effect: dict[str, int | bool | str]


class CatalogOperative(Result):
    """One operative: datacard characteristics, defensive rules, weapons."""

    id: str = Field(examples=["kasrkin.gunner"])
    kill_team_id: str
    name: str
    keywords: list[str]
    apl: int = Field(alias="APL")
    move: str = Field(alias="MOVE", examples=['6"'])
    save: str = Field(alias="SAVE", examples=["4+"])
    wounds: int = Field(alias="WOUNDS")
    defensive_rules: list[DefensiveRule]
    weapons: list[CatalogWeapon]


class KillTeam(Result):
    id: str
    name: str
    faction: str
    source: str
    operative_ids: list[str]


class KillTeamsResult(Result):
    catalog_version: str = CATALOG_VERSION
    kill_teams: list[KillTeam]


class PageInfo(Result):
    has_next_page: bool
    end_cursor: str | None = Field(description="pass as `after` for the next page; null: none")


class OperativePageResult(Result):
    """A page of operatives in catalog order, with cursor pagination."""

    catalog_version: str = CATALOG_VERSION
    total_count: int = Field(description="operatives matching the filter, on every page")
    operatives: list[CatalogOperative]
    page_info: PageInfo


class OperativeResult(CatalogOperative):
    """`GET /v1/operatives/{id}`."""

    catalog_version: str = CATALOG_VERSION


class WeaponProfileResult(CatalogWeaponProfile):
    """`GET /v1/weapon-profiles/{id}`."""

    catalog_version: str = CATALOG_VERSION


class ImportedProfile(Result):
    """A profile read from the file, as engine fields; `type` null where the file does not
    say ranged or melee."""

    name: str
    type: WeaponType | None
    atk: int = Field(alias="ATK")
    hit: str = Field(alias="HIT")
    dmg: str = Field(alias="DMG")
    wr: str = Field(alias="WR")
    fields: EngineFields
    no_numeric_effect: list[str]
    unknown: list[str]
    malformed: list[MalformedRule]
    source_id: str | None = Omitted("the profile's own id in the source, when it has one")


class ImportedDefender(Result):
    """The operative as a shooting `defender` (kt2024 rolls 3 defence dice)."""

    defence_dice: int
    save: int
    wounds: int


class ImportedOperative(Result):
    """An operative read from the file: the characteristics it gave, keywords, profiles."""

    name: str
    kill_team: str | None = Omitted("the kill team it belongs to, when the file holds several")
    source_id: str | None = Omitted("the operative's own id in the source, when it has one")
    apl: int | None = Omitted(alias="APL", description="APL, when the file gives it")
    move: int | None = Omitted(alias="MOVE", description="MOVE in inches, when the file gives it")
    save: int | None = Omitted(alias="SAVE", description="SAVE (X of X+), when given")
    wounds: int | None = Omitted(alias="WOUNDS", description="WOUNDS, when the file gives it")
    keywords: list[str]
    defender: ImportedDefender | None = Omitted("when the file gives SAVE and WOUNDS")
    profiles: list[ImportedProfile]


ProblemKind = Literal[
    "UNREADABLE_STATLINE",
    "UNKNOWN_RULE",
    "UNKNOWN_WEAPON_TYPE",
    "UNRESOLVED_LINK",
    "UNREACHED",
    "EMPTY",
]


class ImportProblem(Result):
    """Something of the source not understood, where it is, and which kind it is."""

    kind: ProblemKind
    where: str
    message: str


class ProblemKinds(Result):
    """How many problems of each kind (a kind absent: none)."""

    unreadable_statline: int | None = Omitted(alias="UNREADABLE_STATLINE")
    unknown_rule: int | None = Omitted(alias="UNKNOWN_RULE")
    unknown_weapon_type: int | None = Omitted(alias="UNKNOWN_WEAPON_TYPE")
    unresolved_link: int | None = Omitted(alias="UNRESOLVED_LINK")
    unreached: int | None = Omitted(alias="UNREACHED")
    empty: int | None = Omitted(alias="EMPTY")


class ImportCounts(Result):
    profiles_found: int
    imported_clean: int
    with_team_rules: int
    problems: int


class ImportResult(Result):
    """`killmath import`: every operative and profile read, and every problem with where
    it was (a profile that cannot be read is a problem, never skipped silently)."""

    format: str
    name: str
    operatives: list[ImportedOperative]
    counts: ImportCounts
    problem_kinds: ProblemKinds
    problems: list[ImportProblem]


class UploadedSource(ImportResult):
    source: str = Field(description="the uploaded file (or game system) this result is of")


class UploadResult(Result):
    """`POST /v1/import` with several files (multipart/form-data): one result per JSON file
    and per BattleScribe game system, as `killmath import <directory>` prints them."""

    sources: list[UploadedSource]


class CatalogSource(ImportCounts):
    path: str
    format: str
    name: str


class CatalogCounts(Result):
    kill_teams: int
    operatives: int
    weapon_profiles: int
    problems: int


class CatalogProblem(ImportProblem):
    source: str


class CatalogReport(Result):
    """`GET /v1/catalog`: the catalog served, its version (a digest of its content for a
    user catalog), the sources it was read from, counts, and every problem where it is."""

    ruleset: str
    catalog_version: str = CATALOG_VERSION
    digest: str = Field(description="SHA-256 of the catalog's content as the API shows it")
    sources: list[CatalogSource]
    counts: CatalogCounts
    problems: list[CatalogProblem]
