"""The loaded catalog: kill teams → operatives → weapons → profiles, with stable global ids.

Ids join the slugs of the data files with dots: operative `kasrkin.gunner`, profile
`kasrkin.gunner.plasma-gun.supercharge` (a single-profile weapon's profile id is the weapon's:
`kasrkin.gunner.meltagun`). Dots keep them safe in URL paths. Each object knows how to become
engine fields, which is all the engine ever sees of the catalog.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal

from schema.catalog import stats
from schema.weapon_rules import ParsedRules

WeaponType = Literal["ranged", "melee"]
"""What a weapon profile is for: shooting, or a fight. Declared once: the data files, the
importers and the catalog answers (`schema.answers.catalog`) take it from here."""

# Defensive-rule fields that exist in one mode only (kt2024.md §2.1 defender, §2.2 fighter).
_DEFENDER_ONLY = frozenset({"critSave", "indomitus"})
_FIGHTER_ONLY = frozenset({"halfDamageFirstStrike"})


@dataclass(frozen=True)
class WeaponProfile:
    id: str
    operative_id: str
    weapon: str
    profile: str
    type: WeaponType
    attacks: int
    hit: int
    normal_damage: int
    critical_damage: int
    rules: ParsedRules

    @classmethod
    def of(
        cls,
        line: stats.Statline,
        *,
        id: str,
        operative_id: str,
        weapon: str,
        profile: str,
        kind: WeaponType,
    ) -> WeaponProfile:
        """The profile of a statline, named and placed: the one builder of both loaders, the
        bundled data files' (`files.ProfileData`) and the importers' (`ImportedProfile`)."""
        return cls(id, operative_id, weapon, profile, kind, line.attacks, line.hit,
                   line.normal_damage, line.critical_damage, line.rules)  # fmt: skip

    @property
    def name(self) -> str:
        return f"{self.weapon} ({self.profile})" if self.profile else self.weapon

    def attacker_fields(self) -> dict[str, Any]:
        """The engine fields of this profile: a shooting attacker or a fighter by its type."""
        return stats.engine_fields(self, self.type)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "operativeId": self.operative_id,
            "name": self.name,
            "weapon": self.weapon,
            "profile": self.profile,
            "type": self.type,
            **stats.datacard(self),
            "fields": self.attacker_fields(),
            "noNumericEffect": list(self.rules.no_numeric_effect),
            "unknown": list(self.rules.unknown),
        }


@dataclass(frozen=True)
class Weapon:
    name: str
    type: WeaponType
    profiles: tuple[WeaponProfile, ...]


@dataclass(frozen=True)
class DefensiveRule:
    name: str
    effect: dict[str, Any]


@dataclass(frozen=True)
class Operative:
    id: str
    kill_team_id: str
    name: str
    keywords: tuple[str, ...]
    apl: int
    move: int
    save: int
    wounds: int
    defensive_rules: tuple[DefensiveRule, ...]
    weapons: tuple[Weapon, ...]

    def _effects(self, excluded: frozenset[str]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for rule in self.defensive_rules:
            merged.update({k: v for k, v in rule.effect.items() if k not in excluded})
        return merged

    def defender_fields(self) -> dict[str, Any]:
        """A shooting target: KT2024 always rolls 3 defence dice (seed)."""
        base = {"defenceDice": 3, "save": self.save, "wounds": self.wounds}
        return {**base, **self._effects(_FIGHTER_ONLY)}

    def fighter_fields(self) -> dict[str, Any]:
        """The operative's own part of a fighter (its weapon profile adds the rest)."""
        return {"wounds": self.wounds, **self._effects(_DEFENDER_ONLY)}

    def profiles(self) -> list[WeaponProfile]:
        return [p for w in self.weapons for p in w.profiles]

    def as_json(self) -> dict[str, Any]:
        """The operative's JSON view, built once: the catalog never changes while it is
        served, and a page of operatives was mostly the rendering of its profiles' fields
        (3–5 ms a page of 20). Read only: callers copy it to add members."""
        return self._json

    @functools.cached_property
    def _json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "killTeamId": self.kill_team_id,
            "name": self.name,
            "keywords": list(self.keywords),
            "APL": self.apl,
            "MOVE": f'{self.move}"',
            "SAVE": f"{self.save}+",
            "WOUNDS": self.wounds,
            "defensiveRules": [{"name": r.name, "effect": r.effect} for r in self.defensive_rules],
            "weapons": [
                {
                    "name": w.name,
                    "type": w.type,
                    "profiles": [p.as_json() for p in w.profiles],
                }
                for w in self.weapons
            ],
        }


@dataclass(frozen=True)
class KillTeam:
    id: str
    name: str
    faction: str
    source: str
    operatives: tuple[Operative, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "faction": self.faction,
            "source": self.source,
            "operativeIds": [o.id for o in self.operatives],
        }


@dataclass(frozen=True)
class Catalog:
    """One ruleset's catalog, indexed by id. Built once; never mutated."""

    ruleset: str
    version: str
    kill_teams: tuple[KillTeam, ...]
    operatives: dict[str, Operative]
    profiles: dict[str, WeaponProfile]
    digest: str = ""  # SHA-256 of the content (schema.catalog.sources.digest)
    sources: tuple[Any, ...] = ()  # schema.catalog.sources.Source, one per source read
    problems: tuple[Any, ...] = ()  # schema.catalog.sources.CatalogProblem

    def report(self) -> dict[str, Any]:
        """`GET /v1/catalog`: version, digest, sources, counts and every problem."""
        return {
            "ruleset": self.ruleset,
            "catalogVersion": self.version,
            "digest": self.digest,
            "sources": [s.as_json() for s in self.sources],
            "counts": {
                "killTeams": len(self.kill_teams),
                "operatives": len(self.operatives),
                "weaponProfiles": len(self.profiles),
                "problems": len(self.problems),
            },
            "problems": [p.as_json() for p in self.problems],
        }

    @property
    def key(self) -> str:
        """`kt2024@2026.1`: what a consumer stores to know which catalog it read."""
        return f"{self.ruleset}@{self.version}"
