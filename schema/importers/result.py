"""What an import yields, whatever the source format: operatives, their weapon profiles as
engine fields, and every problem found — a profile that cannot be read is reported with
where it was, never silently skipped."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from schema.catalog import stats
from schema.weapon_rules import ParsedRules, parse_rules

WeaponType = Literal["ranged", "melee"]


@dataclass(frozen=True)
class ImportedProfile:
    name: str
    type: WeaponType | None
    attacks: int
    hit: int
    normal_damage: int
    critical_damage: int
    rules: ParsedRules

    def engine_fields(self) -> dict[str, Any]:
        """Attacker fields for a ranged profile, fighter fields for a melee one; a profile of
        unknown type keeps every rule field, since either mode might use it."""
        return stats.engine_fields(self, self.type)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            **stats.datacard(self),
            "fields": self.engine_fields(),
            **{k: v for k, v in self.rules.as_json().items() if k != "fields"},
        }


@dataclass(frozen=True)
class ImportedOperative:
    name: str
    stats: dict[str, int] = field(default_factory=dict)  # APL, MOVE, SAVE, WOUNDS as read
    keywords: tuple[str, ...] = ()
    profiles: tuple[ImportedProfile, ...] = ()

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, **self.stats, "keywords": list(self.keywords)}
        if "SAVE" in self.stats and "WOUNDS" in self.stats:
            out["defender"] = {
                "defenceDice": 3,
                "save": self.stats["SAVE"],
                "wounds": self.stats["WOUNDS"],
            }
        out["profiles"] = [p.as_json() for p in self.profiles]
        return out


@dataclass(frozen=True)
class Problem:
    where: str
    message: str

    def as_json(self) -> dict[str, str]:
        return {"where": self.where, "message": self.message}


@dataclass(frozen=True)
class ImportResult:
    format: str
    name: str
    operatives: tuple[ImportedOperative, ...]
    problems: tuple[Problem, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "name": self.name,
            "operatives": [o.as_json() for o in self.operatives],
            "problems": [p.as_json() for p in self.problems],
        }


def read_profile(
    name: str, kind: WeaponType | None, atk: object, hit: object, dmg: object, wr: str | list[str]
) -> ImportedProfile:
    """Build a profile from stat-line cells; raises ValueError naming the bad cell."""
    try:
        attacks = stats.count(atk)
    except ValueError as exc:
        raise ValueError(f"ATK: {exc}") from None
    try:
        threshold = stats.threshold(hit)
    except ValueError as exc:
        raise ValueError(f"HIT: {exc}") from None
    try:
        normal, critical = stats.damage(dmg)
    except ValueError as exc:
        raise ValueError(f"DMG: {exc}") from None
    if attacks > 20 or max(normal, critical) > 20:
        raise ValueError("ATK and DMG above 20 exceed the engine's limits")
    return ImportedProfile(name, kind, attacks, threshold, normal, critical, parse_rules(wr))


def read_stats(cells: dict[str, object], problems: list[Problem], where: str) -> dict[str, int]:
    """APL, MOVE, SAVE, WOUNDS from an operative's cells (any that are present)."""
    readers = {"APL": stats.count, "MOVE": stats.inches, "SAVE": stats.threshold,
               "WOUNDS": stats.count}  # fmt: skip
    out: dict[str, int] = {}
    for name, reader in readers.items():
        if cells.get(name) is None:
            continue
        try:
            out[name] = reader(cells[name])
        except ValueError as exc:
            problems.append(Problem(f"{where}.{name}", str(exc)))
    return out
