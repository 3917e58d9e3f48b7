"""Catalog cells asked where the catalog stands: GraphQL `WeaponProfile.versus` and
`Operative.versus` (service.graphql.versus).

A cell is one ranged profile of a catalog operative shooting one catalog operative in one
situation with some options: the grid's envelope (`service.grid.envelope`) of catalog
references, so its canonical key, cache entry and numbers are those of the same `/v1/shoot`.
A cell is a plain tuple of ids and the situation and options bodies, as GraphQL gives them.
"""

from __future__ import annotations

from typing import Any

from schema import references
from schema.fields import given
from schema.grid import Situation
from service import grid as grids
from service.compute import Result

# (operative id, weapon profile id, defending operative id, situation body, options body)
Cell = tuple[str, str, str, dict[str, Any], dict[str, Any]]


def envelope(of: Cell) -> dict[str, Any]:
    """The cell's shoot envelope (the situation's members come typed from GraphQL; a member
    given as null is absent: `schema.fields.given`)."""
    operative_id, profile_id, defender_id, situation, options = of
    return grids.envelope(
        {"operativeId": operative_id, "weaponProfileId": profile_id},
        {"operativeId": defender_id},
        given(options),
        Situation.model_validate(given(situation)),
    )


def row(of: Cell, answer: Result) -> dict[str, Any]:
    """A cell's ids, the grid's summary of its answer, its key and whether it was cached."""
    summary = grids.summary(answer.key, answer.output, ())
    row = {
        "weaponProfile": of[1],
        "defender": of[2],
        **{k: v for k, v in summary.items() if k != "damageAtLeast"},
        "canonicalKey": answer.key,
        "cached": answer.cached,
    }
    return references.with_ignored(row, answer.ignored)
