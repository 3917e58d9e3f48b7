"""killteamjson / ktdash-style JSON: kill team → operatives → weapons → profiles.

The community files differ in small ways, all accepted here: operatives under `opTypes`,
`operatives` or `fireteams[].operatives`; names under `opTypeName`/`opname`/`name`, weapons
under `wepName`/`wepname`/`name`; the ranged/melee marker (`wepType`: `R`/`M`) on the weapon
or on each profile; and `WR` either as datacard text (`"Rng 6\\", Lethal 5+"`) or as a list of
rule objects (`{"id": "WR-UNIV-LETHAL", "number": 5}`), which is turned into text first so
both spellings go through the one weapon-rule parser.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schema.importers.result import (
    ImportedOperative,
    ImportedProfile,
    ImportResult,
    Problem,
    WeaponType,
    read_profile,
    read_stats,
)

FORMAT = "ktdash-json"

_TYPES: dict[str, WeaponType] = {"r": "ranged", "ranged": "ranged", "m": "melee", "melee": "melee"}

# the last segment of a rule-object id, when its text is not simply the segment capitalised
_RULE_IDS: dict[str, str] = {
    "PIERCING": "Piercing",
    "RANGE": "Range",
    "TORRENT": "Torrent",
    "BLAST": "Blast",
    "CONCEALED": "Concealed Position",
}
_INCH_RULES = frozenset({"Range", "Torrent", "Blast"})


def _get(obj: Mapping[str, Any], *names: str) -> Any:
    """The first of `names` present, case-insensitively (files disagree on capitals)."""
    lowered = {k.lower(): v for k, v in obj.items()}
    for name in names:
        if name.lower() in lowered:
            return lowered[name.lower()]
    return None


def rule_object_text(rule: Mapping[str, Any]) -> str:
    """`{"id": "WR-UNIV-PIERCING", "number": 1, "details": "Crits"}` → `Piercing Crits 1`."""
    key = str(rule.get("id", "")).rsplit("-", 1)[-1].upper()
    name = _RULE_IDS.get(key, key.capitalize())
    number, details = rule.get("number"), rule.get("details")
    if name == "Heavy" and details:
        return f"Heavy ({details} only)"
    if details:
        name = f"{name} {details}"
    if number is None:
        return name
    suffix = "+" if name == "Lethal" else '"' if name in _INCH_RULES else ""
    return f"{name} {number}{suffix}"


def _rules(wr: Any) -> str | list[str]:
    if wr is None or wr == "-":
        return ""
    if isinstance(wr, str):
        return wr
    if isinstance(wr, list):
        return [rule_object_text(r) if isinstance(r, Mapping) else str(r) for r in wr]
    raise ValueError(f"WR: expected text or a list of rules, got {type(wr).__name__}")


def _kind(*markers: Any) -> WeaponType | None:
    for marker in markers:
        if isinstance(marker, str) and marker.strip().lower() in _TYPES:
            return _TYPES[marker.strip().lower()]
    return None


def _operatives(team: Mapping[str, Any]) -> list[Any]:
    for key in ("opTypes", "operatives"):
        found = _get(team, key)
        if isinstance(found, list):
            return found
    fireteams = _get(team, "fireteams")
    if isinstance(fireteams, list):
        return [op for ft in fireteams if isinstance(ft, Mapping)
                for op in (_get(ft, "operatives", "opTypes") or [])]  # fmt: skip
    return []


def _keywords(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(k.strip() for k in value.split(",") if k.strip())
    if isinstance(value, list):
        return tuple(str(k) for k in value)
    return ()


def _operative(op: Mapping[str, Any], where: str, problems: list[Problem]) -> ImportedOperative:
    name = str(_get(op, "opTypeName", "opname", "name") or "")
    cells = {
        "APL": _get(op, "APL"),
        "MOVE": _get(op, "MOVE", "M"),
        "SAVE": _get(op, "SAVE", "SV"),
        "WOUNDS": _get(op, "WOUNDS", "W"),
    }
    profiles: list[ImportedProfile] = []
    for wi, weapon in enumerate(_get(op, "weapons") or []):
        if not isinstance(weapon, Mapping):
            problems.append(Problem(f"{where}.weapons[{wi}]", "expected an object"))
            continue
        wname = str(_get(weapon, "wepName", "wepname", "name") or "")
        for pi, prof in enumerate(_get(weapon, "profiles") or []):
            at = f"{where}.weapons[{wi}].profiles[{pi}]"
            if not isinstance(prof, Mapping):
                problems.append(Problem(at, "expected an object"))
                continue
            pname = str(_get(prof, "profileName", "name") or "")
            full = f"{wname} ({pname})" if pname and pname != wname else wname
            kind = _kind(_get(prof, "wepType", "weptype", "type"),
                         _get(weapon, "wepType", "weptype", "type"))  # fmt: skip
            try:
                profiles.append(read_profile(
                    full, kind, _get(prof, "ATK"), _get(prof, "HIT"), _get(prof, "DMG"),
                    _rules(_get(prof, "WR")),
                ))  # fmt: skip
            except ValueError as exc:
                problems.append(Problem(at, f"{full or 'profile'}: {exc}"))
    return ImportedOperative(
        name=name,
        stats=read_stats(cells, problems, where),
        keywords=_keywords(_get(op, "keywords")),
        profiles=tuple(profiles),
    )


def import_json(data: Any) -> ImportResult:
    """Import a parsed JSON document: one kill team object, or a list of them."""
    teams = data if isinstance(data, list) else [data]
    problems: list[Problem] = []
    operatives: list[ImportedOperative] = []
    names = []
    for ti, team in enumerate(teams):
        where = f"[{ti}]" if isinstance(data, list) else ""
        if not isinstance(team, Mapping):
            problems.append(Problem(where or "$", "expected a kill team object"))
            continue
        names.append(str(_get(team, "killteamName", "killteamname", "name") or ""))
        ops = _operatives(team)
        if not ops:
            problems.append(Problem(where or "$", "no operatives found (opTypes/operatives)"))
        for oi, op in enumerate(ops):
            at = f"{where}.operatives[{oi}]".lstrip(".")
            if isinstance(op, Mapping):
                operatives.append(_operative(op, at, problems))
            else:
                problems.append(Problem(at, "expected an object"))
    return ImportResult(FORMAT, ", ".join(n for n in names if n), tuple(operatives),
                        tuple(problems))  # fmt: skip
