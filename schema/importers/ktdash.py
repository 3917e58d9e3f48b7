"""The community JSON formats: ktdash and killteamjson, in each shape they come in.

The shape is detected from the document's structure, never guessed (`detect_shape`):

* `ktdash-export` — ktdash's database export (`prisma/seed-data.json`): normalised tables
  `killteams`, `optypes`, `weapons`, `weaponprofiles` joined by ids (`killteamId`,
  `opTypeId`, `wepId`), each ordered by `seq`;
* `killteamjson-factions` — killteamjson's first generation (`kt24.json`): a list of
  factions → `killteams` → `fireteams` → `operatives`, columns `A`/`BS`/`D`/`SR` and
  `M`/`SV`/`W`;
* `ktdash-json` — a kill team object or a list of them, operatives under `opTypes`,
  `operatives` or `fireteams[].operatives` (killteamjson's newer files, ktdash's API),
  columns `ATK`/`HIT`/`DMG`/`WR`.

All three become kill-team objects read by the one operative reader below: names under
`opTypeName`/`opname`/`name`, weapons under `wepName`/`wepname`/`name`, the ranged/melee
marker (`wepType`: `R`/`M`) on the weapon or on each profile, and `WR` either as datacard
text (`"Rng 6\\", Lethal 5+"`) or as a list of rule objects (`{"id": "WR-UNIV-LETHAL",
"number": 5}`), turned into text first so both go through the one weapon-rule parser.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schema.catalog.model import WeaponType
from schema.importers import limits
from schema.importers.result import (
    ImportedKillTeam,
    ImportedOperative,
    ImportedProfile,
    ImportResult,
    Problem,
    finish,
    read_profile,
    read_stats,
)

FORMAT = "ktdash-json"
EXPORT = "ktdash-export"
FACTIONS = "killteamjson-factions"
SHAPES = (FORMAT, EXPORT, FACTIONS)

_EXPORT_TABLES = ("killteams", "optypes", "weapons", "weaponprofiles")
_TEAM_KEYS = ("opTypes", "operatives", "fireteams")

# ktdash's weapon types: R ranged, M melee; P (psychic) weapons are shot like ranged ones
_TYPES: dict[str, WeaponType] = {
    "r": "ranged",
    "ranged": "ranged",
    "p": "ranged",
    "m": "melee",
    "melee": "melee",
}

# the last segment of a rule-object id, when its text is not simply the segment capitalised
_RULE_IDS: dict[str, str] = {
    "PIERCING": "Piercing",
    "RANGE": "Range",
    "TORRENT": "Torrent",
    "BLAST": "Blast",
    "CONCEALED": "Concealed Position",
}
_INCH_RULES = frozenset({"Range", "Torrent", "Blast"})


class UnknownShape(ValueError):
    """A JSON document that is none of the shapes this module reads."""


def _get(obj: Mapping[str, Any], *names: str) -> Any:
    """The first of `names` present, case-insensitively (files disagree on capitals)."""
    lowered = {k.lower(): v for k, v in obj.items()}
    for name in names:
        if name.lower() in lowered:
            return lowered[name.lower()]
    return None


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _has(obj: Any, *names: str) -> bool:
    return isinstance(obj, Mapping) and _get(obj, *names) is not None


def detect_shape(data: Any) -> str:
    """Which of SHAPES `data` is; UnknownShape naming what was expected otherwise."""
    if isinstance(data, Mapping) and all(_has(data, t) for t in _EXPORT_TABLES):
        return EXPORT
    items = data if isinstance(data, list) else [data]
    first = next((i for i in items if isinstance(i, Mapping)), None)
    if first is not None and isinstance(_get(first, "killteams"), list):
        return FACTIONS
    if first is not None and any(_has(first, k) for k in _TEAM_KEYS):
        return FORMAT
    keys = sorted(data)[:8] if isinstance(data, Mapping) else type(data).__name__
    raise UnknownShape(
        "unrecognised JSON shape: expected a ktdash export (an object with the tables "
        f"{', '.join(_EXPORT_TABLES)}), killteamjson factions (a list of factions with "
        "`killteams`), or kill teams with `opTypes`, `operatives` or `fireteams`; "
        f"found {keys}"
    )


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


def _operatives(team: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(location, operative) of a kill team, wherever the file keeps them."""
    for key in ("opTypes", "operatives"):
        found = _get(team, key)
        if isinstance(found, list):
            return [(f"{key}[{i}]", op) for i, op in enumerate(found)]
    fireteams = _get(team, "fireteams")
    if isinstance(fireteams, list):
        # an operative's id is unique within its fireteam only: keep the fireteam's id
        return [
            (
                f"fireteams[{fi}].operatives[{oi}]",
                {"fireteamid": _get(ft, "fireteamid"), **op} if isinstance(op, Mapping) else op,
            )
            for fi, ft in enumerate(fireteams)
            if isinstance(ft, Mapping)
            for oi, op in enumerate(_get(ft, "operatives", "opTypes") or [])
        ]
    return []


def _keywords(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(k.strip() for k in value.split(",") if k.strip())
    if isinstance(value, list):
        return tuple(str(k) for k in value)
    return ()


def _id(*parts: Any) -> str:
    """A source id; parts of a composite id (killteamjson's ids are per parent) joined."""
    return "-".join(_text(p) for p in parts if p not in (None, ""))


def _profiles(
    weapon: Mapping[str, Any], at: str, op_id: str, problems: list[Problem]
) -> list[ImportedProfile]:
    wname = _text(_get(weapon, "wepName", "wepname", "name"))
    wep_id = _text(_get(weapon, "wepId", "wepid"))
    out = []
    for pi, prof in enumerate(_get(weapon, "profiles") or []):
        where = f"{at}.profiles[{pi}]"
        if not isinstance(prof, Mapping):
            problems.append(Problem(where, "expected an object"))
            continue
        pname = _text(_get(prof, "profileName", "name"))
        full = f"{wname} ({pname})" if pname and pname != wname else wname
        own = _get(prof, "profileid", "seq")
        source_id = _text(_get(prof, "wepprofileId")) or (
            _id(op_id, wep_id, pi if own is None else own) if op_id and wep_id else ""
        )
        kind = _kind(
            _get(prof, "wepType", "weptype", "type"), _get(weapon, "wepType", "weptype", "type")
        )
        if source_id:
            where = f"{where} ({source_id})"
        try:
            out.append(
                read_profile(
                    full,
                    kind,
                    _get(prof, "ATK", "A"),
                    _get(prof, "HIT", "BS", "WS"),
                    _get(prof, "DMG", "D"),
                    _rules(_get(prof, "WR", "SR")),
                    source_id,
                    where,
                    wname,
                )
            )
        except ValueError as exc:
            problems.append(Problem(where, f"{full or 'profile'}: {exc}"))
    return out


def _operative(
    op: Mapping[str, Any], where: str, team: ImportedKillTeam, problems: list[Problem]
) -> ImportedOperative:
    name = _text(_get(op, "opTypeName", "opname", "name"))
    own = _get(op, "opid", "opId")
    source_id = _text(_get(op, "opTypeId")) or (
        _id(team.source_id, _get(op, "fireteamid"), own) if own is not None else ""
    )
    cells = {
        "APL": _get(op, "APL"),
        "MOVE": _get(op, "MOVE", "M"),
        "SAVE": _get(op, "SAVE", "SV"),
        "WOUNDS": _get(op, "WOUNDS", "W"),
    }
    profiles: list[ImportedProfile] = []
    for wi, weapon in enumerate(_get(op, "weapons") or []):
        at = f"{where}.weapons[{wi}]"
        if isinstance(weapon, Mapping):
            profiles.extend(_profiles(weapon, at, source_id, problems))
        else:
            problems.append(Problem(at, "expected an object"))
    return ImportedOperative(
        name=name,
        stats=read_stats(cells, problems, where),
        keywords=_keywords(_get(op, "keywords")),
        profiles=tuple(profiles),
        source_id=source_id,
        kill_team=team,
        where=where,
    )


def _by(rows: Any, key: str) -> dict[str, list[dict[str, Any]]]:
    """Rows of a normalised table grouped by a foreign key, each group in `seq` order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, Mapping):
            groups.setdefault(_text(_get(row, key)), []).append(dict(row))
    for group in groups.values():
        group.sort(key=lambda r: _seq(_get(r, "seq")))
    return groups


def _seq(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _joined(
    data: Mapping[str, Any],
    optypes: dict[str, list[dict[str, Any]]],
    weapons: dict[str, list[dict[str, Any]]],
    profiles: dict[str, list[dict[str, Any]]],
) -> int:
    """How many rows the join yields, counted from the groups' sizes without making them.

    With unique ids each row is joined once; rows sharing an id are joined under every
    parent of that id, so a few hundred rows of one id could multiply into millions."""
    per_weapon = {
        key: sum(1 + len(profiles.get(_text(_get(w, "wepId")), [])) for w in group)
        for key, group in weapons.items()
    }
    per_team = {
        key: sum(1 + per_weapon.get(_text(_get(op, "opTypeId")), 0) for op in group)
        for key, group in optypes.items()
    }
    return sum(1 + per_team.get(_text(_get(t, "killteamId")), 0) for t in _export_rows(data))


def _export_rows(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The export's kill-team rows (a `killteams` that is not a list has none)."""
    rows = _get(data, "killteams")
    return [t for t in rows if isinstance(t, Mapping)] if isinstance(rows, list) else []


def _export_teams(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """ktdash's tables joined back into kill-team objects (every row reached by its id).
    Refused over MAX_NODES rows once joined, before joining."""
    profiles = _by(_get(data, "weaponprofiles"), "wepId")
    weapons = _by(_get(data, "weapons"), "opTypeId")
    optypes = _by(_get(data, "optypes"), "killteamId")
    if _joined(data, optypes, weapons, profiles) > limits.MAX_NODES:
        raise limits.exceeded("rows once the tables are joined", limits.MAX_NODES)
    teams = []
    for team in _export_rows(data):
        team_id = _text(_get(team, "killteamId"))
        ops = []
        for op in optypes.get(team_id, []):
            op_weapons = []
            for w in weapons.get(_text(_get(op, "opTypeId")), []):
                op_weapons.append({**w, "profiles": profiles.get(_text(_get(w, "wepId")), [])})
            ops.append({**op, "weapons": op_weapons})
        teams.append({**team, "opTypes": ops})
    return teams


def _orphans(data: Mapping[str, Any], teams: list[dict[str, Any]]) -> list[Problem]:
    """Export rows whose parent id is missing: listed, since no operative carries them."""
    op_ids = {_text(_get(op, "opTypeId")) for t in teams for op in t["opTypes"]}
    wep_ids = {_text(_get(w, "wepId")) for t in teams for op in t["opTypes"] for w in op["weapons"]}
    out = []
    for i, w in enumerate(_get(data, "weapons") or []):
        if isinstance(w, Mapping) and _text(_get(w, "opTypeId")) not in op_ids:
            out.append(
                Problem(
                    f"weapons[{i}]",
                    f"names opTypeId {_get(w, 'opTypeId')!r}, which no optype has",
                    "UNRESOLVED_LINK",
                )
            )
    for i, p in enumerate(_get(data, "weaponprofiles") or []):
        if isinstance(p, Mapping) and _text(_get(p, "wepId")) not in wep_ids:
            out.append(
                Problem(
                    f"weaponprofiles[{i}]",
                    f"names wepId {_get(p, 'wepId')!r}, which no weapon has",
                    "UNRESOLVED_LINK",
                )
            )
    return out


def _count(teams: list[Any]) -> int:
    return sum(
        len(_get(w, "profiles") or [])
        for t in teams
        if isinstance(t, Mapping)
        for _, op in _operatives(t)
        if isinstance(op, Mapping)
        for w in _get(op, "weapons") or []
        if isinstance(w, Mapping)
    )


def _teams(data: Any, shape: str) -> list[Any]:
    """The kill-team objects of a factions or kill-team document."""
    if shape == FACTIONS:
        items = data if isinstance(data, list) else [data]
        return [
            {**t, "factionname": _get(f, "factionname", "factionName")}
            for f in items
            if isinstance(f, Mapping)
            for t in _get(f, "killteams") or []
            if isinstance(t, Mapping)
        ]
    return data if isinstance(data, list) else [data]


def graph_size(data: Any) -> tuple[int, int]:
    """(nodes, edges) of a parsed document: its kill teams, operatives, weapons and
    profiles (an export's rows as joined), each but a team one edge below its parent.
    Raises UnknownShape."""
    shape = detect_shape(data)
    if shape == EXPORT:
        groups = [
            _by(_get(data, table), key)
            for table, key in (("optypes", "killteamId"), ("weapons", "opTypeId"),
                               ("weaponprofiles", "wepId"))
        ]  # fmt: skip
        nodes = _joined(data, *groups)
        return nodes, nodes - len(_export_rows(data))
    teams = [t for t in _teams(data, shape) if isinstance(t, Mapping)]
    below = 0
    for team in teams:
        for _, op in _operatives(team):
            below += 1
            weapons = (_get(op, "weapons") or []) if isinstance(op, Mapping) else []
            for weapon in weapons:
                below += 1
                if isinstance(weapon, Mapping):
                    below += len(_get(weapon, "profiles") or [])
    return len(teams) + below, below


def import_json(data: Any) -> ImportResult:
    """Import a parsed JSON document of any of SHAPES. Raises UnknownShape."""
    shape = detect_shape(data)
    problems: list[Problem] = []
    if shape == EXPORT:
        teams: list[Any] = _export_teams(data)
        problems.extend(_orphans(data, teams))
        found = len(_get(data, "weaponprofiles") or [])
    else:
        teams = _teams(data, shape)
        found = _count(teams)
    operatives: list[ImportedOperative] = []
    names = []
    for ti, team in enumerate(teams):
        where = f"[{ti}]" if len(teams) > 1 or isinstance(data, list) else ""
        if not isinstance(team, Mapping):
            problems.append(Problem(where or "$", "expected a kill team object"))
            continue
        name = _text(_get(team, "killteamName", "killteamname", "name"))
        names.append(name)
        kill_team = ImportedKillTeam(
            _text(_get(team, "killteamId", "killteamid")) or name,
            name,
            _text(_get(team, "factionname", "factionName", "factionId", "factionid")),
        )
        ops = _operatives(team)
        if not ops:
            problems.append(
                Problem(where or "$", "no operatives found (opTypes/operatives)", "EMPTY")
            )
        for at, op in ops:
            at = f"{where}.{at}".lstrip(".")
            if isinstance(op, Mapping):
                operatives.append(_operative(op, at, kill_team, problems))
            else:
                problems.append(Problem(at, "expected an object"))
    label = ", ".join(n for n in names if n)
    return finish(shape, label, operatives, problems, found)
