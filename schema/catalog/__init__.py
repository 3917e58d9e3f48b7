"""The operative and weapon catalog: versioned data files, validated once, indexed by id.

`catalog()` loads `data/<ruleset>/catalog.json` and the kill-team files it lists on first use
and caches the result for the life of the process; a data error fails loudly at start-up
(`CatalogError`), never in the middle of a request. The engine never imports this package:
references are turned into inline profiles before the engine sees a scenario.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING

from schema.catalog.model import (
    Catalog,
    DefensiveRule,
    KillTeam,
    Operative,
    Weapon,
    WeaponProfile,
)
from schema.catalog.provenance import Source, digest

if TYPE_CHECKING:
    from schema.catalog.files import KillTeamData

__all__ = [
    "Catalog",
    "CatalogError",
    "KillTeam",
    "Operative",
    "WeaponProfile",
    "catalog",
    "install",
    "load_catalog",
]

DATA_DIR = Path(__file__).resolve().parent / "data"


class CatalogError(Exception):
    """A data file is missing, not JSON, or fails validation; the message names the file."""


def _read(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogError(f"{path}: {exc}") from exc


def _kill_team(data: KillTeamData) -> KillTeam:
    operatives = []
    for op in data.operatives:
        op_id = f"{data.id}.{op.id}"
        weapons = []
        for w in op.weapons:
            profiles = tuple(
                WeaponProfile.of(
                    p,
                    id=f"{op_id}.{w.id}" + (f".{p.id}" if len(w.profiles) > 1 else ""),
                    operative_id=op_id,
                    weapon=w.name,
                    profile=p.name,
                    kind=w.type,
                )
                for p in w.profiles
            )
            weapons.append(Weapon(w.name, w.type, profiles))
        operatives.append(
            Operative(
                id=op_id,
                kill_team_id=data.id,
                name=op.name,
                keywords=tuple(op.keywords),
                apl=op.apl,
                move=op.move,
                save=op.save,
                wounds=op.wounds,
                defensive_rules=tuple(
                    DefensiveRule(r.name, r.effect.model_dump(exclude_none=True))
                    for r in op.defensiveRules
                ),
                weapons=tuple(weapons),
            )
        )
    return KillTeam(data.id, data.name, data.faction, data.source, tuple(operatives))


def load_catalog(directory: Path) -> Catalog:
    """Load and validate one ruleset's catalog directory (its `catalog.json` and team files).

    Its file models (`schema.catalog.files`, pydantic) are imported here: `killmath import`
    and the importers take this package's model and stats, never its files."""
    from pydantic import ValidationError

    from schema.catalog.files import KillTeamFile, Manifest

    try:
        manifest = Manifest.model_validate(_read(directory / "catalog.json"))
    except ValidationError as exc:
        raise CatalogError(f"{directory / 'catalog.json'}: {exc}") from exc
    teams: list[KillTeam] = []
    for name in manifest.killTeams:
        path = directory / name
        try:
            file = KillTeamFile.model_validate(_read(path))
        except ValidationError as exc:
            raise CatalogError(f"{path}: {exc}") from exc
        if file.ruleset != manifest.ruleset:
            raise CatalogError(f"{path}: ruleset {file.ruleset!r} != {manifest.ruleset!r}")
        teams.append(_kill_team(file.killTeam))
    if len({t.id for t in teams}) != len(teams):
        raise CatalogError(f"{directory}: kill team ids must be unique")
    operatives = {o.id: o for t in teams for o in t.operatives}
    profiles = {p.id: p for o in operatives.values() for p in o.profiles()}
    source = Source(str(directory.name), "killmath-catalog", f"bundled {manifest.ruleset}",
                    {"profilesFound": len(profiles), "importedClean": len(profiles),
                     "withTeamRules": 0, "problems": 0})  # fmt: skip
    return Catalog(manifest.ruleset, manifest.catalogVersion, tuple(teams), operatives,
                   profiles, digest(teams), (source,))  # fmt: skip


_installed: dict[str, Catalog] = {}


def install(cat: Catalog) -> None:
    """Serve `cat` for its ruleset instead of the bundled catalog, for the process's life
    (the service installs the `KILLMATH_CATALOG` sources once, at start-up)."""
    _installed[cat.ruleset] = cat


def catalog(ruleset: str = "kt2024") -> Catalog:
    """The catalog of a ruleset: the one installed, else the bundled one (loaded once)."""
    return _installed.get(ruleset) or _bundled(ruleset)


@functools.cache
def _bundled(ruleset: str) -> Catalog:
    directory = DATA_DIR / ruleset
    if not ruleset.isalnum() or not (directory / "catalog.json").is_file():
        raise CatalogError(f"no catalog for ruleset {ruleset!r}")
    return load_catalog(directory)
