"""What an import yields, whatever the source format: kill teams' operatives, their weapon
profiles as engine fields, and every problem found — a profile that cannot be read is
reported with where it was, never silently skipped.

Every problem has a `kind`, so a script (and the exit status of `killmath import`) can tell
what was not understood:

* `UNREADABLE_STATLINE` — an ATK, HIT, DMG (or operative) cell that is not a stat; the
  profile is left out;
* `UNKNOWN_RULE` — weapon rules the parser did not understand (a kill team's own rules, a
  typo); the profile is imported with them listed under `unknown`;
* `UNKNOWN_WEAPON_TYPE` — neither the source nor the profile's rules say ranged or melee;
* `UNRESOLVED_LINK` — a BattleScribe link whose target no file of the game system defines;
* `UNREACHED` — a weapon profile no operative carries (imported under no operative);
* `EMPTY` — a document or kill team without operatives.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from schema.catalog import stats
from schema.catalog.model import WeaponType
from schema.weapon_rules import ParsedRules, parse_rules

UNREADABLE_STATLINE = "UNREADABLE_STATLINE"
UNKNOWN_RULE = "UNKNOWN_RULE"
UNKNOWN_WEAPON_TYPE = "UNKNOWN_WEAPON_TYPE"
UNRESOLVED_LINK = "UNRESOLVED_LINK"
UNREACHED = "UNREACHED"
EMPTY = "EMPTY"


@dataclass(frozen=True)
class ImportedProfile:
    name: str
    type: WeaponType | None
    attacks: int
    hit: int
    normal_damage: int
    critical_damage: int
    rules: ParsedRules
    source_id: str = ""  # the source's own id of this profile (BattleScribe, ktdash)
    where: str = ""
    weapon: str = ""  # the weapon this profile is one line of (`Plasma gun`), if named

    def engine_fields(self) -> dict[str, Any]:
        """Attacker fields for a ranged profile, fighter fields for a melee one; a profile of
        unknown type keeps every rule field, since either mode might use it."""
        return stats.engine_fields(self, self.type)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sourceId": self.source_id,
            "type": self.type,
            **stats.datacard(self),
            "fields": self.engine_fields(),
            **{k: v for k, v in self.rules.as_json().items() if k != "fields"},
        }


@dataclass(frozen=True)
class ImportedKillTeam:
    """The kill team an operative belongs to, as the source names it."""

    source_id: str
    name: str
    faction: str = ""


@dataclass(frozen=True)
class ImportedOperative:
    name: str
    stats: dict[str, int] = field(default_factory=dict)  # APL, MOVE, SAVE, WOUNDS as read
    keywords: tuple[str, ...] = ()
    profiles: tuple[ImportedProfile, ...] = ()
    source_id: str = ""
    kill_team: ImportedKillTeam = ImportedKillTeam("", "")
    where: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "sourceId": self.source_id,
            "killTeam": self.kill_team.name,
            **self.stats,
            "keywords": list(self.keywords),
        }
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
    kind: str = UNREADABLE_STATLINE

    def as_json(self) -> dict[str, str]:
        return {"kind": self.kind, "where": self.where, "message": self.message}


@dataclass(frozen=True)
class Counts:
    """Per source, counted over distinct profile definitions (a BattleScribe profile that
    five operatives link is found once): found, imported with every rule understood,
    imported with a kill team's own (marked) rules, and how many problems."""

    found: int
    clean: int
    team_rules: int
    problems: int

    def as_json(self) -> dict[str, int]:
        return {
            "profilesFound": self.found,
            "importedClean": self.clean,
            "withTeamRules": self.team_rules,
            "problems": self.problems,
        }


@dataclass(frozen=True)
class ImportResult:
    format: str
    name: str
    operatives: tuple[ImportedOperative, ...]
    problems: tuple[Problem, ...]
    found: int = 0  # distinct weapon profile definitions in the source

    def counts(self) -> Counts:
        definitions: dict[str, ImportedProfile] = {}
        for op in self.operatives:
            for p in op.profiles:
                definitions.setdefault(p.source_id or p.where, p)
        clean = sum(1 for p in definitions.values() if p.rules.understood)
        team = sum(1 for p in definitions.values() if p.rules.team_rules)
        return Counts(max(self.found, len(definitions)), clean, team, len(self.problems))

    def kinds(self) -> dict[str, int]:
        return dict(sorted(Counter(p.kind for p in self.problems).items()))

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "name": self.name,
            "counts": self.counts().as_json(),
            "problemKinds": self.kinds(),
            "operatives": [o.as_json() for o in self.operatives],
            "problems": [p.as_json() for p in self.problems],
        }


def finish(
    format: str,
    name: str,
    operatives: list[ImportedOperative],
    problems: list[Problem],
    found: int,
) -> ImportResult:
    """The result, with a problem for every profile whose rules or type were not understood
    (once per profile definition, at the first place it was met)."""
    seen: set[str] = set()
    extra: list[Problem] = []
    for op in operatives:
        for p in op.profiles:
            key = p.source_id or p.where
            if key in seen:
                continue
            seen.add(key)
            if p.rules.unknown:
                extra.append(Problem(p.where, f"{p.name}: {_unknown(p.rules)}", UNKNOWN_RULE))
            if p.type is None:
                extra.append(
                    Problem(p.where, f"{p.name}: neither ranged nor melee", UNKNOWN_WEAPON_TYPE)
                )
    if not operatives and all(p.kind != EMPTY for p in problems):
        extra.append(Problem("", "no operatives or weapon profiles found", EMPTY))
    return ImportResult(format, name, tuple(operatives), (*problems, *extra), found)


def _unknown(rules: ParsedRules) -> str:
    """Each rule not understood, with why: a kill team's own rule, a bad value, a typo."""
    reasons = {m.text: m.message for m in rules.malformed}
    team = set(rules.team_rules)
    return "; ".join(
        f"{u!r}: " + ("a kill team's own rule" if u in team else reasons.get(u, "unknown rule"))
        for u in rules.unknown
    )


# rules that act in one mode only (kt2024.md §2.1, §2.2), and the distances only guns have
_RANGED_ONLY = frozenset({"devastating", "piercing", "piercingCrits", "saturate"})
_MELEE_ONLY = frozenset({"brutal", "shock"})
_DISTANCES = ("Range ", "Torrent ", "Blast ")


def kind_from_rules(rules: ParsedRules) -> WeaponType | None:
    """Ranged or melee from what the weapon's rules can only mean: a Range, Torrent or
    Blast, or a rule that acts on defence dice, is a gun's; Brutal or Shock a melee
    weapon's. None when the rules say neither (or both)."""
    ranged = bool(_RANGED_ONLY & rules.fields.keys()) or any(
        t.startswith(_DISTANCES) for t in rules.no_numeric_effect
    )
    melee = bool(_MELEE_ONLY & rules.fields.keys())
    if ranged == melee:
        return None
    return "ranged" if ranged else "melee"


def read_profile(
    name: str,
    kind: WeaponType | None,
    atk: object,
    hit: object,
    dmg: object,
    wr: str | list[str],
    source_id: str = "",
    where: str = "",
    weapon: str = "",
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
    rules = parse_rules(wr)
    kind = kind or kind_from_rules(rules)
    return ImportedProfile(
        name, kind, attacks, threshold, normal, critical, rules, source_id, where, weapon
    )


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
