"""Stat-line notation as printed on datacards: `3+`, `4/5`, `6"`, read and written.

Shared by the catalog's data files and the importers, so a value typed from a datacard and a
value imported from a community file are read by the same code, and a catalog profile and an
imported one become engine fields and datacard text the same way.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from schema.weapon_rules import ParsedRules, for_fighting, for_shooting, format_rules

_THRESHOLD = re.compile(r"\s*([2-6])\s*\+?\s*")
_DAMAGE = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
_INCHES = re.compile(r"\s*(\d+)\s*(?:\"|″|”|in(?:ch(?:es)?)?)?\s*")
_COUNT = re.compile(r"\s*(\d+)\s*")


def _text(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"expected text or an integer, got {type(value).__name__}")
    return str(value)


def threshold(value: object) -> int:
    """`3+` (or `3`) → 3: a HIT or SAVE characteristic, 2–6."""
    m = _THRESHOLD.fullmatch(_text(value))
    if m is None:
        raise ValueError(f"expected a roll such as '3+' (2+ to 6+), got {value!r}")
    return int(m.group(1))


def damage(value: object) -> tuple[int, int]:
    """`4/5` → (normal 4, critical 5)."""
    m = _DAMAGE.fullmatch(_text(value))
    if m is None:
        raise ValueError(f"expected damage such as '4/5', got {value!r}")
    return int(m.group(1)), int(m.group(2))


def inches(value: object) -> int:
    """`6"` (or `6`) → 6: a Move characteristic."""
    m = _INCHES.fullmatch(_text(value))
    if m is None:
        raise ValueError(f"expected a distance such as '6\"', got {value!r}")
    return int(m.group(1))


def count(value: object) -> int:
    """`4` or 4 → 4: ATK, APL, wounds."""
    m = _COUNT.fullmatch(_text(value))
    if m is None:
        raise ValueError(f"expected a whole number, got {value!r}")
    return int(m.group(1))


class Statline(Protocol):
    """A weapon profile's numbers and rules: ATK, HIT, DMG normal/critical, WR."""

    attacks: int
    hit: int
    normal_damage: int
    critical_damage: int
    rules: ParsedRules


def engine_fields(line: Statline, kind: str | None) -> dict[str, Any]:
    """A ranged profile's shooting-attacker fields, a melee profile's fighter fields; a profile
    of unknown kind keeps every rule field, since either mode might use it."""
    only = {"ranged": for_shooting, "melee": for_fighting}.get(kind or "", dict)
    return {
        "attacks": line.attacks,
        "hit": line.hit,
        "normalDamage": line.normal_damage,
        "criticalDamage": line.critical_damage,
        **only(line.rules.fields),
    }


def datacard(line: Statline) -> dict[str, Any]:
    """ATK, HIT, DMG and WR as a datacard prints them (`"HIT": "3+"`, `"DMG": "4/5"`)."""
    return {
        "ATK": line.attacks,
        "HIT": f"{line.hit}+",
        "DMG": f"{line.normal_damage}/{line.critical_damage}",
        "WR": format_rules(line.rules.fields, line.rules.no_numeric_effect),
    }
