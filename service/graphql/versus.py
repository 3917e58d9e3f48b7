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

from collections.abc import Callable
from typing import Any

import orjson
from strawberry.dataloader import DataLoader
from strawberry.types import Info
from strawberry.types.unset import UNSET

from schema.answers import team_matchup as answers
from service.graphql.inputs import to_body
from service.graphql.kt2024 import shoot_inputs
from service.graphql.outputs import output_type

_, _, SHOOT_OPTIONS, SITUATION = shoot_inputs()


VersusCell = output_type(answers.VersusCell)


def _key(cell: tuple[Any, ...]) -> bytes:
    return orjson.dumps(cell, option=orjson.OPT_SORT_KEYS)


def _loader(info: Info) -> DataLoader:
    """The request's cell loader, made on first use (the context is per request)."""
    context = info.context
    if "versus" not in context:
        context["versus"] = DataLoader(load_fn=context["service"].versus, cache_key_fn=_key)
    return context["versus"]


def _resolver(profiles: Callable[[Any], list[tuple[str, str]]]) -> Callable[..., Any]:
    """A `versus` resolver over the (operative id, ranged profile id) pairs of its parent."""

    async def versus(
        root: Any,
        info: Info,
        operative_ids: list[str],
        situation: SITUATION | None = UNSET,
        options: SHOOT_OPTIONS | None = UNSET,
    ) -> list[VersusCell]:
        situation_body = to_body(situation) if situation else {}
        options_body = to_body(options) if options else {}
        cells = [
            (operative_id, profile_id, defender, situation_body, options_body)
            for operative_id, profile_id in profiles(root)
            for defender in operative_ids
        ]
        return await _loader(info).load_many(cells)

    return versus


DESCRIPTION = "each ranged profile against each operative (one batch per level; none for melee)"
profile_versus = _resolver(lambda p: [(p.operative_id, p.id)] if p.type == "ranged" else [])
operative_versus = _resolver(
    lambda op: [(op.id, p.id) for w in op.weapons for p in w.profiles if p.type == "ranged"]
)
