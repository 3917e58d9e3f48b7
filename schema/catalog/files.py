"""The pydantic shape of the catalog's data files, validated once when the catalog loads.

Data files copy datacards as printed (`"HIT": "3+"`, `"DMG": "4/5"`, `"WR": "Lethal 5+"`) so a
reviewer can proofread them against the card; the validators turn that notation into
integers and reject anything the engine could not use. Ids are lower-case slugs chosen in the
file, never derived from names, so renaming an operative never breaks a stored reference.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from schema.catalog import stats
from schema.catalog.model import WeaponType
from schema.weapon_rules import ParsedRules, parse_rules

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")]
Version = Annotated[str, StringConstraints(pattern=r"^\d{4}\.\d+(?:\.\d+)?$")]


def _damage_in_range(value: tuple[int, int]) -> tuple[int, int]:
    if max(value) > 20:
        raise ValueError("damage above 20 exceeds the engine's limit")
    return value


Count = Annotated[int, BeforeValidator(stats.count)]
Roll = Annotated[int, BeforeValidator(stats.threshold)]
Damage = Annotated[tuple[int, int], BeforeValidator(stats.damage), AfterValidator(_damage_in_range)]
Inches = Annotated[int, BeforeValidator(stats.inches)]


def _unique(ids: list[str], message: str) -> None:
    """Ids are what matchups and clients store: two alike would make one unreachable."""
    if len(set(ids)) != len(ids):
        raise ValueError(message)


class _Data(BaseModel):
    """`defer_build`: a model's validator is built when the catalog first loads, not at
    import: `killmath import` and `rules` import this package for its rule tables and never
    validate a data file (issue 17's start-up)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class ProfileData(_Data):
    """One line of a weapon: `ATK 4 · HIT 3+ · DMG 4/6 · WR Piercing 1`."""

    id: Slug | None = None
    name: str = ""
    attacks: Count = Field(alias="ATK", ge=1, le=20)
    hit: Roll = Field(alias="HIT")
    damage: Damage = Field(alias="DMG")
    wr: str = Field("", alias="WR")

    @field_validator("wr")
    @classmethod
    def _rules_understood(cls, text: str) -> str:
        """A catalog profile must be fully understood, or the numbers built on it would lie."""
        parsed = parse_rules(text)
        if parsed.malformed:
            raise ValueError("; ".join(f"{m.text}: {m.message}" for m in parsed.malformed))
        if parsed.unknown:
            raise ValueError(f"unknown weapon rules {list(parsed.unknown)}")
        return text

    # the `stats.Statline` of the line, as an imported profile has it (`WeaponProfile.of`)
    @property
    def normal_damage(self) -> int:
        return self.damage[0]

    @property
    def critical_damage(self) -> int:
        return self.damage[1]

    @property
    def rules(self) -> ParsedRules:
        return parse_rules(self.wr)


class WeaponData(_Data):
    id: Slug
    name: str
    type: WeaponType
    profiles: list[ProfileData] = Field(min_length=1)

    @model_validator(mode="after")
    def _profile_ids(self) -> WeaponData:
        """A weapon with several profiles (plasma: standard/supercharge) names each one."""
        if len(self.profiles) > 1:
            ids = [p.id for p in self.profiles]
            if None in ids or len(set(ids)) != len(ids):
                raise ValueError("every profile of a multi-profile weapon needs a unique id")
        return self


class DefensiveEffect(_Data):
    """Engine defender/fighter fields a defensive rule sets (kt2024.md §2.1, §2.2).

    Only fields that describe the operative itself belong here; cover, obscured and ploys are
    situational and come with each matchup instead.
    """

    feelNoPain: Annotated[int, Field(ge=4, le=6)] | None = None
    justAScratch: Literal["CRITS", "NORMALS"] | None = None
    saintlyRelics: Literal["ONE_D6", "TWO_D6"] | None = None
    durable: bool | None = None
    critSave: Annotated[int, Field(ge=2, le=6)] | None = None
    indomitus: bool | None = None
    halfDamageFirstStrike: bool | None = None


class DefensiveRuleData(_Data):
    name: str
    effect: DefensiveEffect


class OperativeData(_Data):
    id: Slug
    name: str
    keywords: list[str]
    apl: Count = Field(alias="APL", ge=1, le=6)
    move: Inches = Field(alias="MOVE")
    save: Roll = Field(alias="SAVE")
    wounds: Count = Field(alias="WOUNDS", ge=1, le=50)
    defensiveRules: list[DefensiveRuleData] = []
    weapons: list[WeaponData] = Field(min_length=1)

    @model_validator(mode="after")
    def _weapon_ids(self) -> OperativeData:
        _unique([w.id for w in self.weapons], "weapon ids must be unique within an operative")
        return self


class KillTeamData(_Data):
    id: Slug
    name: str
    faction: str
    source: str
    operatives: list[OperativeData] = Field(min_length=1)

    @model_validator(mode="after")
    def _operative_ids(self) -> KillTeamData:
        ids = [o.id for o in self.operatives]
        _unique(ids, "operative ids must be unique within a kill team")
        return self


class KillTeamFile(_Data):
    ruleset: Literal["kt2024"]
    killTeam: KillTeamData


class Manifest(_Data):
    """`catalog.json`: the catalog version and the kill-team files it is made of, in order."""

    ruleset: Literal["kt2024"]
    catalogVersion: Version
    killTeams: list[str] = Field(min_length=1)
