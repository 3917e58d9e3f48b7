"""Canonical form and cache key: equivalent requests map to one key.

The key is `"kt2018-v1:<mode>:"` + the canonical scenario as JSON (every field present with
its default, keys sorted, no whitespace, `null` as null). The scenario is the validated engine
value, so labels (weapon `name`) and fields a mode ignores are already gone, and dice
expressions appear in their canonical string form ("1D6+0" and "d6" are both "D6").
Before serialising, these rewrites — each leaves every output unchanged — merge requests
that only differ in inputs without effect:

* `advanced` implies `moved` (§2.1).
* `withinOneInchOfIntervening` counts only with `obscured` (§9 item 8).
* Where no Injury roll can use the obscured modifier and no hit roll sees it (`fight`,
  mortal wounds from `fight`/`other`), `obscured` is dropped; psybolt and mortal wounds have no
  hit roll, so there `obscured` without `withinOneInchOfIntervening` is dropped too.
* Mortal wound sources with the same Injury modifier are merged (`psychic` as `shooting`,
  `fight` as `other`).

Bump `VERSION` whenever a change alters any result, so no stale entry is ever served.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from engine.dice_expr import DiceExpr
from engine.kt2018.scenario import (
    BreakCheck,
    Combat,
    MortalWounds,
    NerveTest,
    Psybolt,
    Target,
)

VERSION = "kt2018-v1"

Scenario = Combat | Psybolt | MortalWounds | NerveTest | BreakCheck


def camel(name: str) -> str:
    """'max_flesh_wounds' -> 'maxFleshWounds'."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def canonical(scenario: Scenario) -> Scenario:
    """The representative of the scenario's equivalence class (the rewrites above)."""
    if isinstance(scenario, Combat):
        attacker = scenario.attacker
        if attacker.advanced:
            attacker = dataclasses.replace(attacker, moved=True)
        obscured_counts = scenario.phase == "shooting"
        target = _shield(scenario.target, obscured_counts, obscured_counts)
        return dataclasses.replace(scenario, attacker=attacker, target=target)
    if isinstance(scenario, MortalWounds):
        source = "shooting" if scenario.source in ("shooting", "psychic") else "other"
        cover_counts = source == "shooting"
        target = _shield(scenario.target, cover_counts, hit_roll=False)
        return dataclasses.replace(scenario, source=source, target=target)
    if isinstance(scenario, Psybolt):
        return dataclasses.replace(
            scenario,
            psyker=_shield(scenario.psyker, cover_counts=False, hit_roll=False),
            target=_shield(scenario.target, cover_counts=True, hit_roll=False),
        )
    return scenario


def _shield(target: Target, cover_counts: bool, hit_roll: bool) -> Target:
    """Drop `obscured`/`withinOneInchOfIntervening` where they cannot change a roll."""
    within = target.within_one_inch_of_intervening and target.obscured and cover_counts
    obscured = target.obscured and (hit_roll or within)
    return dataclasses.replace(target, obscured=obscured, within_one_inch_of_intervening=within)


def to_json(value: Any) -> Any:
    """Dataclasses to objects with camelCase keys, tuples to lists, dice to canonical strings."""
    if isinstance(value, DiceExpr):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {camel(f.name): to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    return value


def cache_key(mode: str, scenario: Scenario, options: Mapping[str, Any]) -> str:
    """`kt2018-v1:<mode>:{...}`; `options` (with defaults filled) is part of the key."""
    body = to_json(canonical(scenario))
    body["options"] = dict(options)
    return f"{VERSION}:{mode}:" + json.dumps(body, sort_keys=True, separators=(",", ":"))
