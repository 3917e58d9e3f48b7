"""Stat-line notation as printed on datacards: `3+`, `4/5`, `6"`.

Shared by the catalog's data files and the importers, so a value typed from a datacard and a
value imported from a community file are read by the same code.
"""

from __future__ import annotations

import re

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
