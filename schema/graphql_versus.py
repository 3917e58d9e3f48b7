"""`versus` on the catalog's GraphQL types: a profile or an operative shooting operatives.

`WeaponProfile.versus(operativeIds, situation, options)` answers the profile (ranged) against
each operative; `Operative.versus(...)` each of the operative's ranged profiles against each.
Both load their cells through one DataLoader per request (strawberry's), which gathers every
cell asked at one level of the query — `killTeams { operatives { versus(...) } }` over a
whole team — into one batch: one validation pass in the engine pool and one cache round trip
(`context["service"].versus`, an MGET with Redis). A cell asked twice in a request is
loaded once. A melee profile's `versus` is empty, so one query can walk every profile of a
team: a fight needs both sides' weapons and strategies (`teamMatchup` with `melee`).

(No `from __future__ import annotations`: strawberry reads these annotations itself.)
"""

from typing import Any

import orjson
import strawberry
from strawberry.dataloader import DataLoader
from strawberry.types import Info
from strawberry.types.unset import UNSET

from schema.graphql_inputs import to_body
from schema.graphql_kt2024 import shoot_inputs

_, _, SHOOT_OPTIONS, SITUATION = shoot_inputs()


@strawberry.type(description="One ranged profile shooting one operative (a /v1/shoot)")
class VersusCell:
    weapon_profile: str
    defender: str
    expected_damage: float
    expected_damage_exact: str | None
    kill_probability: float
    kill_probability_exact: str | None
    canonical_key: str
    cached: bool
    ignored_rules: list[str] | None = strawberry.field(
        description='rules the cell was computed without (unknownRules: "IGNORE")'
    )

    @classmethod
    def of(cls, row: dict[str, Any]) -> "VersusCell":
        return cls(
            weapon_profile=row["weaponProfile"],
            defender=row["defender"],
            expected_damage=row["expectedDamage"],
            expected_damage_exact=row.get("expectedDamageExact"),
            kill_probability=row["killProbability"],
            kill_probability_exact=row.get("killProbabilityExact"),
            canonical_key=row["canonicalKey"],
            cached=row["cached"],
            ignored_rules=row.get("ignoredRules"),
        )


def _key(cell: tuple[Any, ...]) -> bytes:
    return orjson.dumps(cell, option=orjson.OPT_SORT_KEYS)


def _loader(info: Info) -> DataLoader:
    """The request's cell loader, made on first use (the context is per request)."""
    context = info.context
    if "versus" not in context:
        context["versus"] = DataLoader(load_fn=context["service"].versus, cache_key_fn=_key)
    return context["versus"]


async def _cells(
    info: Info, profiles: list[tuple[str, str]], operative_ids: list[str], situation, options
) -> list[VersusCell]:
    situation_body = to_body(situation) if situation else {}
    options_body = to_body(options) if options else {}
    cells = [
        (operative_id, profile_id, defender, situation_body, options_body)
        for operative_id, profile_id in profiles
        for defender in operative_ids
    ]
    rows = await _loader(info).load_many(cells)
    return [VersusCell.of(row) for row in rows]


DESCRIPTION = "each ranged profile against each operative (one batch per level; none for melee)"


async def profile_versus(
    root: Any,
    info: Info,
    operative_ids: list[str],
    situation: SITUATION | None = UNSET,
    options: SHOOT_OPTIONS | None = UNSET,
) -> list[VersusCell]:
    if root.type != "ranged":
        return []
    return await _cells(info, [(root.operative_id, root.id)], operative_ids, situation, options)


async def operative_versus(
    root: Any,
    info: Info,
    operative_ids: list[str],
    situation: SITUATION | None = UNSET,
    options: SHOOT_OPTIONS | None = UNSET,
) -> list[VersusCell]:
    profiles = [(root.id, p.id) for w in root.weapons for p in w.profiles if p.type == "ranged"]
    return await _cells(info, profiles, operative_ids, situation, options)
