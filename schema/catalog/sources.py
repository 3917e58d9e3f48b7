"""A catalog from users' data: BattleScribe game systems, ktdash exports, killteamjson files.

`load_sources("data/bs,data/kt24.json")` reads each comma-separated source with the
importers (`schema.importers.import_path`: a directory is a BattleScribe game system, a
`.json` file a ktdash or killteamjson file of any shape) and builds one `Catalog`. A source
that cannot be read is a `CatalogError` naming it, so the service does not start on half a
catalog; a profile or operative that cannot be used is left out and listed in `problems`
with its source, kind and location, never dropped silently. Profiles whose rules were not
all understood (a kill team's own rules) are kept with those rules listed: a matchup naming
one is refused, or computed without them under `options.unknownRules: "IGNORE"`.

Ids are stable across reloads of the same data, readable, and unique:

* kill team `<slug of its name>`, operative `<kill team>.<slug of its name>`, profile
  `<operative>.<slug of its name>` (`test-troopers.gunner.plasma-rifle-standard`);
* where several share a slug at one level, every one of them gets `-<slug of its source
  id>` appended (the BattleScribe entry id, the ktdash `opTypeId`...), and, lacking
  distinct source ids, its position among them (`-2`): two Kasrkin `Gunner`s become
  `kasrkin.gunner-fb64-98d0-ed26-fc2c` and `kasrkin.gunner-0a1b-...`, whatever their order;
* the version is the first 16 hex digits of the SHA-256 of the catalog's content (every
  kill team, operative and profile as the API shows them), so it changes exactly when what
  a client could read changes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from engine import collector
from schema.catalog.model import Catalog, KillTeam, Operative, Weapon, WeaponProfile
from schema.catalog.provenance import CatalogProblem, Source, digest
from schema.importers.result import ImportedOperative, ImportedProfile, ImportResult, Problem

T = TypeVar("T")
MAX_WOUNDS = 50  # the engine's defender limit (kt2024.md §12)


class SourceError(Exception):
    """A catalog source that cannot be read; the message names it."""


def slug(text: str) -> str:
    """`Gunner (Plasma gun)` → `gunner-plasma-gun`; ASCII, lower case, dashes."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def unique_ids(
    items: Sequence[T], base: Callable[[T], str], source_id: Callable[[T], str]
) -> list[str]:
    """Slugs made unique deterministically: every member of a clash gets its source id's
    slug appended, or its position in the clash where source ids do not tell them apart."""
    bases = [base(i) or "unnamed" for i in items]
    clashes: dict[str, list[int]] = {}
    for n, value in enumerate(bases):
        clashes.setdefault(value, []).append(n)
    ids = list(bases)
    for value, clash in clashes.items():
        if len(clash) < 2:
            continue
        suffixes = [slug(source_id(items[n])) for n in clash]
        if len(set(suffixes)) < len(suffixes) or "" in suffixes:
            suffixes = [str(k + 1) for k in range(len(clash))]
        for n, suffix in zip(clash, suffixes, strict=True):
            ids[n] = f"{value}-{suffix}"
    return ids


def _split_name(profile: ImportedProfile) -> tuple[str, str]:
    """(weapon, profile) names: `Plasma gun (supercharge)` of weapon `Plasma gun`."""
    weapon = profile.weapon.strip()
    name = profile.name.strip()
    if weapon and name.startswith(f"{weapon} (") and name.endswith(")"):
        return weapon, name[len(weapon) + 2 : -1]
    return name, ""


def _weapons(op_id: str, profiles: list[ImportedProfile]) -> tuple[Weapon, ...]:
    ids = unique_ids(profiles, lambda p: slug(p.name), lambda p: p.source_id)
    grouped: dict[tuple[str, str], list[WeaponProfile]] = {}
    for profile, profile_id in zip(profiles, ids, strict=True):
        assert profile.type is not None
        weapon, part = _split_name(profile)
        grouped.setdefault((weapon, profile.type), []).append(
            WeaponProfile.of(
                profile,
                id=f"{op_id}.{profile_id}",
                operative_id=op_id,
                weapon=weapon,
                profile=part,
                kind=profile.type,
            )
        )
    return tuple(Weapon(name, kind, tuple(ps)) for (name, kind), ps in grouped.items())


def _usable(op: ImportedOperative, source: str, problems: list[CatalogProblem]) -> bool:
    if not op.name:
        for p in op.profiles:
            problems.append(
                CatalogProblem(
                    source,
                    Problem(p.where, f"{p.name}: no operative carries this profile", "UNREACHED"),
                )
            )
        return False
    missing = [s for s in ("APL", "MOVE", "SAVE", "WOUNDS") if s not in op.stats]
    if missing or op.stats["WOUNDS"] > MAX_WOUNDS:
        why = f"no {', '.join(missing)}" if missing else f"WOUNDS above {MAX_WOUNDS}"
        problems.append(
            CatalogProblem(
                source,
                Problem(op.where, f"operative {op.name!r} left out: {why}", "UNREADABLE_STATLINE"),
            )
        )
        return False
    return True


def _kill_teams(
    results: list[tuple[str, ImportResult]], problems: list[CatalogProblem]
) -> list[KillTeam]:
    teams: dict[tuple[str, str, str], list[ImportedOperative]] = {}
    for source, result in results:
        for op in result.operatives:
            if _usable(op, source, problems):
                key = (source, op.kill_team.source_id, op.kill_team.name)
                teams.setdefault(key, []).append(op)
    keys = list(teams)
    team_ids = unique_ids(keys, lambda k: slug(k[2]), lambda k: k[1])
    out = []
    for key, team_id in zip(keys, team_ids, strict=True):
        members = teams[key]
        op_ids = unique_ids(members, lambda o: slug(o.name), lambda o: o.source_id)
        operatives = []
        for op, op_slug in zip(members, op_ids, strict=True):
            op_id = f"{team_id}.{op_slug}"
            typed = [p for p in op.profiles if p.type is not None]
            operatives.append(
                Operative(
                    id=op_id,
                    kill_team_id=team_id,
                    name=op.name,
                    keywords=op.keywords,
                    apl=op.stats["APL"],
                    move=op.stats["MOVE"],
                    save=op.stats["SAVE"],
                    wounds=op.stats["WOUNDS"],
                    defensive_rules=(),
                    weapons=_weapons(op_id, typed),
                )
            )
        faction = members[0].kill_team.faction
        out.append(KillTeam(team_id, key[2], faction, key[0], tuple(operatives)))
    return out


def _import(path: str) -> list[ImportResult]:
    from engine.errors import InputError
    from schema.importers import import_path

    where = Path(path)
    if not where.is_dir() and where.suffix.lower() != ".json":
        raise SourceError(
            f"{path}: expected a BattleScribe directory (.gst and .cat files) "
            "or a .json file (ktdash, killteamjson)"
        )
    try:
        return import_path(where)
    except InputError as exc:
        message = exc.message if exc.message.startswith(path) else f"{path}: {exc.message}"
        raise SourceError(message) from None


def paths(spec: str) -> list[str]:
    """The sources of a comma-separated `KILLMATH_CATALOG` value."""
    return [part.strip() for part in spec.split(",") if part.strip()]


def load_sources(spec: str, ruleset: str = "kt2024") -> Catalog:
    """The catalog of every comma-separated source in `spec`. Raises SourceError."""
    if not paths(spec):
        raise SourceError("no catalog source given")
    # every object made lives as long as the catalog: a collection would free nothing (the
    # service freezes what it built at start-up right after)
    with collector.paused():
        return _load(spec, ruleset)


def _load(spec: str, ruleset: str) -> Catalog:
    results: list[tuple[str, ImportResult]] = []
    sources: list[Source] = []
    problems: list[CatalogProblem] = []
    for path in paths(spec):
        for result in _import(path):
            results.append((path, result))
            sources.append(Source(path, result.format, result.name, result.counts().as_json()))
            problems.extend(CatalogProblem(path, p) for p in result.problems)
    teams = _kill_teams(results, problems)
    operatives = {o.id: o for t in teams for o in t.operatives}
    profiles = {p.id: p for o in operatives.values() for p in o.profiles()}
    content = digest(teams)
    return Catalog(
        ruleset,
        content[:16],
        tuple(teams),
        operatives,
        profiles,
        content,
        tuple(sources),
        tuple(problems),
    )
